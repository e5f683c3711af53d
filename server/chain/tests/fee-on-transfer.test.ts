// Item 7: a token that takes a fee on transfer its Transfer event does not show
// (contracts/TestToken.sol's setFee: 1 % here), flagged `feeOnTransfer` in the network. A payment
// paid with it is credited what its deposit address's balance gained, not the event's value; on
// balance settlement the sweep loses the fee again, and the deposit is journaled at what the
// treasury gained, so the treasury on chain and the journal agree. On PGlite.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, createWalletClient, erc20Abi, http, parseUnits, type Address } from 'viem';
import { foundry } from 'viem/chains';
import { startService, type Service } from '../../service/app.ts';
import { DEMO_MERCHANT } from '../../service/seed.ts';
import { TestToken } from '../../../contracts/artifacts.generated.ts';
import { deployDevContracts, devAccount, devNetwork, TREASURY_DEV_ACCOUNT } from '../../../devchain/deploy.ts';
import { startDevChain, TEST_BLOCK_SECONDS, type DevChain } from '../../../devchain/anvil.ts';
import { DEV_CHAIN_POWERS } from '../../../devchain/sandbox.ts';
import { databaseOptions, ONLY_PGLITE } from '../../testing/databases.ts';
import { caller, until } from '../../testing/chain.ts';

const { secretKey } = DEMO_MERCHANT.keys.test;
const treasury = devAccount(TREASURY_DEV_ACCOUNT).address;
const FEE_BPS = 100n;
const afterFee = (value: bigint) => value - (value * FEE_BPS) / 10_000n;

describe.each(ONLY_PGLITE)('a fee-on-transfer token, on %s', { timeout: 90_000 }, (kind) => {
  let chain: DevChain;
  let api: Service;
  let usdt: Address;
  const reader = () => createPublicClient({ chain: foundry, transport: http(chain.url) });
  const call = caller(() => api.url);

  beforeAll(async () => {
    chain = await startDevChain({ blockTimeSeconds: TEST_BLOCK_SECONDS });
    const contracts = await deployDevContracts(chain, 3, '1000000');
    usdt = contracts.tokens.USDT;
    // The dev USDT takes 1 % of every transfer from now on; its events still say the full value.
    const issuer = createWalletClient({ account: devAccount(0), chain: foundry, transport: http(chain.url) });
    await reader().waitForTransactionReceipt({
      hash: await issuer.writeContract({ address: usdt, abi: TestToken.abi, functionName: 'setFee', args: [FEE_BPS] }),
      pollingInterval: 50,
    });
    const network = devNetwork(chain.url, contracts, 2);
    network.tokens = network.tokens.map((t) => (t.symbol === 'USDT' ? { ...t, feeOnTransfer: true } : t));
    api = await startService({
      demo: true,
      networks: { test: network },
      devChain: DEV_CHAIN_POWERS,
      watchIntervalMs: 100,
      sweepIntervalMs: 300,
      jobIntervalMs: 200,
      ...(await databaseOptions(kind)),
    });
  }, 120_000);
  afterAll(async () => {
    await api?.close();
    await chain?.stop();
  });

  it('credits what the deposit gained, and journals what the treasury gained: the two reconcile after the sweep', async () => {
    expect((await call('PUT', '/api/v1/settlement', { settlement: 'balance' }, secretKey)).status).toBe(200);
    const created = await call('POST', '/api/v1/transaction/initialize', { reference: 'fot-1', coin: 'USDT', currency: 'USD', amount: 10 });
    expect(created.status).toBe(201);
    const address = created.body.data.address as Address;
    const said = parseUnits(String(created.body.data.cryptoAmount), 18);
    // The customer sends exactly what is due; the deposit gets 1 % less.
    const customer = createWalletClient({ account: devAccount(1), chain: foundry, transport: http(chain.url) });
    const paid = await reader().waitForTransactionReceipt({
      hash: await customer.writeContract({ address: usdt, abi: erc20Abi, functionName: 'transfer', args: [address, said] }),
      pollingInterval: 50,
    });
    const gained = afterFee(said);
    // (At its block: by now it may be swept already.)
    expect(await reader().readContract({ address: usdt, abi: erc20Abi, functionName: 'balanceOf', args: [address], blockNumber: paid.blockNumber })).toBe(
      gained,
    );

    // Credited the balance's gain: less than due, so the payment is not paid (the event alone would say it is).
    const [transfer] = await until('recorded', async () => {
      const rows = (await api.parts.chain.transfers(31337)).filter((t) => t.recipient === address.toLowerCase() && t.state === 'credited');
      return rows.length ? rows : false;
    });
    expect(transfer!.amount).toBe(gained);
    const [payment] = await api.db.query(`SELECT paid::text AS paid FROM payments WHERE reference = 'fot-1'`);
    expect(BigInt(payment!.paid as string)).toBe(gained);
    expect((await call('GET', '/api/v1/transaction/verify/fot-1', undefined, secretKey)).body.data.status).not.toBe('confirmed');

    // Swept: the treasury gets 1 % less again, and that is what the merchant's balance says.
    const inTreasury = afterFee(gained);
    await until(
      'swept into the treasury',
      async () => (await reader().readContract({ address: usdt, abi: erc20Abi, functionName: 'balanceOf', args: [treasury] })) === inTreasury,
    );
    await until('journaled', async () => {
      const lines = (await call('GET', '/api/v1/balances', undefined, secretKey)).body.data as Array<{ coin: string; available: string }>;
      return lines.find((l) => l.coin === 'USDT' && l.available !== '0');
    });
    const held = await api.parts.journal.held(31337, usdt);
    expect(held.merchants + held.fees + held.payable).toBe(inTreasury);
    expect(-held.external).toBe(inTreasury);
    for (const s of await api.parts.journal.journalSums()) expect(s.sum).toBe(0n);
    console.log(`fee-on-transfer (${kind}): event ${said}, credited ${gained}, journaled and in the treasury ${inTreasury}`);
  });
});
