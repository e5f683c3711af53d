// Third review of issue 21 (failed on main before the fix of this commit): two instances each run the
// treasury sender. One tick works through the pending withdrawals it listed at its start, and
// each unmined transaction holds it for up to 30 s, so a tick with a few of them outlives the
// 120 s treasury lease (never renewed), and another instance takes the lease and lists them
// too. Each then signs a withdrawal its own list still shows unsigned: `withdrawalSigned` keeps
// the first hash (`AND tx_hash IS NULL`), but its answer is ignored and the second instance
// sends its own transaction anyway, at the next nonce. The withdrawal is paid twice; the
// journal debits it once. A merchant can lengthen the tick on purpose with small withdrawals.
// (The second instance's clock runs 200 s ahead here: the same as the first's tick having
// lasted past its lease, without waiting two minutes.)
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
import { TestToken } from '../../../contracts/artifacts.generated.ts';
import { devAccount, devNetwork, TREASURY_DEV_ACCOUNT, type DevContracts } from '../../../devchain/deploy.ts';
import type { DevChain } from '../../../devchain/anvil.ts';
import { sharedDevChain } from '../../../devchain/shared.ts';
import { DEV_CHAIN_POWERS } from '../../../devchain/sandbox.ts';
import { Sweeper } from '../../chain/sweeper.ts';
import { Watcher } from '../../chain/watcher.ts';
import { caller, creditsOf, treasuryStores, until } from '../../testing/chain.ts';

const { secretKey } = DEMO_MERCHANT.keys.test;
const treasury = devAccount(TREASURY_DEV_ACCOUNT).address;
let chain: DevChain;
let contracts: DevContracts;
let api: Service | undefined;
const stops: Array<() => Promise<void>> = [];

beforeAll(async () => {
  ({ chain, contracts } = await sharedDevChain());
}, 60_000);
afterAll(async () => {
  for (const stop of stops) await stop();
  await api?.close();
  await chain?.stop();
});

describe('two instances sending withdrawals', { timeout: 150_000 }, () => {
  it('pay each withdrawal once', async () => {
    const network = devNetwork(chain.url, contracts, 1);
    api = await startService({ demo: true, networks: { test: network }, devChain: DEV_CHAIN_POWERS, jobs: false });
    const reader = createPublicClient({ chain: foundry, transport: http(chain.url) });
    const rpc = (method: string, params: unknown[] = []) => reader.request({ method: method as 'eth_blockNumber', params: params as never });
    const onChain = (who: Address) => reader.readContract({ address: contracts.tokens.USDT, abi: erc20Abi, functionName: 'balanceOf', args: [who] });
    const call = caller(() => api!.url);
    const store = new ChainStore(api.db, depositViews);
    await store.forget(chain.chainId);

    // A balance of 10 USDT: paid, counted, swept to the treasury, final.
    expect((await call('PUT', '/api/v1/settlement', { settlement: 'balance' }, secretKey)).status).toBe(200);
    const watcher = new Watcher({
      chainId: chain.chainId,
      rpcUrls: [chain.url],
      confirmations: 1,
      tokens: Object.values(contracts.tokens),
      store,
      credits: creditsOf(api),
      holder: 'twice',
      startBlock: (await reader.getBlockNumber()) + 1n,
      leaseMs: 0,
    });
    stops.push(() => watcher.stop());
    const to = (await call('POST', '/api/v1/transaction/initialize', { reference: 'twice', coin: 'USDT', currency: 'USD', amount: 10 }, secretKey)).body.data
      .address as Address;
    const customer = createWalletClient({ account: devAccount(1), chain: foundry, transport: http(chain.url) });
    await reader.waitForTransactionReceipt({
      hash: await customer.writeContract({ address: contracts.tokens.USDT, abi: TestToken.abi, functionName: 'transfer', args: [to, parseUnits('10', 18)] }),
      pollingInterval: 50,
    });
    await watcher.tick();
    expect(await new Sweeper({ network, store, gas: devAccount(6) }).tick()).toMatchObject({ swept: 1, final: 1 });

    // Two withdrawals of 1 USDT, while blocks are slow to come (the node mines nothing for now).
    const wallet = devAccount(4).address;
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) {
      const w = await call('POST', '/api/v1/withdrawals', { coin: 'USDT', chain_id: 31337, address: wallet, amount: '1' }, secretKey);
      expect(w.status).toBe(201);
      ids.push(w.body.data.id);
    }
    await rpc('evm_setAutomine', [false]);

    // Two instances' treasury senders, the second one's lease view as if the first's tick had run past its lease.
    const instance = (name: string, skewMs: number) => {
      const deps = {
        db: api!.db,
        ...treasuryStores(api!),
        treasuries: [api!.parts.treasury('test', 31337)!],
        log: createLogger('silent'),
        instance: name,
        now: () => Date.now() + skewMs,
        intervalMs: 200,
        sweepIntervalMs: 0,
      } as unknown as JobDeps;
      const jobs = treasuryJobs(deps);
      for (const job of jobs) job.start();
      stops.push(async () => void (await Promise.all(jobs.map((job) => job.stop()))));
    };
    instance('a', 0);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    instance('b', 200_000);

    // The first instance's wait for the first withdrawal runs out (5 s a look, treasury-job.ts
    // `settle`), then the second's, each instance working through both; then blocks come again.
    await new Promise((resolve) => setTimeout(resolve, 15_000));
    await rpc('evm_setAutomine', [true]);
    await rpc('anvil_mine', ['0x2']);
    for (const id of ids)
      await until(
        `withdrawal ${id} done`,
        async () => (await call('GET', `/api/v1/withdrawals/${id}`, undefined, secretKey)).body.data.status === 'completed',
        60_000,
        200,
      );
    await rpc('anvil_mine', ['0x2']);

    // Two withdrawals of 1 USDT: 2 USDT reached the wallet, and the treasury holds what the journal says.
    expect(await onChain(wallet)).toBe(parseUnits('2', 18));
    await api.parts.journal.balances({ merchant: DEMO_MERCHANT, mode: 'test' } as never, Date.now());
    const held = await api.parts.journal.held(31337, contracts.tokens.USDT);
    expect(held.merchants + held.fees + held.payable).toBe(await onChain(treasury));
  });
});
