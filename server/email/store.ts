// The e-mail outbox: e-mails written in the caller's transaction or right after
// the change they tell of, claimed by one instance at a time (a lease; rows picked FOR UPDATE
// SKIP LOCKED, so instances sending at once take different ones), sent, and each attempt recorded:
// sent, tried again later, or given up. Once done, the recipient and the body (which may hold a
// one-time link) are cleared. Also each person's e-mail choices and the devices they signed in
// with (hashes of the device cookie only).
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Database, Sql } from '../storage/db.ts';
import type { Actor } from '../domain/permissions.ts';
import type { Email, MailedEvent, Recipient } from './rules.ts';
import { queueOf } from '../storage/metrics.ts';
import { joinEvents } from '../storage/events.ts';

/**
 * What the e-mails read of other features' rows, in the caller's transaction: the business's
 * name (merchants), the owner's login (dashboard), the members (team) and a payment's customer
 * (payments). Their stores' fragments, handed in where the service is put together (service/parts.ts).
 */
export interface EmailReads {
  businessName(sql: Sql, merchantId: string): Promise<string>;
  ownerLogin(sql: Sql, merchantId: string): Promise<{ email: string } | undefined>;
  membersOf(sql: Sql, merchantId: string): Promise<Array<{ id: string; email: string; role: string }>>;
  customerContact(
    sql: Sql,
    merchantId: string,
    mode: string,
    reference: string,
  ): Promise<{ email: string | null; metadata: Record<string, unknown> | null } | undefined>;
}

export interface OutboxRow extends Email {
  id: string;
  attempts: number;
  createdMs: number;
  leaseToken: string;
}

export type AttemptOutcome = { state: 'sent' } | { state: 'failed'; error: string } | { state: 'pending'; atMs: number; error: string };

/** /metrics' e-mail outbox (storage/metrics.ts): pending, retries included, and since when the oldest waits. */
export async function emailOutbox(sql: Sql): Promise<{ depth: number; oldestMs: number | null }> {
  const [row] = await sql.query(`SELECT count(*)::text AS n, min(created_ms)::text AS oldest FROM emails WHERE state = 'pending'`);
  return queueOf(row!);
}

export class EmailStore {
  constructor(
    private readonly db: Database,
    private readonly reads: EmailReads,
  ) {}

  /**
   * Puts an e-mail in the outbox, due now (in `sql`'s transaction when given one); wakes the
   * senders. One with `once` is put there once for its recipient: `once_key` is the SHA-256 of
   * both (no address kept once it is sent), unique, and a second is dropped.
   */
  async enqueue(email: Email, merchantId: string | undefined, nowMs: number, sql: Sql = this.db): Promise<void> {
    const once = email.once === undefined ? null : createHash('sha256').update(`${email.once}\n${email.to.toLowerCase()}`).digest('hex');
    await sql.query(
      `INSERT INTO emails (id, merchant_id, kind, recipient, subject, text_body, html_body, state, next_attempt_ms, created_ms, once_key)
       VALUES ($1, $2, $3, $4, $5, $6, $7, 'pending', $8, $8, $9) ON CONFLICT (once_key) DO NOTHING`,
      [randomUUID(), merchantId ?? null, email.kind, email.to, email.subject, email.text, email.html, nowMs, once],
    );
    await sql.query(`SELECT pg_notify('emails_due', 'outbox')`);
  }

  /**
   * Turns up to `limit` marked events into e-mails (`plan` says which, for the business's
   * people), and unmarks them, in one transaction: each event is told once, by one instance.
   * `plan` undefined (e-mail off): the marks are dropped, nothing is sent.
   */
  async fanOut(limit: number, nowMs: number, plan?: (event: MailedEvent, business: string, people: Recipient[]) => Email[]): Promise<number> {
    return this.db.transaction(async (tx) => {
      const rows = await tx.query(
        `SELECT m.event_id, e.merchant_id, e.mode, e.type, e.body FROM email_events m ${joinEvents('e', 'm.event_id')}
          ORDER BY e.seq LIMIT $1 FOR UPDATE OF m SKIP LOCKED`,
        [limit],
      );
      for (const row of rows) {
        if (plan) {
          const merchantId = row.merchant_id as string;
          const business = await this.reads.businessName(tx, merchantId);
          const people = await peopleOf(this.reads, tx, merchantId);
          const body = JSON.parse(row.body as string) as { data?: Record<string, unknown> };
          const event: MailedEvent = { type: row.type as string, mode: row.mode as string, data: body.data ?? {} };
          // A refund's receipt goes to its payment's customer, when the payment has their e-mail.
          if (event.type === 'REFUND_UPDATED' && typeof event.data.reference === 'string')
            event.customer = await customerOf(this.reads, tx, merchantId, event.mode, event.data.reference);
          for (const email of plan(event, business, people)) await this.enqueue(email, merchantId, nowMs, tx);
        }
        await tx.query('DELETE FROM email_events WHERE event_id = $1', [row.event_id]);
      }
      return rows.length;
    });
  }

  /** Leases up to `limit` due e-mails for `leaseMs`: another instance skips them, and takes them over if this one dies. */
  async claimDue(nowMs: number, leaseMs: number, limit: number): Promise<OutboxRow[]> {
    const token = randomBytes(8).toString('hex');
    const rows = await this.db.query(
      `UPDATE emails SET lease_until_ms = $2, lease_token = $4, attempts = attempts + 1
        WHERE id IN (SELECT id FROM emails WHERE state = 'pending' AND next_attempt_ms <= $1 AND (lease_until_ms IS NULL OR lease_until_ms <= $1)
                      ORDER BY next_attempt_ms, created_ms LIMIT $3 FOR UPDATE SKIP LOCKED)
        RETURNING *`,
      [nowMs, nowMs + leaseMs, limit, token],
    );
    return rows.map((r) => ({
      id: r.id as string,
      kind: r.kind as Email['kind'],
      to: r.recipient as string,
      subject: r.subject as string,
      text: r.text_body as string,
      html: r.html_body as string,
      attempts: Number(r.attempts),
      createdMs: Number(r.created_ms),
      leaseToken: r.lease_token as string,
    }));
  }

  /** Records how an attempt went, while this claim still holds the lease; an e-mail sent or given up keeps no recipient nor body. */
  async recordAttempt(row: OutboxRow, next: AttemptOutcome, nowMs: number): Promise<boolean> {
    const error = next.state === 'sent' ? null : next.error.slice(0, 300);
    const held =
      next.state === 'pending'
        ? await this.db.query(
            `UPDATE emails SET next_attempt_ms = $3, lease_until_ms = NULL, lease_token = NULL, last_error = $4 WHERE id = $1 AND lease_token = $2 RETURNING id`,
            [row.id, row.leaseToken, next.atMs, error],
          )
        : await this.db.query(
            `UPDATE emails SET state = $3, done_ms = $4, last_error = $5, next_attempt_ms = NULL, lease_until_ms = NULL, lease_token = NULL,
                  recipient = NULL, subject = NULL, text_body = NULL, html_body = NULL
            WHERE id = $1 AND lease_token = $2 RETURNING id`,
            [row.id, row.leaseToken, next.state, nowMs, error],
          );
    return held.length > 0;
  }

  /** The outbox's rows, oldest first: kind, state and attempts (what an operator or a test looks at). */
  async states(): Promise<Array<{ kind: string; state: string; attempts: number; recipient: string | null; lastError: string | null }>> {
    const rows = await this.db.query('SELECT kind, state, attempts, recipient, last_error FROM emails ORDER BY created_ms, id');
    return rows.map((r) => ({
      kind: r.kind as string,
      state: r.state as string,
      attempts: Number(r.attempts),
      recipient: (r.recipient as string | null) ?? null,
      lastError: (r.last_error as string | null) ?? null,
    }));
  }

  /** A payment's customer, to e-mail about their refund: their e-mail (undefined: none given), the language asked, the business's name. */
  customerOf(merchantId: string, mode: string, reference: string): Promise<Customer | undefined> {
    return customerOf(this.reads, this.db, merchantId, mode, reference);
  }

  /** The business's people who may be e-mailed, with their choices. */
  people(merchantId: string): Promise<Recipient[]> {
    return peopleOf(this.reads, this.db, merchantId);
  }

  /** One person's choices: their language, and whether each payment received is e-mailed to them. */
  async setChoices(merchantId: string, person: string, choices: { language: string; paymentReceived: boolean }): Promise<void> {
    await this.db.query(
      `INSERT INTO email_people (merchant_id, person, language, payment_received) VALUES ($1, $2, $3, $4)
       ON CONFLICT (merchant_id, person) DO UPDATE SET language = EXCLUDED.language, payment_received = EXCLUDED.payment_received`,
      [merchantId, person, choices.language, choices.paymentReceived],
    );
  }

  /**
   * Records a sign-in's device (the hash of its cookie): `new` when this person signed in
   * before from other devices only (their very first sign-in tells nobody).
   */
  async seeDevice(merchantId: string, person: string, deviceHash: string, nowMs: number): Promise<'known' | 'new' | 'first'> {
    return this.db.transaction(async (tx) => {
      const rows = await tx.query('SELECT device_hash FROM known_devices WHERE merchant_id = $1 AND person = $2', [merchantId, person]);
      await tx.query(
        `INSERT INTO known_devices (merchant_id, person, device_hash, seen_ms) VALUES ($1, $2, $3, $4)
         ON CONFLICT (merchant_id, person, device_hash) DO UPDATE SET seen_ms = EXCLUDED.seen_ms`,
        [merchantId, person, deviceHash, nowMs],
      );
      if (rows.some((r) => r.device_hash === deviceHash)) return 'known';
      return rows.length === 0 ? 'first' : 'new';
    });
  }
}

export interface Customer {
  email: string;
  language: string;
  business: string;
}

/** The payment's customer (its payments' row) and the business's name (its merchants' row). */
async function customerOf(reads: EmailReads, sql: Sql, merchantId: string, mode: string, reference: string): Promise<Customer | undefined> {
  const contact = await reads.customerContact(sql, merchantId, mode, reference);
  const email = contact?.email?.trim();
  if (!contact || !email) return undefined;
  const language = typeof contact.metadata?.language === 'string' ? contact.metadata.language : 'en';
  return { email, language, business: await reads.businessName(sql, merchantId) };
}

/** The business's people (the owner's login, the team's members) with their e-mail choices (ours). */
async function peopleOf(reads: EmailReads, sql: Sql, merchantId: string): Promise<Recipient[]> {
  const owner = await reads.ownerLogin(sql, merchantId);
  const people = [...(owner ? [{ id: 'owner', email: owner.email, role: 'owner' as Actor }] : []), ...(await reads.membersOf(sql, merchantId))];
  const choices = new Map(
    (await sql.query('SELECT person, language, payment_received FROM email_people WHERE merchant_id = $1', [merchantId])).map((r) => [r.person as string, r]),
  );
  return people.map((p) => ({
    person: p.id,
    email: p.email,
    role: p.role as Actor,
    language: (choices.get(p.id)?.language as string | undefined) ?? 'en',
    paymentReceived: choices.get(p.id)?.payment_received === true,
  }));
}
