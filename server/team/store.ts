// A merchant's team: members (an e-mail, a role, a password hash), invitations (the
// hash of each single-use token), and the hand-over of ownership. A member changed or removed
// loses every session at once: the sessions are deleted here, and every instance reads a
// session from the database on each request (dashboard/store.ts), so none keeps it open.
import { randomUUID } from 'node:crypto';
import { appendAudit, auditedTransaction, type AuditRecord } from '../storage/audit.ts';
import type { Database, Sql } from '../storage/db.ts';
import { EmailInUse, TooMany } from '../domain/errors.ts';
import { ROLE_PERMISSIONS, type Role } from '../domain/permissions.ts';
import { notifyAccountChange } from '../storage/account-cache.ts';
import { newToken, tokenHash } from '../merchants/sign-in-rules.ts';
import { forgetFactorsOf, handFactorsOver, handStepUpTriesOver } from '../factors/store.ts';
import { fullKeysOf, handKeysOver, lockMerchant, narrowKeys, type FullKey, type KeyAudit, type KeyChange } from '../merchants/account-store.ts';
import { dropSignInLinks, endSessions, isOwnerEmail, ownerLogin, setOwnerLogin } from '../dashboard/login-store.ts';
import { actionsSince } from '../audit/store.ts';
import { FORMER_OWNER_ROLE, INVITATIONS_PER_HOUR, sameEmail } from './rules.ts';

export interface MemberRow {
  id: string;
  email: string;
  role: Role;
  createdMs: number;
}

// A person's keys are the merchant's rows (merchants/account-store.ts), changed in the team's transaction.
export type { FullKey, KeyAudit, KeyChange };

export type Accepted = { member: MemberRow; merchantId: string } | { refused: 'token' | 'email' };

export class TeamStore {
  constructor(
    private readonly db: Database,
    /** Told a merchant's keys changed, once committed (the account cache; other instances hear the NOTIFY). */
    private readonly changed: (merchantId: string) => void = () => {},
  ) {}

  async members(merchantId: string): Promise<{ owner: { email: string } | undefined; members: MemberRow[] }> {
    const owner = await ownerLogin(this.db, merchantId);
    const rows = await this.db.query('SELECT id, email, role, created_ms FROM members WHERE merchant_id = $1 ORDER BY created_ms, id', [merchantId]);
    return {
      owner: owner && { email: owner.email as string },
      members: rows.map((r) => ({ id: r.id as string, email: r.email as string, role: r.role as Role, createdMs: Number(r.created_ms) })),
    };
  }

  /**
   * A new invitation's token (answered once; kept as a hash). Refused: the e-mail is the owner's
   * or a member's already; the business made INVITATIONS_PER_HOUR in the last hour (each
   * is an e-mail the service sends in the business's name), counted from the audit log's
   * rows of invitations made (kept even when an invitation is replaced or cancelled), one
   * business's invitations at a time (its merchant row locked).
   */
  async invite(merchantId: string, email: string, role: Role, nowMs: number, validMs: number, perHour = INVITATIONS_PER_HOUR): Promise<string> {
    return auditedTransaction(this.db, async (tx) => {
      await lockMerchant(tx, merchantId);
      const made = await actionsSince(tx, merchantId, 'POST /api/v1/members/invitations', nowMs - 3_600_000);
      if (made.count >= perHour) {
        const wait = Math.max(1, Math.ceil((made.firstMs + 3_600_000 - nowMs) / 1000));
        throw new TooMany(`At most ${perHour} invitations an hour per business: ${made.count} made in the last hour; try again in ${wait} s`, wait);
      }
      const [member] = await tx.query('SELECT 1 FROM members WHERE merchant_id = $1 AND lower(email) = lower($2) LIMIT 1', [merchantId, email]);
      if (member || (await isOwnerEmail(tx, merchantId, email)))
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
   * restricted keys are narrowed to the new role's permissions (a key left with none is revoked)
   * with `keyAudit`'s rows, and, when they could invite (team.write), the business's
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
      await endSessions(tx, merchantId, memberId);
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
      await endSessions(tx, merchantId, memberId);
      if (!gone[0]) return undefined;
      await forgetFactorsOf(tx, merchantId, String(gone[0].id));
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
      const owner = await ownerLogin(tx, merchantId, true);
      const [member] = await tx.query('SELECT email, password_hash FROM members WHERE merchant_id = $1 AND id = $2 FOR UPDATE', [merchantId, memberId]);
      if (!owner || !member) return false;
      await setOwnerLogin(tx, merchantId, member.email as string, (member.password_hash as string | null) ?? null, nowMs);
      if (owner.passwordHash === null) {
        await tx.query('DELETE FROM members WHERE merchant_id = $1 AND id = $2', [merchantId, memberId]);
      } else {
        await tx.query('UPDATE members SET email = $3, password_hash = $4, role = $5 WHERE merchant_id = $1 AND id = $2', [
          merchantId,
          memberId,
          owner.email,
          owner.passwordHash,
          FORMER_OWNER_ROLE,
        ]);
      }
      await endSessions(tx, merchantId);
      // Second factors are the person's: the new owner's go with them, and the former owner's with theirs.
      // So are restricted keys: the former owner's stay theirs, under their member id.
      await handFactorsOver(tx, merchantId, memberId.toLowerCase());
      await handKeysOver(tx, merchantId, memberId);
      await handStepUpTriesOver(tx, merchantId, memberId.toLowerCase());
      // A sign-in link issued before sets the password of the owner's login, which is now the
      // new owner's: whoever holds one (the former owner) would take the business back with it.
      await dropSignInLinks(tx, merchantId);
      await notifyAccountChange(tx, merchantId);
      return true;
    }).finally(() => this.changed(merchantId));
  }
}

/** The team's members as the e-mails reach them (email/store.ts): id, e-mail and role. */
export async function membersOf(sql: Sql, merchantId: string): Promise<Array<{ id: string; email: string; role: Role }>> {
  const rows = await sql.query('SELECT id::text, email, role FROM members WHERE merchant_id = $1', [merchantId]);
  return rows.map((r) => ({ id: r.id as string, email: r.email as string, role: r.role as Role }));
}

/** A member by id, as a dashboard session reads them (undefined: not on the team). */
export async function memberById(sql: Sql, merchantId: string, memberId: string): Promise<{ role: Role; email: string } | undefined> {
  const [row] = await sql.query('SELECT role, email FROM members WHERE id = $1 AND merchant_id = $2', [memberId, merchantId]);
  return row && { role: row.role as Role, email: row.email as string };
}

/** The members of any business signing in with this e-mail (dashboard/store.ts logins). */
export async function memberLogins(sql: Sql, email: string): Promise<Array<{ merchantId: string; memberId: string; passwordHash: string; createdMs: number }>> {
  const rows = await sql.query('SELECT merchant_id, id, password_hash, created_ms FROM members WHERE lower(email) = lower($1)', [email]);
  return rows.map((r) => ({
    merchantId: r.merchant_id as string,
    memberId: r.id as string,
    passwordHash: r.password_hash as string,
    createdMs: Number(r.created_ms),
  }));
}

/** A member's role, their row shared-locked until the caller's transaction ends (undefined: not on the team); `memberId` in any case. */
export async function memberRole(tx: Sql, merchantId: string, memberId: string): Promise<Role | undefined> {
  const [member] = await tx.query('SELECT role FROM members WHERE merchant_id = $1 AND id::text = lower($2) FOR SHARE', [merchantId, memberId]);
  return member?.role as Role | undefined;
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
