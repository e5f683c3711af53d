// Third review of issue 21 (failed on main before the fix of this commit): the treasury decides that a
// withdrawal "was replaced at its nonce and never mined" when its node does not hand back the
// receipt and the treasury's nonce has moved past it (balances/treasury-job.ts `settle`,
// chain/treasury.ts `superseded`, whose receipt lookup also reads any error as "none"). The
// nonce moved past it because it WAS mined: the tokens left the treasury, yet the withdrawal is
// marked failed and its amount goes back to the merchant's available balance, to be withdrawn
// a second time. The sweeper was taught (second review) not to trust a missing receipt; the
// treasury, which moves money out, was not.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, erc20Abi, http, parseUnits, type Address } from 'viem';
import { foundry } from 'viem/chains';
import { startService, type Service } from '../../service/app.ts';
import { DEMO_MERCHANT } from '../../service/seed.ts';
import { devAccount, devNetwork, TREASURY_DEV_ACCOUNT, type DevContracts } from '../../../devchain/deploy.ts';
import type { DevChain } from '../../../devchain/anvil.ts';
import { sharedDevChain } from '../../../devchain/shared.ts';
import { DEV_CHAIN_POWERS } from '../../../devchain/sandbox.ts';
import { caller, rpcProxy, until } from '../../testing/chain.ts';

const { publicKey, secretKey } = DEMO_MERCHANT.keys.test;
const treasury = devAccount(TREASURY_DEV_ACCOUNT).address;
let chain: DevChain;
let contracts: DevContracts;
let api: Service | undefined;
let proxy: Awaited<ReturnType<typeof startProxy>> | undefined;

/** A node in front of anvil that, while `hideReceipts`, answers null for every receipt and transaction lookup (a backend that has not indexed them). */
async function startProxy(target: string) {
  const state = { hideReceipts: false };
  const proxy = await rpcProxy(target, (body) => {
    const calls = [body].flat();
    if (!state.hideReceipts || !calls.every((c) => c.method === 'eth_getTransactionReceipt' || c.method === 'eth_getTransactionByHash')) return undefined;
    const answers = calls.map((c) => ({ jsonrpc: '2.0', id: c.id, result: null }));
    return Array.isArray(body) ? answers : answers[0];
  });
  return Object.assign(state, proxy);
}

beforeAll(async () => {
  ({ chain, contracts } = await sharedDevChain());
}, 60_000);
afterAll(async () => {
  await api?.close();
  await proxy?.close();
  await chain?.stop();
});

describe('a withdrawal whose receipt the node does not return', { timeout: 120_000 }, () => {
  it('is not marked failed (and its money given back to the balance) when it was mined', async () => {
    proxy = await startProxy(chain.url);
    api = await startService({
      demo: true,
      networks: { test: devNetwork(proxy.url, contracts, 1) },
      devChain: DEV_CHAIN_POWERS,
      watchIntervalMs: 100,
      sweepIntervalMs: 300,
      jobIntervalMs: 200,
    });
    const call = caller(() => api!.url);
    const reader = createPublicClient({ chain: foundry, transport: http(chain.url) });
    const onChain = (token: Address, who: Address) => reader.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [who] });
    const available = async () => {
      const lines = (await call('GET', '/api/v1/balances', undefined, secretKey)).body.data as Array<{ coin: string; available: string }>;
      return parseUnits(lines.find((l) => l.coin === 'USDT')?.available ?? '0', 18);
    };

    expect((await call('PUT', '/api/v1/settlement', { settlement: 'balance' }, secretKey)).status).toBe(200);
    expect(
      (await call('POST', '/api/v1/transaction/initialize', { reference: 'wd-1', coin: 'USDT', currency: 'USD', amount: 10 }, publicKey)).status,
    ).toBeLessThan(300);
    expect((await call('POST', '/api/v1/sandbox/deposit', { reference: 'wd-1', kind: 'exact' }, publicKey)).status).toBe(200);
    await until('the deposit is in the balance', async () => (await available()) >= parseUnits('10', 18), 30_000);
    const balanceBefore = await available();
    const treasuryBefore = await onChain(contracts.tokens.USDT, treasury);

    // The node stops returning receipts for a while (a load-balanced backend behind on its index, say).
    proxy.hideReceipts = true;
    const wallet = devAccount(4).address;
    const started = await call('POST', '/api/v1/withdrawals', { coin: 'USDT', chain_id: 31337, address: wallet, amount: '5' }, secretKey);
    expect(started.status).toBe(201);
    await until('the withdrawal is mined', async () => (await onChain(contracts.tokens.USDT, wallet)) === parseUnits('5', 18), 30_000);
    // Give the treasury job time to wait for the receipt (5 s a look, treasury-job.ts `settle`) twice and decide.
    await new Promise((resolve) => setTimeout(resolve, 12_000));
    const meanwhile = (await call('GET', `/api/v1/withdrawals/${started.body.data.id}`, undefined, secretKey)).body.data;

    // The chain: 5 USDT left the treasury and reached the wallet.
    expect(await onChain(contracts.tokens.USDT, treasury)).toBe(treasuryBefore - parseUnits('5', 18));
    // The books must not say otherwise: the withdrawal is not failed, and its money is not back in the balance.
    expect(meanwhile.status).not.toBe('failed');
    expect(await available()).toBe(balanceBefore - parseUnits('5', 18));
    // Once the node answers again, the withdrawal completes, and the treasury holds what the journal says.
    proxy.hideReceipts = false;
    const done = await until(
      'the withdrawal is decided',
      async () => {
        const w = (await call('GET', `/api/v1/withdrawals/${started.body.data.id}`, undefined, secretKey)).body.data;
        return w.status !== 'pending' ? w : false;
      },
      40_000,
    );
    expect(done.status).toBe('completed');
    const held = await api.parts.journal.held(31337, contracts.tokens.USDT);
    expect(held.merchants + held.fees + held.payable).toBe(await onChain(contracts.tokens.USDT, treasury));
  });
});
