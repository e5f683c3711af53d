// What the audit log keeps of a request: who (the owner, a member or a key), the
// route, its path's ids, the names of the fields it sent, and the values of the few fields
// that say what changed and are never secret nor personal (an amount, a coin, a role, a
// set of permissions, a settlement). Passwords, tokens, bank accounts, addresses and e-mails
// are named, never copied. Rules only: no I/O.
import type { Account } from '../domain/account.ts';

/** Fields whose values the log keeps; every other field only by its name. */
const KEPT_VALUES = new Set([
  'amount',
  'currency',
  'coin',
  'chain_id',
  'chainId',
  'network',
  'role',
  'permissions',
  'settlement',
  'status',
  'mode',
  'from',
  'to',
  'revoke_old_after',
  'bps',
  'bearer',
  'daily',
  'expires_at',
]);

export interface AuditEntry {
  merchantId: string;
  mode: string;
  atMs: number;
  actor: { kind: 'owner' | 'member' | 'key' | 'operator'; id: string; label: string };
  client: string;
  action: string;
  target?: string;
  details: Record<string, unknown>;
}

/** The account's actor, or the owner's (a session without a member) or the key's (no actor named: a full secret key). */
export const actorOf = (account: Account): AuditEntry['actor'] =>
  account.actor ?? (account.session ? { kind: 'owner', id: account.merchant.id, label: 'owner' } : { kind: 'key', id: 'secret', label: `sk_${account.mode}` });

/**
 * The operator as actor: the name its commands send in `X-Operator` (the machine's user
 * running them), printable and at most 100 characters; 'operator' when none is sent.
 */
export function operatorActor(sent: string | string[] | undefined): AuditEntry['actor'] {
  const name =
    (Array.isArray(sent) ? sent[0] : sent)
      ?.replace(/[^\x20-\x7e]/g, '')
      .trim()
      .slice(0, 100) || 'operator';
  return { kind: 'operator', id: name, label: name };
}

/** What a request changed, without secrets: its path's ids, its fields' names and the safe values. */
export function detailsOf(params: Record<string, string>, sent: unknown): Record<string, unknown> {
  const details: Record<string, unknown> = {};
  if (Object.keys(params).length) details.params = params;
  if (sent && typeof sent === 'object' && !Array.isArray(sent)) {
    const fields = Object.keys(sent).sort();
    if (fields.length) details.fields = fields;
    const values = Object.fromEntries(
      Object.entries(sent as Record<string, unknown>).filter(([k, v]) => KEPT_VALUES.has(k) && (typeof v !== 'object' || Array.isArray(v))),
    );
    if (Object.keys(values).length) details.values = values;
  }
  return details;
}

/** The answer's own id (a new payout's, a withdrawal's, a member's), where it names one. */
export function targetOf(params: Record<string, string>, body: unknown): string | undefined {
  const data = (body as { data?: Record<string, unknown> } | undefined)?.data;
  for (const name of ['id', 'reference']) if (data && typeof data[name] === 'string') return data[name] as string;
  return params.id ?? params.reference;
}
