// A treasury transaction re-priced (item 3), on the dev chain: a withdrawal signed at a
// low fee sits behind a 200 gwei base fee; it is signed again at its nonce with higher fees, never
// above the network's cap (maxFeeGwei), each replacement recorded before it is sent; whichever is
// mined pays the withdrawal, once; the stuck head of the queue shows in /readyz and /metrics.
// On PGlite alone (the replacements and the queue's head are stored, by one instance: nothing races).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, createWalletClient, erc20Abi, formatGwei, http, parseGwei, parseUnits, type Address, type Hex } from 'viem';
import { foundry } from 'viem/chains';
import { startService, type Service } from '../../service/app.ts';
import { treasuryJobs } from '../treasury-job.ts';
import type { JobDeps } from '../../jobs/index.ts';
import { createLogger } from '../../service/log.ts';
import { DEMO_MERCHANT } from '../../service/seed.ts';
import { ChainStore } from '../../chain/store.ts';
import { depositViews } from '../../payments/deposit-views-store.ts';
import { Sweeper } from '../../chain/sweeper.ts';
import { Treasury } from '../../chain/treasury.ts';
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
const CAP = parseGwei('300');
const TOKEN = 'reprice-operator-token-0123456789abcdef';

describe.each(ONLY_PGLITE)('a treasury transaction re-priced, on %s', { timeout: 120_000 }, (kind) => {
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
  const anvil = (method: string, params: unknown[]) => reader().request({ method: method as never, params: params as never });
  const onChain = (who: Address) => reader().readContract({ address: contracts.tokens.USDT, abi: erc20Abi, functionName: 'balanceOf', args: [who] });
  const call = caller(() => api.url);

  it('is replaced at its nonce with higher fees under the cap, the replacement mined pays the withdrawal once, and the stuck head shows', async () => {
    const network = { ...devNetwork(chain.url, contracts, 1), maxFeePerGas: CAP };
    api = await startService({
      demo: true,
      networks: { test: network },
      devChain: DEV_CHAIN_POWERS,
      jobs: false,
      treasuryStuckMs: 1_000,
      adminToken: TOKEN,
      ...(await databaseOptions(kind)),
    });
    const store = new ChainStore(api.db, depositViews);
    expect((await call('PUT', '/api/v1/settlement', { settlement: 'balance' }, secretKey)).status).toBe(200);
    const watcher = new Watcher({
      chainId: 31337,
      rpcUrls: [chain.url],
      confirmations: 1,
      tokens: Object.values(contracts.tokens),
      store,
      credits: creditsOf(api),
      holder: 'reprice',
      startBlock: (await reader().getBlockNumber()) + 1n,
      leaseMs: 0,
    });
    const to = (await call('POST', '/api/v1/transaction/initialize', { reference: 'reprice', coin: 'USDT', currency: 'USD', amount: 10 }, secretKey)).body.data
      .address as Address;
    const customer = createWalletClient({ account: devAccount(1), chain: foundry, transport: http(chain.url) });
    await reader().waitForTransactionReceipt({
      hash: await customer.writeContract({ address: contracts.tokens.USDT, abi: TestToken.abi, functionName: 'transfer', args: [to, parseUnits('10', 18)] }),
      pollingInterval: 50,
    });
    await watcher.tick();
    expect(await new Sweeper({ network, store, gas: devAccount(6) }).tick()).toMatchObject({ swept: 1, final: 1 });

    // Blocks only when the test mines them: the withdrawal's first transaction waits in the pool.
    await anvil('evm_setAutomine', [false]);
    const wallet = devAccount(4).address;
    const w = await call('POST', '/api/v1/withdrawals', { coin: 'USDT', chain_id: 31337, address: wallet, amount: '1' }, secretKey);
    expect(w.status).toBe(201);
    const id = w.body.data.id as string;
    const deps = {
      db: api.db,
      ...treasuryStores(api),
      treasuries: [api.parts.treasury('test', 31337)!],
      log: createLogger('silent'),
      instance: 'reprice',
      now: Date.now,
      intervalMs: 200,
      sweepIntervalMs: 0,
      treasuryReplaceAfterMs: 600,
    } as unknown as JobDeps;
    const jobs = treasuryJobs(deps);
    for (const job of jobs) job.start();
    const ledger = api.parts.treasuryTxs;
    try {
      const first = await until('the first transaction recorded', async () => (await ledger.recordedTx('withdrawals', id)).rawTx, 20_000, 100);
      const firstFee = Treasury.maxFeeOf(first as Hex);
      // A fee spike: every block from now on has a base fee of 200 gwei, far above the first's max fee.
      const spike = async () => {
        await anvil('anvil_setNextBlockBaseFeePerGas', [`0x${parseGwei('200').toString(16)}`]);
        await anvil('evm_mine', []);
      };
      await spike();
      expect(firstFee).toBeLessThan(parseGwei('200'));
      const replaced = await until(
        'a replacement recorded',
        async () => {
          const r = await ledger.replacements('withdrawals', id);
          return r.length ? r : false;
        },
        20_000,
        100,
      );
      // The stuck head shows in /readyz and /metrics (TREASURY_STUCK_MS 1 s).
      const stuck = await until(
        '/readyz names the stuck treasury',
        async () => {
          const answer = await fetch(`${api.url}/readyz`);
          const check = (await answer.json()).data.find((c: { name: string }) => c.name === 'treasury on chain 31337');
          return answer.status === 503 && !check.ok ? check : false;
        },
        20_000,
        200,
      );
      expect(stuck.detail).toMatch(/the oldest unmined transaction \(withdrawals .*nonce \d+\) has waited \d+ s with [1-9]\d* replacements; fee cap 300 gwei/);
      const metrics = await (await fetch(`${api.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).text();
      expect(Number(/service_treasury_stuck_seconds\{chain="31337"\} ([\d.]+)/.exec(metrics)?.[1])).toBeGreaterThan(1);
      // At the cap, no replacement past it: the second try (another 600 ms on) finds no room and waits.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      const all = await ledger.replacements('withdrawals', id);
      const fees = all.map((r) => Treasury.maxFeeOf(r.raw as Hex));
      for (const fee of fees) expect(fee).toBeLessThanOrEqual(CAP);
      expect(fees.at(-1)).toBe(CAP);
      console.log(
        `first max fee ${formatGwei(firstFee)} gwei; replacements ${fees.map((f) => formatGwei(f)).join(', ')} gwei (cap 300, base fee 200); ${all.length} replacement(s)`,
      );
      expect(replaced[0]!.hash).not.toBe((await ledger.recordedTx('withdrawals', id)).txHash);
      // The spike's next block mines the replacement (its max fee 300 gwei covers a 200 gwei base fee); one more for the confirmation.
      await spike();
      await anvil('evm_mine', []);
      await anvil('evm_setAutomine', [true]);
      const done = await until(
        'the withdrawal is completed',
        async () => {
          const s = (await call('GET', `/api/v1/withdrawals/${id}`, undefined, secretKey)).body.data;
          return s.status !== 'pending' ? s : false;
        },
        30_000,
        200,
      );
      const mined = all.find((r) => r.hash === done.tx_hash);
      expect(done.status).toBe('completed');
      expect(mined, 'the withdrawal names the replacement that was mined').toBeDefined();
      const receipt = await reader().getTransactionReceipt({ hash: done.tx_hash });
      console.log(`mined replacement: effective gas price ${formatGwei(receipt.effectiveGasPrice)} gwei, ${receipt.gasUsed} gas`);
      // Paid once: one token to the wallet, one journaled withdrawal, the gas of the mined one journaled.
      expect(await onChain(wallet)).toBe(parseUnits('1', 18));
      await api.parts.journal.balances(owner, Date.now());
      const held = await api.parts.journal.held(31337, contracts.tokens.USDT);
      expect(held.merchants + held.fees + held.payable).toBe(await onChain(treasuryAddress));
      const gas = await api.db.query(`SELECT ref FROM journal_entries WHERE kind = 'gas'`);
      expect(gas.map((g) => g.ref)).toEqual([`31337/${done.tx_hash.toLowerCase()}`]);
      await until('/readyz ready again', async () => (await fetch(`${api.url}/readyz`)).status === 200, 10_000, 200);
    } finally {
      await Promise.all(jobs.map((job) => job.stop()));
      await anvil('evm_setAutomine', [true]);
    }
  });
});
