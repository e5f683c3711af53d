// The coin rates the cache fetched, kept so money in another coin can be credited at
// the rate of its arrival. Written only by the rates cache (no API writes here); several
// instances on one database each add their own rows, the same row taken once; rows older than
// RATE_HISTORY_DAYS pruned as new ones are written. Read by payments/attention-store.ts, inside
// the accept's transaction. SQL only.
import type { Database, Sql } from '../storage/db.ts';

export interface RateRow {
  symbol: string;
  units: bigint;
  atMs: number;
  source: string;
  fixed: boolean;
}

/** The newest rate of `symbol` fetched at or before `atMs` (undefined: none kept), in the caller's transaction (the accept's). */
export async function rateAt(sql: Sql, symbol: string, atMs: number): Promise<{ units: bigint; atMs: number; source: string; fixed: boolean } | undefined> {
  const [row] = await sql.query(
    `SELECT usd_units::text AS units, fetched_ms, provider, fixed FROM rate_history WHERE symbol = $1 AND fetched_ms <= $2 ORDER BY fetched_ms DESC LIMIT 1`,
    [symbol, String(atMs)],
  );
  return row && { units: BigInt(row.units as string), atMs: Number(row.fetched_ms), source: row.provider as string, fixed: row.fixed === true };
}

export class RateHistoryStore {
  constructor(
    private readonly db: Database,
    private readonly keepMs: number,
    /** How old a fetched rate may be and still be used (the rates' own limit, RATES_FILE's maxAgeSeconds): at an arrival as for a quote. */
    readonly maxAgeMs: number,
  ) {}

  /** The newest rate of `symbol` kept, fetched at or before `atMs`, read in the caller's transaction. */
  at(sql: Sql, symbol: string, atMs: number): ReturnType<typeof rateAt> {
    return rateAt(sql, symbol, atMs);
  }

  /** One fetch's coin rates kept; older than the setting's days pruned. */
  async record(rows: RateRow[], nowMs: number): Promise<void> {
    if (rows.length === 0) return;
    await this.db.query(
      `INSERT INTO rate_history (symbol, usd_units, fetched_ms, provider, fixed)
       SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::text[], $5::boolean[])
       ON CONFLICT (symbol, fetched_ms, provider) DO NOTHING`,
      [rows.map((r) => r.symbol), rows.map((r) => String(r.units)), rows.map((r) => String(r.atMs)), rows.map((r) => r.source), rows.map((r) => r.fixed)],
    );
    await this.db.query(`DELETE FROM rate_history WHERE fetched_ms < $1`, [String(nowMs - this.keepMs)]);
  }
}
