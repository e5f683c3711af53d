// The treasury's send path under a hold, and a withdrawal's network fee (issue 33 item 4's and
// item 1's remainders), on the dev chain, on PGlite (the fee is stored on the
// withdrawal). A withdrawal reserved before the operator held the chain is not signed or sent
// while the hold lasts, and is sent once, and only once, after the operator resolves it. Its
// network fee (the token's `withdrawalFee`) is reserved with it, shown in its answer, and paid
// to the operator's fees once sent, in one balanced entry; the treasury still reconciles.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, createWalletClient, erc20Abi, http, parseUnits, type Address } from 'viem';
import { foundry } from 'viem/chains';
import { startService, type Service } from '../../service/app.ts';
import { treasuryJobs } from '../treasury-job.ts';
import type { JobDeps } from '../../jobs/index.ts';
import { createLogger } from '../../service/log.ts';
import { DEMO_MERCHANT } from '../../service/seed.ts';
import { ChainStore } from '../../chain/store.ts';
import { depositViews } from '../../payments/deposit-views-store.ts';
import { Sweeper } from '../../chain/sweeper.ts';
import { Watcher } from '../../chain/watcher.ts';
import { TestToken } from '../../../contracts/artifacts.generated.ts';
import { devAccount, devNetwork, TREASURY_DEV_ACCOUNT, type DevContracts } from '../../../devchain/deploy.ts';
import type { DevChain } from '../../../devchain/anvil.ts';
import { sharedDevChain } from '../../../devchain/shared.ts';
import { DEV_CHAIN_POWERS } from '../../../devchain/sandbox.ts';
import { databaseOptions, ONLY_PGLITE } from '../../testing/databases.ts';
import { caller, creditsOf, treasuryStores, until } from '../../testing/chain.ts';

const { secretKey } = DEMO_MERCHANT.keys.test;
const owner = { merchant: DEMO_MERCHANT, mode: 'test' } as never;
const treasuryAddress = devAccount(TREASURY_DEV_ACCOUNT).address;

describe.each(ONLY_PGLITE)('a withdrawal reserved before a hold, with a network fee, on %s', { timeout: 120_000 }, (kind) => {
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
  const onChain = (who: Address) => reader().readContract({ address: contracts.tokens.USDT, abi: erc20Abi, functionName: 'balanceOf', args: [who] });
  const call = caller(() => api.url);
  const usdt = () => contracts.tokens.USDT.toLowerCase();

  it('waits unsent while the chain is held, is sent once when the operator resolves it, and pays its network fee to the operator', async () => {
    const dev = devNetwork(chain.url, contracts, 1);
    const network = { ...dev, tokens: dev.tokens.map((t) => (t.symbol === 'USDT' ? { ...t, withdrawalFee: '0.25' } : t)) };
    api = await startService({ demo: true, networks: { test: network }, devChain: DEV_CHAIN_POWERS, jobs: false, ...(await databaseOptions(kind)) });
    const store = new ChainStore(api.db, depositViews);
    expect((await call('PUT', '/api/v1/settlement', { settlement: 'balance' }, secretKey)).status).toBe(200);
    const watcher = new Watcher({
      chainId: 31337,
      rpcUrls: [chain.url],
      confirmations: 1,
      tokens: Object.values(contracts.tokens),
      store,
      credits: creditsOf(api),
      holder: 'held',
      startBlock: (await reader().getBlockNumber()) + 1n,
      leaseMs: 0,
    });
    const to = (await call('POST', '/api/v1/transaction/initialize', { reference: 'held', coin: 'USDT', currency: 'USD', amount: 10 }, secretKey)).body.data
      .address as Address;
    const customer = createWalletClient({ account: devAccount(1), chain: foundry, transport: http(chain.url) });
    await reader().waitForTransactionReceipt({
      hash: await customer.writeContract({ address: contracts.tokens.USDT, abi: TestToken.abi, functionName: 'transfer', args: [to, parseUnits('10.1', 18)] }),
      pollingInterval: 50,
    });
    await watcher.tick();
    expect(await new Sweeper({ network, store, gas: devAccount(6) }).tick()).toMatchObject({ swept: 1, final: 1 });

    // Reserved: the amount and the network's fee, both out of the balance; the answer names the fee.
    const wallet = devAccount(4).address;
    const tooMuch = await call('POST', '/api/v1/withdrawals', { coin: 'USDT', chain_id: 31337, address: wallet, amount: '10' }, secretKey);
    expect(tooMuch.status).toBe(409); // 10 + 0.25 is more than 10.1
    expect(tooMuch.body.code).toBe('insufficient_balance');
    const started = await call('POST', '/api/v1/withdrawals', { coin: 'USDT', chain_id: 31337, address: wallet, amount: '2' }, secretKey);
    expect(started.status).toBe(201);
    expect(started.body.data).toMatchObject({ amount: '2', network_fee: '0.25', status: 'pending' });
    const id = started.body.data.id as string;
    const balance = async () => (await api.parts.journal.balances(owner, Date.now())).find((b) => b.token === usdt())!;
    expect(await balance()).toMatchObject({ available: parseUnits('7.85', 18), reserved: parseUnits('2.25', 18) });

    // Then the operator's hold (as the reconciliation places one), and the sender runs.
    expect(await api.parts.treasuryHolds.hold(31337, 'treasury_short', 'a test hold after the withdrawal was reserved', Date.now())).toBe(true);
    const nonce = await reader().getTransactionCount({ address: treasuryAddress });
    let looked = 0;
    const holds = api.parts.treasuryHolds;
    const counting = Object.assign(Object.create(holds) as typeof holds, { active: (chainId: number) => ((looked += 1), holds.active(chainId)) });
    const deps = {
      db: api.db,
      ...treasuryStores(api),
      treasuryHolds: counting,
      treasuries: [api.parts.treasury('test', 31337)!],
      log: createLogger('silent'),
      instance: 'held',
      now: Date.now,
      intervalMs: 100,
      sweepIntervalMs: 0,
    } as unknown as JobDeps;
    const jobs = treasuryJobs(deps);
    for (const job of jobs) job.start();
    try {
      // Three ticks that saw the hold, or (the hold not checked where it is sent) a transaction recorded.
      await until(
        'three ticks of the sender under the hold',
        async () => looked >= 3 || (await api.parts.treasuryTxs.recordedTx('withdrawals', id)).txHash !== null,
        20_000,
        50,
      );
      expect((await api.parts.treasuryTxs.recordedTx('withdrawals', id)).txHash).toBeNull();
      expect(await reader().getTransactionCount({ address: treasuryAddress })).toBe(nonce);
      expect(await onChain(wallet)).toBe(0n);
      expect((await call('GET', `/api/v1/withdrawals/${id}`, undefined, secretKey)).body.data.status).toBe('pending');

      // The operator resolves it: sent, once.
      const resolvedAt = Date.now();
      expect(await api.parts.treasuryHolds.resolve(31337, 'operator@example.com', 'checked the chain: a test hold', resolvedAt)).toBeDefined();
      const done = await until(
        'the withdrawal is completed',
        async () => {
          const w = (await call('GET', `/api/v1/withdrawals/${id}`, undefined, secretKey)).body.data;
          return w.status !== 'pending' ? w : false;
        },
        30_000,
        50,
      );
      const ms = Date.now() - resolvedAt;
      expect(done).toMatchObject({ status: 'completed', amount: '2', network_fee: '0.25' });
      const receipt = await reader().getTransactionReceipt({ hash: done.tx_hash });
      console.log(`held then sent on ${kind}: completed ${ms} ms after the resolve, ${receipt.gasUsed} gas`);
      expect(await reader().getTransactionCount({ address: treasuryAddress })).toBe(nonce + 1);
      expect(await onChain(wallet)).toBe(parseUnits('2', 18));
    } finally {
      await Promise.all(jobs.map((job) => job.stop()));
    }

    // One balanced entry: the merchant's reserved 2.25 out, 2 to the wallet, 0.25 to the operator's fees.
    const sent = (await api.parts.journal.entries()).find((e) => e.kind === 'withdrawal_sent' && e.ref === id)!;
    expect(sent.postings).toEqual([
      { account: `merchant:${DEMO_MERCHANT.id}:test:reserved`, chainId: 31337, token: usdt(), amount: -parseUnits('2.25', 18) },
      { account: 'external:wallets', chainId: 31337, token: usdt(), amount: parseUnits('2', 18) },
      { account: 'operator:fees', chainId: 31337, token: usdt(), amount: parseUnits('0.25', 18) },
    ]);
    expect(await balance()).toMatchObject({ available: parseUnits('7.85', 18), reserved: 0n });
    // The treasury holds what the journal owes: merchants' money and the operator's fees.
    const held = await api.parts.journal.held(31337, contracts.tokens.USDT);
    expect(held.fees).toBe(parseUnits('0.25', 18));
    expect(held.merchants + held.fees + held.payable).toBe(await onChain(treasuryAddress));
    for (const s of await api.parts.journal.journalSums()) expect(s.sum).toBe(0n);
  });
});
