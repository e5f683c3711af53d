// A dashboard sign-in's password, checked as a guesser would least like it: refused while the
// e-mail is locked for this client (too many wrong passwords), every login of the e-mail (the
// owner's, and each business's member) tried with the same cost whether one matches early or not,
// and a hash of the same cost paid when there is none (the answer's time says nothing of which
// e-mails exist). A wrong one is counted (and may lock the e-mail); a right one clears the count.
import { TooMany, Unauthorized } from '../domain/errors.ts';
import { nobodyAt, passwordMatches } from '../merchants/sign-in-rules.ts';
import type { Logger } from '../service/log.ts';
import type { DashboardStore } from './store.ts';

/** What checking a password needs of the service. */
export interface PasswordParts {
  dashboard: Pick<DashboardStore, 'lockedUntil' | 'logins' | 'fail' | 'succeed'>;
  config: { passwordHashCost: number };
  log: Pick<Logger, 'info'>;
  now(): number;
}

/** Whose the e-mail and password are: the business, and the member (undefined: the owner). */
export async function checkPassword(
  service: PasswordParts,
  email: string,
  password: string,
  client: string,
): Promise<{ merchantId: string; memberId?: string }> {
  const nowMs = service.now();
  const locked = await service.dashboard.lockedUntil(email, client, nowMs);
  if (locked > nowMs) {
    const seconds = Math.ceil((locked - nowMs) / 1000);
    throw new TooMany(`Too many wrong passwords for this e-mail: try again in ${seconds} s`, seconds);
  }
  const logins = await service.dashboard.logins(email);
  let found: { merchantId: string; memberId?: string } | undefined;
  for (const login of logins) {
    if (!found && (await passwordMatches(password, login.passwordHash))) found = { merchantId: login.merchantId, memberId: login.memberId };
  }
  if (logins.length === 0) await passwordMatches(password, await nobodyAt(service.config.passwordHashCost));
  if (!found) {
    const until = await service.dashboard.fail(email, client, nowMs);
    service.log.info({ until: until || undefined }, 'dashboard sign-in refused');
    throw new Unauthorized(
      until > nowMs ? `Wrong e-mail or password; sign-ins with this e-mail wait ${Math.ceil((until - nowMs) / 1000)} s` : 'Wrong e-mail or password',
    );
  }
  await service.dashboard.succeed(email, client);
  return found;
}
