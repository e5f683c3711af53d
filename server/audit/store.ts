// The audit log: one row per change or money movement, appended and never changed
// (the table's trigger refuses UPDATE and DELETE, migration 0026), read newest first in pages.
import type { Database, Sql } from '../storage/db.ts';
import type { AuditEntry } from './rules.ts';

export interface AuditFilter {
  mode?: string;
  actorKind?: string;
  actorId?: string;
  action?: string;
  sinceMs?: number;
  untilMs?: number;
  /** Only entries older than this one (the previous page's last id). */
  before?: number;
  limit: number;
}

export interface AuditRow extends AuditEntry {
  id: number;
}

/** Appends rows (`sql`: the change's transaction, or the database). */
export async function appendAudit(sql: Sql, records: AuditEntry[]): Promise<void> {
  for (const entry of records) {
    await sql.query(
      `INSERT INTO audit_log (merchant_id, mode, at_ms, actor_kind, actor_id, actor_label, client, action, target, details)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [
        entry.merchantId,
        entry.mode,
        entry.atMs,
        entry.actor.kind,
        entry.actor.id,
        entry.actor.label,
        entry.client,
        entry.action,
        entry.target ?? null,
        JSON.stringify(entry.details),
      ],
      'audit_append', // after every write a secret key or a session makes, initialize's included
    );
  }
}

export class AuditStore {
  constructor(private readonly db: Database) {}

  /** Rows written on their own (a write whose store does not write them in its transaction: storage/audit.ts). */
  append(entries: AuditEntry[]): Promise<void> {
    return appendAudit(this.db, entries);
  }

  async list(merchantId: string, filter: AuditFilter): Promise<AuditRow[]> {
    const where = ['merchant_id = $1'];
    const args: unknown[] = [merchantId];
    const add = (sql: string, value: unknown) => {
      args.push(value);
      where.push(sql.replace('?', `$${args.length}`));
    };
    if (filter.mode) add('mode = ?', filter.mode);
    if (filter.actorKind) add('actor_kind = ?', filter.actorKind);
    if (filter.actorId) add('actor_id = ?', filter.actorId);
    if (filter.action) add('action = ?', filter.action);
    if (filter.sinceMs !== undefined) add('at_ms >= ?', filter.sinceMs);
    if (filter.untilMs !== undefined) add('at_ms < ?', filter.untilMs);
    if (filter.before !== undefined) add('id < ?', filter.before);
    args.push(filter.limit);
    const rows = await this.db.query(`SELECT * FROM audit_log WHERE ${where.join(' AND ')} ORDER BY id DESC LIMIT $${args.length}`, args);
    return rows.map((r) => ({
      id: Number(r.id),
      merchantId: r.merchant_id as string,
      mode: r.mode as string,
      atMs: Number(r.at_ms),
      actor: { kind: r.actor_kind as AuditEntry['actor']['kind'], id: r.actor_id as string, label: r.actor_label as string },
      client: r.client as string,
      action: r.action as string,
      ...(r.target === null ? {} : { target: r.target as string }),
      details: JSON.parse(r.details as string) as Record<string, unknown>,
    }));
  }
}

/** How many rows of `action` the merchant's log holds since `sinceMs`, and the first one's time (`sql`: the caller's transaction). */
export async function actionsSince(sql: Sql, merchantId: string, action: string, sinceMs: number): Promise<{ count: number; firstMs: number }> {
  const [row] = await sql.query('SELECT count(*)::int AS n, min(at_ms) AS first FROM audit_log WHERE merchant_id = $1 AND action = $2 AND at_ms > $3', [
    merchantId,
    action,
    sinceMs,
  ]);
  return { count: Number(row.n), firstMs: Number(row.first) };
}
