// Who is asking: a merchant in one mode (test or live), and with which kind of key. It
// travels instead of the (merchant, mode) pair, and `owns` is the one ownership check.
import type { KeyMode } from '../../contract/keys.ts';
import type { Grants } from './permissions.ts';

export interface Merchant {
  id: string;
  businessName: string;
  businessEmail: string;
  businessLogo: string;
}

export interface Account {
  merchant: Merchant;
  mode: KeyMode;
  /** The key that authenticated the request: the page's public key or a server's secret key. */
  via: 'public' | 'secret';
  /** Signed in to the dashboard (the owner's password), rather than holding a key. */
  session?: boolean;
  /** What the caller may do: a member's role's permissions or a restricted key's; undefined or 'all': everything. */
  grants?: Grants;
  /**
   * A session's second factor: whether its person has one, and whether the owner
   * requires one they lack (then only enrolling is open). A step-up is per request.
   */
  secondFactor?: { enrolled: boolean; mustEnrol: boolean };
  /** Who acts, for the audit log: the owner, a member (id and e-mail) or a key (its id or hint). No secret. */
  actor?: { kind: 'owner' | 'member' | 'key'; id: string; label: string; role?: string };
  /**
   * A restricted key's person: 'owner' or the member's id whose key it is (the maker,
   * or the maker's maker for a key a key made); undefined for a full key and keys it made. Keys
   * a key makes belong to the same person.
   */
  holder?: string;
  /** A restricted key's id (its last use is kept), and when it expires (refused from then). */
  keyId?: string;
  keyExpiresMs?: number;
}

/** Whether something stored under (merchantId, mode) belongs to this account. */
export const owns = (account: Pick<Account, 'merchant' | 'mode'>, thing: { merchantId: string; mode: string }): boolean =>
  thing.merchantId === account.merchant.id && thing.mode === account.mode;
