// Third review of issue 21 (failed on main until 4f74c9b made treasury transactions count at the
// network's confirmations; kept as the guard of that): the second review made a
// sweep count only once its block has the network's confirmations, but the treasury's own
// transactions still count at their first receipt (balances/treasury-job.ts `settle`). A swap is
// journaled as completed (the merchant's USDC out, USDT in) the moment its receipt appears;
// if that block then leaves the chain, the swap is gone (or, sent again later, reverts at a
// price past its floor), the treasury still holds the USDC and never got the USDT, and the
// journal says otherwise: the merchant can withdraw USDT that other merchants' money pays for.
// Withdrawals share the same path.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, erc20Abi, http, type Address } from 'viem';
import { foundry } from 'viem/chains';
import { startService, type Service } from '../../service/app.ts';
import { DEMO_MERCHANT } from '../../service/seed.ts';
import { devNetwork, TREASURY_DEV_ACCOUNT, devAccount, type DevContracts } from '../../../devchain/deploy.ts';
import type { DevChain } from '../../../devchain/anvil.ts';
import { sharedDevChain } from '../../../devchain/shared.ts';
import { DEV_CHAIN_POWERS } from '../../../devchain/sandbox.ts';
import { caller, until } from '../../testing/chain.ts';

const { publicKey, secretKey } = DEMO_MERCHANT.keys.test;
const treasury = devAccount(TREASURY_DEV_ACCOUNT).address;
let chain: DevChain;
let contracts: DevContracts;
let api: Service | undefined;

beforeAll(async () => {
  ({ chain, contracts } = await sharedDevChain());
}, 120_000);
afterAll(async () => {
  await api?.close();
  await chain?.stop();
});

describe('a swap whose block leaves the chain', { timeout: 120_000 }, () => {
  it('does not stay journaled as completed while the treasury never swapped', async () => {
    // Three confirmations: a block with none on top of it is not final on this network.
    api = await startService({
      demo: true,
      networks: { test: devNetwork(chain.url, contracts, 3) },
      devChain: DEV_CHAIN_POWERS,
      watchIntervalMs: 100,
      sweepIntervalMs: 300,
      jobIntervalMs: 200,
    });
    const call = caller(() => api!.url);
    const reader = createPublicClient({ chain: foundry, transport: http(chain.url) });
    const rpc = (method: string, params: unknown[] = []) => reader.request({ method: method as 'eth_blockNumber', params: params as never });
    const onChain = (token: Address) => reader.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [treasury] });
    const line = async (coin: string) => {
      const lines = (await call('GET', '/api/v1/balances', undefined, secretKey)).body.data as Array<{ coin: string; available: string; reserved: string }>;
      return lines.find((l) => l.coin === coin) ?? { coin, available: '0', reserved: '0' };
    };
    const books = async () => {
      const out: Record<string, { journal: bigint; chain: bigint }> = {};
      for (const symbol of ['USDC', 'USDT'] as const) {
        const held = await api!.parts.journal.held(31337, contracts.tokens[symbol]);
        out[symbol] = { journal: held.merchants + held.fees + held.payable, chain: await onChain(contracts.tokens[symbol]) };
      }
      return out;
    };

    expect((await call('PUT', '/api/v1/settlement', { settlement: 'balance' }, secretKey)).status).toBe(200);
    expect(
      (await call('POST', '/api/v1/transaction/initialize', { reference: 'swap-reorg', coin: 'USDC', currency: 'USD', amount: 100 }, publicKey)).status,
    ).toBe(201);
    expect((await call('POST', '/api/v1/sandbox/deposit', { reference: 'swap-reorg', kind: 'exact' }, publicKey)).status).toBe(200);
    // Blocks on top, until the deposit is confirmed, swept, final and journaled.
    await until(
      'journaled',
      async () => {
        await rpc('anvil_mine', ['0x1']);
        return (await line('USDC')).available === '100';
      },
      60_000,
      300,
    );
    const agreed = await books();
    expect(agreed.USDC.journal).toBe(agreed.USDC.chain);

    // The swap is sent and mined in a block that has no confirmations yet; then that block leaves the chain.
    const snapshot = await rpc('evm_snapshot');
    const q = (await call('POST', '/api/v1/swaps/quote', { from: 'USDC', to: 'USDT', amount: '50' }, secretKey)).body.data;
    expect((await call('POST', '/api/v1/swaps', { quote_id: q.id }, secretKey)).status).toBe(201);
    const hash = await until(
      'the swap is signed',
      async () => (await call('GET', `/api/v1/swaps/${q.id}`, undefined, secretKey)).body.data.tx_hash as string | undefined,
      20_000,
    );
    await until('the swap is mined', async () => reader.getTransactionReceipt({ hash: hash as `0x${string}` }).catch(() => undefined), 20_000);
    await new Promise((resolve) => setTimeout(resolve, 2_000)); // the treasury job reads its receipt
    await rpc('evm_revert', [snapshot]);
    await rpc('anvil_mine', ['0x5']);
    expect(await reader.getTransactionReceipt({ hash: hash as `0x${string}` }).catch(() => undefined)).toBeUndefined();
    // The chain goes on (a block every 300 ms for a while): a service that waits for the swap's
    // confirmations sends it again and journals what the chain did; main has journaled it already.
    for (let i = 0; i < 25; i++) {
      await rpc('anvil_mine', ['0x1']);
      await new Promise((resolve) => setTimeout(resolve, 300));
    }

    // The treasury holds on chain what the journal says, per coin, whatever became of the swap.
    const after = await books();
    const swap = (await call('GET', `/api/v1/swaps/${q.id}`, undefined, secretKey)).body.data;
    expect({ status: swap.status, USDC: after.USDC.journal, USDT: after.USDT.journal }).toEqual({
      status: swap.status,
      USDC: after.USDC.chain,
      USDT: after.USDT.chain,
    });
  });
});
