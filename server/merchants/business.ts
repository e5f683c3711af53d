// The business's profile as its owner changes it: its name; its sign-in e-mail only from the
// dashboard with the current password (a key, or a stolen session that does not know it, cannot
// move the login to an address of its own), each password try paced as a sign-in is (`paced`),
// the previous address told of the change.
import type { Account, Merchant } from '../domain/account.ts';
import { EmailInUse, Forbidden, invalidField } from '../domain/errors.ts';
import type { DashboardStore } from '../dashboard/store.ts';
import type { EventStore } from '../storage/events.ts';
import type { Logger } from '../service/log.ts';
import { passwordMatches } from './sign-in-rules.ts';
import type { MerchantStore } from './store.ts';

/** What changing the profile needs of the service. */
export interface BusinessParts {
  merchants: Pick<MerchantStore, 'byId' | 'updateProfile' | 'transaction' | 'lockEmail' | 'emailTaken' | 'setEmail'>;
  dashboard: Pick<DashboardStore, 'passwordHashOf' | 'ownerElsewhere' | 'setOwnerEmail'>;
  events: Pick<EventStore, 'add'>;
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
    merchant = (await changeEmail(service, account.merchant.id, email, service.now()))!;
    service.log.info({ merchant: account.merchant.id }, 'sign-in e-mail changed; the previous address is told');
  }
  service.log.info({ merchant: account.merchant.id }, 'business profile updated');
  return merchant;
}

/**
 * A new sign-in (and business) e-mail: never another business's (one address signs in to one
 * dashboard), the owner's login moved with it, and an ACCOUNT_EMAIL_CHANGED event in each mode
 * naming the previous address (who is to be told), in one transaction. Undefined: no such merchant.
 */
function changeEmail(service: BusinessParts, merchantId: string, email: string, nowMs: number): Promise<Merchant | undefined> {
  const { merchants, dashboard, events } = service;
  return merchants.transaction(merchantId, async (tx) => {
    const before = await merchants.lockEmail(tx, merchantId);
    if (before === undefined) return undefined;
    if ((await merchants.emailTaken(tx, email, merchantId)) || (await dashboard.ownerElsewhere(tx, email, merchantId)))
      throw new EmailInUse('business_email: another business signs in with this address; choose your own', [
        { field: 'business_email', message: 'expected an address no other business uses' },
      ]);
    const merchant = await merchants.setEmail(tx, merchantId, email);
    await dashboard.setOwnerEmail(tx, merchantId, email, nowMs);
    for (const mode of ['test', 'live'] as const)
      await events.add(tx, { merchant, mode }, 'ACCOUNT_EMAIL_CHANGED', { previous_email: before, business_email: email }, nowMs);
    return merchant;
  });
}
