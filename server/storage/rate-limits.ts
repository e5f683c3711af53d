// Rate-limit windows shared by every instance on one PostgreSQL (http/rate-limit.ts counts in
// the process otherwise): one atomic upsert per counted request, so two instances counting one
// key at once never both see the same count. Keys are kept as SHA-256 digests (a client's
// address is personal data), and rows whose window has ended are deleted now and then.
import { createHash } from 'node:crypto';
import type { Database } from './db.ts';

const PRUNE_EVERY_MS = 60_000;

export class RateLimitStore {
  private prunedMs = 0;

  constructor(private readonly db: Database) {}

  async count(name: string, key: string, windowMs: number, nowMs: number): Promise<{ count: number; untilMs: number }> {
    if (nowMs - this.prunedMs >= PRUNE_EVERY_MS || nowMs < this.prunedMs) {
      this.prunedMs = nowMs;
      await this.db.query('DELETE FROM rate_limits WHERE until_ms <= $1', [nowMs], 'rate-limits-prune');
    }
    // Both SET expressions read the row as it was: an ended window starts again at 1.
    const [row] = await this.db.query<{ count: number; until: string }>(
      `INSERT INTO rate_limits (name, key_digest, count, until_ms) VALUES ($1, $2, 1, $3::bigint + $4::bigint)
         ON CONFLICT (name, key_digest) DO UPDATE SET
           count = CASE WHEN rate_limits.until_ms <= $3::bigint THEN 1 ELSE rate_limits.count + 1 END,
           until_ms = CASE WHEN rate_limits.until_ms <= $3::bigint THEN $3::bigint + $4::bigint ELSE rate_limits.until_ms END
         RETURNING count, until_ms::text AS until`,
      [name, createHash('sha256').update(key).digest('hex'), nowMs, windowMs],
      'rate-limits-count',
    );
    return { count: Number(row!.count), untilMs: Number(row!.until) };
  }
}
