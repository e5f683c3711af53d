// A merchant's team: members (an e-mail, a role, a password hash), invitations (the
// hash of each single-use token), and the hand-over of ownership. A member changed or removed
// loses every session at once: the sessions are deleted here, and every instance reads a
// session from the database on each request (dashboard/store.ts), so none keeps it open.
import { randomUUID } from 'node:crypto';
import { appendAudit, auditedTransaction, type AuditRecord } from '../storage/audit.ts';
import type { Database, Sql } from '../storage/db.ts';
import { EmailInUse, TooMany } from '../domain/errors.ts';
import { grantsOf, ROLE_PERMISSIONS, storedGrants, type Permission, type Role } from '../domain/permissions.ts';
import { notifyAccountChange } from '../storage/account-cache.ts';
import { newToken, tokenHash } from '../merchants/sign-in-rules.ts';
import { handStepUpTriesOver } from '../factors/store.ts';
import { FORMER_OWNER_ROLE, INVITATIONS_PER_HOUR, sameEmail } from './rules.ts';

export interface MemberRow {
  id: string;
  email: string;
  role: Role;
  createdMs: number;
}

/** A member's restricted key that their removal revoked or their demotion narrowed. */
export interface KeyChange {
  id: string;
  name: string;
  mode: string;
  /** What it may do now; empty: revoked. */
  permissions: Permission[];
}

/** A full secret key a member holds (they rolled it): it works on after they leave until the owner or an admin rolls it. */
export interface FullKey {
  mode: string;
  hint: string;
}

/** The audit rows a key's change writes, in the change's transaction (the caller names the actor). */
export type KeyAudit = (change: KeyChange) => AuditRecord[];

export type Accepted = { member: MemberRow; merchantId: string } | { refused: 'token' | 'email' };

export class TeamStore {
  constructor(
    private readonly db: Database,
    /** Told a merchant's keys changed, once committed (the account cache; other instances hear the NOTIFY). */
    private readonly changed: (merchantId: string) => void = () => {},
  ) {}

  async members(merchantId: string): Promise<{ owner: { email: string } | undefined; members: MemberRow[] }> {
    const [owner] = await this.db.query('SELECT email FROM dashboard_logins WHERE merchant_id = $1', [merchantId]);
    const rows = await this.db.query('SELECT id, email, role, created_ms FROM members WHERE merchant_id = $1 ORDER BY created_ms, id', [merchantId]);
    return {
      owner: owner && { email: owner.email as string },
      members: rows.map((r) => ({ id: r.id as string, email: r.email as string, role: r.role as Role, createdMs: Number(r.created_ms) })),
    };
  }

  /**
   * A new invitation's token (answered once; kept as a hash). Refused: the e-mail is the owner's
   * or a member's already; the business made INVITATIONS_PER_HOUR in the last hour (issue 48:
   * each is an e-mail the service sends in the business's name), counted from the audit log's
   * rows of invitations made (kept even when an invitation is replaced or cancelled), one
   * business's invitations at a time (its merchant row locked).
   */
  async invite(merchantId: string, email: string, role: Role, nowMs: number, validMs: number, perHour = INVITATIONS_PER_HOUR): Promise<string> {
    return auditedTransaction(this.db, async (tx) => {
      await tx.query('SELECT id FROM merchants WHERE id = $1 FOR UPDATE', [merchantId]);
      const [made] = await tx.query(
        `SELECT count(*)::int AS n, min(at_ms) AS first FROM audit_log WHERE merchant_id = $1 AND action = 'POST /api/v1/members/invitations' AND at_ms > $2`,
        [merchantId, nowMs - 3_600_000],
      );
      if (Number(made.n) >= perHour) {
        const wait = Math.max(1, Math.ceil((Number(made.first) + 3_600_000 - nowMs) / 1000));
        throw new TooMany(`At most ${perHour} invitations an hour per business: ${Number(made.n)} made in the last hour; try again in ${wait} s`, wait);
      }
      const [taken] = await tx.query(
        `SELECT 1 FROM members WHERE merchant_id = $1 AND lower(email) = lower($2)
         UNION ALL SELECT 1 FROM dashboard_logins WHERE merchant_id = $1 AND lower(email) = lower($2) LIMIT 1`,
        [merchantId, email],
      );
      if (taken)
        throw new EmailInUse("email: this address is the owner's or a member's already", [
          { field: 'email', message: 'expected an address not yet in the team' },
        ]);
      // One invitation per address: a new one replaces an unused earlier one.
      await tx.query('DELETE FROM invitations WHERE merchant_id = $1 AND lower(email) = lower($2) AND used_ms IS NULL', [merchantId, email]);
      const token = newToken();
      await tx.query('INSERT INTO invitations (hash, merchant_id, email, role, created_ms, expires_ms) VALUES ($1, $2, $3, $4, $5, $6)', [
        tokenHash(token),
        merchantId,
        email,
        role,
        nowMs,
        nowMs + validMs,
      ]);
      return token;
    });
  }

  /** The e-mail a usable invitation is for (undefined: used, expired or unknown), before a password is hashed for it. */
  async invitedEmail(token: string, nowMs: number): Promise<string | undefined> {
    const [row] = await this.db.query('SELECT email FROM invitations WHERE hash = $1 AND used_ms IS NULL AND expires_ms > $2', [tokenHash(token), nowMs]);
    return (row?.email as string | undefined) ?? undefined;
  }

  /**
   * Uses an invitation once: by the invited e-mail only (another is refused and the link stays
   * usable by its own), before it expires; the member is made with the password's hash, and
   * `audit`'s rows written with it.
   */
  async accept(
    token: string,
    email: string,
    passwordHash: string,
    nowMs: number,
    audit?: (member: MemberRow, merchantId: string) => AuditRecord[],
  ): Promise<Accepted> {
    return this.db.transaction(async (tx) => {
      const [invitation] = await tx.query('SELECT * FROM invitations WHERE hash = $1 AND used_ms IS NULL AND expires_ms > $2 FOR UPDATE', [
        tokenHash(token),
        nowMs,
      ]);
      if (!invitation) return { refused: 'token' as const };
      if (!sameEmail(invitation.email as string, email)) return { refused: 'email' as const };
      await tx.query('UPDATE invitations SET used_ms = $2 WHERE hash = $1', [invitation.hash, nowMs]);
      const member: MemberRow = { id: randomUUID(), email: invitation.email as string, role: invitation.role as Role, createdMs: nowMs };
      await tx.query('INSERT INTO members (id, merchant_id, email, role, password_hash, created_ms) VALUES ($1, $2, $3, $4, $5, $6)', [
        member.id,
        invitation.merchant_id,
        member.email,
        member.role,
        passwordHash,
        nowMs,
      ]);
      if (audit) await appendAudit(tx, audit(member, invitation.merchant_id as string));
      return { member, merchantId: invitation.merchant_id as string };
    });
  }

  /**
   * A member's new role; their sessions end at once (they sign in again with it), their
   * restricted keys are narrowed to the new role's permissions (a key left with none is revoked;
   * issue 48) with `keyAudit`'s rows, and, when they could invite (team.write), the business's
   * pending invitations are cancelled (see cancelInvitationsOf). Undefined: no such member.
   */
  async changeRole(
    merchantId: string,
    memberId: string,
    role: Role,
    keyAudit?: KeyAudit,
  ): Promise<(MemberRow & { keys: KeyChange[]; full: FullKey[] }) | undefined> {
    return auditedTransaction(this.db, async (tx) => {
      const [before] = await tx.query('SELECT role FROM members WHERE merchant_id = $1 AND id = $2 FOR UPDATE', [merchantId, memberId]);
      if (!before) return undefined;
      const [row] = await tx.query('UPDATE members SET role = $3 WHERE merchant_id = $1 AND id = $2 RETURNING id, email, role, created_ms', [
        merchantId,
        memberId,
        role,
      ]);
      await tx.query('DELETE FROM dashboard_sessions WHERE merchant_id = $1 AND member_id = $2', [merchantId, memberId]);
      if (before.role !== role) await cancelInvitationsOf(tx, merchantId, before.role as Role);
      const keys = await narrowKeys(tx, merchantId, String(row.id), ROLE_PERMISSIONS[role] ?? [], keyAudit);
      const full = await fullKeysOf(tx, merchantId, String(row.id));
      return { id: row.id as string, email: row.email as string, role: row.role as Role, createdMs: Number(row.created_ms), keys, full };
    }).finally(() => this.changed(merchantId));
  }

  /**
   * Removes a member and ends their sessions at once, revokes every restricted key they hold
   * (`keyAudit`'s rows with it) and cancels pending invitations, as changeRole.
   * Undefined: no such member.
   */
  async remove(merchantId: string, memberId: string, keyAudit?: KeyAudit): Promise<{ email: string; keys: KeyChange[]; full: FullKey[] } | undefined> {
    return auditedTransaction(this.db, async (tx) => {
      const gone = await tx.query('DELETE FROM members WHERE merchant_id = $1 AND id = $2 RETURNING id, role, email', [merchantId, memberId]);
      await tx.query('DELETE FROM dashboard_sessions WHERE merchant_id = $1 AND member_id = $2', [merchantId, memberId]);
      if (!gone[0]) return undefined;
      for (const table of ['second_factors', 'recovery_codes'])
        await tx.query(`DELETE FROM ${table} WHERE merchant_id = $1 AND holder = $2`, [merchantId, gone[0].id]);
      await cancelInvitationsOf(tx, merchantId, gone[0].role as Role);
      const keys = await narrowKeys(tx, merchantId, String(gone[0].id), [], keyAudit);
      return { email: gone[0].email as string, keys, full: await fullKeysOf(tx, merchantId, String(gone[0].id)) };
    }).finally(() => this.changed(merchantId));
  }

  /**
   * Hands ownership to a member: their e-mail and password become the owner's login, and the
   * owner's become a member's (an admin) under the same member id. Every session of the
   * business ends (each signs in again as what they now are). False: no such member.
   */
  async handOver(merchantId: string, memberId: string, nowMs: number): Promise<boolean> {
    return auditedTransaction(this.db, async (tx) => {
      const [owner] = await tx.query('SELECT email, password_hash FROM dashboard_logins WHERE merchant_id = $1 FOR UPDATE', [merchantId]);
      const [member] = await tx.query('SELECT email, password_hash FROM members WHERE merchant_id = $1 AND id = $2 FOR UPDATE', [merchantId, memberId]);
      if (!owner || !member) return false;
      await tx.query('UPDATE dashboard_logins SET email = $2, password_hash = $3, updated_ms = $4 WHERE merchant_id = $1', [
        merchantId,
        member.email,
        member.password_hash,
        nowMs,
      ]);
      if (owner.password_hash === null) {
        await tx.query('DELETE FROM members WHERE merchant_id = $1 AND id = $2', [merchantId, memberId]);
      } else {
        await tx.query('UPDATE members SET email = $3, password_hash = $4, role = $5 WHERE merchant_id = $1 AND id = $2', [
          merchantId,
          memberId,
          owner.email,
          owner.password_hash,
          FORMER_OWNER_ROLE,
        ]);
      }
      await tx.query('DELETE FROM dashboard_sessions WHERE merchant_id = $1', [merchantId]);
      // Second factors are the person's: the new owner's go with them, and the former owner's with theirs.
      // So are restricted keys: the former owner's stay theirs, under their member id.
      for (const table of ['second_factors', 'recovery_codes', 'api_keys']) {
        await tx.query(`UPDATE ${table} SET holder = CASE holder WHEN 'owner' THEN $2 ELSE 'owner' END WHERE merchant_id = $1 AND holder IN ('owner', $2)`, [
          merchantId,
          memberId.toLowerCase(),
        ]);
      }
      await handStepUpTriesOver(tx, merchantId, memberId.toLowerCase());
      // A sign-in link issued before sets the password of the owner's login, which is now the
      // new owner's: whoever holds one (the former owner) would take the business back with it.
      await tx.query('DELETE FROM dashboard_links WHERE merchant_id = $1', [merchantId]);
      await notifyAccountChange(tx, merchantId);
      return true;
    }).finally(() => this.changed(merchantId));
  }
}

/**
 * An invitation made by a member who could invite (team.write) outlives their removal or
 * demotion: nobody but its maker sees its link, it is listed nowhere and cannot be revoked, so a
 * removed admin would join again with an invitation to an address of their own. The service does
 * not record who made each, so every pending invitation of the business is cancelled (the owner
 * or an admin invites again).
 */
async function cancelInvitationsOf(tx: Sql, merchantId: string, role: Role): Promise<void> {
  if (ROLE_PERMISSIONS[role]?.includes('team.write')) await tx.query('DELETE FROM invitations WHERE merchant_id = $1 AND used_ms IS NULL', [merchantId]);
}

/**
 * A person's restricted keys held to `allowed`: each keeps only what the person may
 * still do; one left with nothing (or every one, for a person removed) is deleted, refused at once
 * on every instance (NOTIFY). Each key changed writes `keyAudit`'s rows in the same transaction.
 */
async function narrowKeys(tx: Sql, merchantId: string, holder: string, allowed: readonly Permission[], keyAudit?: KeyAudit): Promise<KeyChange[]> {
  const rows = await tx.query(
    `SELECT id, name, mode, permissions FROM api_keys WHERE merchant_id = $1 AND holder = $2 AND permissions IS NOT NULL FOR UPDATE`,
    [merchantId, holder.toLowerCase()],
  );
  const changes: KeyChange[] = [];
  for (const r of rows) {
    const had = grantsOf(r.permissions as string) as Permission[];
    const kept = had.filter((p) => allowed.includes(p));
    if (kept.length === had.length) continue;
    if (kept.length === 0) await tx.query('DELETE FROM api_keys WHERE merchant_id = $1 AND id = $2', [merchantId, r.id]);
    else await tx.query('UPDATE api_keys SET permissions = $3 WHERE merchant_id = $1 AND id = $2', [merchantId, r.id, storedGrants(kept)]);
    changes.push({ id: String(r.id), name: r.name as string, mode: r.mode as string, permissions: kept });
  }
  if (changes.length) {
    await notifyAccountChange(tx, merchantId);
    if (keyAudit) for (const change of changes) await appendAudit(tx, keyAudit(change));
  }
  return changes;
}

/**
 * The full secret keys `holder` rolled that still work (or work until their delay runs out):
 * their removal or demotion e-mail names them, for the owner to roll (they roll no key themselves
 * from then: merchants/store.ts rollSecretKeys).
 */
async function fullKeysOf(tx: Sql, merchantId: string, holder: string): Promise<FullKey[]> {
  const rows = await tx.query(
    `SELECT mode, hint FROM api_keys WHERE merchant_id = $1 AND holder = $2 AND kind = 'secret' AND permissions IS NULL ORDER BY mode, created_ms`,
    [merchantId, holder.toLowerCase()],
  );
  return rows.map((r) => ({ mode: r.mode as string, hint: r.hint as string }));
}
