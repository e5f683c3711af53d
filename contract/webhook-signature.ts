// How a webhook delivery is signed and checked, two ways at once. Ours, `x-service-signature:
// t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "t.body")>`, and the Standard Webhooks
// specification's (www.standardwebhooks.com): `webhook-id` (the event id, the same on every
// retry), `webhook-timestamp` and `webhook-signature: v1,<base64 HMAC-SHA256(key,
// "id.timestamp.body")>`, where the key is the bytes the base64 after `whsec_` encodes, so
// that spec's libraries in any language verify our deliveries. Both sign the raw body, so a
// body cannot be re-serialised into a match and an old delivery cannot be replayed later.
// The HMAC itself is the caller's (node:crypto in the SDK and the service): the contract has
// no platform of its own.
import { isEventType, type ServiceEvent } from './events.ts';

export const SIGNATURE_HEADER = 'x-service-signature';
/** How old a delivery may be, by its signed timestamp, before it is refused as a replay. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** HMAC-SHA256 of `message` under `secret`, as lower-case hex. */
export type Hmac = (secret: string, message: string) => string;

/** The Standard Webhooks headers, lower case as Node gives them. */
export const STANDARD_HEADERS = { id: 'webhook-id', timestamp: 'webhook-timestamp', signature: 'webhook-signature' } as const;
/** HMAC-SHA256 of `message` under the key whose bytes `base64Key` encodes, as standard base64. */
export type Base64Hmac = (base64Key: string, message: string) => string;
const SECRET_PREFIX = 'whsec_';
/** The key of a secret as Standard Webhooks reads it: the base64 after `whsec_`. */
export const standardKey = (secret: string): string => (secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret);

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
    throw new TypeError(
      `${where}: expected the webhook signing secret (whsec_…), received ${typeof secret === 'string' ? `${secret.length} characters` : typeof secret}`,
    );
  }
}

/** The header value for a body; with several secrets (during a rotation) one v1 per secret. */
export function signatureHeader(hmac: Hmac, secrets: string | string[], rawBody: string, timestamp: number): string {
  const all = Array.isArray(secrets) ? secrets : [secrets];
  all.forEach((secret) => assertSecret(secret, 'signWebhook'));
  return [`t=${timestamp}`, ...all.map((secret) => `v1=${hmac(secret, `${timestamp}.${rawBody}`)}`)].join(',');
}

/**
 * The Standard Webhooks headers of a delivery: `webhook-signature` carries one `v1,<base64>`
 * per secret, space-separated (during a rotation, both), as the specification allows.
 */
export function standardHeaders(hmac: Base64Hmac, secrets: string | string[], id: string, rawBody: string, timestamp: number): Record<string, string> {
  const all = Array.isArray(secrets) ? secrets : [secrets];
  all.forEach((secret) => assertSecret(secret, 'signWebhook'));
  const signature = all.map((secret) => `v1,${hmac(standardKey(secret), `${id}.${timestamp}.${rawBody}`)}`).join(' ');
  return { [STANDARD_HEADERS.id]: id, [STANDARD_HEADERS.timestamp]: String(timestamp), [STANDARD_HEADERS.signature]: signature };
}

/** Equal strings, in time that depends only on their length: how much of a forged signature matched must not show. */
function sameText(a: string, b: string): boolean {
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
  checkOptions(secret, toleranceSeconds, now);
  if (typeof header !== 'string' || header === '') throw new WebhookError('missing_signature', `No ${SIGNATURE_HEADER} header`);
  const parts = header.split(',').map((part) => part.trim().split('=', 2) as [string, string | undefined]);
  const timestamps = parts.filter(([key]) => key === 't');
  const signatures = parts.filter(([key]) => key === 'v1').map(([, value]) => value ?? '');
  const timestamp = Number(timestamps[0]?.[1]);
  if (
    timestamps.length !== 1 ||
    !Number.isSafeInteger(timestamp) ||
    signatures.length === 0 ||
    signatures.length > 4 ||
    !signatures.every((s) => /^[0-9a-f]{64}$/.test(s))
  ) {
    throw new WebhookError('malformed_signature', `${SIGNATURE_HEADER} is not t=<seconds>,v1=<hex>`);
  }
  const expected = hmac(secret, `${timestamp}.${body}`);
  // Every signature is compared, matched or not, so the count of tries does not show either.
  const matched = signatures.reduce((any, given) => sameText(expected, given) || any, false);
  if (!matched) throw new WebhookError('bad_signature', 'The signature does not match the body');
  checkAge(timestamp, toleranceSeconds, now);
  return parseEvent(body);
}

function checkOptions(secret: unknown, toleranceSeconds: number, now: number): asserts secret is string {
  assertSecret(secret, 'verifyWebhook');
  if (!Number.isFinite(toleranceSeconds) || toleranceSeconds < 0)
    throw new TypeError(`verifyWebhook: toleranceSeconds must be a finite number of at least 0, received ${toleranceSeconds}`);
  if (!Number.isFinite(now)) throw new TypeError(`verifyWebhook: now must be a finite time in milliseconds, received ${now}`);
}

function checkAge(timestamp: number, toleranceSeconds: number, now: number): void {
  if (Math.abs(now / 1000 - timestamp) > toleranceSeconds) {
    throw new WebhookError('stale', `Signed ${Math.round(now / 1000 - timestamp)} s ago; more than ${toleranceSeconds} s is a replay`);
  }
}

function parseEvent(body: string): ServiceEvent {
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

const single = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? (value.length === 1 ? value[0] : undefined) : value);

/**
 * Checks a delivery by its Standard Webhooks headers and returns its event: some `v1,` in
 * `webhook-signature` must be the HMAC of `id.timestamp.body` under the secret's key, the
 * timestamp recent, and `webhook-id` the event's own id (a signed id on another body is no
 * match). Throws as verifySignedEvent does.
 */
export function verifyStandardEvent(
  hmac: Base64Hmac,
  body: string,
  headers: Record<string, string | string[] | undefined>,
  secret: string,
  { toleranceSeconds = DEFAULT_TOLERANCE_SECONDS, now = Date.now() }: VerifyOptions = {},
): ServiceEvent {
  checkOptions(secret, toleranceSeconds, now);
  const id = single(headers[STANDARD_HEADERS.id]);
  const timestampText = single(headers[STANDARD_HEADERS.timestamp]);
  const signatureText = single(headers[STANDARD_HEADERS.signature]);
  if (!id || !timestampText || !signatureText) {
    const missing = Object.values(STANDARD_HEADERS).filter((name) => !single(headers[name]));
    throw new WebhookError('missing_signature', `No ${missing.join(', ')} header${missing.length > 1 ? 's' : ''}`);
  }
  const timestamp = Number(timestampText);
  const signatures = signatureText
    .split(' ')
    .filter(Boolean)
    .map((part) => part.split(',', 2) as [string, string | undefined]);
  if (
    !/^\d{1,12}$/.test(timestampText) ||
    signatures.length === 0 ||
    signatures.length > 4 ||
    !signatures.every(([version, value]) => /^v1[a-z]?$/.test(version) && /^[A-Za-z0-9+/]+={0,2}$/.test(value ?? ''))
  ) {
    throw new WebhookError('malformed_signature', `${STANDARD_HEADERS.signature} is not v1,<base64>, or ${STANDARD_HEADERS.timestamp} not seconds`);
  }
  const expected = hmac(standardKey(secret), `${id}.${timestamp}.${body}`);
  // Only v1 is the HMAC scheme (v1a is another); every one is compared, matched or not.
  const matched = signatures.reduce((any, [version, given]) => (sameText(expected, given ?? '') && version === 'v1') || any, false);
  if (!matched) throw new WebhookError('bad_signature', 'The signature does not match the body');
  checkAge(timestamp, toleranceSeconds, now);
  const event = parseEvent(body);
  if (event.id !== id) throw new WebhookError('malformed_body', `${STANDARD_HEADERS.id} ${id} is not the event's id ${event.id}`);
  return event;
}

/**
 * Checks a delivery by whichever signature it carries: the Standard Webhooks headers when
 * `webhook-signature` is there, else `x-service-signature`.
 */
export function verifyDelivery(
  hmacs: { hex: Hmac; base64: Base64Hmac },
  body: string,
  headers: Record<string, string | string[] | undefined>,
  secret: string,
  options: VerifyOptions = {},
): ServiceEvent {
  const lower: Record<string, string | string[] | undefined> = {};
  for (const [name, value] of Object.entries(headers)) lower[name.toLowerCase()] = value;
  if (lower[STANDARD_HEADERS.signature] !== undefined) return verifyStandardEvent(hmacs.base64, body, lower, secret, options);
  return verifySignedEvent(hmacs.hex, body, lower[SIGNATURE_HEADER], secret, options);
}
