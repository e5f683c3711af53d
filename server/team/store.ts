// A merchant's team as rows: members (an e-mail, a role, a password hash) and invitations (the
// hash of each single-use token). SQL only; the writes take the transaction the team's use cases
// open (team/use-cases.ts), which compose them with the other features' rows they change.
import type { Database, Sql } from '../storage/db.ts';
import { ROLE_PERMISSIONS, type Role } from '../domain/permissions.ts';

export interface MemberRow {
  id: string;
  email: string;
  role: Role;
  createdMs: number;
}

export class TeamStore {
  constructor(private readonly db: Database) {}

  async members(merchantId: string): Promise<MemberRow[]> {
    const rows = await this.db.query('SELECT id, email, role, created_ms FROM members WHERE merchant_id = $1 ORDER BY created_ms, id', [merchantId]);
    return rows.map((r) => ({ id: r.id as string, email: r.email as string, role: r.role as Role, createdMs: Number(r.created_ms) }));
  }

  /** Whether the address is a member's of the business already. */
  async isMember(tx: Sql, merchantId: string, email: string): Promise<boolean> {
    return (await tx.query('SELECT 1 FROM members WHERE merchant_id = $1 AND lower(email) = lower($2) LIMIT 1', [merchantId, email])).length > 0;
  }

  /** A new invitation (the hash of its token), replacing an unused earlier one to the same address: one invitation per address. */
  async invitation(tx: Sql, merchantId: string, email: string, role: Role, hash: string, nowMs: number, expiresMs: number): Promise<void> {
    await tx.query('DELETE FROM invitations WHERE merchant_id = $1 AND lower(email) = lower($2) AND used_ms IS NULL', [merchantId, email]);
    await tx.query('INSERT INTO invitations (hash, merchant_id, email, role, created_ms, expires_ms) VALUES ($1, $2, $3, $4, $5, $6)', [
      hash,
      merchantId,
      email,
      role,
      nowMs,
      expiresMs,
    ]);
  }

  /** The e-mail a usable invitation is for (undefined: used, expired or unknown), before a password is hashed for it. */
  async invitedEmail(hash: string, nowMs: number): Promise<string | undefined> {
    const [row] = await this.db.query('SELECT email FROM invitations WHERE hash = $1 AND used_ms IS NULL AND expires_ms > $2', [hash, nowMs]);
    return (row?.email as string | undefined) ?? undefined;
  }

  /** A usable invitation, locked until the caller's transaction ends. */
  async lockInvitation(tx: Sql, hash: string, nowMs: number): Promise<{ merchantId: string; email: string; role: Role } | undefined> {
    const [row] = await tx.query('SELECT * FROM invitations WHERE hash = $1 AND used_ms IS NULL AND expires_ms > $2 FOR UPDATE', [hash, nowMs]);
    return row && { merchantId: row.merchant_id as string, email: row.email as string, role: row.role as Role };
  }

  /** The invitation used, and its member made with the password's hash. */
  async join(tx: Sql, hash: string, merchantId: string, member: MemberRow, passwordHash: string): Promise<void> {
    await tx.query('UPDATE invitations SET used_ms = $2 WHERE hash = $1', [hash, member.createdMs]);
    await tx.query('INSERT INTO members (id, merchant_id, email, role, password_hash, created_ms) VALUES ($1, $2, $3, $4, $5, $6)', [
      member.id,
      merchantId,
      member.email,
      member.role,
      passwordHash,
      member.createdMs,
    ]);
  }

  /** A member's new role, their row locked first: the member as they were and are now (undefined: no such member). */
  async setRole(tx: Sql, merchantId: string, memberId: string, role: Role): Promise<{ before: Role; member: MemberRow } | undefined> {
    const [before] = await tx.query('SELECT role FROM members WHERE merchant_id = $1 AND id = $2 FOR UPDATE', [merchantId, memberId]);
    if (!before) return undefined;
    const [row] = await tx.query('UPDATE members SET role = $3 WHERE merchant_id = $1 AND id = $2 RETURNING id, email, role, created_ms', [
      merchantId,
      memberId,
      role,
    ]);
    return {
      before: before.role as Role,
      member: { id: row!.id as string, email: row!.email as string, role: row!.role as Role, createdMs: Number(row!.created_ms) },
    };
  }

  /** A member removed: who they were (undefined: no such member). */
  async delete(tx: Sql, merchantId: string, memberId: string): Promise<{ id: string; role: Role; email: string } | undefined> {
    const [gone] = await tx.query('DELETE FROM members WHERE merchant_id = $1 AND id = $2 RETURNING id, role, email', [merchantId, memberId]);
    return gone && { id: String(gone.id), role: gone.role as Role, email: gone.email as string };
  }

  /** A member's login, their row locked until the caller's transaction ends. */
  async lockLogin(tx: Sql, merchantId: string, memberId: string): Promise<{ email: string; passwordHash: string | null } | undefined> {
    const [member] = await tx.query('SELECT email, password_hash FROM members WHERE merchant_id = $1 AND id = $2 FOR UPDATE', [merchantId, memberId]);
    return member && { email: member.email as string, passwordHash: (member.password_hash as string | null) ?? null };
  }

  /** The former owner's login under the member's id (an admin), after a hand-over. */
  async becomeMember(tx: Sql, merchantId: string, memberId: string, login: { email: string; passwordHash: string }, role: Role): Promise<void> {
    await tx.query('UPDATE members SET email = $3, password_hash = $4, role = $5 WHERE merchant_id = $1 AND id = $2', [
      merchantId,
      memberId,
      login.email,
      login.passwordHash,
      role,
    ]);
  }

  /**
   * An invitation made by a member who could invite (team.write) outlives their removal or
   * demotion: nobody but its maker sees its link, it is listed nowhere and cannot be revoked, so a
   * removed admin would join again with an invitation to an address of their own. The service does
   * not record who made each, so every pending invitation of the business is cancelled (the owner
   * or an admin invites again).
   */
  async cancelInvitationsOf(tx: Sql, merchantId: string, role: Role): Promise<void> {
    if (ROLE_PERMISSIONS[role]?.includes('team.write')) await tx.query('DELETE FROM invitations WHERE merchant_id = $1 AND used_ms IS NULL', [merchantId]);
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
