// The dashboard's sign-in: one owner login per merchant (its e-mail and scrypt hash), one-time
// sign-in links (hashes only), sessions (hashes of their cookie) and wrong-password counts
// (per e-mail and client address, and per e-mail over every client).
import type { Merchant } from '../domain/account.ts';
import { accountLockedUntil, FAILURE_MEMORY_MS, lockedUntil, newToken, tokenHash } from '../merchants/sign-in-rules.ts';
import type { Database, Row, Sql } from '../storage/db.ts';
import type { Role } from '../domain/permissions.ts';

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

const merchantOf = (r: Row): Merchant => ({
  id: r.merchant_id as string,
  businessName: r.business_name as string,
  businessEmail: r.business_email as string,
  businessLogo: r.business_logo as string,
});

export class DashboardStore {
  /** `accountLockout`: wrong passwords from every client together that lock an e-mail for all. */
  constructor(
    private readonly db: Database,
    private readonly accountLockout: number,
  ) {}

  /**
   * A new one-time sign-in link's token for a merchant (its owner sets a password with it).
   * Earlier unused links stop working. Undefined for an unknown merchant.
   */
  async issueLink(merchantId: string, nowMs: number, validMs: number): Promise<string | undefined> {
    return this.db.transaction(async (tx) => {
      const [merchant] = await tx.query('SELECT business_email FROM merchants WHERE id = $1 FOR UPDATE', [merchantId]);
      if (!merchant) return undefined;
      await tx.query(
        `INSERT INTO dashboard_logins (merchant_id, email, password_hash, updated_ms) VALUES ($1, $2, NULL, $3)
         ON CONFLICT (merchant_id) DO UPDATE SET email = $2, updated_ms = $3`,
        [merchantId, merchant.business_email, nowMs],
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
  async memberOf(merchantId: string, memberId: string): Promise<{ role: Role; email: string } | undefined> {
    const [row] = await this.db.query('SELECT role, email FROM members WHERE id = $1 AND merchant_id = $2', [memberId, merchantId]);
    return row && { role: row.role as Role, email: row.email as string };
  }

  /** The merchant's password hash (undefined: no password set yet). */
  async passwordHashOf(merchantId: string): Promise<string | undefined> {
    const [row] = await this.db.query('SELECT password_hash FROM dashboard_logins WHERE merchant_id = $1', [merchantId]);
    return (row?.password_hash as string | null) ?? undefined;
  }

  /** The logins with this e-mail that have a password: owners' and members' (a few merchants may share one e-mail). */
  async logins(email: string): Promise<Array<{ merchantId: string; memberId?: string; passwordHash: string }>> {
    const rows = await this.db.query(
      `SELECT * FROM (
         SELECT l.merchant_id, NULL::uuid AS member_id, l.password_hash, m.created_ms FROM dashboard_logins l JOIN merchants m ON m.id = l.merchant_id
          WHERE lower(l.email) = lower($1) AND l.password_hash IS NOT NULL
         UNION ALL
         SELECT merchant_id, id AS member_id, password_hash, created_ms FROM members WHERE lower(email) = lower($1)
       ) logins ORDER BY created_ms LIMIT 5`,
      [email],
    );
    return rows.map((r) => ({
      merchantId: r.merchant_id as string,
      ...(r.member_id ? { memberId: r.member_id as string } : {}),
      passwordHash: r.password_hash as string,
    }));
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
  async lastAttempt(merchantId: string, mode: string): Promise<{ status: number; error: string | null; atMs: number } | undefined> {
    const [row] = await this.db.query(
      `SELECT a.status, a.error, a.at_ms FROM event_attempts a
        WHERE a.event_id IN (SELECT id FROM events WHERE merchant_id = $1 AND mode = $2 AND attempts > 0 ORDER BY seq DESC LIMIT 20)
        ORDER BY a.at_ms DESC, a.id DESC LIMIT 1`,
      [merchantId, mode],
    );
    return row && { status: Number(row.status), error: (row.error as string | null) ?? null, atMs: Number(row.at_ms) };
  }

  /** The events feed's cursor below the account's `count` newest events (0: there are no more than that). */
  async recentStart(merchantId: string, mode: string, count: number): Promise<number> {
    const [row] = await this.db.query(
      'SELECT COALESCE(min(account_seq) - 1, 0)::text AS after FROM (SELECT account_seq FROM events WHERE merchant_id = $1 AND mode = $2 ORDER BY account_seq DESC LIMIT $3) newest',
      [merchantId, mode, Math.max(1, Math.min(count, 200))],
    );
    return Number(row.after);
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
    const [row] = await this.db.query(
      `SELECT s.merchant_id, s.csrf, s.expires_ms, s.member_id,
              EXISTS (SELECT 1 FROM second_factors f WHERE f.merchant_id = s.merchant_id AND f.holder = COALESCE(s.member_id::text, 'owner')) AS enrolled,
              COALESCE((SELECT p.required FROM second_factor_policy p WHERE p.merchant_id = s.merchant_id), false) AS required,
              mb.email AS member_email, mb.role AS member_role, m.business_name, m.business_email, m.business_logo
         FROM dashboard_sessions s JOIN merchants m ON m.id = s.merchant_id LEFT JOIN members mb ON mb.id = s.member_id AND mb.merchant_id = s.merchant_id
        WHERE s.hash = $1 AND s.expires_ms > $2 AND NOT s.awaiting_factor`,
      [tokenHash(token), nowMs],
    );
    if (!row || (row.member_id !== null && row.member_email === null)) return undefined;
    const member = row.member_id === null ? undefined : { id: row.member_id as string, email: row.member_email as string, role: row.member_role as Role };
    const enrolled = row.enrolled === true;
    const secondFactor = { enrolled, mustEnrol: row.required === true && !enrolled };
    return { merchant: merchantOf(row), csrf: row.csrf as string, expiresMs: Number(row.expires_ms), ...(member ? { member } : {}), secondFactor };
  }

  /** A sign-in waiting for its second factor: whose it is (undefined: none, expired, or already taken). */
  async awaitingFactor(token: string, nowMs: number): Promise<{ merchantId: string; memberId?: string } | undefined> {
    const [row] = await this.db.query(
      `SELECT s.merchant_id, s.member_id FROM dashboard_sessions s
        WHERE s.hash = $1 AND s.expires_ms > $2 AND s.awaiting_factor AND (s.member_id IS NULL OR EXISTS (SELECT 1 FROM members mb WHERE mb.id = s.member_id AND mb.merchant_id = s.merchant_id))`,
      [tokenHash(token), nowMs],
    );
    return row && { merchantId: row.merchant_id as string, ...(row.member_id === null ? {} : { memberId: row.member_id as string }) };
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

// The owner's login, its sessions and sign-in links, as the team's changes reach them in their own transaction (team/store.ts).

/** The owner's login: its e-mail and password hash (null: none set yet); locked until the transaction ends when `lock`. */
export async function ownerLogin(sql: Sql, merchantId: string, lock = false): Promise<{ email: string; passwordHash: string | null } | undefined> {
  const [row] = await sql.query(`SELECT email, password_hash FROM dashboard_logins WHERE merchant_id = $1${lock ? ' FOR UPDATE' : ''}`, [merchantId]);
  return row && { email: row.email as string, passwordHash: (row.password_hash as string | null) ?? null };
}

/** Whether `email` is the merchant's owner's (case aside). */
export async function isOwnerEmail(sql: Sql, merchantId: string, email: string): Promise<boolean> {
  return (await sql.query('SELECT 1 FROM dashboard_logins WHERE merchant_id = $1 AND lower(email) = lower($2)', [merchantId, email])).length > 0;
}

/** The owner's login becomes this e-mail and password hash (ownership handed over). */
export async function setOwnerLogin(tx: Sql, merchantId: string, email: string, passwordHash: string | null, nowMs: number): Promise<void> {
  await tx.query('UPDATE dashboard_logins SET email = $2, password_hash = $3, updated_ms = $4 WHERE merchant_id = $1', [
    merchantId,
    email,
    passwordHash,
    nowMs,
  ]);
}

/** Ends every session of the merchant at once (only `memberId`'s, when given), in the caller's transaction. */
export async function endSessions(tx: Sql, merchantId: string, memberId?: string): Promise<void> {
  if (memberId) await tx.query('DELETE FROM dashboard_sessions WHERE merchant_id = $1 AND member_id = $2', [merchantId, memberId]);
  else await tx.query('DELETE FROM dashboard_sessions WHERE merchant_id = $1', [merchantId]);
}

/** Every sign-in link of the merchant stops working. */
export async function dropSignInLinks(tx: Sql, merchantId: string): Promise<void> {
  await tx.query('DELETE FROM dashboard_links WHERE merchant_id = $1', [merchantId]);
}
