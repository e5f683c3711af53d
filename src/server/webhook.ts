// Signing and verifying webhooks: for merchant servers and the service, never for the
// browser. The signature covers a timestamp and the raw body, so a body cannot be
// re-serialised into a match, and an old delivery cannot be replayed later.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { MerchantVerification } from '../wire/schemas.ts';

export const SIGNATURE_HEADER = 'x-service-signature';
/** How old a delivery may be, by its signed timestamp, before it is refused as a replay. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

export type EventType = 'DEPOSIT_TRANSACTION' | 'PAYOUT_UPDATED' | 'DEPOSIT_REVERSED' | 'DEPOSIT_UNMATCHED';

export interface DepositEvent {
  /** Unique per event: a merchant handles each id once, however often it arrives. */
  id: string;
  event: 'DEPOSIT_TRANSACTION';
  /** Unix seconds when the service created the event. */
  created: number;
  data: MerchantVerification;
}

export interface PayoutEvent {
  id: string;
  event: 'PAYOUT_UPDATED';
  created: number;
  data: { id: string; reference: string; status: 'pending' | 'processing' | 'paid' | 'failed'; amount: number; coin: string; currency: string; fiat_amount: number; failure: string | null };
}

export type ServiceEvent = DepositEvent | PayoutEvent;

const hmac = (secret: string, timestamp: number, rawBody: string) =>
  createHmac('sha256', secret).update(`${timestamp}.${rawBody}`).digest('hex');

function assertSecret(secret: unknown, where: string): asserts secret is string {
  if (typeof secret !== 'string' || secret.trim().length < 8) {
    throw new TypeError(`${where}: expected the webhook signing secret (whsec_…), received ${typeof secret === 'string' ? `${secret.length} characters` : typeof secret}`);
  }
}

/**
 * The header value for a body: `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "t.body")>`.
 * With several secrets (during a rotation) it carries one v1 per secret.
 */
export function signWebhook(secrets: string | string[], rawBody: string, timestamp = Math.floor(Date.now() / 1000)): string {
  const all = Array.isArray(secrets) ? secrets : [secrets];
  all.forEach((secret) => assertSecret(secret, 'signWebhook'));
  return [`t=${timestamp}`, ...all.map((secret) => `v1=${hmac(secret, timestamp, rawBody)}`)].join(',');
}

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

/**
 * Checks a delivery and returns its event; throws WebhookError when it is not genuine or
 * too old. Pass the body exactly as received (a string or Buffer), before any JSON parsing,
 * and your webhook signing secret (whsec_…). Throws TypeError for a missing secret or
 * options that are not finite numbers: a misconfigured verifier must not accept anything.
 */
export function verifyWebhook(
  rawBody: string | Buffer,
  signatureHeader: string | string[] | undefined,
  secret: string,
  { toleranceSeconds = DEFAULT_TOLERANCE_SECONDS, now = Date.now() }: { toleranceSeconds?: number; now?: number } = {},
): ServiceEvent {
  assertSecret(secret, 'verifyWebhook');
  if (!Number.isFinite(toleranceSeconds) || toleranceSeconds < 0) throw new TypeError(`verifyWebhook: toleranceSeconds must be a finite number of at least 0, received ${toleranceSeconds}`);
  if (!Number.isFinite(now)) throw new TypeError(`verifyWebhook: now must be a finite time in milliseconds, received ${now}`);
  const body = typeof rawBody === 'string' ? rawBody : rawBody.toString('utf8');
  if (typeof signatureHeader !== 'string' || signatureHeader === '') {
    throw new WebhookError('missing_signature', `No ${SIGNATURE_HEADER} header`);
  }
  const parts = signatureHeader.split(',').map((part) => part.trim().split('=', 2) as [string, string | undefined]);
  const timestamps = parts.filter(([key]) => key === 't');
  const signatures = parts.filter(([key]) => key === 'v1').map(([, value]) => value ?? '');
  const timestamp = Number(timestamps[0]?.[1]);
  if (timestamps.length !== 1 || !Number.isSafeInteger(timestamp) || signatures.length === 0 || signatures.length > 4 || !signatures.every((s) => /^[0-9a-f]{64}$/.test(s))) {
    throw new WebhookError('malformed_signature', `${SIGNATURE_HEADER} is not t=<seconds>,v1=<hex>`);
  }
  const expected = Buffer.from(hmac(secret, timestamp, body), 'hex');
  // Constant time: how much of a forged signature matched must not show in the timing.
  const matched = signatures.reduce((any, given) => timingSafeEqual(expected, Buffer.from(given, 'hex')) || any, false);
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
  const known = event?.event === 'DEPOSIT_TRANSACTION' || event?.event === 'PAYOUT_UPDATED';
  if (!known || typeof event.id !== 'string' || typeof event.data?.reference !== 'string') {
    throw new WebhookError('malformed_body', 'The body is not an event of this service');
  }
  return event;
}
