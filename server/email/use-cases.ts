// What the rest of the service asks of e-mail: an invitation, a sign-in link, a new
// device signed in with, a refund's link and receipt for a customer, a security change (with
// its event). Each is rendered in the
// recipient's language and written to the outbox (store.ts); the job sends it. Nothing here
// waits for an SMTP server. With e-mail off (no SMTP_URL) each answers false: the caller hands
// the link to whoever asked for it, to pass on by hand.
import { createHash, randomBytes } from 'node:crypto';
import type { SecurityChange } from '../../contract/events.ts';
import type { KeyMode } from '../../contract/keys.ts';
import { actorOf } from '../audit/rules.ts';
import type { Account, Merchant } from '../domain/account.ts';
import type { Role } from '../domain/permissions.ts';
import type { Database, Sql } from '../storage/db.ts';
import type { EventStore } from '../storage/events.ts';
import { render, type Email, type Values } from './rules.ts';
import type { EmailStore } from './store.ts';

/** The device cookie: a random id the browser keeps a year; only its hash is stored. */
export const DEVICE_COOKIE = 'device';
export const DEVICE_MAX_AGE_S = 365 * 86_400;

export type { SecurityChange } from '../../contract/events.ts';

/** What changed of a person's own second factors: told to them in their factors' words (messages-rules.ts). */
const FACTOR_CHANGES = new Set<SecurityChange>(['passkey_added', 'totp_added', 'factor_removed', 'recovery_codes', 'recovery_code_used']);

/** A security change to tell (Mail.securityChanged). */
export interface SecurityNews {
  change: SecurityChange;
  /** What changed, in a line: never a secret. */
  detail: string;
  /** A mode's event's own line instead of `detail` (a team change naming keys: each feed names its mode's only); the e-mail says `detail`. */
  modeDetail?: Partial<Record<KeyMode, string>>;
  /** The feeds the event goes to: a key's change its mode's; a person's or the team's, both. */
  modes: readonly KeyMode[];
  /** Who made the change (the audit log's actor); a member, or the person whose key acted, is told too. */
  by: Account;
  /** The key or member it is about. */
  target?: string;
  /** The person it is about besides who made it: 'owner' or a member's id; `email` for one no longer in the team. */
  concerned?: { person?: string; email?: string };
}

const hashOf = (device: string) => createHash('sha256').update(device).digest('hex');

export class Mail {
  constructor(
    private readonly store: EmailStore,
    /** Whether e-mail is on (SMTP_URL set). */
    readonly on: boolean,
    private readonly origin: () => string,
    private readonly now: () => number,
    /** Where a security change's event is written, with its e-mails (securityChanged). */
    private readonly db: Database,
    private readonly events: EventStore,
  ) {}

  /** An invitation to `to`, in `language`; false: e-mail is off. */
  async invitation(merchantId: string, business: string, to: string, role: Role, language: string, link: string): Promise<boolean> {
    if (!this.on) return false;
    await this.store.enqueue(render('invitation', language, to, { business, role }, link), merchantId, this.now());
    return true;
  }

  /** The owner's one-time sign-in link, to the owner's sign-in e-mail in their language; false: off, or the business has no owner's login. */
  async signInLink(merchantId: string, business: string, link: string): Promise<boolean> {
    if (!this.on) return false;
    const owner = (await this.store.people(merchantId)).find((p) => p.person === 'owner');
    if (!owner) return false;
    await this.store.enqueue(render('sign_in_link', owner.language, owner.email, { business }, link), merchantId, this.now());
    return true;
  }

  /**
   * A sign-in: its device (the cookie's value, or a new one when it had none) is recorded, and
   * when the person signed in before from other devices only, they are told. Answers the
   * device id the browser is to keep (the same, or a new one).
   */
  async signedIn(merchantId: string, business: string, person: string, device: string | undefined): Promise<string> {
    const id = device && /^[0-9a-f]{32}$/.test(device) ? device : randomBytes(16).toString('hex');
    const nowMs = this.now();
    const seen = await this.store.seeDevice(merchantId, person, hashOf(id), nowMs);
    if (seen === 'new' && this.on) {
      const who = (await this.store.people(merchantId)).find((p) => p.person === person);
      if (who)
        await this.store.enqueue(
          render(
            'new_device',
            who.language,
            who.email,
            { business, time: new Date(nowMs).toISOString().slice(0, 16).replace('T', ' ') },
            `${this.origin()}/dashboard`,
          ),
          merchantId,
          nowMs,
        );
    }
    return id;
  }

  /**
   * A security change told, the one way every such change is told: a SECURITY_CHANGED
   * event in each of `modes`' feeds (a key's change its own mode's; a person's or the team's both)
   * and, with e-mail on, an e-mail to the owner and to each person concerned (the member who did it
   * or whose key acted, `concerned.person`, and `concerned.email` for one no longer in the team),
   * each in their language, written in one transaction. A person's own second factors changed:
   * that person gets their factors' e-mail (with a link to Security), the owner the security one.
   * `detail`: what changed, never a secret (a key is named by its name and mode, never its value).
   * The change's audit row is the request's own (api/route.ts) or the caller's. Answers
   * whether anyone was e-mailed.
   */
  async securityChanged(merchant: Merchant, news: SecurityNews): Promise<boolean> {
    const nowMs = this.now();
    const actor = actorOf(news.by);
    const people = this.on ? await this.store.people(merchant.id) : [];
    const concerned = new Set(
      [news.concerned?.person, actor.kind === 'member' ? actor.id : news.by.holder].filter((p): p is string => p !== undefined).map((p) => p.toLowerCase()),
    );
    const time = new Date(nowMs).toISOString().slice(0, 16).replace('T', ' ');
    const emails = new Map<string, Email>();
    for (const p of people) {
      const own = concerned.has(p.person.toLowerCase());
      if (!own && p.person !== 'owner') continue;
      emails.set(
        p.email.toLowerCase(),
        own && FACTOR_CHANGES.has(news.change)
          ? render('factor_changed', p.language, p.email, { business: merchant.businessName, change: news.change, time }, `${this.origin()}/dashboard/security`)
          : render(
              'security_changed',
              p.language,
              p.email,
              { business: merchant.businessName, change: news.change, detail: news.detail, time },
              `${this.origin()}/dashboard`,
            ),
      );
    }
    const gone = news.concerned?.email;
    if (this.on && gone && !emails.has(gone.toLowerCase()))
      emails.set(
        gone.toLowerCase(),
        render(
          'security_changed',
          'en',
          gone,
          { business: merchant.businessName, change: news.change, detail: news.detail, time },
          `${this.origin()}/dashboard`,
        ),
      );
    const data = (mode: KeyMode) => ({
      change: news.change,
      detail: news.modeDetail?.[mode] ?? news.detail,
      actor: { kind: actor.kind, id: actor.id, label: actor.label },
      target: news.target ?? null,
      at: new Date(nowMs).toISOString(),
    });
    await this.db.transaction(async (tx) => {
      for (const mode of news.modes) await this.events.add(tx, { merchant, mode }, 'SECURITY_CHANGED', data(mode), nowMs);
      for (const email of emails.values()) await this.store.enqueue(email, merchant.id, nowMs, tx);
    });
    return emails.size > 0;
  }

  /**
   * A refund waiting for its customer's address: its claim link e-mailed to the customer, when
   * the payment has their e-mail (in the payment's `metadata.language` when it is one of ours,
   * else English). False: off, or the payment has no customer e-mail.
   */
  async customerRefundLink(merchantId: string, mode: string, refund: { reference: string; amount: string; coin: string }, link: string): Promise<boolean> {
    if (!this.on) return false;
    const customer = await this.store.customerOf(merchantId, mode, refund.reference);
    if (!customer) return false;
    return this.refundLink(merchantId, customer.email, customer.language, { ...refund, business: customer.business }, link);
  }

  /** Whether a refund's claim link can reach the payment's customer: e-mail on, and the payment has their e-mail (support's links go there only). */
  async reachesCustomer(merchantId: string, mode: string, reference: string): Promise<boolean> {
    return this.on && (await this.store.customerOf(merchantId, mode, reference)) !== undefined;
  }

  /**
   * A customer's refund link (the refunds code calls this in its own transaction when given
   * `sql`): what is refunded, and the one-time link where they say where it goes. False: off.
   */
  async refundLink(
    merchantId: string,
    to: string,
    language: string,
    refund: { business: string; amount: string; coin: string; reference: string },
    link: string,
    sql?: Sql,
  ): Promise<boolean> {
    if (!this.on) return false;
    await this.store.enqueue(render('refund_link', language, to, refund, link), merchantId, this.now(), sql);
    return true;
  }

  /** A customer's receipt once their refund is sent (its transaction hash, no link). False: off. */
  async refundReceipt(
    merchantId: string,
    to: string,
    language: string,
    refund: { business: string; amount: string; coin: string; chain: string; reference: string; tx: string },
    sql?: Sql,
  ): Promise<boolean> {
    if (!this.on) return false;
    await this.store.enqueue(render('refund_receipt', language, to, refund as Values), merchantId, this.now(), sql);
    return true;
  }

  /** The business's people (the owner and each member) with their e-mail and language. */
  people(merchantId: string) {
    return this.store.people(merchantId);
  }

  /** A person's e-mail choices (their own): language, and an e-mail for each payment received. */
  async choices(merchantId: string, person: string): Promise<{ language: string; paymentReceived: boolean }> {
    const found = (await this.store.people(merchantId)).find((p) => p.person === person);
    return { language: found?.language ?? 'en', paymentReceived: found?.paymentReceived ?? false };
  }

  setChoices(merchantId: string, person: string, choices: { language: string; paymentReceived: boolean }): Promise<void> {
    return this.store.setChoices(merchantId, person, choices);
  }
}
