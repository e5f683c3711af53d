// How a webhook delivery is signed and checked: `t=<unix seconds>,v1=<hex HMAC-SHA256(secret,
// "t.body")>`, over the raw body, so a body cannot be re-serialised into a match and an old
// delivery cannot be replayed later. The HMAC itself is the caller's (node:crypto in the SDK
// and the service): the contract has no platform of its own.
import { isEventType, type ServiceEvent } from './events.ts';

export const SIGNATURE_HEADER = 'x-service-signature';
/** How old a delivery may be, by its signed timestamp, before it is refused as a replay. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** HMAC-SHA256 of `message` under `secret`, as lower-case hex. */
export type Hmac = (secret: string, message: string) => string;

export type WebhookRefusal = 'missing_signature' | 'malformed_signature' | 'bad_signature' | 'stale' | 'malformed_body';

export class WebhookError extends Error {
  override name = 'WebhookError';
  constructor(
    readonly reason: WebhookRefusal,
    message: string,
  ) {
    super(message);
  }
}

function assertSecret(secret: unknown, where: string): asserts secret is string {
  if (typeof secret !== 'string' || secret.trim().length < 8) {
    throw new TypeError(`${where}: expected the webhook signing secret (whsec_…), received ${typeof secret === 'string' ? `${secret.length} characters` : typeof secret}`);
  }
}

/** The header value for a body; with several secrets (during a rotation) one v1 per secret. */
export function signatureHeader(hmac: Hmac, secrets: string | string[], rawBody: string, timestamp: number): string {
  const all = Array.isArray(secrets) ? secrets : [secrets];
  all.forEach((secret) => assertSecret(secret, 'signWebhook'));
  return [`t=${timestamp}`, ...all.map((secret) => `v1=${hmac(secret, `${timestamp}.${rawBody}`)}`)].join(',');
}

/** Equal hex strings, in time that depends only on their length: how much of a forged signature matched must not show. */
function sameHex(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

export interface VerifyOptions {
  toleranceSeconds?: number;
  /** The time now, in milliseconds. */
  now?: number;
}

/**
 * Checks a delivery and returns its event; throws WebhookError when it is not genuine, too
 * old, or not an event of this service, and TypeError for a missing secret or options that
 * are not finite numbers: a misconfigured verifier must not accept anything.
 */
export function verifySignedEvent(
  hmac: Hmac,
  body: string,
  header: string | string[] | undefined,
  secret: string,
  { toleranceSeconds = DEFAULT_TOLERANCE_SECONDS, now = Date.now() }: VerifyOptions = {},
): ServiceEvent {
  assertSecret(secret, 'verifyWebhook');
  if (!Number.isFinite(toleranceSeconds) || toleranceSeconds < 0) throw new TypeError(`verifyWebhook: toleranceSeconds must be a finite number of at least 0, received ${toleranceSeconds}`);
  if (!Number.isFinite(now)) throw new TypeError(`verifyWebhook: now must be a finite time in milliseconds, received ${now}`);
  if (typeof header !== 'string' || header === '') throw new WebhookError('missing_signature', `No ${SIGNATURE_HEADER} header`);
  const parts = header.split(',').map((part) => part.trim().split('=', 2) as [string, string | undefined]);
  const timestamps = parts.filter(([key]) => key === 't');
  const signatures = parts.filter(([key]) => key === 'v1').map(([, value]) => value ?? '');
  const timestamp = Number(timestamps[0]?.[1]);
  if (timestamps.length !== 1 || !Number.isSafeInteger(timestamp) || signatures.length === 0 || signatures.length > 4 || !signatures.every((s) => /^[0-9a-f]{64}$/.test(s))) {
    throw new WebhookError('malformed_signature', `${SIGNATURE_HEADER} is not t=<seconds>,v1=<hex>`);
  }
  const expected = hmac(secret, `${timestamp}.${body}`);
  // Every signature is compared, matched or not, so the count of tries does not show either.
  const matched = signatures.reduce((any, given) => sameHex(expected, given) || any, false);
  if (!matched) throw new WebhookError('bad_signature', 'The signature does not match the body');
  if (Math.abs(now / 1000 - timestamp) > toleranceSeconds) {
    throw new WebhookError('stale', `Signed ${Math.round(now / 1000 - timestamp)} s ago; more than ${toleranceSeconds} s is a replay`);
  }
  let event: ServiceEvent;
  try {
    event = JSON.parse(body);
  } catch {
    throw new WebhookError('malformed_body', 'The body is not JSON');
  }
  if (!isEventType(event?.event) || typeof event.id !== 'string' || typeof event.data !== 'object' || event.data === null) {
    throw new WebhookError('malformed_body', 'The body is not an event of this service');
  }
  return event;
}
