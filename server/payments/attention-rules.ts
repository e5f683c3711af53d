// A payment's exceptions (money that did not count as asked), without I/O: what a payment needs of its merchant (its excess, an
// expired partial, money that arrived late, in another coin or on another chain), the amount
// owed back if it is sent back, and what accepting it does. Storage runs these inside its
// transaction, the payment row locked, so two accepts at once (on any instance) resolve once.
import type { AttentionReason } from '../../contract/attention.ts';
import { formatUnits } from '../../contract/money.ts';
import { NothingToResolve } from '../domain/errors.ts';
import type { Payment } from './rules.ts';

/** A transfer to the payment's address that could not count (late, or `unexpected`: another coin or chain), deep enough to be told, not resolved yet. */
export interface OpenTransfer {
  chainId: number;
  txHash: string;
  logIndex: number;
  token: string;
  amount: bigint;
  state: 'late' | 'unexpected';
  /** Its arrival (its block's time, chain/watcher.ts, never later than it was seen): whose rate a credit in another coin uses. */
  seenMs: number;
}

/** A payment as the exceptions read it: its own fields and what the merchant decided already about its own case (its excess or partial). */
export type AttentionPayment = Pick<
  Payment,
  'id' | 'reference' | 'paid' | 'due' | 'settledMs' | 'expiresMs' | 'acceptPartial' | 'chainId' | 'token' | 'coin' | 'decimals'
> & { resolution: string | null };

/** One case to resolve: why, the coin (chain and token) and base units owed back, and the transfers it is made of (none for the payment's own case). */
export interface Case {
  reason: AttentionReason;
  chainId: number;
  token: string;
  amount: bigint;
  transfers: OpenTransfer[];
}

/**
 * What the payment needs of its merchant now, or null. Its transfers that could not count come
 * first, oldest first, grouped by why, chain and token (one refund sends a group back); then
 * its own case: more than due arrived (the excess), or it expired with part of its amount and
 * does not accept partial payments (an accepting one is settled by the service itself).
 * server/payments/list-store.ts's needsAttentionSql is this as SQL (held equal by the tests).
 */
export function caseOf(payment: AttentionPayment, open: OpenTransfer[], nowMs: number): Case | null {
  const first = open[0];
  if (first) {
    const reason: AttentionReason = first.state === 'late' ? 'late' : first.chainId !== payment.chainId ? 'wrong_chain' : 'wrong_coin';
    const group = open.filter((t) => t.state === first.state && t.chainId === first.chainId && t.token.toLowerCase() === first.token.toLowerCase());
    return { reason, chainId: first.chainId, token: first.token.toLowerCase(), amount: group.reduce((sum, t) => sum + t.amount, 0n), transfers: group };
  }
  if (payment.resolution !== null) return null;
  const own = { chainId: payment.chainId, token: payment.token.toLowerCase(), transfers: [] };
  if (payment.paid > payment.due) return { reason: 'overpaid', amount: payment.paid - payment.due, ...own };
  if (payment.paid > 0n && payment.paid < payment.due && payment.settledMs === null && !payment.acceptPartial && nowMs >= payment.expiresMs)
    return { reason: 'partial', amount: payment.paid, ...own };
  return null;
}

/** The case, or 409 `nothing_to_resolve` naming the payment (resolved already: a second accept, or a send-back after one). */
export function mustResolve(payment: Pick<Payment, 'reference'>, found: Case | null): Case {
  if (!found)
    throw new NothingToResolve(`reference: payment ${payment.reference} needs nothing of you: nothing arrived that did not count, or it was resolved already`, [
      { field: 'reference', message: 'expected a payment whose attention is not null' },
    ]);
  return found;
}

/**
 * What accepting a case does to its payment. A late transfer is counted toward it (so what
 * arrived is what it was paid): settled with what arrived when that is still less than due,
 * its excess kept when more. An expired partial is settled with what arrived. An excess is
 * kept. Another coin or chain is the merchant's money (on `balance` settlement in the balance
 * already, in that coin on that chain, journaled when it was swept): recorded as accepted,
 * the payment itself unchanged.
 */
export function acceptPlan(payment: AttentionPayment, found: Case, nowMs: number): { count: bigint; settle: boolean; keepExcess: boolean; told: boolean } {
  if (found.reason === 'late') {
    const paid = payment.paid + found.amount;
    return { count: found.amount, settle: paid < payment.due && payment.settledMs === null, keepExcess: paid > payment.due, told: true };
  }
  if (found.reason === 'partial') return { count: 0n, settle: true, keepExcess: false, told: true };
  if (found.reason === 'overpaid') return { count: 0n, settle: false, keepExcess: true, told: false };
  void nowMs;
  return { count: 0n, settle: false, keepExcess: false, told: false };
}

/** A case as the wire shows it: the amount owed back in coins as exact decimal text, with its coin and chain. */
export const attentionView = (found: Case | null, coinOf: (chainId: number, token: string) => { symbol: string; decimals: number } | undefined) => {
  if (!found) return null;
  const coin = coinOf(found.chainId, found.token);
  return { reason: found.reason, amount: formatUnits(found.amount, coin?.decimals ?? 0), coin: coin?.symbol ?? found.token, chain_id: found.chainId };
};

/** The excess of an overpaid payment as exact decimal text, else null. */
export const overpaidText = (payment: Pick<Payment, 'paid' | 'due' | 'decimals'>): string | null =>
  payment.paid > payment.due ? formatUnits(payment.paid - payment.due, payment.decimals) : null;
