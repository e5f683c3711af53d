// What the rest of the service asks of e-mail (issue 37): an invitation, a sign-in link, a new
// device signed in with, a refund's link and receipt for a customer. Each is rendered in the
// recipient's language and written to the outbox (store.ts); the job sends it. Nothing here
// waits for an SMTP server. With e-mail off (no SMTP_URL) each answers false: the caller hands
// the link to whoever asked for it, to pass on by hand.
import { createHash, randomBytes } from 'node:crypto';
import type { Role } from '../domain/permissions.ts';
import type { Sql } from '../storage/db.ts';
import { render, type Values } from './rules.ts';
import type { EmailStore } from './store.ts';

/** The device cookie: a random id the browser keeps a year; only its hash is stored. */
export const DEVICE_COOKIE = 'device';
export const DEVICE_MAX_AGE_S = 365 * 86_400;

/** What changed of a person's second factors (the e-mail's words per language: messages-rules.ts). */
export type FactorChange = 'passkey_added' | 'totp_added' | 'factor_removed' | 'recovery_codes' | 'recovery_code_used';

/** A security change told to the owner and the person concerned (issue 48). */
export type SecurityChange = 'keys_revoked' | 'keys_narrowed' | 'key_rolled' | 'step_up_locked' | 'step_up_unlocked' | 'support_limit';

const hashOf = (device: string) => createHash('sha256').update(device).digest('hex');

export class Mail {
  constructor(
    private readonly store: EmailStore,
    /** Whether e-mail is on (SMTP_URL set). */
    readonly on: boolean,
    private readonly origin: () => string,
    private readonly now: () => number,
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
      if (who) await this.store.enqueue(render('new_device', who.language, who.email, { business, time: new Date(nowMs).toISOString().slice(0, 16).replace('T', ' ') }, `${this.origin()}/dashboard`), merchantId, nowMs);
    }
    return id;
  }

  /**
   * A person's second factors changed (a passkey or an authenticator app added, one removed,
   * new recovery codes, a recovery code used): told at once, in their language, whoever did it (a thief with the
   * password and a step-up is seen by the person whose account it is). False: off, or no such person.
   */
  async factorChanged(merchantId: string, business: string, person: string, change: FactorChange): Promise<boolean> {
    if (!this.on) return false;
    const who = (await this.store.people(merchantId)).find((p) => p.person === person);
    if (!who) return false;
    const nowMs = this.now();
    await this.store.enqueue(render('factor_changed', who.language, who.email, { business, change, time: new Date(nowMs).toISOString().slice(0, 16).replace('T', ' ') }, `${this.origin()}/dashboard/security`), merchantId, nowMs);
    return true;
  }

  /**
   * A security change (issue 48: a removed member's keys revoked, a demoted member's narrowed, the
   * secret key rolled, a step-up lockout, the support refund limit): told to the owner and to the
   * person concerned (`person`: 'owner' or a member's id; `email` for one no longer in the team),
   * each in their language. `detail`: what changed, never a secret. False: e-mail is off.
   */
  async securityChanged(merchantId: string, business: string, change: SecurityChange, detail: string, concerned: { person?: string; email?: string } = {}): Promise<boolean> {
    if (!this.on) return false;
    const people = await this.store.people(merchantId);
    const nowMs = this.now();
    const to = new Map<string, string>();
    for (const p of people) if (p.person === 'owner' || p.person === concerned.person) to.set(p.email.toLowerCase(), p.language);
    if (concerned.email && !to.has(concerned.email.toLowerCase())) to.set(concerned.email.toLowerCase(), 'en');
    for (const [email, language] of to) {
      await this.store.enqueue(render('security_changed', language, email, { business, change, detail, time: new Date(nowMs).toISOString().slice(0, 16).replace('T', ' ') }, `${this.origin()}/dashboard`), merchantId, nowMs);
    }
    return true;
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

  /** Whether a refund's claim link can reach the payment's customer: e-mail on, and the payment has their e-mail (issue 48: support's links go there only). */
  async reachesCustomer(merchantId: string, mode: string, reference: string): Promise<boolean> {
    return this.on && (await this.store.customerOf(merchantId, mode, reference)) !== undefined;
  }

  /**
   * A customer's refund link (the refunds code calls this in its own transaction when given
   * `sql`): what is refunded, and the one-time link where they say where it goes. False: off.
   */
  async refundLink(merchantId: string, to: string, language: string, refund: { business: string; amount: string; coin: string; reference: string }, link: string, sql?: Sql): Promise<boolean> {
    if (!this.on) return false;
    await this.store.enqueue(render('refund_link', language, to, refund, link), merchantId, this.now(), sql);
    return true;
  }

  /** A customer's receipt once their refund is sent (its transaction hash, no link). False: off. */
  async refundReceipt(merchantId: string, to: string, language: string, refund: { business: string; amount: string; coin: string; chain: string; reference: string; tx: string }, sql?: Sql): Promise<boolean> {
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
