// The dashboard's sign-in: one owner login per merchant (its e-mail and scrypt hash), one-time
// sign-in links (hashes only), sessions (hashes of their cookie) and wrong-password counts
// (per e-mail and client address, and per e-mail over every client).
import type { Merchant } from '../domain/account.ts';
import { accountLockedUntil, FAILURE_MEMORY_MS, lockedUntil, newToken, tokenHash } from '../merchants/sign-in-rules.ts';
import type { Database, Sql } from '../storage/db.ts';
import type { Role } from '../domain/permissions.ts';
import type { MerchantRows } from '../merchants/account-store.ts';
import type { memberById, memberLogins } from '../team/store.ts';
import type { factorState } from '../factors/store.ts';
import { lastAttempt, recentStart } from '../storage/events.ts';

/** The failure row that counts every client's wrong passwords against an e-mail. */
const EVERY_CLIENT = '*';

export interface Session {
  merchant: Merchant;
  csrf: string;
  expiresMs: number;
  /** The member signed in; none: the owner. */
  member?: { id: string; email: string; role: Role };
  /** Its person's second factor: whether they have one, whether the owner requires one. */
  secondFactor: { enrolled: boolean; mustEnrol: boolean };
}

export class DashboardStore {
  /** `accountLockout`: wrong passwords from every client together that lock an e-mail for all; `merchants`: their owner's rows. */
  constructor(
    private readonly db: Database,
    private readonly accountLockout: number,
    private readonly merchants: MerchantRows,
    /** The team's members and each person's second factor (team/store.ts, factors/store.ts): who a session or a login is. */
    private readonly people: { memberById: typeof memberById; memberLogins: typeof memberLogins; factorState: typeof factorState },
  ) {}

  /**
   * A new one-time sign-in link's token for a merchant (its owner sets a password with it).
   * Earlier unused links stop working. Undefined for an unknown merchant.
   */
  async issueLink(merchantId: string, nowMs: number, validMs: number): Promise<string | undefined> {
    return this.db.transaction(async (tx) => {
      const businessEmail = await this.merchants.lockedBusinessEmail(tx, merchantId);
      if (businessEmail === undefined) return undefined;
      await tx.query(
        `INSERT INTO dashboard_logins (merchant_id, email, password_hash, updated_ms) VALUES ($1, $2, NULL, $3)
         ON CONFLICT (merchant_id) DO UPDATE SET email = $2, updated_ms = $3`,
        [merchantId, businessEmail, nowMs],
      );
      await tx.query('DELETE FROM dashboard_links WHERE merchant_id = $1', [merchantId]);
      const token = newToken();
      await tx.query('INSERT INTO dashboard_links (hash, merchant_id, expires_ms) VALUES ($1, $2, $3)', [tokenHash(token), merchantId, nowMs + validMs]);
      return token;
    });
  }

  /**
   * Uses a sign-in link once: sets the owner's password (already hashed) and ends every
   * session the merchant had (a reset signs out everywhere). The merchant's id, or undefined
   * for a link that is unknown, used or expired.
   */
  async setPassword(linkToken: string, passwordHash: string, nowMs: number): Promise<string | undefined> {
    return this.db.transaction(async (tx) => {
      const [link] = await tx.query('UPDATE dashboard_links SET used_ms = $2 WHERE hash = $1 AND used_ms IS NULL AND expires_ms > $2 RETURNING merchant_id', [
        tokenHash(linkToken),
        nowMs,
      ]);
      if (!link) return undefined;
      const merchantId = link.merchant_id as string;
      const [login] = await tx.query('UPDATE dashboard_logins SET password_hash = $2, updated_ms = $3 WHERE merchant_id = $1 RETURNING email', [
        merchantId,
        passwordHash,
        nowMs,
      ]);
      await tx.query('DELETE FROM dashboard_sessions WHERE merchant_id = $1', [merchantId]);
      // The owner proved the link: every lock on the e-mail, from any client, is lifted.
      if (login) await tx.query('DELETE FROM sign_in_failures WHERE email = $1', [(login.email as string).toLowerCase()]);
      return merchantId;
    });
  }

  /** A member's role and e-mail, as they sign in (undefined: removed meanwhile). */
  memberOf(merchantId: string, memberId: string): Promise<{ role: Role; email: string } | undefined> {
    return this.people.memberById(this.db, merchantId, memberId);
  }

  /** The merchant's password hash (undefined: no password set yet). */
  async passwordHashOf(merchantId: string): Promise<string | undefined> {
    const [row] = await this.db.query('SELECT password_hash FROM dashboard_logins WHERE merchant_id = $1', [merchantId]);
    return (row?.password_hash as string | null) ?? undefined;
  }

  /** The logins with this e-mail that have a password: owners' and members' (a few merchants may share one e-mail), the five oldest. */
  async logins(email: string): Promise<Array<{ merchantId: string; memberId?: string; passwordHash: string }>> {
    const owners = await this.db.query('SELECT merchant_id, password_hash FROM dashboard_logins WHERE lower(email) = lower($1) AND password_hash IS NOT NULL', [
      email,
    ]);
    const made = await this.merchants.createdMs(
      this.db,
      owners.map((r) => r.merchant_id as string),
    );
    const logins = [
      ...owners
        .filter((r) => made.has(r.merchant_id as string))
        .map((r) => ({ merchantId: r.merchant_id as string, passwordHash: r.password_hash as string, createdMs: made.get(r.merchant_id as string)! })),
      ...(await this.people.memberLogins(this.db, email)),
    ];
    return logins
      .sort((a, b) => a.createdMs - b.createdMs)
      .slice(0, 5)
      .map(({ createdMs: _, ...login }) => login);
  }

  /**
   * Until when sign-ins with this e-mail from this client address are refused (0: not
   * refused): the later of the pair's own lock and the e-mail's lock over every client.
   */
  async lockedUntil(email: string, client: string, nowMs: number): Promise<number> {
    const rows = await this.db.query('SELECT client, locked_until_ms FROM sign_in_failures WHERE email = $1 AND client IN ($2, $3) AND last_ms > $4', [
      email.toLowerCase(),
      client,
      EVERY_CLIENT,
      nowMs - FAILURE_MEMORY_MS,
    ]);
    // The e-mail's lock over every client holds only clients that failed on it themselves: a
    // client with no wrong password (the owner, at home) is never refused its right one.
    const own = rows.find((r) => r.client === client);
    if (!own) return 0;
    return Math.max(0, ...rows.map((r) => Number(r.locked_until_ms)));
  }

  /**
   * Counts a wrong password against the e-mail from this client, and against the e-mail from
   * every client; answers until when this client is now refused.
   */
  async fail(email: string, client: string, nowMs: number): Promise<number> {
    return this.db.transaction(async (tx) => {
      const key = email.toLowerCase();
      // Counts older than the memory are forgotten by every read: their rows go too, so
      // guesses spread over many e-mails and addresses do not pile up.
      await tx.query('DELETE FROM sign_in_failures WHERE last_ms <= $1', [nowMs - FAILURE_MEMORY_MS]);
      let until = 0;
      for (const [who, rule] of [
        [client, lockedUntil],
        [EVERY_CLIENT, (failures: number, at: number) => accountLockedUntil(failures, at, this.accountLockout)],
      ] as const) {
        const [row] = await tx.query('SELECT failures, last_ms FROM sign_in_failures WHERE email = $1 AND client = $2 FOR UPDATE', [key, who]);
        const failures = (row && Number(row.last_ms) > nowMs - FAILURE_MEMORY_MS ? Number(row.failures) : 0) + 1;
        const locked = rule(failures, nowMs);
        until = Math.max(until, locked);
        await tx.query(
          `INSERT INTO sign_in_failures (email, client, failures, locked_until_ms, last_ms) VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (email, client) DO UPDATE SET failures = $3, locked_until_ms = $4, last_ms = $5`,
          [key, who, failures, locked, nowMs],
        );
      }
      return until;
    });
  }

  /** The right password from this client: its count starts again (the e-mail's over every client does not). */
  async succeed(email: string, client: string): Promise<void> {
    await this.db.query('DELETE FROM sign_in_failures WHERE email = $1 AND client = $2', [email.toLowerCase(), client]);
  }

  /** The latest delivery to the account's webhook URL, of its twenty latest events tried (none: nothing tried yet). */
  lastAttempt(merchantId: string, mode: string): Promise<{ status: number; error: string | null; atMs: number } | undefined> {
    return lastAttempt(this.db, merchantId, mode);
  }

  /** The events feed's cursor below the account's `count` newest events (0: there are no more than that). */
  recentStart(merchantId: string, mode: string, count: number): Promise<number> {
    return recentStart(this.db, merchantId, mode, count);
  }

  /**
   * A new session (the owner's, or `memberId`'s): its cookie token (kept only as a hash) and its
   * CSRF token. `awaitingFactor`: the password was right but the person has a second
   * factor: the session opens nothing (session() does not see it) until `factorProved` ends it.
   */
  async startSession(
    merchantId: string,
    nowMs: number,
    validMs: number,
    memberId?: string,
    awaitingFactor = false,
  ): Promise<{ token: string; csrf: string; expiresMs: number }> {
    const token = newToken();
    const csrf = newToken();
    await this.db.query(
      'INSERT INTO dashboard_sessions (hash, merchant_id, csrf, created_ms, expires_ms, member_id, awaiting_factor) VALUES ($1, $2, $3, $4, $5, $6, $7)',
      [tokenHash(token), merchantId, csrf, nowMs, nowMs + validMs, memberId ?? null, awaitingFactor],
    );
    await this.db.query('DELETE FROM dashboard_sessions WHERE expires_ms <= $1', [nowMs]);
    return { token, csrf, expiresMs: nowMs + validMs };
  }

  /**
   * The session of a cookie, read from the database on every request (never cached): a member
   * removed or changed, whose sessions were deleted, is refused at once on every instance. A
   * session naming a member who is gone opens nothing.
   */
  async session(token: string, nowMs: number): Promise<Session | undefined> {
    // The session's row, then its merchant, member and second factor, each from its owner's store.
    const [row] = await this.db.query(
      'SELECT merchant_id, csrf, expires_ms, member_id FROM dashboard_sessions WHERE hash = $1 AND expires_ms > $2 AND NOT awaiting_factor',
      [tokenHash(token), nowMs],
    );
    if (!row) return undefined;
    const merchantId = row.merchant_id as string;
    const merchant = await this.merchants.merchant(this.db, merchantId);
    const found = row.member_id === null ? undefined : await this.people.memberById(this.db, merchantId, row.member_id as string);
    if (!merchant || (row.member_id !== null && !found)) return undefined;
    const member = found && { id: row.member_id as string, ...found };
    const { enrolled, required } = await this.people.factorState(this.db, merchantId, (row.member_id as string | null) ?? 'owner');
    const secondFactor = { enrolled, mustEnrol: required && !enrolled };
    return { merchant, csrf: row.csrf as string, expiresMs: Number(row.expires_ms), ...(member ? { member } : {}), secondFactor };
  }

  /** A sign-in waiting for its second factor: whose it is (undefined: none, expired, or already taken). */
  async awaitingFactor(token: string, nowMs: number): Promise<{ merchantId: string; memberId?: string } | undefined> {
    const [row] = await this.db.query('SELECT merchant_id, member_id FROM dashboard_sessions WHERE hash = $1 AND expires_ms > $2 AND awaiting_factor', [
      tokenHash(token),
      nowMs,
    ]);
    // A session naming a member who is gone opens nothing.
    if (!row || (row.member_id !== null && !(await this.people.memberById(this.db, row.merchant_id as string, row.member_id as string)))) return undefined;
    return { merchantId: row.merchant_id as string, ...(row.member_id === null ? {} : { memberId: row.member_id as string }) };
  }

  /** The waiting sign-in is over (its factor proved): taken once, so one proof opens one session. */
  async takeAwaiting(token: string): Promise<boolean> {
    return (await this.db.query('DELETE FROM dashboard_sessions WHERE hash = $1 AND awaiting_factor RETURNING hash', [tokenHash(token)])).length > 0;
  }

  async endSession(token: string): Promise<void> {
    await this.db.query('DELETE FROM dashboard_sessions WHERE hash = $1', [tokenHash(token)]);
  }

  /** The session of this cookie proved a second factor now, for the one request `action` (factors/rules.ts' digest): a new one replaces it. */
  async steppedUp(sessionToken: string, action: string, nowMs: number): Promise<void> {
    await this.db.query('UPDATE dashboard_sessions SET stepped_up_ms = $2, stepped_up_for = $3 WHERE hash = $1', [tokenHash(sessionToken), nowMs, action]);
  }

  /**
   * The request `action` takes the session's step-up, once: true when it was proved
   * for this very request within `withinMs`; one conditional UPDATE, so two requests (on one
   * instance or several) cannot both take it, and a step-up for another request opens nothing.
   */
  async useStepUp(sessionToken: string, action: string, nowMs: number, withinMs: number): Promise<boolean> {
    const rows = await this.db.query(
      'UPDATE dashboard_sessions SET stepped_up_for = NULL WHERE hash = $1 AND stepped_up_for = $2 AND stepped_up_ms <= $3 AND stepped_up_ms >= $4 RETURNING hash',
      [tokenHash(sessionToken), action, nowMs, nowMs - withinMs],
    );
    return rows.length > 0;
  }

  /** Whether another merchant's owner signs in with `email` (case aside): merchants/store.ts changeEmail, in its transaction. */
  async ownerElsewhere(sql: Sql, email: string, merchantId: string): Promise<boolean> {
    return (await sql.query('SELECT 1 FROM dashboard_logins WHERE lower(email) = lower($1) AND merchant_id <> $2 LIMIT 1', [email, merchantId])).length > 0;
  }

  /** The owner's login follows the business's new e-mail (merchants/store.ts changeEmail, in its transaction). */
  async setOwnerEmail(tx: Sql, merchantId: string, email: string, nowMs: number): Promise<void> {
    await tx.query('UPDATE dashboard_logins SET email = $2, updated_ms = $3 WHERE merchant_id = $1', [merchantId, email, nowMs]);
  }

  /** Signs the merchant out everywhere: every session ends (only `memberId`'s, when given). */
  async endAll(merchantId: string, memberId?: string): Promise<number> {
    if (memberId)
      return (await this.db.query('DELETE FROM dashboard_sessions WHERE merchant_id = $1 AND member_id = $2 RETURNING hash', [merchantId, memberId])).length;
    return (await this.db.query('DELETE FROM dashboard_sessions WHERE merchant_id = $1 RETURNING hash', [merchantId])).length;
  }
}
