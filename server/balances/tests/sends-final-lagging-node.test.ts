// Issue 49, attack 49: completed treasury sends looked at again (balances/sends-final.ts) through a
// node that lags or errs, on the dev chain behind a proxy, the sends still on the chain throughout.
// Before: a withdrawal or a swap whose receipt and block the node did not answer at two looks (the
// head and the nonce count answered) was failed as "another transaction took its nonce" — the
// nonce count is past it because it took the nonce itself — and its money given back; a swap
// whose block the node answered with an error, or under another hash, was undone at once (its receipt read as moving
// nothing: the received coin moves to the treasury, not from it), told pending and counted again.
// Now a send is failed only when another recorded treasury transaction at its nonce is counted,
// and a block the node does not answer decides nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, http } from 'viem';
import { foundry } from 'viem/chains';
import { startService, type Service } from '../../service/app.ts';
import { DEMO_MERCHANT } from '../../service/seed.ts';
import { devAccount, devNetwork, type DevContracts } from '../../../devchain/deploy.ts';
import type { DevChain } from '../../../devchain/anvil.ts';
import { sharedDevChain } from '../../../devchain/shared.ts';
import { DEV_CHAIN_POWERS } from '../../../devchain/sandbox.ts';
import { databaseOptions } from '../../testing/databases.ts';
import { caller, rpcProxy, type RpcCall, toldStatuses, until } from '../../testing/chain.ts';

const { publicKey, secretKey } = DEMO_MERCHANT.keys.test;

describe('completed treasury sends looked at again through a lagging node', { timeout: 120_000 }, () => {
  let chain: DevChain;
  let contracts: DevContracts;
  let api: Service | undefined;
  let proxy: Awaited<ReturnType<typeof rpcProxy>>;
  /**
   * What the node lags on: no receipt for `hash`, and at or past `fromBlock` no block (`null`), an
   * error (`error`), or blocks under other hashes (`other`: as after a re-mine, its index behind).
   */
  const lag = { blocks: 'off' as 'off' | 'null' | 'error' | 'other', hash: '', fromBlock: 0n };
  beforeAll(async () => {
    ({ chain, contracts } = await sharedDevChain());
    proxy = await rpcProxy(chain.url, async (body) => {
      if (lag.blocks === 'off' || Array.isArray(body)) return undefined;
      const { id, method, params = [] } = body as RpcCall;
      if (method === 'eth_getTransactionReceipt' && lag.hash && String(params[0]).toLowerCase() === lag.hash) return { jsonrpc: '2.0', id, result: null };
      if (method === 'eth_getBlockByNumber' && /^0x/.test(String(params[0])) && BigInt(params[0]) >= lag.fromBlock) {
        if (lag.blocks === 'null') return { jsonrpc: '2.0', id, result: null };
        if (lag.blocks === 'error') return { jsonrpc: '2.0', id, error: { code: -32005, message: 'rate limited' } };
        const block = await reader().request({ method: 'eth_getBlockByNumber', params: [params[0], Boolean(params[1])] });
        return { jsonrpc: '2.0', id, result: block && { ...block, hash: `0x${'ee'.repeat(32)}` } };
      }
      return undefined;
    });
    api = await startService({
      demo: true,
      networks: { test: devNetwork(proxy.url, contracts, 1) },
      devChain: DEV_CHAIN_POWERS,
      watchIntervalMs: 100,
      sweepIntervalMs: 200,
      jobIntervalMs: 100,
      treasuryReconcileIntervalMs: 200,
      treasuryHoldThreshold: '1000',
      ...(await databaseOptions('pglite')),
    } as never);
    expect((await call('PUT', '/api/v1/settlement', { settlement: 'balance' }, secretKey)).status).toBe(200);
    for (const coin of ['USDT', 'USDC']) {
      const reference = `lagging-${coin}`;
      expect((await call('POST', '/api/v1/transaction/initialize', { reference, coin, currency: 'USD', amount: 100 }, publicKey)).status).toBe(201);
      expect((await call('POST', '/api/v1/sandbox/deposit', { reference, kind: 'exact' }, publicKey)).status).toBe(200);
      await until(`${coin} deposit`, async () => (await mined()) && available(coin, '100'), 40_000);
    }
  }, 90_000);
  afterAll(async () => {
    await api?.close();
    await proxy?.close();
    await chain?.stop();
  });
  const reader = () => createPublicClient({ chain: foundry, transport: http(chain.url) });
  const rpc = (method: string) => reader().request({ method: method as 'eth_blockNumber' });
  const mined = async () => Boolean(await rpc('evm_mine'));
  const call = caller(() => api!.url);
  const available = async (coin: string, amount: string) =>
    ((await call('GET', '/api/v1/balances', undefined, secretKey)).body.data as Array<{ coin: string; available: string }>).find((l) => l.coin === coin)
      ?.available === amount;
  const statusOf = async (path: string) => (await call('GET', path, undefined, secretKey)).body.data as { status: string; tx_hash: string; failure?: string };
  /** The node lags on a completed send's transaction for ~6 s of blocks (three looks, each a block apart): it stays completed. */
  const lagOn = async (path: string, blocks: 'null' | 'error' | 'other', withReceipt: boolean) => {
    const { tx_hash } = await statusOf(path);
    const receipt = await reader().getTransactionReceipt({ hash: tx_hash as `0x${string}` });
    Object.assign(lag, { hash: withReceipt ? '' : tx_hash.toLowerCase(), fromBlock: receipt.blockNumber, blocks });
    try {
      for (const end = Date.now() + 6_500; Date.now() < end; ) {
        await mined();
        await new Promise((resolve) => setTimeout(resolve, 250));
        const now = await statusOf(path);
        expect(now.status, now.failure).toBe('completed');
      }
    } finally {
      lag.blocks = 'off';
    }
  };

  /** A withdrawal of `amount` USDT, counted. */
  const withdrawn = async (amount: string) => {
    const sent = await call('POST', '/api/v1/withdrawals', { coin: 'USDT', chain_id: 31337, address: devAccount(13).address, amount }, secretKey);
    expect(sent.status).toBe(201);
    return counted(sent.body.data.id, `/api/v1/withdrawals/${sent.body.data.id}`);
  };
  /** A swap of `amount` USDC to USDT, counted. */
  const swapped = async (amount: string) => {
    const quote = (await call('POST', '/api/v1/swaps/quote', { from: 'USDC', to: 'USDT', amount }, secretKey)).body.data;
    expect((await call('POST', '/api/v1/swaps', { quote_id: quote.id }, secretKey)).status).toBe(201);
    return counted(quote.id as string, `/api/v1/swaps/${quote.id}`);
  };
  const counted = async (id: string, path: string) => {
    await until(`${path} counted`, async () => (await mined()) && (await statusOf(path)).status === 'completed', 30_000);
    return { id, path };
  };

  it('a withdrawal whose receipt and block the node does not answer stays completed, its money not given back', async () => {
    const { path } = await withdrawn('40');
    await lagOn(path, 'null', false);
    expect(await available('USDT', '60')).toBe(true);
  });

  it('a withdrawal without a receipt, its block under another hash (re-mined, the index behind), stays completed: no other transaction took its nonce', async () => {
    const { path } = await withdrawn('10');
    await lagOn(path, 'other', false);
    expect(await available('USDT', '50')).toBe(true);
  });

  it('a swap whose receipt and block the node does not answer stays completed, its coin not given back', async () => {
    const { id, path } = await swapped('50');
    await lagOn(path, 'null', false);
    expect(await available('USDC', '50')).toBe(true);
    expect(await toldStatuses(api!, 'SWAP_UPDATED', id)).not.toContain('failed');
  });

  it('a swap whose block the node answers with an error (its receipt answered) is not undone nor told pending again', async () => {
    const { id, path } = await swapped('20');
    const told = await toldStatuses(api!, 'SWAP_UPDATED', id);
    await lagOn(path, 'error', true);
    expect(await toldStatuses(api!, 'SWAP_UPDATED', id)).toEqual(told);
    const undone = await api!.db.query<{ kind: string }>(`SELECT kind FROM journal_entries WHERE ref LIKE $1 || '%' AND kind = 'swap_unsent'`, [id]);
    expect(undone).toEqual([]);
  });

  it('a swap whose block the node answers under another hash (its receipt answered, in the block it was counted in) is not undone', async () => {
    const { id, path } = await swapped('10');
    const told = await toldStatuses(api!, 'SWAP_UPDATED', id);
    await lagOn(path, 'other', true);
    expect(await toldStatuses(api!, 'SWAP_UPDATED', id)).toEqual(told);
  });
});
