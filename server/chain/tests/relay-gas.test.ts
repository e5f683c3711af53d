// Who pays the gas of paying with one signature, on a real anvil, on PGlite (one instance): each
// relay the gas wallet sends is journaled once, balanced, as the merchant's
// sponsored gas on its chain (a retry, or the same relay seen again, writes nothing more); and a
// relay past the cap per payment, past the merchant's cap for the day, or that the gas wallet
// cannot pay for is refused (409 relay_declined naming the cap) before anything is sent: the
// gas wallet's balance and nonce do not move, the signature stays unused, and the payment stays
// payable by transfer. The chain's base fee is 0 here, so every gas is paid at anvil's 1 gwei tip.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, createWalletClient, http, parseUnits, type Address, type Hex } from 'viem';
import { foundry } from 'viem/chains';
import { startService, type Service } from '../../service/app.ts';
import { DEMO_MERCHANT } from '../../service/seed.ts';
import { TestToken } from '../../../contracts/artifacts.generated.ts';
import { devAccount, devNetwork, devRpc, GAS_DEV_ACCOUNT, type DevContracts } from '../../../devchain/deploy.ts';
import type { DevChain } from '../../../devchain/anvil.ts';
import { sharedDevChain } from '../../../devchain/shared.ts';
import { DEV_CHAIN_POWERS } from '../../../devchain/sandbox.ts';
import { GAS_WALLET, NATIVE, sponsoredGasAccount } from '../../balances/ledger-rules.ts';
import { databaseOptions, ONLY_PGLITE } from '../../testing/databases.ts';
import { caller, until } from '../../testing/chain.ts';
import { relayPayments, type Paying } from '../../testing/relay-payments.ts';
import type { Network } from '../networks.ts';
import { EIP3009_ABI, relayCallData } from '../relay-authorization.ts';
import { RELAY_DAY_MS } from '../relay-caps.ts';

const { secretKey } = DEMO_MERCHANT.keys.test;
const owner = { merchant: { id: DEMO_MERCHANT.id }, mode: 'test' } as never;
const gasAccount = devAccount(GAS_DEV_ACCOUNT);
const gasWallet = gasAccount.address;
const ADMIN = 'op_relaygas_' + 'a'.repeat(40);

describe.each(ONLY_PGLITE)('who pays the gas of a relay, on %s', { timeout: 120_000 }, (kind) => {
  let chain: DevChain;
  let contracts: DevContracts;
  let api: Service | undefined;
  let network: Network;
  let shiftMs = 0;

  beforeAll(async () => {
    ({ chain, contracts } = await sharedDevChain());
    // A base fee of 0 stays 0 on blocks this small: each gas costs anvil's tip, 1 gwei.
    await devRpc(chain.url, 'anvil_setNextBlockBaseFeePerGas', ['0x0']);
    await devRpc(chain.url, 'evm_mine');
  }, 60_000);
  afterEach(async () => {
    await api?.close();
    api = undefined;
    shiftMs = 0;
  });
  afterAll(async () => {
    await chain?.stop();
  });

  /** A service on the dev chain (one confirmation, no sweeps: the gas wallet sends relays alone), with these relay settings. */
  async function serve(relay: Partial<Pick<Network, 'relayMaxGasWei' | 'relayDailyGasWei'>> | 'defaults') {
    const { relayMaxGasWei: _max, relayDailyGasWei: _daily, ...dev } = devNetwork(chain.url, contracts, 1);
    network = relay === 'defaults' ? dev : { ...devNetwork(chain.url, contracts, 1), ...relay };
    api = await startService({
      demo: true,
      adminToken: ADMIN,
      networks: { test: network },
      devChain: DEV_CHAIN_POWERS,
      watchIntervalMs: 100,
      webhookRetryMs: 100,
      sweepIntervalMs: 0,
      now: () => Date.now() + shiftMs,
      ...(await databaseOptions(kind)),
    });
    expect((await call('PUT', '/api/v1/payout_address', { chain_id: 31337, address: devAccount(9).address }, secretKey)).status).toBe(200);
  }

  const call = caller(() => api!.url);
  const reader = () => createPublicClient({ chain: foundry, transport: http(chain.url) });
  const mined = (hash: Hex) => reader().waitForTransactionReceipt({ hash, pollingInterval: 50 });
  const gasNonce = () => reader().getTransactionCount({ address: gasWallet });
  const gasBalance = () => reader().getBalance({ address: gasWallet });
  const usdc = () => contracts.tokens.USDC;
  const usdcOf = (who: Address) => reader().readContract({ address: usdc(), abi: TestToken.abi, functionName: 'balanceOf', args: [who] });
  const fieldsOf = (answer: { body: { errors?: Array<{ field: string }> } }) => answer.body.errors?.map((e) => e.field);
  const sponsored = async () => (await api!.parts.journal.entries(DEMO_MERCHANT.id)).filter((e) => e.kind === 'sponsored_gas');
  const metric = async (series: string) => {
    const text = await (await fetch(api!.url + '/metrics', { headers: { authorization: `Bearer ${ADMIN}` } })).text();
    return Number(
      text
        .split('\n')
        .find((line) => line.startsWith(series + ' '))
        ?.split(' ')[1],
    );
  };

  const { signedPayment, relay } = relayPayments({ call, chainUrl: () => chain.url, network: () => network, usdc, funder: devAccount(3) });
  const unused = (p: Paying) =>
    reader().readContract({ address: usdc(), abi: EIP3009_ABI, functionName: 'authorizationState', args: [p.payer.address, p.signed.message.nonce] });
  const feeOf = async (hash: Hex) => {
    const receipt = await reader().getTransactionReceipt({ hash });
    return receipt.gasUsed * receipt.effectiveGasPrice;
  };

  /** Nothing sent, nothing lost: the gas wallet as it was, the signature unused, the customer's USDC and the payment untouched. */
  async function nothingMoved(p: Paying, before: { nonce: number; balance: bigint }) {
    expect(await gasNonce()).toBe(before.nonce);
    expect(await gasBalance()).toBe(before.balance);
    expect(await unused(p)).toBe(false);
    expect(await usdcOf(p.payer.address)).toBe(parseUnits('25', 6));
    expect(await usdcOf(p.address)).toBe(0n);
    expect((await call('GET', `/api/v1/transaction/verify/${p.reference}`)).body.data.status).toBe('pending');
  }

  it("journals each relay's gas once, balanced, from the gas wallet to the merchant's sponsored gas on the chain, across a retried relay and one seen again; the timeline says paid by signature", async () => {
    await serve({});
    const first = await signedPayment(`${kind}-gas-1`);
    const relayed = await relay(first);
    expect(relayed.status, JSON.stringify(relayed.body)).toBe(201);
    const hash = relayed.body.data.txHash as Hex;
    const fee = await feeOf(hash);
    expect(fee).toBeGreaterThan(0n);
    // Retried: the same transaction answered again, nothing sent, nothing journaled again.
    const nonce = await gasNonce();
    const again = await relay(first);
    expect([again.status, again.body.data]).toEqual([200, { chainId: 31337, txHash: hash, relayedByUs: true }]);
    expect(await gasNonce()).toBe(nonce);
    const expense = sponsoredGasAccount(DEMO_MERCHANT.id, 'test');
    expect((await sponsored()).map((e) => [e.ref, e.merchantId, e.postings])).toEqual([
      [
        `31337/${hash.toLowerCase()}`,
        DEMO_MERCHANT.id,
        [
          { account: GAS_WALLET, chainId: 31337, token: NATIVE, amount: -fee },
          { account: expense, chainId: 31337, token: NATIVE, amount: fee },
        ],
      ],
    ]);

    // A relay the gas wallet sent that the service did not write down (it stopped between the
    // two): the same signature again answers it and journals its gas, once.
    const second = await signedPayment(`${kind}-gas-2`);
    const sent = await mined(
      await createWalletClient({ account: gasAccount, chain: foundry, transport: http(chain.url) }).sendTransaction({
        to: usdc(),
        data: relayCallData({ ...second.signed.message, signature: second.signed.signature }),
      }),
    );
    expect(sent.status).toBe('success');
    for (let i = 0; i < 2; i++) {
      const seen = await relay(second);
      expect([seen.status, seen.body.data]).toEqual([200, { chainId: 31337, txHash: sent.transactionHash, relayedByUs: true }]);
    }
    const entries = await sponsored();
    expect(entries.map((e) => e.ref)).toEqual([`31337/${hash.toLowerCase()}`, `31337/${sent.transactionHash.toLowerCase()}`]);
    // Each entry balances; the merchant's sponsored gas is what the two transactions cost, to the wei.
    for (const e of entries) expect(e.postings.reduce((sum, p) => sum + p.amount, 0n)).toBe(0n);
    const both = fee + (await feeOf(sent.transactionHash));
    expect(await api!.parts.journal.sponsoredGasSince(owner, 31337, Date.now() - RELAY_DAY_MS)).toBe(both);
    expect(await api!.parts.journal.sum(api!.db, expense, 31337, NATIVE)).toBe(both);
    // Not the treasury's: what its reconciliation counts of the native coin is only the treasury's own gas (its funding).
    const held = await api!.parts.journal.held(31337, NATIVE);
    expect(held).toEqual({ merchants: 0n, fees: 0n, payable: 0n, gas: held.gas, external: -held.gas });
    // /metrics: the gas the relays cost, as journaled.
    expect(await metric('service_relay_gas_wei_total{chain="31337"}')).toBe(Number(both));

    // The dashboard's timeline: the transfer was paid by signature, relayed in that transaction.
    await until('confirmed', async () => (await call('GET', `/api/v1/transaction/verify/${first.reference}`)).body.data.status === 'confirmed');
    const detail = await call('GET', `/api/v1/payments/${first.reference}`, undefined, secretKey);
    expect(detail.body.data.timeline.filter((s: { kind: string }) => s.kind === 'transfer')).toMatchObject([{ txHash: hash.toLowerCase(), relayed: true }]);
  });

  it('refuses a relay over the cap per payment before any gas is spent: the default cap, at the 1 gwei a gas Ethereum asks', async () => {
    await serve('defaults');
    const p = await signedPayment(`${kind}-gas-cap`);
    const before = { nonce: await gasNonce(), balance: await gasBalance() };
    const refused = await relay(p);
    expect([refused.status, refused.body.code, fieldsOf(refused)]).toEqual([409, 'relay_declined', ['gas.payment_cap']]);
    await nothingMoved(p, before);
    expect(await sponsored()).toEqual([]);
    expect(await metric('service_relay_refusals_total{field="gas.payment_cap"}')).toBe(1);
  });

  it("checks the cap per payment with what the relay may spend (the gas limit it is sent with × its max fee), not the node's estimate", async () => {
    // A relay uses ~93k gas at 1 gwei, and is sent with a gas limit a fifth above the estimate (~111k): a cap between the two refuses it.
    await serve({ relayMaxGasWei: 100_000n * 10n ** 9n });
    const p = await signedPayment(`${kind}-limit-cap`);
    const before = { nonce: await gasNonce(), balance: await gasBalance() };
    const refused = await relay(p);
    expect([refused.status, refused.body.code, fieldsOf(refused)]).toEqual([409, 'relay_declined', ['gas.payment_cap']]);
    await nothingMoved(p, before);
  });

  it("refuses a relay past the merchant's sponsored gas for the day, and takes one again once the day has passed", async () => {
    // Room for one relay (~60-90k gas at 1 gwei), not two.
    await serve({ relayDailyGasWei: 120_000n * 10n ** 9n });
    const first = await signedPayment(`${kind}-day-1`);
    expect((await relay(first)).status).toBe(201);
    const second = await signedPayment(`${kind}-day-2`);
    const before = { nonce: await gasNonce(), balance: await gasBalance() };
    const refused = await relay(second);
    expect([refused.status, refused.body.code, fieldsOf(refused)]).toEqual([409, 'relay_declined', ['gas.daily_cap']]);
    await nothingMoved(second, before);
    expect(await sponsored()).toHaveLength(1);
    expect(await metric('service_relay_refusals_total{field="gas.daily_cap"}')).toBe(1);
    // 24 hours later the first relay no longer counts: the same signature is relayed.
    shiftMs = RELAY_DAY_MS + 60_000;
    const later = await signedPayment(`${kind}-day-3`);
    expect((await relay(later)).status).toBe(201);
    expect(await sponsored()).toHaveLength(2);
  });

  it('refuses a relay the gas wallet cannot pay for, cleanly: nothing sent, the signature unused, and the payment paid by transfer', async () => {
    await serve({});
    const funded = await gasBalance();
    await devRpc(chain.url, 'anvil_setBalance', [gasWallet, '0x3e8']); // 1000 wei
    try {
      const p = await signedPayment(`${kind}-gas-empty`);
      const before = { nonce: await gasNonce(), balance: 1000n };
      const refused = await relay(p);
      expect([refused.status, refused.body.code, fieldsOf(refused)]).toEqual([409, 'relay_declined', ['gas.wallet']]);
      await nothingMoved(p, before);
      expect(await metric('service_relay_refusals_total{field="gas.wallet"}')).toBe(1);
      // The customer pays by transfer instead (with ETH for its gas), and the payment confirms.
      await devRpc(chain.url, 'anvil_setBalance', [p.payer.address, '0xde0b6b3a7640000']);
      const transfer = await mined(
        await createWalletClient({ account: p.payer, chain: foundry, transport: http(chain.url) }).writeContract({
          address: usdc(),
          abi: TestToken.abi,
          functionName: 'transfer',
          args: [p.address, p.due],
        }),
      );
      await until('confirmed', async () => (await call('GET', `/api/v1/transaction/verify/${p.reference}`)).body.data.status === 'confirmed');
      const detail = await call('GET', `/api/v1/payments/${p.reference}`, undefined, secretKey);
      const steps = detail.body.data.timeline.filter((s: { kind: string }) => s.kind === 'transfer');
      expect(steps).toMatchObject([{ txHash: transfer.transactionHash.toLowerCase() }]);
      expect(steps[0]).not.toHaveProperty('relayed');
    } finally {
      await devRpc(chain.url, 'anvil_setBalance', [gasWallet, `0x${funded.toString(16)}`]);
    }
  });
});
