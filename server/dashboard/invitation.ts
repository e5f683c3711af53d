// An invitation used to join a business: a password that passes the rules, the invitation checked
// (usable, for this e-mail) before the password's hash is paid for, then used once, atomically,
// under the same checks (team/use-cases.ts's accept), the member's joining written to the audit
// log of both modes in the same transaction.
import { invalidField } from '../domain/errors.ts';
import { hashPassword, passwordProblem } from '../merchants/sign-in-rules.ts';
import { sameEmail } from '../team/rules.ts';
import type { Team } from '../team/use-cases.ts';

/** What joining needs of the service. */
export interface JoinParts {
  team: Pick<Team, 'invitedEmail' | 'accept'>;
  config: { passwordHashCost: number };
  now(): number;
}

export async function joinByInvitation(service: JoinParts, asked: { token: string; email: string; password: string }, client: string) {
  const problem = passwordProblem(asked.password);
  if (problem) throw invalidField('password', problem);
  const nowMs = service.now();
  const invited = await service.team.invitedEmail(asked.token, nowMs);
  const joined = (member: { id: string; email: string; role: string }, merchantId: string) =>
    (['test', 'live'] as const).map((mode) => ({
      merchantId,
      mode,
      atMs: nowMs,
      actor: { kind: 'member' as const, id: member.id, label: member.email },
      client,
      action: 'POST /dashboard/api/invitation',
      target: member.id,
      details: { values: { role: member.role } },
    }));
  const accepted =
    invited === undefined
      ? { refused: 'token' as const }
      : !sameEmail(invited, asked.email)
        ? { refused: 'email' as const }
        : await service.team.accept(asked.token, asked.email, await hashPassword(asked.password, service.config.passwordHashCost), nowMs, joined);
  if ('refused' in accepted) {
    if (accepted.refused === 'email') throw invalidField('email', 'this invitation is for another e-mail');
    throw invalidField('token', 'this invitation was used already, has expired (after a week) or is not one of ours: ask for a new one');
  }
  return accepted;
}
