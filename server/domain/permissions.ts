// Who may do what: each route declares the one permission it needs
// (api/route.ts), and the service checks it against the caller's grants on every request
// of a session or a secret key, whatever the dashboard shows. A grant is a member's role (the
// owner has every permission) or a restricted key's chosen set (a full secret key has every
// one). Rules only: no I/O.
import { PERMISSIONS, type Permission, type Role } from '../../contract/team.ts';
import { PermissionDenied } from './errors.ts';

export { PERMISSIONS, ROLES, type Permission, type Role } from '../../contract/team.ts';

/** What each permission opens, for the docs' table and error messages. */
export const PERMISSION_WORDS: Record<Permission, string> = {
  'payments.read': 'payments, payment links, products, the payments export',
  'payments.write': 'initialize and settle payments, sandbox deposits, payment links, products',
  'refunds.write': 'refund a payment',
  'balances.read': 'settlement, balances, swaps and withdrawals (read)',
  'balances.write': 'change settlement, swap, withdraw',
  'payouts.read': 'bank accounts and bank payouts (read)',
  'payouts.write': 'bank accounts, bank payouts',
  'developers.read': 'webhook endpoint and secret, events, restricted keys (read)',
  'developers.write': 'webhook endpoint, resend events, roll or create keys',
  'account.read': 'the business, its warnings, payout addresses, pending destination changes',
  'account.write': 'the business, its logo, payout addresses, cancel destination changes',
  'team.read': 'members and invitations (read)',
  'team.write': 'invite, change and remove members',
  'audit.read': 'the audit log',
};

/** The owner is not a role a member is given, but handed over (`owner`). */
export type Actor = Role | 'owner';

const READ: Permission[] = ['payments.read', 'balances.read', 'payouts.read', 'account.read'];

export const ROLE_PERMISSIONS: Record<Actor, readonly Permission[]> = {
  owner: PERMISSIONS,
  admin: PERMISSIONS,
  finance: [...READ, 'balances.write', 'payouts.write', 'refunds.write', 'audit.read'],
  developer: [...READ, 'developers.read', 'developers.write'],
  support: [...READ, 'payments.write', 'refunds.write'],
  viewer: READ,
};

/** What a caller holds: every permission (the owner, a full secret key) or a set. */
export type Grants = 'all' | readonly Permission[];

export const holds = (grants: Grants | undefined, permission: Permission): boolean => grants === undefined || grants === 'all' || grants.includes(permission);

/** The permissions of `wanted` the caller lacks (none: it may give them, e.g. to a new key). */
export const lacking = (grants: Grants | undefined, wanted: Grants): Permission[] =>
  (wanted === 'all' ? [...PERMISSIONS] : wanted).filter((p) => !holds(grants, p));

/** Refuses a caller without the permission, naming it. */
export function requirePermission(grants: Grants | undefined, permission: Permission, who: string): void {
  if (!holds(grants, permission)) throw new PermissionDenied(`${who} lacks the permission ${permission} (${PERMISSION_WORDS[permission]})`);
}

/** A stored key's permissions (NULL: a full key) and back. */
export const grantsOf = (stored: string | null | undefined): Grants => (stored == null ? 'all' : (stored.split(',').filter(Boolean) as Permission[]));
export const storedGrants = (grants: Grants): string | null => (grants === 'all' ? null : [...new Set(grants)].sort().join(','));
