// The business's profile as its owner changes it: its name; its sign-in e-mail only from the
// dashboard with the current password (a key, or a stolen session that does not know it, cannot
// move the login to an address of its own), each password try paced as a sign-in is (`paced`),
// the previous address told of the change.
import type { Account, Merchant } from '../domain/account.ts';
import { Forbidden, invalidField } from '../domain/errors.ts';
import type { DashboardStore } from '../dashboard/store.ts';
import type { EventStore } from '../storage/events.ts';
import type { Logger } from '../service/log.ts';
import { passwordMatches } from './sign-in-rules.ts';
import type { MerchantStore } from './store.ts';

/** What changing the profile needs of the service. */
export interface BusinessParts {
  merchants: Pick<MerchantStore, 'byId' | 'updateProfile' | 'changeEmail'>;
  dashboard: Pick<DashboardStore, 'passwordHashOf'> & Parameters<MerchantStore['changeEmail']>[4];
  events: EventStore;
  log: Pick<Logger, 'info'>;
  now(): number;
}

export async function updateBusiness(
  service: BusinessParts,
  account: Account,
  asked: { name?: string; email?: string; currentPassword?: string },
  paced: () => Promise<void>,
): Promise<Merchant> {
  const current = (await service.merchants.byId(account.merchant.id))!;
  const email = asked.email?.trim();
  const newEmail = email !== undefined && email.toLowerCase() !== current.businessEmail.toLowerCase();
  if (newEmail) {
    if (!account.session) throw new Forbidden('The sign-in e-mail changes only from the dashboard, with your current password: a key cannot change it');
    if (asked.currentPassword === undefined) throw invalidField('current_password', 'your current password is needed to change the sign-in e-mail');
    // A stolen session guessing the password is slowed as a sign-in is.
    await paced();
    const hash = await service.dashboard.passwordHashOf(account.merchant.id);
    if (!hash || !(await passwordMatches(asked.currentPassword, hash))) throw invalidField('current_password', 'not your current password');
  }
  let merchant = asked.name === undefined ? current : (await service.merchants.updateProfile(account.merchant.id, { businessName: asked.name.trim() }))!;
  if (newEmail) {
    merchant = (await service.merchants.changeEmail(account.merchant.id, email, service.now(), service.events, service.dashboard))!;
    service.log.info({ merchant: account.merchant.id }, 'sign-in e-mail changed; the previous address is told');
  }
  service.log.info({ merchant: account.merchant.id }, 'business profile updated');
  return merchant;
}
