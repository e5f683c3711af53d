// The merchant's rows as other features reach them, each in the caller's transaction: the
// merchant's lock, its webhook URL (the outbox's), and the keys a person of its team holds as the
// team's changes reach them (team/store.ts): narrowed to their role, the full keys they rolled,
// handed over with ownership.
import type { AuditRecord } from '../storage/audit.ts';
import { appendAudit } from '../storage/audit.ts';
import type { Sql } from '../storage/db.ts';
import type { Merchant } from '../domain/account.ts';
import { notifyAccountChange } from '../storage/account-cache.ts';
import { grantsOf, storedGrants, type Permission } from '../domain/permissions.ts';

/** A member's restricted key that their removal revoked or their demotion narrowed. */
export interface KeyChange {
  id: string;
  name: string;
  mode: string;
  /** What it may do now; empty: revoked. */
  permissions: Permission[];
}

/** A full secret key a member holds (they rolled it): it works on after they leave until the owner or an admin rolls it. */
export interface FullKey {
  mode: string;
  hint: string;
}

/** The audit rows a key's change writes, in the change's transaction (the caller names the actor). */
export type KeyAudit = (change: KeyChange) => AuditRecord[];

/** One writer at a time per merchant: the merchant's row locked until the caller's transaction ends. */
export async function lockMerchant(tx: Sql, merchantId: string): Promise<void> {
  await tx.query('SELECT id FROM merchants WHERE id = $1 FOR UPDATE', [merchantId]);
}

/** The merchant's rows a dashboard session and sign-in read (dashboard/store.ts takes them as a port: `merchantRows`). */
export const merchantRows = {
  /** The business's e-mail, its row locked until the caller's transaction ends (undefined: no such merchant). */
  async lockedBusinessEmail(tx: Sql, merchantId: string): Promise<string | undefined> {
    const [merchant] = await tx.query('SELECT business_email FROM merchants WHERE id = $1 FOR UPDATE', [merchantId]);
    return merchant?.business_email as string | undefined;
  },
  /** The business as a session shows it (undefined: no such merchant). */
  async merchant(sql: Sql, merchantId: string): Promise<Merchant | undefined> {
    const [r] = await sql.query('SELECT id, business_name, business_email, business_logo FROM merchants WHERE id = $1', [merchantId]);
    return (
      r && { id: r.id as string, businessName: r.business_name as string, businessEmail: r.business_email as string, businessLogo: r.business_logo as string }
    );
  },
  /** Whether the merchant exists (an operator's limit for it is kept only then: balances/withdrawal-store.ts). */
  async exists(sql: Sql, merchantId: string): Promise<boolean> {
    return (await sql.query('SELECT 1 FROM merchants WHERE id::text = $1', [merchantId])).length > 0;
  },
  /** When each of these merchants was made, by id (a sign-in's businesses in that order). */
  async createdMs(sql: Sql, merchantIds: string[]): Promise<Map<string, number>> {
    const rows = await sql.query('SELECT id, created_ms FROM merchants WHERE id = ANY($1::uuid[])', [merchantIds]);
    return new Map(rows.map((r) => [r.id as string, Number(r.created_ms)]));
  },
};

export type MerchantRows = typeof merchantRows;

/** The business's name ('' for none: the merchant is unknown), as its e-mails name it (email/store.ts). */
export async function businessName(sql: Sql, merchantId: string): Promise<string> {
  const [merchant] = await sql.query('SELECT business_name FROM merchants WHERE id = $1', [merchantId]);
  return (merchant?.business_name as string | null | undefined) ?? '';
}

/** The account's webhook URL (null: none set), as the outbox writes an event (storage/events.ts). */
export async function webhookUrl(sql: Sql, merchantId: string, mode: string): Promise<string | null> {
  const [endpoint] = await sql.query('SELECT url FROM webhook_endpoints WHERE merchant_id = $1 AND mode = $2', [merchantId, mode]);
  return (endpoint?.url as string | null | undefined) ?? null;
}

/**
 * A person's restricted keys held to `allowed`: each keeps only what the person may
 * still do; one left with nothing (or every one, for a person removed) is deleted, refused at once
 * on every instance (NOTIFY). Each key changed writes `keyAudit`'s rows in the same transaction.
 */
export async function narrowKeys(tx: Sql, merchantId: string, holder: string, allowed: readonly Permission[], keyAudit?: KeyAudit): Promise<KeyChange[]> {
  const rows = await tx.query(
    `SELECT id, name, mode, permissions FROM api_keys WHERE merchant_id = $1 AND holder = $2 AND permissions IS NOT NULL FOR UPDATE`,
    [merchantId, holder.toLowerCase()],
  );
  const changes: KeyChange[] = [];
  for (const r of rows) {
    const had = grantsOf(r.permissions as string) as Permission[];
    const kept = had.filter((p) => allowed.includes(p));
    if (kept.length === had.length) continue;
    if (kept.length === 0) await tx.query('DELETE FROM api_keys WHERE merchant_id = $1 AND id = $2', [merchantId, r.id]);
    else await tx.query('UPDATE api_keys SET permissions = $3 WHERE merchant_id = $1 AND id = $2', [merchantId, r.id, storedGrants(kept)]);
    changes.push({ id: String(r.id), name: r.name as string, mode: r.mode as string, permissions: kept });
  }
  if (changes.length) {
    await notifyAccountChange(tx, merchantId);
    if (keyAudit) for (const change of changes) await appendAudit(tx, keyAudit(change));
  }
  return changes;
}

/**
 * The full secret keys `holder` rolled that still work (or work until their delay runs out):
 * their removal or demotion e-mail names them, for the owner to roll (they roll no key themselves
 * from then: merchants/store.ts rollSecretKeys).
 */
export async function fullKeysOf(tx: Sql, merchantId: string, holder: string): Promise<FullKey[]> {
  const rows = await tx.query(
    `SELECT mode, hint FROM api_keys WHERE merchant_id = $1 AND holder = $2 AND kind = 'secret' AND permissions IS NULL ORDER BY mode, created_ms`,
    [merchantId, holder.toLowerCase()],
  );
  return rows.map((r) => ({ mode: r.mode as string, hint: r.hint as string }));
}

/** Ownership handed to `memberId`: the owner's keys become the former owner's (under that member id), and theirs the owner's. */
export async function handKeysOver(tx: Sql, merchantId: string, memberId: string): Promise<void> {
  await tx.query(`UPDATE api_keys SET holder = CASE holder WHEN 'owner' THEN $2 ELSE 'owner' END WHERE merchant_id = $1 AND holder IN ('owner', $2)`, [
    merchantId,
    memberId.toLowerCase(),
  ]);
}
