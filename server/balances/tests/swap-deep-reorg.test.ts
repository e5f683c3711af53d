// Issue 49, swaps: on the dev chain, on PGlite and on PostgreSQL, a completed swap (USDC to USDT)
// that a reorganisation deeper than the confirmations took off the chain, with its router
// approval. Before, swaps were never looked at again once counted: the treasury held the USDC
// again and not the USDT the journal gave the merchant, the reconciliation held the chain
// (`treasury_short`) and the hold never lifted (the wait below timed out, the swap `completed`).
// Now the swap is looked at again until final (balances/sends-final.ts): gone at two looks, its
// `swap_completed` entry is undone (`swap_unsent`), it goes back to pending and its recorded
// approval and transaction are sent again, counted once more (`swap_completed` `id#1`); the
// merchant is told by SWAP_UPDATED, the hold lifts itself, and the treasury agrees with the
// journal in both coins.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, erc20Abi, http, type Hex } from 'viem';
import { foundry } from 'viem/chains';
import { startService, type Service } from '../../service/app.ts';
import { DEMO_MERCHANT } from '../../service/seed.ts';
import { devAccount, devNetwork, TREASURY_DEV_ACCOUNT, type DevContracts } from '../../../devchain/deploy.ts';
import type { DevChain } from '../../../devchain/anvil.ts';
import { sharedDevChain } from '../../../devchain/shared.ts';
import { DEV_CHAIN_POWERS } from '../../../devchain/sandbox.ts';
import { databaseOptions, KINDS } from '../../testing/databases.ts';
import { caller, toldStatuses, until } from '../../testing/chain.ts';

const { publicKey, secretKey } = DEMO_MERCHANT.keys.test;
const treasury = devAccount(TREASURY_DEV_ACCOUNT).address;

describe.each(KINDS)('a completed swap a deep reorganisation took away, on %s', { timeout: 120_000 }, (kind) => {
  let chain: DevChain;
  let contracts: DevContracts;
  let api: Service | undefined;
  beforeAll(async () => {
    ({ chain, contracts } = await sharedDevChain());
  }, 60_000);
  afterAll(async () => {
    await api?.close();
    await chain?.stop();
  });
  const reader = () => createPublicClient({ chain: foundry, transport: http(chain.url) });
  const rpc = (method: string, params: unknown[] = []) => reader().request({ method: method as 'eth_blockNumber', params: params as never });
  const call = caller(() => api!.url);
  const swapOf = async (id: string) => (await call('GET', `/api/v1/swaps/${id}`, undefined, secretKey)).body.data;
  /** Per coin, what the journal says the treasury holds and what it holds on chain. */
  const books = async () => {
    const out: Record<string, { journal: bigint; chain: bigint }> = {};
    for (const symbol of ['USDC', 'USDT'] as const) {
      const held = await api!.parts.journal.held(31337, contracts.tokens[symbol]);
      const onChain = await reader().readContract({ address: contracts.tokens[symbol], abi: erc20Abi, functionName: 'balanceOf', args: [treasury] });
      out[symbol] = { journal: held.merchants + held.fees + held.payable, chain: onChain };
    }
    return out;
  };
  const agreed = async () => Object.values(await books()).every((c) => c.journal === c.chain);

  it('undoes its counting, sends its approval and itself again as recorded, counts it once more; the hold lifts itself', async () => {
    api = await startService({
      demo: true,
      networks: { test: devNetwork(chain.url, contracts, 1) },
      devChain: DEV_CHAIN_POWERS,
      watchIntervalMs: 100,
      sweepIntervalMs: 200,
      jobIntervalMs: 100,
      treasuryReconcileIntervalMs: 200,
      ...(await databaseOptions(kind)),
    });
    expect((await call('PUT', '/api/v1/settlement', { settlement: 'balance' }, secretKey)).status).toBe(200);
    const reference = `swap-deep-${kind}`;
    expect((await call('POST', '/api/v1/transaction/initialize', { reference, coin: 'USDC', currency: 'USD', amount: 100 }, publicKey)).status).toBe(201);
    expect((await call('POST', '/api/v1/sandbox/deposit', { reference, kind: 'exact' }, publicKey)).status).toBe(200);
    await until(
      'the deposit journaled, the treasury agreeing',
      async () => {
        await rpc('evm_mine');
        const lines = (await call('GET', '/api/v1/balances', undefined, secretKey)).body.data as Array<{ coin: string; available: string }>;
        return lines.find((l) => l.coin === 'USDC')?.available === '100' && (await agreed());
      },
      40_000,
      100,
    );

    // The swap, approval and all, counted at the network's confirmation; then the chain forgets it.
    const snapshot = await rpc('evm_snapshot');
    const quote = (await call('POST', '/api/v1/swaps/quote', { from: 'USDC', to: 'USDT', amount: '50' }, secretKey)).body.data;
    expect((await call('POST', '/api/v1/swaps', { quote_id: quote.id }, secretKey)).status).toBe(201);
    const id = quote.id as string;
    await until(
      'the swap counted',
      async () => {
        await rpc('evm_mine');
        return (await swapOf(id)).status === 'completed';
      },
      20_000,
      100,
    );
    const counted = await swapOf(id);
    const approval = (await api.db.query<{ approve_tx_hash: string }>(`SELECT approve_tx_hash FROM swaps WHERE id = $1`, [id]))[0]!.approve_tx_hash;
    expect(approval).toMatch(/^0x/);
    expect(await rpc('evm_revert', [snapshot])).toBe(true);
    await rpc('anvil_mine', ['0x5']);
    for (const hash of [counted.tx_hash, approval] as Hex[])
      expect(
        await reader()
          .getTransactionReceipt({ hash })
          .catch(() => undefined),
      ).toBeUndefined();
    expect((await books()).USDT.chain).toBeLessThan((await books()).USDT.journal);

    // The chain goes on: the swap is undone, sent again as recorded, counted again, the hold lifted.
    await until(
      'the swap counted again, the treasury agreeing, no hold',
      async () => {
        await rpc('evm_mine');
        return (
          (await toldStatuses(api!, 'SWAP_UPDATED', id)).filter((s) => s === 'completed').length === 2 &&
          (await agreed()) &&
          (await api!.parts.treasuryHolds.active(31337)) === undefined
        );
      },
      30_000,
      200,
    );
    expect(await toldStatuses(api, 'SWAP_UPDATED', id)).toEqual(['pending', 'completed', 'pending', 'completed']);
    const again = await swapOf(id);
    expect(again.tx_hash).toBe(counted.tx_hash);
    expect(await reader().getTransactionReceipt({ hash: again.tx_hash as Hex })).toMatchObject({ status: 'success' });
    expect(await reader().getTransactionReceipt({ hash: approval as Hex })).toMatchObject({ status: 'success' });
    const entries = await api.db.query<{ kind: string; ref: string }>(
      `SELECT kind, ref FROM journal_entries WHERE ref = $1 OR ref LIKE $1 || '#%' ORDER BY id`,
      [id],
    );
    expect(entries.map((e) => `${e.kind} ${e.ref.replace(id, 'id')}`)).toEqual([
      'swap_reserved id',
      'swap_completed id',
      'swap_unsent id',
      'swap_completed id#1',
    ]);
    for (const s of await api.parts.journal.journalSums()) expect(s.sum).toBe(0n);
    expect(await api.parts.treasuryTxs.inFlight(31337)).toBe(false);
    // A hold the shortfall caused meanwhile lifted itself (none, if the swap was undone before a look found it).
    for (const hold of (await api.parts.treasuryHolds.holds()).resolved) expect(hold).toMatchObject({ reason: 'treasury_short', resolvedBy: 'service' });
    // Its gas and its approval's journaled again: the native coin agrees too, once nothing is in flight.
    const gasRefs = (await api.parts.journal.entries()).filter((e) => e.kind === 'gas').map((e) => e.ref);
    expect(gasRefs).toEqual(expect.arrayContaining([`31337/${approval.toLowerCase()}#1`, `31337/${(again.tx_hash as string).toLowerCase()}#1`]));
    await api.parts.reconcileTreasuries();
    const native = (await api.parts.treasuryHolds.findings()).find((f) => f.chainId === 31337 && f.token === '0x0000000000000000000000000000000000000000');
    expect(native?.short ?? 0n).toBe(0n);
  });
});
