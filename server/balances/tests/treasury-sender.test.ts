// The treasury sender's record of what it signed, on the dev chain (issue 21's third review):
// the transaction first recorded for a withdrawal is the only one ever sent, whoever signed
// another; and a withdrawal is failed (its money returned) only on proof that it will never be
// mined: another of the treasury's own recorded transactions mined at its nonce.
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
import type { Signed, Treasury } from '../../chain/treasury.ts';
import { TestToken } from '../../../contracts/artifacts.generated.ts';
import { devAccount, devNetwork, TREASURY_DEV_ACCOUNT, type DevContracts } from '../../../devchain/deploy.ts';
import type { DevChain } from '../../../devchain/anvil.ts';
import { sharedDevChain } from '../../../devchain/shared.ts';
import { DEV_CHAIN_POWERS } from '../../../devchain/sandbox.ts';
import { Sweeper } from '../../chain/sweeper.ts';
import { Watcher } from '../../chain/watcher.ts';
import { caller, creditsOf, treasuryStores, until } from '../../testing/chain.ts';

const { secretKey } = DEMO_MERCHANT.keys.test;
const owner = { merchant: DEMO_MERCHANT, mode: 'test' } as never;
const treasuryAddress = devAccount(TREASURY_DEV_ACCOUNT).address;
let chain: DevChain;
let contracts: DevContracts;
let api: Service;
let watcher: Watcher | undefined;

beforeAll(async () => {
  ({ chain, contracts } = await sharedDevChain());
}, 60_000);
afterAll(async () => {
  await watcher?.stop();
  await api?.close();
  await chain?.stop();
});

describe('the treasury sender', { timeout: 120_000 }, () => {
  const reader = () => createPublicClient({ chain: foundry, transport: http(chain.url) });
  const onChain = (who: Address) => reader().readContract({ address: contracts.tokens.USDT, abi: erc20Abi, functionName: 'balanceOf', args: [who] });
  const call = caller(() => api.url);
  const withdraw = async (to: Address, amount = '1') => {
    const w = await call('POST', '/api/v1/withdrawals', { coin: 'USDT', chain_id: 31337, address: to, amount }, secretKey);
    expect(w.status).toBe(201);
    return w.body.data.id as string;
  };
  const status = async (id: string) => (await call('GET', `/api/v1/withdrawals/${id}`, undefined, secretKey)).body.data;
  /** The treasury holds on chain what the journal says it holds for merchants, fees and the partner. */
  const reconciled = async () => {
    await api.parts.journal.balances(owner, Date.now());
    const held = await api.parts.journal.held(31337, contracts.tokens.USDT);
    expect(held.merchants + held.fees + held.payable).toBe(await onChain(treasuryAddress));
  };
  /** One instance's treasury sender, running until the answer's stop(). */
  const sender = (name: string, treasury: Treasury, treasuryLeaseMs?: number) => {
    const deps = {
      db: api.db,
      ...treasuryStores(api),
      treasuries: [{ ...api.parts.treasury('test', 31337)!, treasury }],
      log: createLogger('silent'),
      instance: name,
      now: Date.now,
      intervalMs: 200,
      sweepIntervalMs: 0,
      treasuryLeaseMs,
    } as unknown as JobDeps;
    const jobs = treasuryJobs(deps);
    for (const job of jobs) job.start();
    return { stop: async () => void (await Promise.all(jobs.map((job) => job.stop()))) };
  };

  it('has a balance of 10 USDT in the treasury to withdraw from', async () => {
    const network = devNetwork(chain.url, contracts, 1);
    api = await startService({ demo: true, networks: { test: network }, devChain: DEV_CHAIN_POWERS, jobs: false });
    const store = new ChainStore(api.db, depositViews);
    await store.forget(chain.chainId);
    expect((await call('PUT', '/api/v1/settlement', { settlement: 'balance' }, secretKey)).status).toBe(200);
    watcher = new Watcher({
      chainId: chain.chainId,
      rpcUrls: [chain.url],
      confirmations: 1,
      tokens: Object.values(contracts.tokens),
      store,
      credits: creditsOf(api),
      holder: 'sender',
      startBlock: (await reader().getBlockNumber()) + 1n,
      leaseMs: 0,
    });
    const to = (await call('POST', '/api/v1/transaction/initialize', { reference: 'sender', coin: 'USDT', currency: 'USD', amount: 10 }, secretKey)).body.data
      .address as Address;
    const customer = createWalletClient({ account: devAccount(1), chain: foundry, transport: http(chain.url) });
    await reader().waitForTransactionReceipt({
      hash: await customer.writeContract({ address: contracts.tokens.USDT, abi: TestToken.abi, functionName: 'transfer', args: [to, parseUnits('10', 18)] }),
      pollingInterval: 50,
    });
    await watcher.tick();
    expect(await new Sweeper({ network, store, gas: devAccount(6) }).tick()).toMatchObject({ swept: 1, final: 1 });
    await reconciled();
  });

  it('sends the transaction another instance recorded for a withdrawal first, never one of its own at another nonce', async () => {
    const wallet = devAccount(4).address;
    const id = await withdraw(wallet);
    const base = api.parts.treasury('test', 31337)!.treasury;
    // Between this tick's read of the withdrawal (unsigned) and its signing, another instance
    // signs it, records it, sends it, and it is mined: this tick signs at the next nonce.
    let theirs: Signed | undefined;
    const slow = Object.create(base) as Treasury;
    slow.transfer = async (token, to, amount) => {
      if (!theirs) {
        theirs = await base.transfer(token, to, amount);
        expect(await api.parts.withdrawals.withdrawalSigned(id, theirs, Date.now())).toMatchObject({ state: 'pending', txHash: theirs.hash });
        await base.send(theirs.raw);
        await reader().waitForTransactionReceipt({ hash: theirs.hash, pollingInterval: 50 });
      }
      const mine = await base.transfer(token, to, amount);
      expect(mine.nonce).toBe(theirs.nonce + 1);
      return mine;
    };
    const running = sender('late', slow);
    try {
      const done = await until('the withdrawal is decided', async () => ((await status(id)).status !== 'pending' ? status(id) : false), 30_000, 200);
      expect(done).toMatchObject({ status: 'completed', tx_hash: theirs!.hash });
    } finally {
      await running.stop();
    }
    await reader().request({ method: 'anvil_mine' as never, params: ['0x2'] as never });
    expect(await onChain(wallet)).toBe(parseUnits('1', 18));
    await reconciled();
  });

  it("fails a withdrawal, its money returned, only once another of the treasury's recorded transactions is mined at its nonce", async () => {
    const wallet = devAccount(5).address;
    const [first, second, third] = [await withdraw(wallet, '1'), await withdraw(wallet, '2'), await withdraw(wallet, '2')];
    const before = await api.parts.journal.balances(owner, Date.now());
    const treasury = api.parts.treasury('test', 31337)!.treasury;
    // The first two signed at one nonce (two senders at once), both recorded; only the second is sent.
    const one = await treasury.transfer(contracts.tokens.USDT, wallet, parseUnits('1', 18));
    const two = await treasury.transfer(contracts.tokens.USDT, wallet, parseUnits('2', 18));
    expect(two.nonce).toBe(one.nonce);
    expect((await api.parts.withdrawals.withdrawalSigned(first, one, Date.now())).txHash).toBe(one.hash);
    expect((await api.parts.withdrawals.withdrawalSigned(second, two, Date.now())).txHash).toBe(two.hash);
    // The third is for the same amount to the same address: at that nonce, the very same
    // transaction, which must not be recorded for it too (one transfer would pay for both).
    expect((await api.parts.withdrawals.withdrawalSigned(third, two, Date.now())).txHash).toBeNull();
    expect(await api.parts.treasuryTxs.treasuryTxsAtNonce(31337, one.nonce)).toEqual(expect.arrayContaining([one.hash, two.hash]));
    await treasury.send(two.raw);
    await reader().waitForTransactionReceipt({ hash: two.hash, pollingInterval: 50 });
    const running = sender('proof', treasury);
    try {
      await until(
        'the withdrawals are decided',
        async () => {
          for (const id of [first, second, third]) if ((await status(id)).status === 'pending') return false;
          return true;
        },
        30_000,
        200,
      );
    } finally {
      await running.stop();
    }
    expect(await status(second)).toMatchObject({ status: 'completed', tx_hash: two.hash });
    const failed = await status(first);
    expect(failed.status).toBe('failed');
    expect(failed.failure).toContain(two.hash);
    const paid = await status(third);
    expect(paid.status).toBe('completed');
    expect(paid.tx_hash).not.toBe(two.hash);
    await reader().request({ method: 'anvil_mine' as never, params: ['0x2'] as never });
    expect(await onChain(wallet)).toBe(parseUnits('4', 18));
    // Four tokens left the balance (the second and third withdrawals); the first one's came back.
    const after = await api.parts.journal.balances(owner, Date.now());
    const usdt = (lines: typeof before) => lines.find((l) => l.token === contracts.tokens.USDT.toLowerCase())!;
    expect(usdt(after).available).toBe(usdt(before).available + parseUnits('1', 18));
    expect(usdt(after).reserved).toBe(0n);
    await reconciled();
  });

  it('keeps its lease while a tick runs, and signs nothing more once another instance holds it', async () => {
    const wallet = devAccount(7).address;
    const [first, second] = [await withdraw(wallet), await withdraw(wallet)];
    const ledger = api.parts.treasuryTxs;
    const base = api.parts.treasury('test', 31337)!.treasury;
    // The first send of the tick takes 1.2 s, four times its 300 ms lease: a rival asks for the
    // lease meanwhile (refused while it is renewed), then one whose clock runs an hour ahead takes it.
    const rivalRefused: boolean[] = [];
    let rivalHolds = false;
    const slow = Object.create(base) as Treasury;
    slow.send = async (raw) => {
      if (rivalRefused.length === 0) {
        for (let i = 0; i < 6; i++) {
          await new Promise((resolve) => setTimeout(resolve, 200));
          rivalRefused.push(!(await ledger.leaseTreasury(31337, 'rival', Date.now(), 300)));
        }
        rivalHolds = await ledger.leaseTreasury(31337, 'rival', Date.now() + 3_600_000, 300);
      }
      return base.send(raw);
    };
    const running = sender('slow', slow, 300);
    try {
      await until('the rival holds the lease', async () => rivalHolds, 20_000, 50);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    } finally {
      await running.stop();
    }
    expect(rivalRefused).toEqual([true, true, true, true, true, true]);
    // The first withdrawal was signed before; the second, after the lease was gone: never.
    expect((await ledger.recordedTx('withdrawals', first)).txHash).not.toBeNull();
    expect(await ledger.recordedTx('withdrawals', second)).toMatchObject({ state: 'pending', txHash: null });
    // The rival gone, another sender pays both, once each.
    await ledger.releaseTreasury(31337, 'rival');
    const after = sender('after', base);
    try {
      await until(
        'both withdrawals are completed',
        async () => (await status(first)).status === 'completed' && (await status(second)).status === 'completed',
        30_000,
        200,
      );
    } finally {
      await after.stop();
    }
    await reader().request({ method: 'anvil_mine' as never, params: ['0x2'] as never });
    expect(await onChain(wallet)).toBe(parseUnits('2', 18));
    await reconciled();
  });
});
