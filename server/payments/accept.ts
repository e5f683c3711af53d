// The merchant accepts what a payment's case is (payments/attention-rules.ts), in one
// transaction with the payment row locked: late money counted toward it, an expired partial
// settled with what arrived (each told by the DEPOSIT_TRANSACTION event a payment's success is
// told by, with the amount that arrived), an excess kept, another coin or chain kept as the
// merchant's (on `balance` settlement in the balance already: journaled when it was swept).
// Another coin or chain may instead be credited toward the payment at the rate of its arrival
// (`as: 'credit'`, payments/credit-rules.ts): its value in the payment's coin counts as paid,
// told as a late credit is. A second accept, at once on another instance too, finds nothing to
// resolve: 409.
import type { Account } from '../domain/account.ts';
import { NotCreditable, NotFound, WrongMode } from '../domain/errors.ts';
import { acceptPlan, caseOf, mustResolve, type Case, type OpenTransfer } from './attention-rules.ts';
import { creditOf, type CoinOn, type CreditTerms } from './credit-rules.ts';
import type { AttentionStore } from './attention-store.ts';
import type { Database, Sql } from '../storage/db.ts';
import type { ChangeReport } from './store.ts';
import type { Payment } from './rules.ts';

type Owner = Pick<Account, 'merchant' | 'mode'>;

/** What accepting writes: the payment's case, in the transaction opened here. */
export interface AcceptTransactions {
  db: Database;
  attention: AttentionStore;
}

/** The payment found and locked (404, or 409 `wrong_mode` naming `reference` for the other mode's), with its case now. */
export async function lockedCase(attention: Pick<AttentionStore, 'lock' | 'inOtherMode' | 'open'>, tx: Sql, owner: Owner, reference: string, nowMs: number) {
  const payment = await attention.lock(tx, owner, reference);
  if (!payment) {
    if (await attention.inOtherMode(tx, owner, reference)) {
      const other = owner.mode === 'test' ? 'live' : 'test';
      throw new WrongMode(`reference: payment ${reference} is a ${other} payment; a ${owner.mode} key acts only on ${owner.mode} money`, [
        { field: 'reference', message: `expected a ${owner.mode} payment (use your ${other} key for a ${other} one)` },
      ]);
    }
    throw new NotFound(`reference: no payment ${reference}`, [{ field: 'reference', message: 'expected a reference of one of your payments' }]);
  }
  const open = await attention.open(tx, payment.id);
  return { payment, found: mustResolve(payment, caseOf(payment, open, nowMs)) };
}

/** What crediting needs: each coin of the mode by chain and token, and the rates' maximum age (the rates themselves are read in the transaction). */
export interface Pricing {
  coinOf(chainId: number, token: string): CoinOn | undefined;
  maxAgeMs: number;
  /** How short of due a credit may leave the payment and still settle it, in hundredths of its coin (CLOSE_ENOUGH_CENTS). */
  closeEnoughCents?: number;
}

/**
 * Whether a payment a credit left short of due is close enough to settle: short by
 * at most `cents` hundredths of its coin (a credit's rate just under 1, rounded down, leaves it a
 * cent short), not settled yet. Exactly due or more is confirmed already; nothing to settle.
 */
export function closeEnough(payment: Pick<Payment, 'paid' | 'due' | 'decimals' | 'settledMs'>, cents: number): boolean {
  if (payment.settledMs !== null || payment.paid <= 0n || payment.paid >= payment.due || cents <= 0) return false;
  const tolerance = payment.decimals >= 2 ? BigInt(cents) * 10n ** BigInt(payment.decimals - 2) : BigInt(cents);
  return payment.due - payment.paid <= tolerance;
}

/** Each transfer's credit in the payment's coin at the rate of its arrival, or 409 naming why not (`not_creditable`, `no_rate_at_arrival`). */
async function credits(attention: AttentionStore, tx: Sql, payment: Payment, found: Case, pricing: Pricing): Promise<Array<OpenTransfer & CreditTerms>> {
  if (found.reason !== 'wrong_coin' && found.reason !== 'wrong_chain') {
    throw new NotCreditable(
      `as: payment ${payment.reference} needs your attention for ${found.reason.replace('_', ' ')}, not money in another coin or on another chain: accept it without "as", or with "as": "keep"`,
      [{ field: 'as', message: 'expected "credit" only for wrong_coin or wrong_chain' }],
    );
  }
  const to = { symbol: payment.coin, decimals: payment.decimals };
  const from = pricing.coinOf(found.chainId, found.token);
  if (!from)
    throw new NotCreditable(
      `reference: payment ${payment.reference} received a token this service does not list (${found.token} on chain ${found.chainId}): it cannot be credited; send it back (POST /api/v1/payments/${payment.reference}/send_back)`,
      [{ field: 'reference', message: 'expected money in a listed coin' }],
    );
  const out: Array<OpenTransfer & CreditTerms> = [];
  for (const t of found.transfers) {
    const rates =
      from.symbol === to.symbol ? {} : { from: await attention.rateAt(tx, from.symbol, t.seenMs), to: await attention.rateAt(tx, to.symbol, t.seenMs) };
    out.push({ ...t, ...creditOf(payment.reference, t.amount, from, to, rates, t.seenMs, pricing.maxAgeMs) });
  }
  return out;
}

export function acceptCase(
  store: AcceptTransactions,
  owner: Owner,
  reference: string,
  nowMs: number,
  report: ChangeReport,
  as: 'keep' | 'credit' = 'keep',
  pricing?: Pricing,
): Promise<{ payment: Payment; accepted: Case }> {
  const { attention } = store;
  return store.db.transaction(async (tx) => {
    const { payment, found } = await lockedCase(attention, tx, owner, reference, nowMs);
    if (as === 'credit') {
      const terms = await credits(attention, tx, payment, found, pricing!);
      let now = await attention.credit(tx, payment, terms, nowMs);
      // Close enough: a credit that leaves it short by no more than the tolerance settles it.
      if (pricing!.closeEnoughCents !== undefined && closeEnough(now, pricing!.closeEnoughCents)) now = await attention.finish(tx, payment.id, nowMs);
      if (now.paid !== payment.paid) await attention.told(tx, owner, now, report, nowMs);
      return { payment: now, accepted: found };
    }
    const plan = acceptPlan(payment, found, nowMs);
    let now: Payment = payment;
    if (found.reason === 'late') now = await attention.count(tx, payment, found.transfers, nowMs);
    else if (found.transfers.length > 0) await attention.resolveTransfers(tx, found.transfers, 'accepted', nowMs);
    if (plan.settle) now = await attention.finish(tx, payment.id, nowMs);
    if (plan.keepExcess) await attention.resolvePayment(tx, payment.id, 'accepted', nowMs);
    if (plan.told) await attention.told(tx, owner, now, report, nowMs);
    return { payment: now, accepted: found };
  });
}
