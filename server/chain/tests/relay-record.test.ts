// A relay the customer's request stopped waiting for, on a real anvil, on PGlite and on
// PostgreSQL: each relay is recorded before it is broadcast, so one mined after its request
// timed out and the service stopped is found when the service starts again, and its gas
// journaled exactly once; one whose nonce another transaction took is dropped, with nothing
// journaled; one mined whose node counts its nonce used before it serves its receipt is
// journaled, not dropped; and what relays under way may still cost counts against the merchant's
// daily cap.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, http, keccak256, type Hex } from 'viem';
import { foundry } from 'viem/chains';
import { startService, type Service } from '../../service/app.ts';
import { DEMO_MERCHANT } from '../../service/seed.ts';
import { devAccount, devNetwork, devRpc, GAS_DEV_ACCOUNT, type DevContracts } from '../../../devchain/deploy.ts';
import type { DevChain } from '../../../devchain/anvil.ts';
import { sharedDevChain } from '../../../devchain/shared.ts';
import { DEV_CHAIN_POWERS } from '../../../devchain/sandbox.ts';
import { freshPostgres, KINDS } from '../../testing/databases.ts';
import { caller, rpcProxy, until, type RpcCall } from '../../testing/chain.ts';
import { relayPayments } from '../../testing/relay-payments.ts';
import type { Network } from '../networks.ts';
import { REPLACED_AFTER_MS } from '../nonce-look.ts';

const gasWallet = devAccount(GAS_DEV_ACCOUNT).address;

describe.each(KINDS)('a relay mined after its request stopped waiting, on %s', { timeout: 120_000 }, (kind) => {
  const dev = {} as { chain: DevChain; contracts: DevContracts };
  let api: Service | undefined;
  let network: Network;

  beforeAll(async () => {
    Object.assign(dev, await sharedDevChain());
    // A base fee of 0 stays 0 on blocks this small: each gas costs anvil's tip, 1 gwei.
    await devRpc(dev.chain.url, 'anvil_setNextBlockBaseFeePerGas', ['0x0']);
    await devRpc(dev.chain.url, 'evm_mine');
  }, 60_000);
  afterAll(async () => {
    await dev.chain?.stop();
  });
  let store: { databaseUrl: string } | { dataDir: string };

  afterEach(async () => {
    await api?.close();
    api = undefined;
    await devRpc(dev.chain.url, 'evm_setAutomine', [true]);
    if ('dataDir' in store) rmSync(store.dataDir, { recursive: true, force: true });
  });

  /** One database for the test, kept across the service's stops: a PGlite directory, or a PostgreSQL database. */
  async function database() {
    store = kind === 'postgres' ? { databaseUrl: await freshPostgres() } : { dataDir: mkdtempSync(join(tmpdir(), 'relay-record-')) };
  }

  /** The service on the dev chain (no sweeps: the gas wallet sends relays alone), whose relay requests wait 1.5 s for their transaction. */
  async function serve(relay: Partial<Pick<Network, 'relayDailyGasWei' | 'rpcUrls'>> = {}) {
    network = { ...devNetwork(dev.chain.url, dev.contracts, 1), ...relay };
    api = await startService({
      demo: true,
      networks: { test: network },
      devChain: DEV_CHAIN_POWERS,
      watchIntervalMs: 100,
      webhookRetryMs: 100,
      sweepIntervalMs: 0,
      relayTimeoutMs: 1_500,
      ...store,
    });
    const payout = { chain_id: 31337, address: devAccount(9).address };
    expect((await call('PUT', '/api/v1/payout_address', payout, DEMO_MERCHANT.keys.test.secretKey)).status).toBe(200);
  }

  const call = caller(() => api!.url);
  const reader = () => createPublicClient({ chain: foundry, transport: http(dev.chain.url) });
  const sponsored = async () => (await api!.parts.journal.entries(DEMO_MERCHANT.id)).filter((e) => e.kind === 'sponsored_gas');
  const { signedPayment, relay } = relayPayments({
    call,
    chainUrl: () => dev.chain.url,
    network: () => network,
    usdc: () => dev.contracts.tokens.USDC,
    funder: devAccount(3),
  });
  const inPool = async () => {
    const pool = (await devRpc(dev.chain.url, 'txpool_content', [])) as { pending: Record<string, Record<string, { hash: Hex }>> };
    const key = Object.keys(pool.pending).find((from) => from.toLowerCase() === gasWallet.toLowerCase());
    return key ? Object.values(pool.pending[key]!).map((t) => t.hash.toLowerCase()) : [];
  };

  it('is journaled exactly once when the service starts again: the relay timed out unmined, the service stopped, then it was mined', async () => {
    await database();
    await serve();
    const p = await signedPayment(`${kind}-late`);
    await devRpc(dev.chain.url, 'evm_setAutomine', [false]);
    const answer = await relay(p);
    // Broadcast, not mined in the 1.5 s the request waits: the customer is told to try again, nothing is journaled yet.
    expect([answer.status, answer.body.code]).toEqual([503, 'service_unavailable']);
    const [recorded] = await api!.parts.chain.relays.unfinished(31337);
    expect(recorded).toMatchObject({ reference: p.reference, payer: p.payer.address.toLowerCase(), merchantId: DEMO_MERCHANT.id });
    expect(recorded!.reservedWei).toBeGreaterThan(0n);
    expect(await inPool()).toEqual(recorded!.txHashes);
    expect(await sponsored()).toHaveLength(0);
    // The same signature again while it is under way: try again shortly (not "relayed already", which could send the customer to pay twice), nothing more sent.
    const retried = await relay(p);
    expect([retried.status, retried.body.code]).toEqual([503, 'service_unavailable']);
    expect(await inPool()).toEqual(recorded!.txHashes);
    await api!.close();
    api = undefined;
    // Mined while the service is stopped.
    await devRpc(dev.chain.url, 'evm_mine');
    await devRpc(dev.chain.url, 'evm_setAutomine', [true]);
    const receipt = await reader().getTransactionReceipt({ hash: recorded!.txHashes[0] as Hex });
    expect(receipt.status).toBe('success');
    await serve();
    const [entry] = await until('the relay journaled', async () => {
      const entries = await sponsored();
      return entries.length > 0 && entries;
    });
    expect(entry!.ref).toBe(`31337/${receipt.transactionHash.toLowerCase()}`);
    expect(entry!.postings.find((x) => x.amount > 0n)?.amount).toBe(receipt.gasUsed * receipt.effectiveGasPrice);
    // Looked at again and again: still one entry, and nothing left unfinished.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await sponsored()).toHaveLength(1);
    expect(await api!.parts.chain.relays.unfinished(31337)).toEqual([]);
    // The payment is credited by the watcher, as any transfer; the same signature again answers the relay, and journals nothing more.
    await until('the payment confirmed', async () => (await call('GET', `/api/v1/transaction/verify/${p.reference}`)).body.data.status === 'confirmed');
    const again = await relay(p);
    expect([again.status, again.body.data.txHash, again.body.data.relayedByUs]).toEqual([200, receipt.transactionHash, true]);
    expect(await sponsored()).toHaveLength(1);
  });

  // Another transaction at its nonce seen in the head block drops it at once; one mined in an earlier block is not seen
  // there, and the nonce used with no receipt of its own is what a mined relay whose receipt is late looks like too: it
  // is dropped only once that lasts REPLACED_AFTER_MS.
  it.each([
    ['in the head block', false],
    ['in a block before the head', true],
  ])('is dropped, nothing journaled, when another transaction took its nonce while the service was stopped (mined %s)', async (_, before) => {
    await database();
    await serve();
    const p = await signedPayment(`${kind}-dropped${before ? '-before' : ''}`);
    await devRpc(dev.chain.url, 'evm_setAutomine', [false]);
    expect((await relay(p)).status).toBe(503);
    const [recorded] = await api!.parts.chain.relays.unfinished(31337);
    await api!.close();
    api = undefined;
    // Someone else with the gas key replaces it at the same nonce.
    const raw = await devAccount(GAS_DEV_ACCOUNT).signTransaction({
      chainId: 31337,
      type: 'eip1559',
      nonce: recorded!.nonce,
      to: devAccount(13).address,
      value: 1n,
      gas: 21_000n,
      maxPriorityFeePerGas: 2n * 10n ** 9n,
      maxFeePerGas: 4n * 10n ** 9n,
    });
    await devRpc(dev.chain.url, 'eth_sendRawTransaction', [raw]);
    await devRpc(dev.chain.url, 'evm_mine');
    if (before) await devRpc(dev.chain.url, 'evm_mine');
    await devRpc(dev.chain.url, 'evm_setAutomine', [true]);
    const started = Date.now();
    await serve();
    if (before) {
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      expect(await api!.parts.chain.relays.unfinished(31337)).toHaveLength(1);
    }
    await until('the relay dropped', async () => (await api!.parts.chain.relays.unfinished(31337)).length === 0);
    if (before) expect(Date.now() - started).toBeGreaterThanOrEqual(REPLACED_AFTER_MS);
    expect(await sponsored()).toHaveLength(0);
    // Nothing was spent for it: the same signature is relayed again.
    const again = await relay(p);
    expect(again.status, JSON.stringify(again.body)).toBe(201);
    expect(await sponsored()).toHaveLength(1);
  });

  // A node counts a mined nonce before it serves that block's receipts (anvil does under load; a
  // load balancer's nodes a block apart do too): the relay job took a relay mined after its request
  // stopped waiting for one whose nonce another transaction took, dropped it for good, and never
  // journaled its gas.
  it('is journaled, not dropped, when its node counts its nonce used before it serves its receipt', async () => {
    await database();
    // Each transaction sent through this node: its receipt answered null for a second after the chain first has it mined.
    const mined = new Map<string, number>();
    let nulls = 0;
    const behind = await rpcProxy(dev.chain.url, async (body) => {
      const rpc = body as RpcCall;
      if (Array.isArray(body)) return undefined;
      if (rpc.method === 'eth_sendRawTransaction') mined.set(keccak256(rpc.params![0] as Hex), 0);
      const hash = rpc.params?.[0] as string;
      if (rpc.method !== 'eth_getTransactionReceipt' || !mined.has(hash)) return undefined;
      // One look at the chain answers the question, whatever it finds: asked again, a block mined
      // in between gave the service the receipt at once, without the second of nulls this test is
      // about (a fresh-clone run on a loaded machine saw no null).
      const receipt = await devRpc(dev.chain.url, 'eth_getTransactionReceipt', [hash]);
      if (!receipt) return { jsonrpc: '2.0', id: rpc.id, result: null };
      if (!mined.get(hash)) mined.set(hash, Date.now());
      if (Date.now() - mined.get(hash)! >= 1_000) return { jsonrpc: '2.0', id: rpc.id, result: receipt };
      nulls++;
      return { jsonrpc: '2.0', id: rpc.id, result: null };
    });
    try {
      await serve({ rpcUrls: [behind.url] });
      const p = await signedPayment(`${kind}-late-receipt`);
      await devRpc(dev.chain.url, 'evm_setAutomine', [false]);
      expect((await relay(p)).status).toBe(503);
      const [recorded] = await api!.parts.chain.relays.unfinished(31337);
      expect([...mined.keys()]).toEqual(recorded!.txHashes);
      // Mined after the request stopped waiting: the relay job finds it.
      await devRpc(dev.chain.url, 'evm_mine');
      await devRpc(dev.chain.url, 'evm_setAutomine', [true]);
      await until('the relay finished', async () => (await api!.parts.chain.relays.unfinished(31337)).length === 0);
      const receipt = await reader().getTransactionReceipt({ hash: recorded!.txHashes[0] as Hex });
      expect(receipt.status).toBe('success');
      // Mined, not dropped: its gas journaled once.
      expect(await api!.parts.chain.relays.ofPayment(DEMO_MERCHANT.id, 'test', p.reference)).toEqual([
        { payer: p.payer.address.toLowerCase(), underWay: false },
      ]);
      expect((await sponsored()).map((e) => e.ref)).toEqual([`31337/${receipt.transactionHash.toLowerCase()}`]);
      expect(nulls).toBeGreaterThan(0);
    } finally {
      await api?.close();
      api = undefined;
      await behind.close();
    }
  });

  it("counts what a relay under way may still cost against the merchant's daily cap", async () => {
    await database();
    // Room for one relay (~60-90k gas at 1 gwei, sent with a limit a fifth over its estimate), not two.
    await serve({ relayDailyGasWei: 150_000n * 10n ** 9n });
    const [p1, p2] = [await signedPayment(`${kind}-flight-1`), await signedPayment(`${kind}-flight-2`)];
    await devRpc(dev.chain.url, 'evm_setAutomine', [false]);
    expect((await relay(p1)).status).toBe(503);
    const pool = await inPool();
    // Nothing journaled yet, but the first may still cost its reserve: the second is refused before anything is sent.
    const second = await relay(p2);
    expect([second.status, second.body.errors?.[0]?.field]).toEqual([409, 'gas.daily_cap']);
    expect(await inPool()).toEqual(pool);
  });
});
