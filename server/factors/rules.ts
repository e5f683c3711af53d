// Second factors and step-up (issue 37), rules only: when a request needs a fresh second
// factor, and recovery codes. No I/O; the clock is passed in. Authenticator codes: totp.ts.
import { createHash, randomBytes } from 'node:crypto';

/** A step-up opens money moves for five minutes. */
export const STEP_UP_MS = 5 * 60_000;
/** A challenge (a passkey's, a pending authenticator secret) is single-use and lives this long. */
export const CHALLENGE_MS = 5 * 60_000;
/** Wrong proofs of one kind in a row that lock it for the person, from every address (issue 48). */
export const STEP_UP_TRIES = 5;
/** Recovery codes made at once (each single-use). */
export const RECOVERY_CODES = 10;

/**
 * Whether a session's request needs a step-up now: the route declares one (`live`: only in live
 * mode), the session's person has a second factor (or the owner requires one: they are then sent
 * to enrol first, see route.ts), and none was proved in the last five minutes.
 */
export function needsStepUp(stepUp: 'live' | 'always' | undefined, mode: string, factor: { steppedUpMs?: number; enrolled: boolean }, nowMs: number): boolean {
  if (!stepUp || (stepUp === 'live' && mode !== 'live') || !factor.enrolled) return false;
  const at = factor.steppedUpMs;
  return at === undefined || nowMs < at || nowMs - at > STEP_UP_MS;
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
