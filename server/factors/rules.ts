// Second factors and step-up, rules only: when a request needs a fresh second
// factor, and recovery codes. No I/O; the clock is passed in. Authenticator codes: totp.ts.
import { createHash, randomBytes } from 'node:crypto';

/** A step-up is good for the one request it was asked for, sent within five minutes. */
export const STEP_UP_MS = 5 * 60_000;
/** A challenge (a passkey's, a pending authenticator secret) is single-use and lives this long. */
export const CHALLENGE_MS = 5 * 60_000;
/** Wrong proofs of one kind in a row that lock it for the person, from every address. */
export const STEP_UP_TRIES = 5;
/** Recovery codes made at once (each single-use). */
export const RECOVERY_CODES = 10;

/**
 * Whether a session's request needs a step-up: the route declares one (`live`: only in live
 * mode; a rule of its own: when it says so), and the session's person has a second factor (or
 * the owner requires one: they are then sent to enrol first, see route.ts). Whether one was
 * proved for this very request is the store's to say (FactorStore.useStepUp).
 */
export function needsStepUp(stepUp: StepUpRule | undefined, account: { mode: string; actor?: { kind: string }; grants?: unknown }, enrolled: boolean): boolean {
  if (!stepUp || !enrolled) return false;
  return typeof stepUp === 'function' ? stepUp(account) : stepUp === 'always' || account.mode === 'live';
}

/** When a route wants a step-up: in live mode, always, or by a rule of its own (an admin's key roll in either mode). */
export type StepUpRule = 'live' | 'always' | ((account: { mode: string; actor?: { kind: string }; grants?: unknown }) => boolean);

/** JSON with its keys in order, so the same body written two ways is one action. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(value ?? null);
}

/**
 * The one request a step-up opens: its mode, method, path (with its query) and body
 * (no body and an empty one are the same), as a digest. A withdrawal's amount and address, a
 * refund's amount, the key a roll replaces (the mode's) are in it: a step-up for one opens no other.
 */
export function actionDigest(mode: string, method: string, path: string, body: unknown): string {
  const url = new URL(path, 'http://service.invalid');
  const sent = body === undefined || body === null ? {} : body;
  return createHash('sha256')
    .update(canonical([mode, method.toUpperCase(), url.pathname + url.search, sent]))
    .digest('base64url');
}

/** Who a session's factors belong to: the owner, or a member by id. */
export const holderOf = (actor: { kind: string; id: string } | undefined): string => (actor?.kind === 'member' ? actor.id : 'owner');

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

/** New recovery codes (xxxx-xxxx-xxxx, 60 bits each), shown once; only their hashes are kept. */
export function newRecoveryCodes(count = RECOVERY_CODES): string[] {
  return Array.from({ length: count }, () => {
    const chars = [...randomBytes(12)].map((b) => BASE32[b & 31]).join('');
    return `${chars.slice(0, 4)}-${chars.slice(4, 8)}-${chars.slice(8, 12)}`;
  });
}

/** A recovery code's hash (its spelling normalised: case and spaces do not matter). */
export const recoveryHash = (code: string): string => createHash('sha256').update(code.trim().toLowerCase()).digest('hex');
