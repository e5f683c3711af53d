// A merchant's keys as their holders change them: the full secret key rolled (only by whoever can
// already do everything: the owner, an admin, or the full key itself; never a restricted key,
// however wide), and a restricted key made (never wider than who makes it, never outliving the
// key that makes it). Each is told as a security change: an audit event and an e-mail.
import type { Account } from '../domain/account.ts';
import { invalidField, PermissionDenied } from '../domain/errors.ts';
import { lacking, type Permission } from '../domain/permissions.ts';
import { actorOf } from '../audit/rules.ts';
import { holderOf } from '../factors/rules.ts';
import type { Mail } from '../email/use-cases.ts';
import type { MerchantStore } from './store.ts';

/** What changing a key needs of the service. */
export interface KeyParts {
  merchants: Pick<MerchantStore, 'rollSecretKeys' | 'createRestrictedKey'>;
  mail: Pick<Mail, 'securityChanged'>;
  log: { info(fields: object, message: string): void };
  now(): number;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** The full secret key of the caller's mode rolled: the new key, and until when the old one works (null: no longer). */
export async function rollFullKey(service: KeyParts, account: Account, revokeOldAfterSeconds: number) {
  // The full secret key opens everything and ends the business's own key: nobody gets it who
  // could not do everything already, and never a restricted key, even one made with every
  // permission (a removed admin's key rolled the business out of its own key).
  if (!account.session && account.grants !== undefined && account.grants !== 'all')
    throw new PermissionDenied(
      'A restricted key never rolls the secret key: only the owner, an admin (with a second factor, just confirmed) or the full key itself may',
    );
  if (lacking(account.grants, 'all').length)
    throw new PermissionDenied('Rolling answers the full secret key, which has every permission: only the owner, an admin or the full key itself may roll it');
  const nowMs = service.now();
  const delayMs = revokeOldAfterSeconds * 1000;
  // The new full key is its roller's: the keys it makes are theirs, revoked
  // when they are removed, so an admin who rolled cannot mint a key that outlives them. The full
  // key rolling itself passes on its own holder.
  const holder = account.session ? holderOf(account.actor) : (account.holder ?? null);
  const keys = (await service.merchants.rollSecretKeys(account.merchant.id, nowMs, [account.mode], delayMs, true, holder))!;
  service.log.info({ merchant: account.merchant.id, mode: account.mode, delaySeconds: delayMs / 1000 }, 'secret key rolled by the merchant');
  await service.mail.securityChanged(account.merchant, {
    change: 'key_rolled',
    detail: `${account.mode} mode, by ${actorOf(account).label}`,
    modes: [account.mode],
    by: account,
  });
  return { secretKey: keys[account.mode], oldKeyValidUntil: delayMs > 0 ? iso(nowMs + delayMs) : null };
}

/** A key expires at most a year ahead. */
const LONGEST_EXPIRY_MS = 366 * 86_400_000;

/**
 * When a new key expires: as asked, in the future and within a year; a key made by a
 * key that expires expires no later than it (it would outlive its maker), by default at the same time.
 */
function expiryOf(asked: string | undefined, maker: number | undefined, nowMs: number): number | null {
  if (asked === undefined) return maker ?? null;
  const at = Date.parse(asked);
  if (at <= nowMs) throw invalidField('expires_at', 'expected a time in the future');
  if (at > nowMs + LONGEST_EXPIRY_MS) throw invalidField('expires_at', 'expected a time within a year');
  if (maker !== undefined && at > maker)
    throw invalidField('expires_at', `expected no later than the key making it, which expires at ${new Date(maker).toISOString()}`);
  return at;
}

/** A restricted key made: never wider than whoever makes it (a member's role, a restricted key's own set). */
export async function makeRestrictedKey(service: KeyParts, account: Account, asked: { name: string; permissions: Permission[]; expiresAt?: string }) {
  if (asked.permissions.length === 0) throw invalidField('permissions', 'expected at least one permission');
  const wider = lacking(account.grants, asked.permissions);
  if (wider.length) throw new PermissionDenied(`A key cannot be wider than who makes it: you lack ${wider.join(', ')}`);
  const { kind, id, label } = actorOf(account);
  // Whose key it is: the person making it, or, made by a key (a full key too: the
  // person who rolled it), that key's person.
  const holder = account.session ? holderOf(account.actor) : (account.holder ?? null);
  const nowMs = service.now();
  const expiresMs = expiryOf(asked.expiresAt, account.session ? undefined : account.keyExpiresMs, nowMs);
  const made = await service.merchants.createRestrictedKey(
    account,
    asked.name.trim(),
    asked.permissions,
    nowMs,
    { kind: kind === 'operator' ? 'owner' : kind, id, label },
    holder,
    expiresMs,
  );
  service.log.info({ merchant: account.merchant.id, mode: account.mode, key: made.id }, 'restricted key created');
  await service.mail.securityChanged(account.merchant, {
    change: 'key_created',
    detail: `${made.name} (${account.mode}: ${made.permissions.join(', ')}${expiresMs === null ? '' : `; expires ${iso(expiresMs)}`}), by ${label}`,
    modes: [account.mode],
    by: account,
    target: made.id,
    concerned: { person: holder ?? undefined },
  });
  return made;
}
