// API keys and webhook secrets: made from 24 random bytes, kept only as SHA-256 hashes (a
// slow hash buys nothing for 192 random bits), and shown to the merchant once.
import { createHash, randomBytes } from 'node:crypto';
import type { KeyMode } from '../../contract/keys.ts';
import type { Account } from '../domain/account.ts';
import { PERMISSIONS, ROLE_PERMISSIONS, type Permission, type Role } from '../domain/permissions.ts';
import { PermissionDenied, Unauthorized } from '../domain/errors.ts';

const token = () => randomBytes(24).toString('base64url').replace(/[-_]/g, '0');

export const newKeys = (mode: KeyMode) => ({ publicKey: `pk_${mode}_${token()}`, secretKey: `sk_${mode}_${token()}` });
export const newWebhookSecret = () => `whsec_${token()}`;
export const hashKey = (key: string): string => createHash('sha256').update(key).digest('hex');
/** What a listing may show of a key: its kind and last four characters. */
export const keyHint = (key: string): string => `${key.slice(0, 8)}…${key.slice(-4)}`;

/**
 * The account a key opens now: undefined for no such key or one rolled whose delay has run out;
 * a restricted key past its expiry is refused saying so, and when.
 */
export function keyAccount(owner: { account: Account; revokedAfterMs: number | null } | undefined, nowMs: number): Account | undefined {
  if (!owner) return undefined;
  const expires = owner.account.keyExpiresMs;
  if (expires !== undefined && expires <= nowMs)
    throw new Unauthorized(`This restricted key expired at ${new Date(expires).toISOString()}: it no longer works; make a new one`);
  return owner.revokedAfterMs === null || owner.revokedAfterMs > nowMs ? owner.account : undefined;
}

export interface RestrictedKeyRow {
  id: string;
  name: string;
  mode: KeyMode;
  hint: string;
  permissions: Permission[];
  createdMs: number;
  /** Who made it: the owner, a member or a key, as the audit log names them; null for a key made before this was kept. */
  createdBy: KeyMaker | null;
  /** Refused from then on; null: no expiry. */
  expiresMs: number | null;
  /** When and from which client address it was last used (kept to the minute); null: not yet. */
  lastUsedMs: number | null;
  lastUsedFrom: string | null;
}

/** A restricted key's last use is written at most this often (per key, on each instance, and in the database). */
export const KEY_USE_EVERY_MS = 60_000;

/** Who made a key: no secret (a key by its id or hint). */
export interface KeyMaker {
  kind: 'owner' | 'member' | 'key';
  id: string;
  label: string;
}

/**
 * A restricted key made for a member (its holder): they must still be on the team (`role`
 * undefined: they are not), and the key no wider than their role now. A full key a member
 * rolled outlives their removal until the owner rolls it, and must not mint keys that outlive it.
 */
export function checkKeyHolder(role: Role | undefined, permissions: Permission[]): void {
  if (!role) throw new PermissionDenied('This key belongs to a member no longer on the team: it makes no keys (the owner rolls the full key)');
  const wider = permissions.filter((p) => !(ROLE_PERMISSIONS[role] ?? []).includes(p));
  if (wider.length) throw new PermissionDenied(`A key cannot be wider than the person it belongs to: their role lacks ${wider.join(', ')}`);
}

/** A full key held by a member rolls only while they hold every permission (an admin), or it would roll itself on after they were demoted or removed. */
export function checkFullKeyHolder(role: Role | undefined): void {
  if (!role || PERMISSIONS.some((p) => !(ROLE_PERMISSIONS[role] ?? []).includes(p)))
    throw new PermissionDenied(
      `This full key is held by ${role ? `a member who is now ${role}` : 'a member no longer on the team'}: it rolls no key (the owner or an admin rolls it)`,
    );
}
