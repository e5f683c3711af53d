// The outbox: events written in the same transaction as the change they report, claimed for
// delivery with FOR UPDATE SKIP LOCKED (one instance each), and every attempt recorded.
import { randomBytes } from 'node:crypto';
import type { Account } from '../domain/account.ts';
import type { EventType } from '../../contract/events.ts';
import type { Database, Sql } from './db.ts';
import { eventsKey } from '../realtime/keys.ts';
import { webhookUrl } from '../merchants/account-store.ts';

export interface StoredEvent {
  /** The outbox's own order across the instance: never shown (it would count other merchants' events). */
  seq: number;
  /** The event's number in its account's feed (1, 2, 3… per merchant and mode): what merchants see and page by. */
  number: number;
  id: string;
  merchantId: string;
  mode: string;
  type: EventType;
  body: string;
  state: 'pending' | 'delivered' | 'failed' | 'no_endpoint';
  attempts: number;
  nextAttemptMs: number | null;
  retryFromMs: number;
  createdMs: number;
  /** The claim this copy was handed under: settling needs it. */
  leaseToken: string | null;
}

export interface Attempt {
  eventId: string;
  attempt: number;
  url: string;
  status: number;
  error: string | null;
  durationMs: number;
  atMs: number;
  instance: string;
}

/** A stored event from its row (shared with the payments list's timeline). */
export const eventOf = (r: Record<string, unknown>): StoredEvent => ({
  seq: Number(r.seq),
  number: Number(r.account_seq),
  id: r.id as string,
  merchantId: r.merchant_id as string,
  mode: r.mode as string,
  type: r.type as EventType,
  body: r.body as string,
  state: r.state as StoredEvent['state'],
  attempts: Number(r.attempts),
  nextAttemptMs: r.next_attempt_ms === null ? null : Number(r.next_attempt_ms),
  retryFromMs: Number(r.retry_from_ms),
  createdMs: Number(r.created_ms),
  leaseToken: (r.lease_token as string | null) ?? null,
});

/** A delivery attempt from its row. */
export const attemptOf = (r: Record<string, unknown>): Attempt => ({
  eventId: r.event_id as string,
  attempt: Number(r.attempt),
  url: r.url as string,
  status: Number(r.status),
  error: (r.error as string | null) ?? null,
  durationMs: Number(r.duration_ms),
  atMs: Number(r.at_ms),
  instance: r.instance as string,
});

/** The account's events parked for want of a URL are due now (its webhook URL was just set, in the caller's transaction). */
export async function sendParked(tx: Sql, merchantId: string, mode: string, nowMs: number): Promise<void> {
  await tx.query(
    `UPDATE events SET state = 'pending', next_attempt_ms = $3, retry_from_ms = $3 WHERE merchant_id = $1 AND mode = $2 AND state = 'no_endpoint'`,
    [merchantId, mode, nowMs],
  );
  await tx.query(`SELECT pg_notify('events_due', '')`);
}

/** The latest delivery to the account's webhook URL, of its twenty latest events tried (none: nothing tried yet). */
export async function lastAttempt(sql: Sql, merchantId: string, mode: string): Promise<{ status: number; error: string | null; atMs: number } | undefined> {
  const [row] = await sql.query(
    `SELECT a.status, a.error, a.at_ms FROM event_attempts a
      WHERE a.event_id IN (SELECT id FROM events WHERE merchant_id = $1 AND mode = $2 AND attempts > 0 ORDER BY seq DESC LIMIT 20)
      ORDER BY a.at_ms DESC, a.id DESC LIMIT 1`,
    [merchantId, mode],
  );
  return row && { status: Number(row.status), error: (row.error as string | null) ?? null, atMs: Number(row.at_ms) };
}

/** The events feed's cursor below the account's `count` newest events (0: there are no more than that). */
export async function recentStart(sql: Sql, merchantId: string, mode: string, count: number): Promise<number> {
  const [row] = await sql.query(
    'SELECT COALESCE(min(account_seq) - 1, 0)::text AS after FROM (SELECT account_seq FROM events WHERE merchant_id = $1 AND mode = $2 ORDER BY account_seq DESC LIMIT $3) newest',
    [merchantId, mode, Math.max(1, Math.min(count, 200))],
  );
  return Number(row.after);
}

/**
 * The events as another store's claim joins them (email/store.ts's fan-out locks its marks FOR
 * UPDATE SKIP LOCKED, in the events' order, so the join is one statement): `alias` the event's
 * row, `eventId` the column that names it.
 */
export const joinEvents = (alias: string, eventId: string): string => `JOIN events ${alias} ON ${alias}.id = ${eventId}`;

/** The account's events about one payment (its reference in their data), the first 200, as its timeline reads them (payments/list-store.ts). */
export async function eventsAbout(sql: Sql, account: Pick<Account, 'merchant' | 'mode'>, reference: string): Promise<StoredEvent[]> {
  const rows = await sql.query(
    `SELECT * FROM events WHERE merchant_id = $1 AND mode = $2 AND (body::jsonb -> 'data' ->> 'reference') = $3 ORDER BY seq LIMIT 200`,
    [account.merchant.id, account.mode, reference],
  );
  return rows.map(eventOf);
}

/** The delivery attempts of these events, in the order made. */
export async function attemptsOf(sql: Sql, eventIds: string[]): Promise<Attempt[]> {
  if (eventIds.length === 0) return [];
  return (await sql.query(`SELECT * FROM event_attempts WHERE event_id = ANY($1::text[]) ORDER BY id`, [eventIds])).map(attemptOf);
}

export class EventStore {
  constructor(private readonly db: Database) {}

  /**
   * Writes an event inside the caller's transaction. `data` is the event's payload; the body
   * is fixed here, once, so every attempt signs the same bytes.
   */
  async add(tx: Sql, account: Pick<Account, 'merchant' | 'mode'>, type: EventType, data: unknown, nowMs: number): Promise<string> {
    const id = 'evt_' + randomBytes(12).toString('hex');
    // `type` as the events feed names it, beside `event` (the spec's name); both sign as the body.
    const body = JSON.stringify({ id, event: type, type, created: Math.floor(nowMs / 1000), data });
    const state = (await webhookUrl(tx, account.merchant.id, account.mode)) ? 'pending' : 'no_endpoint';
    // The account's next number: the counter row's lock holds a second writer of this account
    // until this transaction ends, so numbers are never shared nor skipped.
    await tx.query(
      `WITH counter AS (
         INSERT INTO event_counters (merchant_id, mode, last) VALUES ($2, $3, 1)
         ON CONFLICT (merchant_id, mode) DO UPDATE SET last = event_counters.last + 1 RETURNING last)
       INSERT INTO events (id, merchant_id, mode, type, body, state, next_attempt_ms, retry_from_ms, created_ms, account_seq)
       SELECT $1, $2, $3, $4, $5, $6, $7, $8, $8, counter.last FROM counter`,
      [id, account.merchant.id, account.mode, type, body, state, state === 'pending' ? nowMs : null, nowMs],
    );
    if (state === 'pending') await tx.query(`SELECT pg_notify('events_due', $1)`, [id]);
    await tx.query(`SELECT pg_notify('changes', $1)`, [eventsKey(account.merchant.id, account.mode)]);
    return id;
  }

  /**
   * Claims up to `limit` events due for delivery, leasing them for `leaseMs`: another
   * instance skips them while the lease holds, and takes them over if this one dies.
   */
  async claimDue(nowMs: number, leaseMs: number, limit: number, perAccount = 4): Promise<StoredEvent[]> {
    // Fair to every account: at most `perAccount` events of one (merchant, mode) in flight at
    // once (counting those other claims still hold: an endpoint that never answers keeps only
    // its own few slots), live accounts' first, so that no merchant's backlog (a test key's
    // flood to a slow endpoint) holds back another's deliveries. The accounts come first (up to
    // `limit` of them, each with its oldest due event), then each account's own oldest few:
    // however deep one account's backlog, every other account with a due event is in the same
    // batch. The rows picked are locked, so instances claiming at once pick different ones.
    const due = `state = 'pending' AND next_attempt_ms <= $1 AND (lease_until_ms IS NULL OR lease_until_ms <= $1)`;
    // Most calls find nothing due: one look down the due index answers those, and the
    // statement below (dearer to plan and run) is only run when there is work.
    if ((await this.db.query(`SELECT 1 FROM events WHERE ${due} LIMIT 1`, [nowMs])).length === 0) return [];
    const rows = await this.db.query(
      `WITH held AS (
         SELECT merchant_id, mode, count(*) AS n FROM events WHERE state = 'pending' AND lease_until_ms > $1 GROUP BY merchant_id, mode),
       accounts AS (
         SELECT merchant_id, mode, min(next_attempt_ms) AS first, $5 - COALESCE(min(held.n), 0) AS room
           FROM events LEFT JOIN held USING (merchant_id, mode) WHERE ${due}
          GROUP BY merchant_id, mode HAVING $5 - COALESCE(min(held.n), 0) > 0
          ORDER BY (mode = 'live') DESC, first LIMIT $3),
       picked AS (
         SELECT e.seq, a.mode, e.next_attempt_ms FROM accounts a CROSS JOIN LATERAL (
           SELECT seq, next_attempt_ms FROM events WHERE merchant_id = a.merchant_id AND mode = a.mode AND ${due}
            ORDER BY next_attempt_ms, seq LIMIT a.room FOR UPDATE SKIP LOCKED) e)
       UPDATE events SET lease_until_ms = $2, attempts = attempts + 1, lease_token = $4
        WHERE seq IN (SELECT seq FROM picked ORDER BY (mode = 'live') DESC, next_attempt_ms, seq LIMIT $3)
        RETURNING *`,
      [nowMs, nowMs + leaseMs, limit, randomBytes(8).toString('hex'), perAccount],
    );
    return rows.map(eventOf).sort((a, b) => a.seq - b.seq);
  }

  /**
   * Records an attempt and what comes next: delivered, another try at `atMs`, or failed.
   * Only while this claim still holds the lease: a claimer that lost it (it outlived its
   * lease and another instance took over) changes nothing.
   */
  async recordAttempt(
    event: StoredEvent,
    attempt: Omit<Attempt, 'eventId' | 'attempt'>,
    next: { state: 'delivered' | 'failed' } | { state: 'pending'; atMs: number },
  ): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const held = await tx.query(
        `UPDATE events SET state = $3, next_attempt_ms = $4, lease_until_ms = NULL, lease_token = NULL WHERE id = $1 AND lease_token = $2 RETURNING id`,
        [event.id, event.leaseToken, next.state, next.state === 'pending' ? next.atMs : null],
      );
      if (held.length === 0) return false;
      await tx.query(
        `INSERT INTO event_attempts (event_id, attempt, url, status, error, duration_ms, at_ms, instance) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [event.id, event.attempts, attempt.url, attempt.status, attempt.error, attempt.durationMs, attempt.atMs, attempt.instance],
      );
      return true;
    });
  }

  /** An event the endpoint could not be found for at delivery time: parked, not lost. */
  async park(event: StoredEvent): Promise<void> {
    await this.db.query(
      `UPDATE events SET state = 'no_endpoint', next_attempt_ms = NULL, lease_until_ms = NULL, lease_token = NULL, attempts = attempts - 1 WHERE id = $1 AND lease_token = $2`,
      [event.id, event.leaseToken],
    );
  }

  /** The merchant's events, newest last, after its event number `after` (for a feed that follows). */
  async list(account: Pick<Account, 'merchant' | 'mode'>, after: number, limit: number): Promise<StoredEvent[]> {
    const rows = await this.db.query(`SELECT * FROM events WHERE merchant_id = $1 AND mode = $2 AND account_seq > $3 ORDER BY account_seq LIMIT $4`, [
      account.merchant.id,
      account.mode,
      after,
      limit,
    ]);
    return rows.map(eventOf);
  }

  /** The `limit` newest events before event number `before`, oldest first: a page further back in the feed. */
  async listBefore(account: Pick<Account, 'merchant' | 'mode'>, before: number, limit: number): Promise<StoredEvent[]> {
    const rows = await this.db.query(
      `SELECT * FROM (SELECT * FROM events WHERE merchant_id = $1 AND mode = $2 AND account_seq < $3 ORDER BY account_seq DESC LIMIT $4) older ORDER BY account_seq`,
      [account.merchant.id, account.mode, before, limit],
    );
    return rows.map(eventOf);
  }

  /** The newest event's number, 0 when there is none: where a feed that wants only new events starts. */
  async lastSeq(account: Pick<Account, 'merchant' | 'mode'>): Promise<number> {
    const [row] = await this.db.query('SELECT COALESCE(max(account_seq), 0)::text AS seq FROM events WHERE merchant_id = $1 AND mode = $2', [
      account.merchant.id,
      account.mode,
    ]);
    return Number(row.seq);
  }

  async get(account: Pick<Account, 'merchant' | 'mode'>, id: string): Promise<StoredEvent | undefined> {
    const [row] = await this.db.query(`SELECT * FROM events WHERE merchant_id = $1 AND mode = $2 AND id = $3`, [account.merchant.id, account.mode, id]);
    return row && eventOf(row);
  }

  attempts(eventIds: string[]): Promise<Attempt[]> {
    return attemptsOf(this.db, eventIds);
  }

  /** Every attempt with the body it sent, oldest first (tests and the operator's view). */
  async allAttempts(): Promise<Array<Attempt & { body: string }>> {
    const rows = await this.db.query(`SELECT a.*, e.body FROM event_attempts a JOIN events e ON e.id = a.event_id ORDER BY a.id`);
    return rows.map((r) => ({ ...attemptOf(r), body: r.body as string }));
  }

  /** Sends an event again from now on, whatever became of it. */
  async resend(account: Pick<Account, 'merchant' | 'mode'>, id: string, nowMs: number): Promise<boolean> {
    const rows = await this.db.query(
      `UPDATE events SET state = 'pending', next_attempt_ms = $4, lease_until_ms = NULL, lease_token = NULL, retry_from_ms = $4
        WHERE merchant_id = $1 AND mode = $2 AND id = $3 RETURNING id`,
      [account.merchant.id, account.mode, id, nowMs],
    );
    if (rows.length) await this.db.query(`SELECT pg_notify('events_due', $1)`, [id]);
    return rows.length > 0;
  }
}
