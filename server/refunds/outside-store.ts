// A refund marked as paid outside its payment, in the caller's transaction (payments/attention-store.ts,
// resolving the payment's case): apart from refunds/store.ts, which takes the attention store as a port.
import type { Sql } from '../storage/db.ts';

/** The refund sends money the payment did not hold: it was made outside it. */
export async function markOutsidePayment(tx: Sql, refundId: string): Promise<void> {
  await tx.query(`UPDATE refunds SET outside_payment = true WHERE id = $1`, [refundId]);
}
