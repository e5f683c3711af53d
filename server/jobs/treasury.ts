// The treasury's work (merchants on `balance` settlement): deposits swept into the treasury
// journaled into merchants' balances, and, one instance per chain at a time (a lease), pending
// swaps and withdrawals sent from the treasury, each transaction recorded before it is sent
// and counted only once mined: a failed or reverted one returns the reserved money.
import type { Address, Hex } from 'viem';
import { swapView, withdrawalView } from '../views/balances.ts';
import { SwapRefused, type SwapProvider, type Treasury } from '../chain/treasury.ts';
import type { Job, JobDeps } from './index.ts';
import { loopJob } from './loop.ts';

export function treasuryJobs(deps: JobDeps): Job[] {
  const { ledger, db, log } = deps;
  // Only sweeps into a treasury need journaling in the background (every read of a balance
  // catches up first): no treasury, no job, and never more often than sweeps or once a second.
  const journal =
    deps.treasuries.length === 0 || deps.sweepIntervalMs <= 0 ? [] : [
      loopJob(
        'journal deposits into balances',
        async () => {
          const written = await db.transaction((tx) => ledger.catchUp(tx, deps.now()));
          if (written) log.info({ entries: written }, 'deposits journaled into merchants\' balances');
        },
        Math.max(deps.sweepIntervalMs, 1000),
        (error) => log.warn({ err: error }, 'journaling deposits failed; retrying'),
      ),
    ];
  const senders = deps.treasuries.map(({ treasury, swaps }) =>
    loopJob(`treasury chain ${treasury.network.chainId}`, () => sendPending(deps, treasury, swaps), deps.intervalMs, (error) => log.warn({ err: error, chainId: treasury.network.chainId }, 'treasury work failed; retrying'), {
      wakeOn: 'treasury_due',
    }),
  );
  return [...journal, ...senders];
}

async function sendPending(deps: JobDeps, treasury: Treasury, swaps: SwapProvider | undefined): Promise<void> {
  const { ledger, log } = deps;
  const chainId = treasury.network.chainId;
  // Nothing pending: no lease taken, nothing written (this runs every few hundred ms).
  if ((await ledger.pendingWithdrawals(chainId)).length === 0 && (await ledger.pendingSwaps(chainId)).length === 0) return;
  if (!(await ledger.leaseTreasury(chainId, deps.instance, deps.now(), 120_000))) return;
  try {
    for (const w of await ledger.pendingWithdrawals(chainId)) {
      let hash = w.txHash as Hex | null;
      let raw = w.rawTx as Hex | null;
      if (!hash || !raw) {
        ({ hash, raw } = await treasury.transfer(w.token as Address, w.address as Address, w.amount));
        await ledger.withdrawalSigned(w.id, hash, raw, deps.now());
      }
      const outcome = await settle(treasury, hash, raw);
      if (outcome === 'pending') continue;
      const done = await ledger.finishWithdrawal(w.id, outcome === 'ok' ? { sent: true } : { failure: outcome }, deps.now(), withdrawalView);
      log.info({ withdrawal: w.id, chainId, status: done.state, tx: hash }, 'withdrawal from the treasury');
    }
    for (const s of await ledger.pendingSwaps(chainId)) {
      if (!swaps) {
        await ledger.finishSwap(s.id, { failure: 'this network has no swap router configured' }, deps.now(), swapView);
        continue;
      }
      let hash = s.txHash as Hex | null;
      let raw = s.rawTx as Hex | null;
      if (!hash || !raw) {
        try {
          ({ hash, raw } = await swaps.sign(s.fromToken as Address, s.toToken as Address, s.amountIn, s.minimumOut));
        } catch (error) {
          if (!(error instanceof SwapRefused)) throw error;
          const done = await ledger.finishSwap(s.id, { failure: error.message }, deps.now(), swapView);
          log.info({ swap: s.id, chainId, status: done.state }, 'swap refused by the pool (price past the slippage limit); the balance is returned');
          continue;
        }
        await ledger.swapSigned(s.id, hash, raw, deps.now());
      }
      const outcome = await settle(treasury, hash, raw);
      if (outcome === 'pending') continue;
      let result: { out: bigint } | { failure: string };
      if (outcome === 'ok') {
        const receipt = await treasury.rpc.getTransactionReceipt({ hash });
        result = { out: swaps.received(receipt, s.toToken as Address) };
      } else result = { failure: outcome };
      const done = await ledger.finishSwap(s.id, result, deps.now(), swapView);
      log.info({ swap: s.id, chainId, status: done.state, tx: hash }, 'swap through the pool');
    }
  } finally {
    await ledger.releaseTreasury(chainId, deps.instance).catch(() => {});
  }
}

/** Sends a recorded transaction (again) and waits for it: 'ok', a failure in words, or 'pending' (left for the next tick). */
async function settle(treasury: Treasury, hash: Hex, raw: Hex): Promise<'ok' | 'pending' | string> {
  await treasury.send(raw);
  const outcome = await treasury.outcome(hash);
  if (outcome.mined) return outcome.ok ? 'ok' : `the transaction ${hash} reverted on chain (for a swap: the pool would give less than the minimum, the price moved past the slippage limit)`;
  if (await treasury.superseded(hash, raw)) return `the transaction ${hash} was replaced at its nonce and never mined`;
  return 'pending';
}
