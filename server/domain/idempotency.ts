// Idempotency keys, as rules (no I/O): what a key may be, and what a request carrying one is
// answered given what is stored under it. Stripe's semantics: the same key and the same request
// answer the first answer; the same key with another request is a conflict; kept 24 hours.
// The storage (storage/idempotency.ts) and the waiting (api/idempotency.ts) follow these.
import { Conflict, invalidField } from './errors.ts';

/** The header, as errors name it. */
export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
/** How long a key's answer is kept: a key reused later is a new request. */
export const IDEMPOTENCY_KEEP_MS = 24 * 3_600_000;
/** How long a request executing under a key holds it unless renewed (it is renewed every third of it). */
export const IDEMPOTENCY_LEASE_MS = 15_000;
/** How long a second request with a key that is executing waits for the first one's answer. */
export const IDEMPOTENCY_WAIT_MS = 30_000;
export const IDEMPOTENCY_KEY_MAX = 255;

/** The header's value checked: printable ASCII, 1 to 255 characters; undefined when not sent. */
export function idempotencyKeyOf(raw: string | string[] | undefined): string | undefined {
  if (raw === undefined) return undefined;
  if (Array.isArray(raw)) throw invalidField(IDEMPOTENCY_HEADER, 'expected one header, sent once');
  if (raw.length === 0)
    throw invalidField(IDEMPOTENCY_HEADER, `expected 1 to ${IDEMPOTENCY_KEY_MAX} printable characters (a UUID, say), received an empty value`);
  if (raw.length > IDEMPOTENCY_KEY_MAX) throw invalidField(IDEMPOTENCY_HEADER, `expected at most ${IDEMPOTENCY_KEY_MAX} characters, received ${raw.length}`);
  if (!/^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/.test(raw))
    throw invalidField(IDEMPOTENCY_HEADER, 'expected printable ASCII characters only (a UUID, say), without leading or trailing spaces');
  return raw;
}

/** What a request under a key is: where it went, and a digest of what it sent (never the body itself). */
export interface KeyedRequest {
  /** "POST /api/v1/withdrawals": the method and the path as sent. */
  endpoint: string;
  /** SHA-256 of the request's body and query, canonical (key order and spacing do not count). */
  fingerprint: string;
}

/** What is stored under a key. */
export interface StoredKey extends KeyedRequest {
  state: 'running' | 'done';
  holder: string;
  leaseUntilMs: number;
  createdMs: number;
  /** The first answer (state 'done'). */
  status?: number;
  body?: string | null;
  headers?: Record<string, string>;
  /** The answer held a secret shown once (a new secret key): it was not kept. */
  withheld?: boolean;
}

export type KeyDecision =
  /** Nothing kept (or kept longer than a day): this request executes. */
  | { kind: 'execute' }
  /** The first answer, again. */
  | { kind: 'replay'; stored: StoredKey }
  /** The first request is still executing: wait for its answer. */
  | { kind: 'wait' }
  /** Its holder stopped answering (the instance died): a request that moves no money may run again. */
  | { kind: 'take-over' };

/**
 * What a request carrying a key is answered, given what is stored under it. Throws the 409s:
 * another endpoint, another body, or (for a request that moves money) a first request that
 * was cut off before it answered, so that whether it moved money is not known here.
 */
export function decideKey(stored: StoredKey | undefined, request: KeyedRequest, nowMs: number, movesMoney: boolean): KeyDecision {
  if (!stored || stored.createdMs <= nowMs - IDEMPOTENCY_KEEP_MS) return { kind: 'execute' };
  const at = new Date(stored.createdMs).toISOString();
  if (stored.endpoint !== request.endpoint) {
    throw new Conflict(`${IDEMPOTENCY_HEADER}: this key was used at ${at} for ${stored.endpoint}, not ${request.endpoint}; use a new key for each request`, [
      { field: IDEMPOTENCY_HEADER, message: `expected a new key: this one is ${stored.endpoint}'s` },
    ]);
  }
  if (stored.fingerprint !== request.fingerprint) {
    throw new Conflict(`${IDEMPOTENCY_HEADER}: this key was used at ${at} with another body; a retry must send the same body, and a new request a new key`, [
      { field: IDEMPOTENCY_HEADER, message: 'expected a new key: this one was used with another body' },
    ]);
  }
  if (stored.state === 'done') return { kind: 'replay', stored };
  if (stored.leaseUntilMs > nowMs) return { kind: 'wait' };
  if (movesMoney) {
    throw new Conflict(
      `${IDEMPOTENCY_HEADER}: the first request with this key (at ${at}) was cut off before it answered, and whether it moved money is not known here; it is not run again. Look at the state (the balances, the list of what it creates) before sending it with a new key`,
      [{ field: IDEMPOTENCY_HEADER, message: 'expected a new key, once you have checked what the first request did' }],
    );
  }
  return { kind: 'take-over' };
}

/** A request still executing after the wait: 409, to retry shortly with the same key. */
export const stillRunning = (): Conflict =>
  new Conflict(`${IDEMPOTENCY_HEADER}: a request with this key is still being processed; retry with the same key in a moment`, [
    { field: IDEMPOTENCY_HEADER, message: 'expected the first request with this key to have answered' },
  ]);

/** The replay of an answer that held a secret shown once: its secret is not kept, so it is not answered again. */
export const withheldAnswer = (stored: StoredKey): Conflict =>
  new Conflict(
    `${IDEMPOTENCY_HEADER}: this request was done at ${new Date(stored.createdMs).toISOString()} (status ${stored.status}); its answer held a secret shown once, which is never kept, so it is not answered again. If it was lost, make the request again with a new key`,
    [{ field: IDEMPOTENCY_HEADER, message: 'expected a new key: this request was done, and its secret was shown once' }],
  );

/**
 * Whether an answer is kept under its key: every answer but 5xx, which a retry may run again
 * (for money, 5xx too: whether money moved is not known), and but a 400: bad input refused, by
 * the contract or by the handler once it knows more (a coin's decimals), changed nothing, so the
 * same key with the body corrected is the request, run (docs/api.md).
 */
export const keepsAnswer = (status: number, movesMoney: boolean, unexpected: boolean): boolean =>
  status !== 400 && (status < 500 || (movesMoney && unexpected));
