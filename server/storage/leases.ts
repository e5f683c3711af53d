// One row per named lease ("sweep/56", "treasury/56"): who holds it, and until when. The work a
// lease guards (sending from one wallet on one chain) is done by one instance at a time; a
// holder that dies loses it when it runs out. Not a session lock: PGlite has one connection.
import type { Sql } from './db.ts';

/** Takes (or renews) the lease `name` for `holder`; false while another holder's has not run out. */
export async function takeLease(db: Sql, name: string, holder: string, nowMs: number, leaseMs: number): Promise<boolean> {
  const rows = await db.query(
    `INSERT INTO leases (name, holder, lease_until_ms) VALUES ($1, $2, $4)
     ON CONFLICT (name) DO UPDATE SET holder = $2, lease_until_ms = $4 WHERE leases.holder = $2 OR leases.lease_until_ms <= $3
     RETURNING holder`,
    [name, holder, nowMs, nowMs + leaseMs],
  );
  return rows.length === 1;
}

export async function releaseLease(db: Sql, name: string, holder: string): Promise<void> {
  await db.query(`DELETE FROM leases WHERE name = $1 AND holder = $2`, [name, holder]);
}
