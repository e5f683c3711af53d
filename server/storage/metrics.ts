// What /metrics reads from the database, at scrape time: payments by the facts their status is
// made of (the status itself is payments/rules.ts's rule, applied to each group), the webhook
// queue and the e-mail outbox, transfers by whether they were swept, and payouts, swaps,
// withdrawals and refunds by state. Reads only.
import type { Database } from './db.ts';

export interface PaymentGroup {
  mode: string;
  full: boolean;
  settled: boolean;
  expired: boolean;
  some: boolean;
  count: number;
}

export class MetricsStore {
  constructor(private readonly db: Database) {}

  async paymentGroups(nowMs: number): Promise<PaymentGroup[]> {
    const rows = await this.db.query(
      `SELECT mode, paid >= due AS full, settled_ms IS NOT NULL AS settled, expires_ms <= $1 AS expired, paid > 0 AS some, count(*)::text AS n
         FROM payments GROUP BY 1, 2, 3, 4, 5`,
      [nowMs],
    );
    return rows.map((r) => ({ mode: r.mode as string, full: !!r.full, settled: !!r.settled, expired: !!r.expired, some: !!r.some, count: Number(r.n) }));
  }

  /** Events waiting to be delivered, and when the oldest of them was (re)sent. */
  async webhookQueue(): Promise<{ depth: number; oldestMs: number | null }> {
    const [row] = await this.db.query(`SELECT count(*)::text AS n, min(retry_from_ms)::text AS oldest FROM events WHERE state = 'pending'`);
    return { depth: Number(row.n), oldestMs: row.oldest === null ? null : Number(row.oldest) };
  }

  /**
   * Rows of a table of money movements by key mode and state: a handful of groups, however
   * many rows (payouts name theirs `status`; a refund's send is not a withdrawal).
   */
  async byState(table: 'payouts' | 'swaps' | 'withdrawals' | 'refunds'): Promise<Array<{ mode: string; state: string; count: number }>> {
    const state = table === 'payouts' ? 'status' : 'state';
    const only = table === 'withdrawals' ? `WHERE purpose = 'withdrawal'` : '';
    const rows = await this.db.query(`SELECT mode, ${state} AS state, count(*)::text AS n FROM ${table} ${only} GROUP BY 1, 2`);
    return rows.map((r) => ({ mode: r.mode as string, state: r.state as string, count: Number(r.n) }));
  }

  /** E-mails waiting in the outbox to be sent (pending, retries included), and since when the oldest of them waits. */
  async emailOutbox(): Promise<{ depth: number; oldestMs: number | null }> {
    const [row] = await this.db.query(`SELECT count(*)::text AS n, min(created_ms)::text AS oldest FROM emails WHERE state = 'pending'`);
    return { depth: Number(row.n), oldestMs: row.oldest === null ? null : Number(row.oldest) };
  }

  /** Counted transfers per chain, swept or still waiting for a sweep. */
  async sweeps(): Promise<Array<{ chainId: number; swept: boolean; count: number }>> {
    const rows = await this.db.query(
      `SELECT chain_id, swept_hash IS NOT NULL AS swept, count(*)::text AS n FROM chain_transfers WHERE state IN ('credited', 'late', 'unexpected') GROUP BY 1, 2`,
    );
    return rows.map((r) => ({ chainId: Number(r.chain_id), swept: !!r.swept, count: Number(r.n) }));
  }
}
