// What /metrics reads from the database, at scrape time: payments by the facts their status is
// made of (the status itself is payments/rules.ts's rule, applied to each group), the webhook
// queue and the e-mail outbox, transfers by whether they were swept, and payouts, swaps,
// withdrawals and refunds by state. Reads only. Each table is read by its owner's store
// (storage/tables.ts): this file reads the outbox, and app.ts hands it the owners' counts.
import type { Database, Row } from './db.ts';

export interface PaymentGroup {
  mode: string;
  full: boolean;
  settled: boolean;
  expired: boolean;
  some: boolean;
  count: number;
}

/** Rows of a table of money movements by key mode and state: a handful of groups, however many rows. */
export interface StateCount {
  mode: string;
  state: string;
  count: number;
}

/** The tables of money movements /metrics counts by state. */
export type MoneyTable = 'payouts' | 'swaps' | 'withdrawals' | 'refunds';

/** The owners' counts (each a function of the owner's store, given the database). */
export interface MetricsOwners {
  paymentGroups(nowMs: number): Promise<PaymentGroup[]>;
  byState: Record<MoneyTable, () => Promise<StateCount[]>>;
  emailOutbox(): Promise<{ depth: number; oldestMs: number | null }>;
  sweeps(): Promise<Array<{ chainId: number; swept: boolean; count: number }>>;
}

/** An owner's `SELECT mode, <state> AS state, count(*)::text AS n … GROUP BY 1, 2`, read. */
export const stateCounts = (rows: Row[]): StateCount[] => rows.map((r) => ({ mode: r.mode as string, state: r.state as string, count: Number(r.n) }));

/** How many of a queue wait, and the oldest of them (`SELECT count(*)::text AS n, min(…)::text AS oldest`), read. */
export const queueOf = (row: Row): { depth: number; oldestMs: number | null } => ({
  depth: Number(row.n),
  oldestMs: row.oldest === null ? null : Number(row.oldest),
});

export class MetricsStore {
  constructor(
    private readonly db: Database,
    private readonly owners: MetricsOwners,
  ) {}

  paymentGroups(nowMs: number): Promise<PaymentGroup[]> {
    return this.owners.paymentGroups(nowMs);
  }

  /** Events waiting to be delivered, and when the oldest of them was (re)sent. */
  async webhookQueue(): Promise<{ depth: number; oldestMs: number | null }> {
    const [row] = await this.db.query(`SELECT count(*)::text AS n, min(retry_from_ms)::text AS oldest FROM events WHERE state = 'pending'`);
    return queueOf(row!);
  }

  /** Rows of a table of money movements by key mode and state (payouts name theirs `status`; a refund's send is not a withdrawal). */
  byState(table: MoneyTable): Promise<StateCount[]> {
    return this.owners.byState[table]();
  }

  /** E-mails waiting in the outbox to be sent (pending, retries included), and since when the oldest of them waits. */
  emailOutbox(): Promise<{ depth: number; oldestMs: number | null }> {
    return this.owners.emailOutbox();
  }

  /** Counted transfers per chain, swept or still waiting for a sweep. */
  sweeps(): Promise<Array<{ chainId: number; swept: boolean; count: number }>> {
    return this.owners.sweeps();
  }
}
