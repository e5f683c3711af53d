// The dashboard's sign-in rules, without I/O: how a password is hashed and checked (scrypt,
// memory-hard), what a password must be, how long a sign-in link and a session last, and how
// repeated wrong passwords are slowed down and then refused for a while.
import { createHash, randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * scrypt's block size, parallelism and key length. Its cost N is 2^passwordHashCost (a setting:
 * 15 by default, 32 MiB of memory a guess; OWASP's minimum is N = 2^17 with r = 8 / p = 1 or
 * 2^15 at p = 3: we take p = 3). Every hash names its own N, r and p, so a hash keeps the cost it
 * was made at whatever the setting is later.
 */
export const SCRYPT = { r: 8, p: 3, keyLength: 32 } as const;
/**
 * The costs the setting may take: 2^17 at most (128 MiB a run); below the default only in code
 * (tests: every member they sign up paid ~0.5 s of scrypt at 2^15), never from the environment.
 */
export const PASSWORD_HASH_COSTS = { lowest: 10, highest: 17 } as const;
// Enough for the highest cost; a stored hash naming more than that fails to check (scrypt's own limit).
const maxmem = 128 * 2 ** PASSWORD_HASH_COSTS.highest * SCRYPT.r * 2;

/**
 * At most this many scrypt runs at once (32 MiB and a thread each); the rest wait their turn,
 * so strangers' guesses cannot take every thread and the memory of the service at once.
 */
export const MAX_CONCURRENT_HASHES = 2;
let running = 0;
const waiting: Array<() => void> = [];
/** The most scrypt runs seen at once, for tests. */
export const hashing = { peak: 0 };

async function derive(password: string, salt: Buffer, params: { N: number; r: number; p: number }, keyLength: number): Promise<Buffer> {
  if (running >= MAX_CONCURRENT_HASHES) await new Promise<void>((resolve) => waiting.push(resolve));
  running++;
  hashing.peak = Math.max(hashing.peak, running);
  try {
    const options: ScryptOptions = { N: params.N, r: params.r, p: params.p, maxmem };
    return await new Promise((resolve, reject) =>
      scrypt(password.normalize('NFKC'), salt, keyLength, options, (error, key) => (error ? reject(error) : resolve(key))),
    );
  } finally {
    running--;
    waiting.shift()?.();
  }
}

/**
 * A hash of nothing anyone knows, at the default cost: checking a password against it makes an
 * unknown e-mail cost as much time as a known one. Written out, not computed when the module
 * loads: that was a 32 MiB scrypt run in every process (and every test file) importing the
 * routes, signing in or not. A test holds its parameters to SCRYPT's and the setting's default.
 */
export const NOBODY = 'scrypt$32768$8$3$oJhZbpYp10hjYsTpGhyg9Q$3rpz5eiZRAKDvJKngS7pDCs4tvjJtjfvCXnmDCwBPLU';
const nobodies = new Map<number, Promise<string>>();
/** NOBODY at `cost`: the written-out one at the default, else made once (of random words) and kept. */
export function nobodyAt(cost: number): Promise<string> {
  if (NOBODY.split('$')[1] === String(2 ** cost)) return Promise.resolve(NOBODY);
  let made = nobodies.get(cost);
  if (!made) nobodies.set(cost, (made = hashPassword(randomBytes(24).toString('base64url'), cost)));
  return made;
}

/** `scrypt$N$r$p$salt$hash` (base64url), N = 2^cost: the parameters travel with the hash, so they may be raised later. */
export async function hashPassword(password: string, cost: number): Promise<string> {
  if (!Number.isInteger(cost) || cost < PASSWORD_HASH_COSTS.lowest || cost > PASSWORD_HASH_COSTS.highest)
    throw new Error(`hashPassword: cost ${cost} is outside ${PASSWORD_HASH_COSTS.lowest}..${PASSWORD_HASH_COSTS.highest}`);
  const params = { N: 2 ** cost, r: SCRYPT.r, p: SCRYPT.p };
  const salt = randomBytes(16);
  const key = await derive(password, salt, params, SCRYPT.keyLength);
  return ['scrypt', params.N, params.r, params.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

export async function passwordMatches(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const key = await derive(password, Buffer.from(salt, 'base64url'), { N: Number(n), r: Number(r), p: Number(p) }, expected.length);
  return timingSafeEqual(key, expected);
}

/** What a new password must be; undefined when it is good. */
export function passwordProblem(password: string): string | undefined {
  if (password.length < 10) return 'expected at least 10 characters';
  if (password.length > 200) return 'expected at most 200 characters';
  if (password.trim() === '') return 'expected more than spaces';
  return undefined;
}

/** A random token (a sign-in link's, a session's, a CSRF token), and the hash under which it is kept. */
export const newToken = (): string => randomBytes(32).toString('base64url');
export const tokenHash = (token: string): string => createHash('sha256').update(token).digest('hex');

export const SIGN_IN_LINK_MS = 24 * 3_600_000;
export const SESSION_MS = 12 * 3_600_000;

/** Wrong passwords in a row before each further one locks the e-mail for a while. */
export const FREE_FAILURES = 3;
/** From this many in a row, the e-mail is refused for LOCKOUT_MS whatever is sent. */
export const LOCKOUT_FAILURES = 10;
export const LOCKOUT_MS = 15 * 60_000;
/** Failures older than this are forgotten. */
export const FAILURE_MEMORY_MS = 60 * 60_000;

/**
 * Until when an e-mail with `failures` wrong passwords in a row is refused: not at all for the
 * first few, then 1 s, 2 s, 4 s … doubling, then LOCKOUT_MS from the tenth.
 */
export function lockedUntil(failures: number, nowMs: number): number {
  if (failures < FREE_FAILURES) return 0;
  if (failures >= LOCKOUT_FAILURES) return nowMs + LOCKOUT_MS;
  return nowMs + 1000 * 2 ** (failures - FREE_FAILURES);
}

/**
 * Until when an e-mail is refused, after `failures` wrong passwords from all clients together,
 * to the clients that failed on it themselves (never to one with no failures): a back-off of a
 * minute from the threshold (the setting accountLockoutFailures: many addresses guessing at
 * once; each client is locked on its own long before), doubling with each further failure, at
 * most LOCKOUT_MS.
 */
export function accountLockedUntil(failures: number, nowMs: number, threshold: number): number {
  return failures >= threshold ? nowMs + Math.min(LOCKOUT_MS, 60_000 * 2 ** Math.min(failures - threshold, 10)) : 0;
}
