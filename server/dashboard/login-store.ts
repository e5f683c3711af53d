// The owner's login, its sessions and sign-in links, as other features reach them in their own
// transaction: the team's changes (team/store.ts) and the e-mails' recipients (email/store.ts).
// Apart from dashboard/store.ts, which reads the team's members: neither imports the other's.
import type { Sql } from '../storage/db.ts';

/** The owner's login: its e-mail and password hash (null: none set yet); locked until the transaction ends when `lock`. */
export async function ownerLogin(sql: Sql, merchantId: string, lock = false): Promise<{ email: string; passwordHash: string | null } | undefined> {
  const [row] = await sql.query(`SELECT email, password_hash FROM dashboard_logins WHERE merchant_id = $1${lock ? ' FOR UPDATE' : ''}`, [merchantId]);
  return row && { email: row.email as string, passwordHash: (row.password_hash as string | null) ?? null };
}

/** Whether `email` is the merchant's owner's (case aside). */
export async function isOwnerEmail(sql: Sql, merchantId: string, email: string): Promise<boolean> {
  return (await sql.query('SELECT 1 FROM dashboard_logins WHERE merchant_id = $1 AND lower(email) = lower($2)', [merchantId, email])).length > 0;
}

/** The owner's login becomes this e-mail and password hash (ownership handed over). */
export async function setOwnerLogin(tx: Sql, merchantId: string, email: string, passwordHash: string | null, nowMs: number): Promise<void> {
  await tx.query('UPDATE dashboard_logins SET email = $2, password_hash = $3, updated_ms = $4 WHERE merchant_id = $1', [
    merchantId,
    email,
    passwordHash,
    nowMs,
  ]);
}

/** Ends every session of the merchant at once (only `memberId`'s, when given), in the caller's transaction. */
export async function endSessions(tx: Sql, merchantId: string, memberId?: string): Promise<void> {
  if (memberId) await tx.query('DELETE FROM dashboard_sessions WHERE merchant_id = $1 AND member_id = $2', [merchantId, memberId]);
  else await tx.query('DELETE FROM dashboard_sessions WHERE merchant_id = $1', [merchantId]);
}

/** Every sign-in link of the merchant stops working. */
export async function dropSignInLinks(tx: Sql, merchantId: string): Promise<void> {
  await tx.query('DELETE FROM dashboard_links WHERE merchant_id = $1', [merchantId]);
}
