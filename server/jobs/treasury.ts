// The treasury's work (merchants on `balance` settlement): deposits swept into the treasury
// journaled into merchants' balances, and, one instance per chain at a time (a lease), pending
// swaps and withdrawals and what is owed to the payout partner sent from the treasury, each
// transaction recorded before it is sent and counted only once its block has the network's
// confirmations: a failed or reverted one returns the reserved money (or leaves the partner
// owed). Each counted transaction's gas is a journal entry in the native coin, so the
// treasury's native balance reconciles too.
import type { Address, Hex, TransactionReceipt } from 'viem';
import { configuredUnits, partnerDue } from '../domain/ledger.ts';
import { swapView, withdrawalView } from '../views/balances.ts';
import { feeOf, SwapRefused, type Signed, type SwapProvider, type Treasury } from '../chain/treasury.ts';
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
  const senders = deps.treasuries.map(({ treasury, swaps }) => {
    // The first tick looks at the treasury's native coin (its gas funding) even with nothing to send.
    const state = { fundingSeen: false };
    return loopJob(`treasury chain ${treasury.network.chainId}`, () => sendPending(deps, treasury, swaps, state), deps.intervalMs, (error) => log.warn({ err: error, chainId: treasury.network.chainId }, 'treasury work failed; retrying'), {
      wakeOn: 'treasury_due',
    });
  });
  return [...journal, ...senders];
}

/**
 * One tick of a treasury's sender: pending withdrawals and swaps, then what is owed to the
 * payout partner once due, then (nothing of the treasury's in flight) its native coin against
 * the journal. Every mined transaction's gas is journaled before the work it did is counted.
 */
async function sendPending(deps: JobDeps, treasury: Treasury, swaps: SwapProvider | undefined, state: { fundingSeen: boolean }): Promise<void> {
  const { ledger, log } = deps;
  const chainId = treasury.network.chainId;
  const partner = partnerWork(deps, treasury);
  // Nothing pending: no lease taken, nothing written (this runs every few hundred ms).
  if (state.fundingSeen && (await ledger.pendingWithdrawals(chainId)).length === 0 && (await ledger.pendingSwaps(chainId)).length === 0 && !(await partner.due())) return;
  if (!(await ledger.leaseTreasury(chainId, deps.instance, deps.now(), 120_000))) return;
  const gas = (receipt: TransactionReceipt, memo: string) => ledger.gasSpent(chainId, receipt.transactionHash, feeOf(receipt), memo, deps.now());
  try {
    for (const w of await ledger.pendingWithdrawals(chainId)) {
      let hash = w.txHash as Hex | null;
      let raw = w.rawTx as Hex | null;
      if (!hash || !raw) {
        ({ hash, raw } = await treasury.transfer(w.token as Address, w.address as Address, w.amount));
        await ledger.withdrawalSigned(w.id, hash, raw, deps.now());
      }
      const outcome = await settle(treasury, hash, raw);
      if (outcome.state === 'pending') continue;
      if (outcome.receipt) await gas(outcome.receipt, `withdrawal ${w.id}`);
      const done = await ledger.finishWithdrawal(w.id, outcome.state === 'ok' ? { sent: true } : { failure: outcome.failure }, deps.now(), withdrawalView);
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
        let signed: Signed;
        try {
          signed = await swaps.sign(s.fromToken as Address, s.toToken as Address, s.amountIn, s.minimumOut);
        } catch (error) {
          for (const r of (error as { before?: TransactionReceipt[] }).before ?? []) await gas(r, `approving the swap router for swap ${s.id}`);
          if (!(error instanceof SwapRefused)) throw error;
          const done = await ledger.finishSwap(s.id, { failure: error.message }, deps.now(), swapView);
          log.info({ swap: s.id, chainId, status: done.state }, 'swap refused by the pool (price past the slippage limit); the balance is returned');
          continue;
        }
        for (const r of signed.before ?? []) await gas(r, `approving the swap router for swap ${s.id}`);
        ({ hash, raw } = signed);
        await ledger.swapSigned(s.id, hash, raw, deps.now());
      }
      const outcome = await settle(treasury, hash, raw);
      if (outcome.state === 'pending') continue;
      if (outcome.receipt) await gas(outcome.receipt, `swap ${s.id}`);
      const result = outcome.state === 'ok' ? { out: swaps.received(outcome.receipt!, s.toToken as Address) } : { failure: outcome.failure };
      const done = await ledger.finishSwap(s.id, result, deps.now(), swapView);
      log.info({ swap: s.id, chainId, status: done.state, tx: hash }, 'swap through the pool');
    }
    await partner.send(gas);
    // The native coin against the journal, once nothing of the treasury's is in flight.
    if (!(await ledger.inFlight(chainId))) {
      const block = await treasury.rpc.getBlockNumber();
      const { funded, short } = await ledger.gasFunding(chainId, block, await treasury.nativeBalance(block), deps.now());
      state.fundingSeen = true;
      if (funded > 0n) log.info({ chainId, wei: String(funded), block: String(block) }, 'native coin sent to the treasury journaled as the operator\'s gas funding');
      if (short > 0n) log.warn({ chainId, wei: String(short), block: String(block) }, 'the treasury holds less native coin than the journal says: a transaction whose gas was not journaled');
    }
  } finally {
    await ledger.releaseTreasury(chainId, deps.instance).catch(() => {});
  }
}

/**
 * What is owed to the payout partner for bank payouts paid, sent to its deposit address on this
 * network (`payoutPartner`): in one transfer once it reaches `partnerMinimum` (1,000 USDT by
 * default) or the oldest of it has waited `partnerMaxWaitMinutes` (60), since each transfer
 * costs gas and a partner settles in batches anyway; a dev chain's minimum is 0 (each payout).
 * Recorded before it is signed, its transaction before it is sent; journaled payable → partner
 * only once counted (see settle); a failure leaves it owed, tried again a minute later.
 */
function partnerWork(deps: JobDeps, treasury: Treasury) {
  const { ledger, log } = deps;
  const network = treasury.network;
  const chainId = network.chainId;
  const minimumOf = (token: string) => {
    const decimals = network.tokens.find((t) => t.address.toLowerCase() === token)?.decimals ?? 18;
    return configuredUnits(network.partnerMinimum ?? '1000', decimals);
  };
  const maxWaitMs = (network.partnerMaxWaitMinutes ?? 60) * 60_000;
  const dueCoins = async () => {
    const now = deps.now();
    const out: Array<{ token: string; owed: bigint }> = [];
    for (const o of await ledger.owedToPartner(chainId)) {
      if (!partnerDue(o.owed, minimumOf(o.token), o.sinceMs, maxWaitMs, now)) continue;
      const failed = await ledger.lastPartnerFailureMs(chainId, o.token);
      if (failed !== null && now - failed < 60_000) continue;
      out.push(o);
    }
    return out;
  };
  return {
    async due(): Promise<boolean> {
      if (!network.payoutPartner) return false;
      return (await ledger.pendingPartnerTransfers(chainId)).length > 0 || (await dueCoins()).length > 0;
    },
    async send(gas: (receipt: TransactionReceipt, memo: string) => Promise<unknown>): Promise<void> {
      const to = network.payoutPartner;
      if (!to) return;
      const pending = await ledger.pendingPartnerTransfers(chainId);
      for (const o of await dueCoins()) {
        if (pending.some((p) => p.token === o.token)) continue;
        const started = await ledger.startPartnerTransfer(chainId, o.token, to, o.owed, deps.now());
        if (started) pending.push(started);
      }
      for (const t of pending) {
        let hash = t.txHash as Hex | null;
        let raw = t.rawTx as Hex | null;
        if (!hash || !raw) {
          ({ hash, raw } = await treasury.transfer(t.token as Address, t.address as Address, t.amount));
          await ledger.partnerSigned(t.id, hash, raw, deps.now());
        }
        const outcome = await settle(treasury, hash, raw);
        if (outcome.state === 'pending') continue;
        if (outcome.receipt) await gas(outcome.receipt, `payout partner transfer ${t.id}`);
        const done = await ledger.finishPartnerTransfer(t.id, outcome.state === 'ok' ? { sent: true } : { failure: outcome.failure }, deps.now());
        log.info({ partnerTransfer: t.id, chainId, status: done.state, amount: String(t.amount), tx: hash }, 'what was owed to the payout partner, sent from the treasury');
      }
    },
  };
}

type Settled = { state: 'ok'; receipt: TransactionReceipt } | { state: 'failed'; failure: string; receipt?: TransactionReceipt } | { state: 'pending' };

/**
 * Sends a recorded transaction (again) and waits for it: mined with the network's confirmations
 * (ok or reverted, with its receipt), never to be mined, or pending (left for the next tick).
 * Mined and not yet deep enough is pending too, as a sweep is: a reorganisation could still take
 * it away (a withdrawal counted sent that never was) or mine it again with another outcome (a
 * swap counted failed, its money returned, that then goes through). Sent again each tick until
 * then, so one dropped by a reorganisation goes back to the pool.
 */
async function settle(treasury: Treasury, hash: Hex, raw: Hex): Promise<Settled> {
  await treasury.send(raw);
  const outcome = await treasury.outcome(hash);
  if (outcome.mined) {
    const head = await treasury.rpc.getBlockNumber();
    if (head - outcome.receipt.blockNumber + 1n < BigInt(treasury.network.confirmations)) return { state: 'pending' };
    return outcome.ok
      ? { state: 'ok', receipt: outcome.receipt }
      : { state: 'failed', receipt: outcome.receipt, failure: `the transaction ${hash} reverted on chain (for a swap: the pool would give less than the minimum, the price moved past the slippage limit)` };
  }
  if (await treasury.superseded(hash, raw)) return { state: 'failed', failure: `the transaction ${hash} was replaced at its nonce and never mined` };
  return { state: 'pending' };
}
