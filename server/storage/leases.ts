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

/** The work's lease went to another holder (or could not be renewed): it stops before sending anything more. */
export class LeaseLost extends Error {
  override name = 'LeaseLost';
}

/** A lease held while some work runs. */
export interface HeldLease {
  /** Aborted once a renewal fails: the work checks it before each thing it sends or writes for good. */
  readonly signal: AbortSignal;
  /** Renews now: false, and the signal aborted, once the lease is lost (for good). */
  renew(): Promise<boolean>;
  /** Renews now, and throws LeaseLost unless still held: call right before sending anything. */
  hold(): Promise<void>;
}

export interface LeaseTerms {
  /** Takes or renews the lease: false while another holder's has not run out. */
  take(): Promise<boolean>;
  /** Gives it back when the work is done (not when it was lost). */
  release?(): Promise<void>;
  /** How long it lasts unless renewed: it is renewed every third of that while the work runs (0: never). */
  ms: number;
  /** Told once, when a renewal fails. */
  onLost?(reason: unknown): void;
}

/**
 * Runs `work` under a lease: takes it (or answers `{ held: false }` while another holder has
 * it), renews it every third of its length while the work runs, and aborts the work's signal
 * the first time a renewal fails (another holder has it, or the database could not say), so
 * that work which outlived its lease sends nothing more. Released when the work ends, unless lost.
 */
export async function withLease<T>(terms: LeaseTerms, work: (lease: HeldLease) => Promise<T>): Promise<{ held: true; value: T } | { held: false }> {
  if (!(await terms.take())) return { held: false };
  const control = new AbortController();
  const lose = (reason: unknown) => {
    if (control.signal.aborted) return;
    control.abort(new LeaseLost(reason instanceof Error ? `lease lost: ${reason.message}` : 'lease lost: another holder has it'));
    terms.onLost?.(reason);
  };
  let renewing: Promise<boolean> | undefined;
  const renew = (): Promise<boolean> => {
    if (control.signal.aborted) return Promise.resolve(false);
    renewing = terms.take().then(
      (held) => {
        if (!held) lose(undefined);
        return held;
      },
      (error: unknown) => {
        lose(error);
        return false;
      },
    );
    return renewing;
  };
  const lease: HeldLease = {
    signal: control.signal,
    renew,
    hold: async () => {
      if (!(await renew())) throw control.signal.reason as LeaseLost;
    },
  };
  const timer = terms.ms > 0 ? setInterval(() => void renew(), Math.max(terms.ms / 3, 10)) : undefined;
  try {
    return { held: true, value: await work(lease) };
  } finally {
    clearInterval(timer);
    // A renewal still under way would take the lease again after its release.
    await renewing;
    if (!control.signal.aborted) await terms.release?.().catch(() => {});
  }
}
