// A member's role changed or a member removed, as the team's use cases do it (team/use-cases.ts:
// sessions ended, restricted keys narrowed or revoked, invitations cancelled, in one
// transaction), then told as a security change to the owner and the member: an event in each
// mode's feed naming only that mode's keys, and an e-mail naming them all.
import type { Account } from '../domain/account.ts';
import type { Role } from '../domain/permissions.ts';
import { Forbidden, NotFound } from '../domain/errors.ts';
import type { Mail } from '../email/use-cases.ts';
import type { FullKey, KeyAudit, KeyChange, Team } from './use-cases.ts';

/** What a told team change needs of the service. */
export interface ToldParts {
  team: Pick<Team, 'changeRole' | 'remove'>;
  mail: Pick<Mail, 'securityChanged'>;
}

/** Who may do what in the team is both modes': its changes are in both feeds. */
const MODES = ['test', 'live'] as const;

const keyNames = (keys: KeyChange[]) => keys.map((k) => `${k.name} (${k.mode}${k.permissions.length ? `: ${k.permissions.join(', ')}` : ''})`).join('; ');

/** The full keys a member rolled and still holds, for the owner to roll (the member can no longer: merchants/store.ts rollSecretKeys). */
const fullKeysSaid = (full: FullKey[]) =>
  full.length ? `; the full secret keys they rolled still work until rolled: ${full.map((k) => `${k.hint} (${k.mode})`).join('; ')}` : '';

/**
 * A team change's line per mode's event: `head`, then `said` and the keys of that mode only (a
 * test-mode feed, which test keys and sandbox webhooks read, never names live keys); the e-mail
 * to the owner and the person says them all.
 */
const byMode = (head: string, said: string, keys: KeyChange[]) =>
  Object.fromEntries(
    MODES.map((mode) => {
      const own = keys.filter((k) => k.mode === mode);
      return [mode, own.length ? `${head}${said}${keyNames(own)}` : head];
    }),
  ) as Record<(typeof MODES)[number], string>;

/** A member's new role, told; never one's own (another admin or the owner changes it). */
export async function changeRoleTold(service: ToldParts, account: Account, memberId: string, role: Role, keyAudit: KeyAudit) {
  // A UUID in capitals names the same row (PostgreSQL's uuid): compared as the database does.
  if (account.actor?.id.toLowerCase() === memberId.toLowerCase()) throw new Forbidden('You cannot change your own role: another admin or the owner can');
  const member = await service.team.changeRole(account.merchant.id, memberId, role, keyAudit);
  if (!member) throw new NotFound('No such member');
  // Told to the owner and the member, with their keys now doing no more than their role (which).
  const head = `${member.email} is now ${member.role}`;
  const narrowed = member.keys.length ? `; their restricted keys narrowed: ${keyNames(member.keys)}` : '';
  await service.mail.securityChanged(account.merchant, {
    change: 'role_changed',
    detail: `${head}${narrowed}${member.role === 'admin' ? '' : fullKeysSaid(member.full)}`,
    modeDetail: byMode(head, '; their restricted keys narrowed: ', member.keys),
    modes: MODES,
    by: account,
    target: member.id,
    concerned: { person: member.id },
  });
  return member;
}

/** A member removed, told to the owner and to their address. */
export async function removeTold(service: ToldParts, account: Account, memberId: string, keyAudit: KeyAudit) {
  const gone = await service.team.remove(account.merchant.id, memberId, keyAudit);
  if (!gone) throw new NotFound('No such member');
  const revoked = gone.keys.length ? `; their restricted keys revoked: ${keyNames(gone.keys)}` : '';
  await service.mail.securityChanged(account.merchant, {
    change: 'member_removed',
    detail: `${gone.email}${revoked}${fullKeysSaid(gone.full)}`,
    modeDetail: byMode(gone.email, '; their restricted keys revoked: ', gone.keys),
    modes: MODES,
    by: account,
    target: memberId,
    concerned: { email: gone.email },
  });
  return gone;
}
