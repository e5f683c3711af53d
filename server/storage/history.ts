// A merchant's history in a mode, newest first, a page at a time: the keyset (created_ms, id)
// of the last row of the page before, as http/cursor.ts's cursors carry it. For the swaps,
// withdrawals and bank payouts lists; withdrawals' and payouts' (merchant_id, mode, created_ms)
// indexes serve it (swaps have no such index yet: a merchant's swaps are few; one is for a migration).
import type { Database, Row } from './db.ts';
import type { Table } from './tables.ts';

/** The caller's own table: each owner's store (storage/tables.ts) pages its own history. */
export type HistoryTable = Table;

/** Rows of `table` of the merchant's mode where `where` holds (SQL of this file's callers, no input), newest first, after `before`. */
export async function newestFirst(
  db: Database,
  table: HistoryTable,
  where: string,
  account: { merchant: { id: string }; mode: string },
  before: { createdMs: number; id: string } | undefined,
  limit: number,
): Promise<Row[]> {
  const owner = [account.merchant.id, account.mode];
  return before
    ? db.query(
        `SELECT * FROM ${table} WHERE merchant_id = $1 AND mode = $2 AND ${where} AND (created_ms, id) < ($3, $4) ORDER BY created_ms DESC, id DESC LIMIT $5`,
        [...owner, before.createdMs, before.id, limit],
      )
    : db.query(`SELECT * FROM ${table} WHERE merchant_id = $1 AND mode = $2 AND ${where} ORDER BY created_ms DESC, id DESC LIMIT $3`, [...owner, limit]);
}
