// A merchant's team, each change in one transaction opened here: an invitation (at most
// INVITATIONS_PER_HOUR a business, counted from the audit log), joining by one, a member's new
// role or removal, and the hand-over of ownership. A member changed or removed loses every
// session at once (every instance reads a session from the database on each request, so none
// keeps it open), their restricted keys narrowed or revoked in the same transaction. The SQL is
// the owners' stores': the team's rows (team/store.ts), and the merchants' keys, the owner's
// login and sessions, the second factors and the audit log, handed in as ports (service/parts.ts).
import { randomUUID } from 'node:crypto';
import { appendAudit, auditedTransaction, type AuditRecord } from '../storage/audit.ts';
import type { Database } from '../storage/db.ts';
import { notifyAccountChange } from '../storage/account-cache.ts';
import { EmailInUse, TooMany } from '../domain/errors.ts';
import { ROLE_PERMISSIONS, type Role } from '../domain/permissions.ts';
import { newToken, tokenHash } from '../merchants/sign-in-rules.ts';
import type { forgetFactorsOf, handFactorsOver, handStepUpTriesOver } from '../factors/store.ts';
import type { fullKeysOf, handKeysOver, lockMerchant, narrowKeys, FullKey, KeyAudit, KeyChange } from '../merchants/account-store.ts';
import type { dropSignInLinks, endSessions, isOwnerEmail, ownerLogin, setOwnerLogin } from '../dashboard/login-store.ts';
import type { actionsSince } from '../audit/store.ts';
import { FORMER_OWNER_ROLE, INVITATIONS_PER_HOUR, sameEmail } from './rules.ts';
import type { MemberRow, TeamStore } from './store.ts';

// A person's keys are the merchant's rows (merchants/account-store.ts), changed in the team's transaction.
export type { FullKey, KeyAudit, KeyChange };

export type Accepted = { member: MemberRow; merchantId: string } | { refused: 'token' | 'email' };

/** What a team change writes of other features' rows, in its transaction: their stores' fragments. */
export interface TeamPorts {
  lockMerchant: typeof lockMerchant;
  narrowKeys: typeof narrowKeys;
  fullKeysOf: typeof fullKeysOf;
  handKeysOver: typeof handKeysOver;
  ownerLogin: typeof ownerLogin;
  setOwnerLogin: typeof setOwnerLogin;
  isOwnerEmail: typeof isOwnerEmail;
  endSessions: typeof endSessions;
  dropSignInLinks: typeof dropSignInLinks;
  forgetFactorsOf: typeof forgetFactorsOf;
  handFactorsOver: typeof handFactorsOver;
  handStepUpTriesOver: typeof handStepUpTriesOver;
  actionsSince: typeof actionsSince;
}

export class Team {
  constructor(
    private readonly db: Database,
    private readonly store: TeamStore,
    private readonly others: TeamPorts,
    /** Told a merchant's keys changed, once committed (the account cache; other instances hear the NOTIFY). */
    private readonly changed: (merchantId: string) => void = () => {},
  ) {}

  async members(merchantId: string): Promise<{ owner: { email: string } | undefined; members: MemberRow[] }> {
    const owner = await this.others.ownerLogin(this.db, merchantId);
    return { owner: owner && { email: owner.email }, members: await this.store.members(merchantId) };
  }

  /**
   * A new invitation's token (answered once; kept as a hash). Refused: the e-mail is the owner's
   * or a member's already; the business made INVITATIONS_PER_HOUR in the last hour (each
   * is an e-mail the service sends in the business's name), counted from the audit log's
   * rows of invitations made (kept even when an invitation is replaced or cancelled), one
   * business's invitations at a time (its merchant row locked).
   */
  async invite(merchantId: string, email: string, role: Role, nowMs: number, validMs: number, perHour = INVITATIONS_PER_HOUR): Promise<string> {
    const { others, store } = this;
    return auditedTransaction(this.db, async (tx) => {
      await others.lockMerchant(tx, merchantId);
      const made = await others.actionsSince(tx, merchantId, 'POST /api/v1/members/invitations', nowMs - 3_600_000);
      if (made.count >= perHour) {
        const wait = Math.max(1, Math.ceil((made.firstMs + 3_600_000 - nowMs) / 1000));
        throw new TooMany(`At most ${perHour} invitations an hour per business: ${made.count} made in the last hour; try again in ${wait} s`, wait);
      }
      if ((await store.isMember(tx, merchantId, email)) || (await others.isOwnerEmail(tx, merchantId, email)))
        throw new EmailInUse("email: this address is the owner's or a member's already", [
          { field: 'email', message: 'expected an address not yet in the team' },
        ]);
      const token = newToken();
      await store.invitation(tx, merchantId, email, role, tokenHash(token), nowMs, nowMs + validMs);
      return token;
    });
  }

  /** The e-mail a usable invitation is for (undefined: used, expired or unknown), before a password is hashed for it. */
  invitedEmail(token: string, nowMs: number): Promise<string | undefined> {
    return this.store.invitedEmail(tokenHash(token), nowMs);
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
    const hash = tokenHash(token);
    return this.db.transaction(async (tx) => {
      const invitation = await this.store.lockInvitation(tx, hash, nowMs);
      if (!invitation) return { refused: 'token' as const };
      if (!sameEmail(invitation.email, email)) return { refused: 'email' as const };
      const member: MemberRow = { id: randomUUID(), email: invitation.email, role: invitation.role, createdMs: nowMs };
      await this.store.join(tx, hash, invitation.merchantId, member, passwordHash);
      if (audit) await appendAudit(tx, audit(member, invitation.merchantId));
      return { member, merchantId: invitation.merchantId };
    });
  }

  /**
   * A member's new role; their sessions end at once (they sign in again with it), their
   * restricted keys are narrowed to the new role's permissions (a key left with none is revoked)
   * with `keyAudit`'s rows, and, when they could invite (team.write), the business's
   * pending invitations are cancelled (team/store.ts's cancelInvitationsOf). Undefined: no such member.
   */
  async changeRole(
    merchantId: string,
    memberId: string,
    role: Role,
    keyAudit?: KeyAudit,
  ): Promise<(MemberRow & { keys: KeyChange[]; full: FullKey[] }) | undefined> {
    const { others, store } = this;
    return auditedTransaction(this.db, async (tx) => {
      const changed = await store.setRole(tx, merchantId, memberId, role);
      if (!changed) return undefined;
      const { before, member } = changed;
      await others.endSessions(tx, merchantId, memberId);
      if (before !== role) await store.cancelInvitationsOf(tx, merchantId, before);
      const keys = await others.narrowKeys(tx, merchantId, member.id, ROLE_PERMISSIONS[role] ?? [], keyAudit);
      const full = await others.fullKeysOf(tx, merchantId, member.id);
      return { ...member, keys, full };
    }).finally(() => this.changed(merchantId));
  }

  /**
   * Removes a member and ends their sessions at once, revokes every restricted key they hold
   * (`keyAudit`'s rows with it) and cancels pending invitations, as changeRole.
   * Undefined: no such member.
   */
  async remove(merchantId: string, memberId: string, keyAudit?: KeyAudit): Promise<{ email: string; keys: KeyChange[]; full: FullKey[] } | undefined> {
    const { others, store } = this;
    return auditedTransaction(this.db, async (tx) => {
      const gone = await store.delete(tx, merchantId, memberId);
      await others.endSessions(tx, merchantId, memberId);
      if (!gone) return undefined;
      await others.forgetFactorsOf(tx, merchantId, gone.id);
      await store.cancelInvitationsOf(tx, merchantId, gone.role);
      const keys = await others.narrowKeys(tx, merchantId, gone.id, [], keyAudit);
      return { email: gone.email, keys, full: await others.fullKeysOf(tx, merchantId, gone.id) };
    }).finally(() => this.changed(merchantId));
  }

  /**
   * Hands ownership to a member: their e-mail and password become the owner's login, and the
   * owner's become a member's (an admin) under the same member id. Every session of the
   * business ends (each signs in again as what they now are). False: no such member.
   */
  async handOver(merchantId: string, memberId: string, nowMs: number): Promise<boolean> {
    const { others, store } = this;
    return auditedTransaction(this.db, async (tx) => {
      const owner = await others.ownerLogin(tx, merchantId, true);
      const member = await store.lockLogin(tx, merchantId, memberId);
      if (!owner || !member) return false;
      await others.setOwnerLogin(tx, merchantId, member.email, member.passwordHash, nowMs);
      if (owner.passwordHash === null) await store.delete(tx, merchantId, memberId);
      else await store.becomeMember(tx, merchantId, memberId, { email: owner.email, passwordHash: owner.passwordHash }, FORMER_OWNER_ROLE);
      await others.endSessions(tx, merchantId);
      // Second factors are the person's: the new owner's go with them, and the former owner's with theirs.
      // So are restricted keys: the former owner's stay theirs, under their member id.
      await others.handFactorsOver(tx, merchantId, memberId.toLowerCase());
      await others.handKeysOver(tx, merchantId, memberId);
      await others.handStepUpTriesOver(tx, merchantId, memberId.toLowerCase());
      // A sign-in link issued before sets the password of the owner's login, which is now the
      // new owner's: whoever holds one (the former owner) would take the business back with it.
      await others.dropSignInLinks(tx, merchantId);
      await notifyAccountChange(tx, merchantId);
      return true;
    }).finally(() => this.changed(merchantId));
  }
}
