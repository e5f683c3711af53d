// Issue 35: the merchant accepts what a payment's case is (payments/attention-rules.ts), in one
// transaction with the payment row locked: late money counted toward it, an expired partial
// settled with what arrived (each told by the DEPOSIT_TRANSACTION event a payment's success is
// told by, with the amount that arrived), an excess kept, another coin or chain kept as the
// merchant's (on `balance` settlement in the balance already: journaled when it was swept).
// A second accept, at once on another instance too, finds nothing to resolve: 409.
import type { Account } from '../domain/account.ts';
import { NotFound, WrongMode } from '../domain/errors.ts';
import { acceptPlan, caseOf, mustResolve, type Case } from './attention-rules.ts';
import type { AttentionWrites } from './attention-store.ts';
import type { ChangeReport } from './store.ts';
import type { Payment } from './rules.ts';

type Owner = Pick<Account, 'merchant' | 'mode'>;

export interface AcceptTransactions {
  inTransaction<T>(nowMs: number, work: (writes: AttentionWrites) => Promise<T>): Promise<T>;
}

/** The payment found and locked (404, or 409 `wrong_mode` naming `reference` for the other mode's), with its case now. */
export async function lockedCase(w: AttentionWrites, owner: Owner, reference: string, nowMs: number) {
  const payment = await w.lock(owner, reference);
  if (!payment) {
    if (await w.inOtherMode(owner, reference)) {
      const other = owner.mode === 'test' ? 'live' : 'test';
      throw new WrongMode(`reference: payment ${reference} is a ${other} payment; a ${owner.mode} key acts only on ${owner.mode} money`, [{ field: 'reference', message: `expected a ${owner.mode} payment (use your ${other} key for a ${other} one)` }]);
    }
    throw new NotFound(`reference: no payment ${reference}`, [{ field: 'reference', message: 'expected a reference of one of your payments' }]);
  }
  const open = await w.open(payment.id);
  return { payment, found: mustResolve(payment, caseOf(payment, open, nowMs)) };
}

export function acceptCase(store: AcceptTransactions, owner: Owner, reference: string, nowMs: number, report: ChangeReport): Promise<{ payment: Payment; accepted: Case }> {
  return store.inTransaction(nowMs, async (w) => {
    const { payment, found } = await lockedCase(w, owner, reference, nowMs);
    const plan = acceptPlan(payment, found, nowMs);
    let now: Payment = payment;
    if (found.reason === 'late') now = await w.count(payment, found.transfers);
    else if (found.transfers.length > 0) await w.resolveTransfers(found.transfers, 'accepted');
    if (plan.settle) now = await w.settle(payment.id);
    if (plan.keepExcess) await w.resolvePayment(payment.id, 'accepted');
    if (plan.told) await w.told(owner, now, report);
    return { payment: now, accepted: found };
  });
}
