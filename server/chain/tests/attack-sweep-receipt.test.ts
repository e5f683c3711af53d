// Third review of issue 21 (this failed on main before its fix): the sweeper's `settle`
// undoes a recorded sweep whenever its node does not hand back the sweep's receipt and
// transaction, without asking whether the sweep's block is still on the chain. A node behind
// a load balancer that has not indexed the block yet answers null; a provider's rate limit or a
// timeout is an error, and every error is read as "no receipt" (`.catch(() => undefined)`).
// Either way a sweep still on the chain, in the block it was recorded in, is undone, and the
// same tick claims its deposits and pays for a second sweep that moves nothing (until that
// second one is mined, the books hold money the chain says is gone).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, createWalletClient, http, parseUnits, type Address } from 'viem';
import { foundry } from 'viem/chains';
import { startService } from '../../service/app.ts';
import { DEMO_MERCHANT } from '../../service/seed.ts';
import { ChainStore } from '../store.ts';
import { depositViews } from '../../payments/deposit-views-store.ts';
import { TestToken } from '../../../contracts/artifacts.generated.ts';
import { devAccount, devNetwork, type DevContracts } from '../../../devchain/deploy.ts';
import type { DevChain } from '../../../devchain/anvil.ts';
import { sharedDevChain } from '../../../devchain/shared.ts';
import { DEV_CHAIN_POWERS } from '../../../devchain/sandbox.ts';
import { Sweeper } from '../sweeper.ts';
import { Watcher } from '../watcher.ts';
import { caller, creditsOf, type RpcCall, rpcProxy } from '../../testing/chain.ts';

const { secretKey } = DEMO_MERCHANT.keys.test;
const gas = devAccount(6);
let chain: DevChain;
let contracts: DevContracts;
const reader = () => createPublicClient({ chain: foundry, transport: http(chain.url) });
const rpc = (method: string, params: unknown[] = []) => reader().request({ method: method as 'eth_blockNumber', params: params as never });

/** A node in front of anvil that does not know the transactions in `hidden`: null, or an error when `failing`. */
async function startProxy(target: string) {
  const state = { hidden: new Set<string>(), failing: false };
  const proxy = await rpcProxy(target, (body) => {
    const call = body as RpcCall;
    if (
      (call.method !== 'eth_getTransactionReceipt' && call.method !== 'eth_getTransactionByHash') ||
      !state.hidden.has(String(call.params?.[0]).toLowerCase())
    )
      return undefined;
    return state.failing
      ? { jsonrpc: '2.0', id: call.id, error: { code: -32005, message: 'rate limit exceeded' } }
      : { jsonrpc: '2.0', id: call.id, result: null };
  });
  return Object.assign(state, proxy);
}

beforeAll(async () => {
  ({ chain, contracts } = await sharedDevChain());
}, 60_000);
afterAll(async () => {
  await chain?.stop();
});

async function scenario(failing: boolean) {
  const network = devNetwork(chain.url, contracts, 3);
  const api = await startService({ demo: true, networks: { test: network }, devChain: DEV_CHAIN_POWERS, jobs: false });
  const store = new ChainStore(api.db, depositViews);
  await store.forget(chain.chainId);
  const watcher = new Watcher({
    chainId: chain.chainId,
    rpcUrls: [chain.url],
    confirmations: 3,
    tokens: Object.values(contracts.tokens),
    store,
    credits: creditsOf(api),
    holder: 'receipt',
    startBlock: (await reader().getBlockNumber()) + 1n,
    leaseMs: 0,
  });
  const proxy = await startProxy(chain.url);
  try {
    const request = caller(() => api.url);
    expect((await request('PUT', '/api/v1/payout_address', { chain_id: chain.chainId, address: devAccount(12).address }, secretKey)).status).toBe(200);
    const reference = failing ? 'receipt-error' : 'receipt-null';
    const to = (await request('POST', '/api/v1/transaction/initialize', { reference, coin: 'USDT', currency: 'USD', amount: 10 }, secretKey)).body.data
      .address as Address;
    const customer = createWalletClient({ account: devAccount(1), chain: foundry, transport: http(chain.url) });
    await reader().waitForTransactionReceipt({
      hash: await customer.writeContract({ address: contracts.tokens.USDT, abi: TestToken.abi, functionName: 'transfer', args: [to, parseUnits('10', 18)] }),
      pollingInterval: 50,
    });
    await rpc('anvil_mine', ['0x3']);
    expect((await watcher.tick()).credited).toBe(1);

    const first = await new Sweeper({ network, store, gas }).tick();
    expect(first).toMatchObject({ swept: 1, final: 0 });
    const block = await reader().getTransactionReceipt({ hash: first.hash! });

    // One more block, and the sweeper's node cannot (or will not, for now) find the sweep.
    await rpc('anvil_mine', ['0x1']);
    proxy.hidden.add(first.hash!.toLowerCase());
    proxy.failing = failing;
    const nonce = await reader().getTransactionCount({ address: gas.address });
    const next = await new Sweeper({ network: { ...network, rpcUrls: [proxy.url] }, store, gas }).tick().catch((error: Error) => ({ error: error.message }));
    // The sweep's block is still on the chain, unchanged: nothing was undone, nothing sent again.
    expect((await reader().getBlock({ blockNumber: block.blockNumber })).hash).toBe(block.blockHash);
    expect(next).not.toHaveProperty('undone', [first.hash]);
    expect(await reader().getTransactionCount({ address: gas.address })).toBe(nonce);
    expect((await store.transfers(chain.chainId)).map((t) => t.sweptHash)).toEqual([first.hash]);
  } finally {
    await proxy.close();
    await watcher.stop();
    await api.close();
  }
}

describe('a sweep its node cannot find for a moment', { timeout: 60_000 }, () => {
  it('is not undone while its block is still on the chain (a node answering null for its receipt)', () => scenario(false));
  it('is not undone when the node answers an error (a rate limit) for its receipt', () => scenario(true));
});
