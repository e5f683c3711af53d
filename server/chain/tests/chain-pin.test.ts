// Signatures pinned to their chain (items 2 and 9), on two real anvils: the dev chain
// (31337) and a node started with --chain-id 1. Every RPC URL is checked at start, each one; at
// runtime a URL answering another chain is out of rotation, and /readyz fails once none is left;
// every treasury signature names the configured chain id whatever the node answers. And a live
// treasury that is also a test network's is refused at start.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, createWalletClient, erc20Abi, http, parseTransaction, parseUnits, type Address } from 'viem';
import { foundry } from 'viem/chains';
import { startService, type Service } from '../../service/app.ts';
import { treasuryJobs } from '../../balances/treasury-job.ts';
import type { JobDeps } from '../../jobs/index.ts';
import { createLogger } from '../../service/log.ts';
import { DEMO_MERCHANT } from '../../service/seed.ts';
import { verifyNetwork } from '../deploy.ts';
import { ChainStore } from '../store.ts';
import { depositViews } from '../../payments/deposit-views-store.ts';
import { Sweeper } from '../sweeper.ts';
import { Treasury } from '../treasury.ts';
import { Watcher } from '../watcher.ts';
import { TestToken } from '../../../contracts/artifacts.generated.ts';
import { deployDevContracts, devAccount, devNetwork, TREASURY_DEV_ACCOUNT, type DevContracts } from '../../../devchain/deploy.ts';
import { startDevChain, type DevChain } from '../../../devchain/anvil.ts';
import { DEV_CHAIN_POWERS } from '../../../devchain/sandbox.ts';
import { caller, creditsOf, treasuryStores, until } from '../../testing/chain.ts';

const { secretKey } = DEMO_MERCHANT.keys.test;
const treasuryAddress = devAccount(TREASURY_DEV_ACCOUNT).address;
let chain: DevChain;
let other: DevChain;
let contracts: DevContracts;
let api: Service | undefined;

beforeAll(async () => {
  [chain, other] = await Promise.all([startDevChain(), startDevChain({ chainId: 1 })]);
  contracts = await deployDevContracts(chain, 3);
}, 60_000);
afterAll(async () => {
  await api?.close();
  await Promise.all([chain?.stop(), other?.stop()]);
});

const reader = (url: string) => createPublicClient({ chain: foundry, transport: http(url) });
const setChainId = (id: number) => reader(chain.url).request({ method: 'anvil_setChainId' as never, params: [id] as never });

describe('signatures pinned to their chain', { timeout: 120_000 }, () => {
  it('checks every RPC URL at start, not the first that answers', async () => {
    const network = { ...devNetwork(chain.url, contracts, 1), dev: false, rpcUrls: [chain.url, other.url] };
    const outcome = await verifyNetwork(network, 'test').then(
      () => 'accepted',
      (e: Error) => e.message,
    );
    expect(outcome).toMatch(/^NETWORKS_FILE test\.rpcUrls\.1: http:\/\/127\.0\.0\.1:\d+ answers chain 1, the file says 31337/);
  });

  it('signs a treasury transaction for the configured chain, never for the chain a node answers', async () => {
    // No pin here (a Treasury made outside startService): the signature alone must hold.
    const treasury = new Treasury(devNetwork(other.url, contracts, 1), devAccount(TREASURY_DEV_ACCOUNT));
    const signed = await treasury.transfer(contracts.tokens.USDT, devAccount(4).address, 1n).then(
      (s) => parseTransaction(s.raw).chainId,
      (e: Error) => e.message,
    );
    // viem refuses to sign for 31337 on a node of chain 1 (or signs for 31337): never chain 1.
    expect(signed === 31337 || /does not match the target chain/.test(String(signed)), String(signed)).toBe(true);
  });

  it('takes a URL of another chain out of rotation, sends nothing there, and fails /readyz once none is left', async () => {
    // The node of chain 1 is listed first: fallback() would read and send through it.
    const network = { ...devNetwork(chain.url, contracts, 1), rpcUrls: [other.url, chain.url] };
    const started = await startService({ demo: true, networks: { test: network }, devChain: DEV_CHAIN_POWERS, jobs: false, rpcChainCheckMs: 300 });
    api = started;
    const call = caller(() => started.url);
    const store = new ChainStore(started.db, depositViews);
    expect((await call('PUT', '/api/v1/settlement', { settlement: 'balance' }, secretKey)).status).toBe(200);
    const pinned = started.parts.treasury('test', 31337)!.treasury.network;
    const watcher = new Watcher({
      chainId: 31337,
      rpcUrls: pinned.rpcUrls,
      rpcPin: pinned.rpcPin,
      confirmations: 1,
      tokens: Object.values(contracts.tokens),
      store,
      credits: creditsOf(started),
      holder: 'pin',
      startBlock: (await reader(chain.url).getBlockNumber()) + 1n,
      leaseMs: 0,
    });
    const to = (await call('POST', '/api/v1/transaction/initialize', { reference: 'pin', coin: 'USDT', currency: 'USD', amount: 10 }, secretKey)).body.data
      .address as Address;
    const customer = createWalletClient({ account: devAccount(1), chain: foundry, transport: http(chain.url) });
    await reader(chain.url).waitForTransactionReceipt({
      hash: await customer.writeContract({ address: contracts.tokens.USDT, abi: TestToken.abi, functionName: 'transfer', args: [to, parseUnits('10', 18)] }),
      pollingInterval: 50,
    });
    await watcher.tick();
    expect(await new Sweeper({ network: pinned, store, gas: devAccount(6) }).tick()).toMatchObject({ swept: 1, final: 1 });
    await watcher.tick();

    const deps = {
      db: started.db,
      ...treasuryStores(started),
      treasuries: [started.parts.treasury('test', 31337)!],
      log: createLogger('silent'),
      instance: 'pin',
      now: Date.now,
      intervalMs: 200,
      sweepIntervalMs: 0,
    } as unknown as JobDeps;
    const jobs = treasuryJobs(deps);
    for (const job of jobs) job.start();
    const wallet = devAccount(4).address;
    const withdraw = async () => {
      const w = await call('POST', '/api/v1/withdrawals', { coin: 'USDT', chain_id: 31337, address: wallet, amount: '1' }, secretKey);
      expect(w.status).toBe(201);
      return w.body.data.id as string;
    };
    const status = async (id: string) => (await call('GET', `/api/v1/withdrawals/${id}`, undefined, secretKey)).body.data;
    try {
      const first = await withdraw();
      const done = await until('the withdrawal is completed', async () => ((await status(first)).status === 'completed' ? status(first) : false), 30_000, 200);
      // Sent through the node of chain 31337 only, signed for 31337.
      const raw = (await started.parts.treasuryTxs.recordedTx('withdrawals', first)).rawTx!;
      expect(parseTransaction(raw as `0x${string}`).chainId).toBe(31337);
      expect(done.tx_hash).toBeTruthy();
      expect(await reader(other.url).getTransactionCount({ address: treasuryAddress })).toBe(0);
      const ready = await (await fetch(`${started.url}/readyz`)).json();
      const check = ready.data.find((c: { name: string }) => c.name.startsWith('chain 31337'));
      expect(check).toMatchObject({ ok: true, detail: expect.stringContaining(`out of rotation, answering another chain: ${new URL(other.url).origin}`) });

      // The dev node now answers chain 1 too: nothing is signed or sent through it, and /readyz fails.
      const nonce = await reader(chain.url).getTransactionCount({ address: treasuryAddress });
      await setChainId(1);
      const second = await withdraw();
      const blocked = await until(
        '/readyz fails',
        async () => {
          const answer = await fetch(`${started.url}/readyz`);
          const body = await answer.json();
          const c = body.data.find((x: { name: string }) => x.name.startsWith('chain 31337'));
          return answer.status === 503 && /every RPC URL answers another chain/.test(c.detail) ? c : false;
        },
        20_000,
        200,
      );
      expect(blocked.ok).toBe(false);
      await new Promise((resolve) => setTimeout(resolve, 1_000)); // a few sender ticks, none of which may send
      expect((await status(second)).status).toBe('pending');
      expect(await api!.parts.treasuryTxs.recordedTx('withdrawals', second)).toMatchObject({ txHash: null });
      await setChainId(31337);
      expect(await reader(chain.url).getTransactionCount({ address: treasuryAddress })).toBe(nonce);
      // Back in rotation: the withdrawal goes out, for chain 31337, once.
      await until('the second withdrawal is completed', async () => (await status(second)).status === 'completed', 30_000, 200);
      const raw2 = (await started.parts.treasuryTxs.recordedTx('withdrawals', second)).rawTx!;
      expect(parseTransaction(raw2 as `0x${string}`).chainId).toBe(31337);
      expect(await reader(chain.url).readContract({ address: contracts.tokens.USDT, abi: erc20Abi, functionName: 'balanceOf', args: [wallet] })).toBe(
        parseUnits('2', 18),
      );
    } finally {
      await Promise.all(jobs.map((job) => job.stop()));
      await setChainId(31337);
    }
  });

  it("refuses at start a live treasury whose key or address is also a test network's, and takes a key per network", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'treasuries-'));
    const key = (name: string, account: number) => {
      const path = join(dir, name);
      writeFileSync(path, devAccountKey(account), { mode: 0o600 });
      return path;
    };
    const test = { ...devNetwork(chain.url, contracts, 1), dev: false, treasury: devAccount(5).address };
    const live = { ...devNetwork(chain.url, contracts, 1), chainId: 56, name: 'BNB Smart Chain', dev: false, treasury: devAccount(5).address };
    // One TREASURY_KEY_FILE for both modes: refused before any chain is asked.
    const shared = await startService({ networks: { test, live }, treasuryKeyFile: key('shared', 5), jobs: false }).then(
      async (s) => (await s.close(), 'started'),
      (e: Error) => e.message,
    );
    expect(shared).toMatch(
      /treasury of BNB Smart Chain \(live, chain 56\): 0x[0-9a-fA-F]{40} is also the treasury of the test network Local dev chain \(chain 31337\)/,
    );
    expect(shared).not.toContain(devAccountKey(5).slice(2, 20));
    // A key per network (the test one in TEST_TREASURY_KEY_FILE): this check passes, and the start goes on to the chain checks.
    const own = await startService({
      networks: { test: { ...test, treasury: devAccount(7).address }, live },
      treasuryKeyFile: key('live', 5),
      testTreasuryKeyFile: key('test', 7),
      jobs: false,
    }).then(
      async (s) => (await s.close(), 'started'),
      (e: Error) => e.message,
    );
    expect(own).not.toMatch(/is also the treasury/);
  });
});

/** A dev account's private key, as an operator's key file holds it. */
function devAccountKey(index: number): string {
  const account = devAccount(index) as unknown as { getHdKey(): { privateKey: Uint8Array } };
  return '0x' + Buffer.from(account.getHdKey().privateKey).toString('hex');
}
