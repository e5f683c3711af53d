// A bank account as a waiting change reaches it (storage/destination-changes.ts, in the change's
// transaction): its details replaced when due, or the account dropped when its change is cancelled.
// The payouts' rows, apart from payouts/store.ts so the shared port imports no store that imports it.
import type { Fields } from './rules.ts';
import type { Sql } from '../storage/db.ts';

/** The bank account's details are now `fields`, from `effectiveMs`. */
export async function setBankFields(tx: Sql, bankAccountId: string | null, fields: Fields, effectiveMs: number): Promise<void> {
  await tx.query('UPDATE bank_accounts SET fields = $2, updated_ms = $3 WHERE id = $1', [bankAccountId, JSON.stringify(fields), effectiveMs]);
}

/** A new bank account whose change was cancelled goes, unless a payout was made to it (none can have been: it never took effect). */
export async function dropUnpaidBankAccount(tx: Sql, bankAccountId: string | null, merchantId: string, mode: string): Promise<void> {
  await tx.query(
    'DELETE FROM bank_accounts WHERE id = $1 AND merchant_id = $2 AND mode = $3 AND NOT EXISTS (SELECT 1 FROM payouts WHERE bank_account_id = $1)',
    [bankAccountId, merchantId, mode],
  );
}
