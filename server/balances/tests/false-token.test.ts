// Finding 4: a token that answers `false` instead of reverting (contracts/FalseToken.sol),
// on the dev chain, on PGlite. Its transfer's transaction succeeds and moves
// nothing; before, the treasury trusted the receipt's status and counted the withdrawal
// `completed` (the merchant's balance debited, the wallet holding 0). Now a send is done only when
// its receipt logs the token moving the amount to the destination: else it fails, its journal
// entry returns the money (amount and fee) to the balance, and the merchant is told by the
// send's own event (WITHDRAWAL_UPDATED for a withdrawal, REFUND_UPDATED for a refund).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, createWalletClient, http, parseUnits, type Address } from 'viem';
import { foundry } from 'viem/chains';
import { startService, type Service } from '../../service/app.ts';
import { treasuryJobs } from '../treasury-job.ts';
import type { JobDeps } from '../../jobs/index.ts';
import { createLogger } from '../../service/log.ts';
import { DEMO_MERCHANT } from '../../service/seed.ts';
import { FalseToken } from '../../../contracts/artifacts.generated.ts';
import { devAccount, devNetwork, TREASURY_DEV_ACCOUNT, type DevContracts } from '../../../devchain/deploy.ts';
import type { DevChain } from '../../../devchain/anvil.ts';
import { sharedDevChain } from '../../../devchain/shared.ts';
import { DEV_CHAIN_POWERS } from '../../../devchain/sandbox.ts';
import { databaseOptions, ONLY_PGLITE } from '../../testing/databases.ts';
import { caller, sweptIntoBalance, toldStatuses, treasuryStores, until } from '../../testing/chain.ts';

/** Who pays a deposit in, and who sweeps it, in sweptIntoBalance. */
const DEV_ACCOUNTS = { payer: devAccount(1), gas: devAccount(6) };

const { secretKey } = DEMO_MERCHANT.keys.test;
const owner = { merchant: DEMO_MERCHANT, mode: 'test' } as never;
const treasuryAddress = devAccount(TREASURY_DEV_ACCOUNT).address;
const customer = devAccount(5).address;
const wallet = devAccount(4).address;
const dai = (text: string) => parseUnits(text, 18);

describe.each(ONLY_PGLITE)('a token that answers false, on %s', { timeout: 120_000 }, (kind) => {
  let chain: DevChain;
  let contracts: DevContracts;
  let api: Service;
  beforeAll(async () => {
    ({ chain, contracts } = await sharedDevChain());
  }, 60_000);
  afterAll(async () => {
    await api?.close();
    await chain?.stop();
  });
  const reader = () => createPublicClient({ chain: foundry, transport: http(chain.url) });
  const call = caller(() => api.url);
  const server = (method: string, path: string, body?: unknown) => call(method, path, body, secretKey);
  const told = (type: string, id: string) => toldStatuses(api, type, id);

  it("fails the withdrawal and the refund it did not move, returns their money and tells the merchant by each one's event", async () => {
    // The false-answering token stands in for the dev chain's DAI (18 decimals).
    const deployer = createWalletClient({ account: devAccount(0), chain: foundry, transport: http(chain.url) });
    const deployed = await reader().waitForTransactionReceipt({
      hash: await deployer.deployContract({ abi: FalseToken.abi, bytecode: FalseToken.bytecode, args: ['Dai', 'DAI', 18] }),
      pollingInterval: 50,
    });
    const token = deployed.contractAddress!;
    const balanceOf = (who: Address) => reader().readContract({ address: token, abi: FalseToken.abi, functionName: 'balanceOf', args: [who] });
    const dev = devNetwork(chain.url, contracts, 1);
    const network = { ...dev, tokens: dev.tokens.map((t) => (t.symbol === 'DAI' ? { ...t, address: token } : t)) };
    api = await startService({ demo: true, networks: { test: network }, devChain: DEV_CHAIN_POWERS, jobs: false, ...(await databaseOptions(kind)) });
    expect((await server('PUT', '/api/v1/settlement', { settlement: 'balance' })).status).toBe(200);

    // 10 DAI paid and swept into the treasury while the token still moves.
    const payer = createWalletClient({ account: devAccount(1), chain: foundry, transport: http(chain.url) });
    await reader().waitForTransactionReceipt({
      hash: await payer.writeContract({ address: token, abi: FalseToken.abi, functionName: 'mint', args: [devAccount(1).address, dai('100')] }),
      pollingInterval: 50,
    });
    const made = await call('POST', '/api/v1/transaction/initialize', { reference: 'false-token', coin: 'DAI', currency: 'USD', amount: 10 }, secretKey);
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(await sweptIntoBalance(api, network, token, made.body.data.address as Address, dai('10'), DEV_ACCOUNTS)).toMatchObject({ swept: 1, final: 1 });
    expect(await balanceOf(treasuryAddress)).toBe(dai('10'));
    const balance = async () => (await api.parts.journal.balances(owner, Date.now())).find((b) => b.token === token.toLowerCase())!;
    expect(await balance()).toMatchObject({ available: dai('10'), reserved: 0n });

    // Then the token starts answering false, and a withdrawal and a refund are asked for.
    await reader().waitForTransactionReceipt({
      hash: await payer.writeContract({ address: token, abi: FalseToken.abi, functionName: 'refuse', args: [true] }),
      pollingInterval: 50,
    });
    const withdrawal = await server('POST', '/api/v1/withdrawals', { coin: 'DAI', chain_id: 31337, address: wallet, amount: '2' });
    expect(withdrawal.status, JSON.stringify(withdrawal.body)).toBe(201);
    const refund = await server('POST', '/api/v1/refunds', { reference: 'false-token', amount: '3', reason: 'three back', address: customer });
    expect(refund.status, JSON.stringify(refund.body)).toBe(201);
    expect(await balance()).toMatchObject({ available: dai('5'), reserved: dai('5') });

    const jobs = treasuryJobs({
      db: api.db,
      ...treasuryStores(api),
      treasuries: [api.parts.treasury('test', 31337)!],
      log: createLogger('silent'),
      instance: 'false',
      now: Date.now,
      intervalMs: 100,
      sweepIntervalMs: 0,
    } as unknown as JobDeps);
    for (const job of jobs) job.start();
    let w: any;
    let r: any;
    try {
      await until(
        'both sends decided',
        async () => {
          w = (await server('GET', `/api/v1/withdrawals/${withdrawal.body.data.id}`)).body.data;
          r = (await server('GET', `/api/v1/refunds/${refund.body.data.id}`)).body.data;
          return w.status !== 'pending' && (r.status === 'confirmed' || r.status === 'failed');
        },
        40_000,
        100,
      );
    } finally {
      await Promise.all(jobs.map((job) => job.stop()));
    }
    // Mined and successful on chain, nothing moved: failed, each told by its own event.
    for (const hash of [w.tx_hash, r.tx_hash]) expect((await reader().getTransactionReceipt({ hash })).status).toBe('success');
    expect(await balanceOf(wallet)).toBe(0n);
    expect(await balanceOf(customer)).toBe(0n);
    expect(w).toMatchObject({ status: 'failed', failure: expect.stringMatching(/did not move the amount/) });
    expect(r).toMatchObject({ status: 'failed', failure: expect.stringMatching(/did not move the amount/) });
    expect(await told('WITHDRAWAL_UPDATED', w.id)).toEqual(['pending', 'failed']);
    expect(await told('REFUND_UPDATED', r.id)).toEqual(['ready', 'sent', 'failed']);
    // Their journal entries reversed: the money back in the balance, the treasury equal to the journal.
    for (const id of [w.id, r.id]) {
      const kinds = (await api.db.query<{ kind: string }>(`SELECT kind FROM journal_entries WHERE ref = $1 ORDER BY id`, [id])).map((e) => e.kind);
      expect(kinds).toEqual(['withdrawal_reserved', 'withdrawal_returned']);
    }
    expect(await balance()).toMatchObject({ available: dai('10'), reserved: 0n });
    const held = await api.parts.journal.held(31337, token);
    expect(held.merchants + held.fees + held.payable).toBe(await balanceOf(treasuryAddress));
    for (const s of await api.parts.journal.journalSums()) expect(s.sum).toBe(0n);
  });
});
