// Signing and verifying DEPOSIT_TRANSACTION webhooks: for merchant servers and the stub API,
// never for the browser. The signature covers a timestamp and the raw body, so a body
// cannot be re-serialised into a match, and an old delivery cannot be replayed later.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Verification } from '../wire/schemas.ts';

export const SIGNATURE_HEADER = 'x-service-signature';
/** How old a delivery may be, by its signed timestamp, before it is refused as a replay. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

export interface DepositEvent {
  /** Unique per event: a merchant handles each id once, however often it arrives. */
  id: string;
  event: 'DEPOSIT_TRANSACTION';
  /** Unix seconds when the service created the event. */
  created: number;
  data: Verification;
}

const hmac = (secret: string, timestamp: number, rawBody: string) =>
  createHmac('sha256', secret).update(`${timestamp}.${rawBody}`).digest('hex');

/** The header value for a body: `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "t.body")>`. */
export function signWebhook(secretKey: string, rawBody: string, timestamp = Math.floor(Date.now() / 1000)): string {
  return `t=${timestamp},v1=${hmac(secretKey, timestamp, rawBody)}`;
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
 * too old. Pass the body exactly as received (a string or Buffer), before any JSON parsing.
 */
export function verifyWebhook(
  rawBody: string | Buffer,
  signatureHeader: string | string[] | undefined,
  secretKey: string,
  { toleranceSeconds = DEFAULT_TOLERANCE_SECONDS, now = Date.now() }: { toleranceSeconds?: number; now?: number } = {},
): DepositEvent {
  const body = typeof rawBody === 'string' ? rawBody : rawBody.toString('utf8');
  if (typeof signatureHeader !== 'string' || signatureHeader === '') {
    throw new WebhookError('missing_signature', `No ${SIGNATURE_HEADER} header`);
  }
  const parts = Object.fromEntries(signatureHeader.split(',').map((part) => part.trim().split('=', 2) as [string, string]));
  const timestamp = Number(parts.t);
  if (!Number.isSafeInteger(timestamp) || !/^[0-9a-f]{64}$/.test(parts.v1 ?? '')) {
    throw new WebhookError('malformed_signature', `${SIGNATURE_HEADER} is not t=<seconds>,v1=<hex>`);
  }
  const expected = Buffer.from(hmac(secretKey, timestamp, body), 'hex');
  const given = Buffer.from(parts.v1, 'hex');
  // Constant time: how much of a forged signature matched must not show in the timing.
  if (!timingSafeEqual(expected, given)) throw new WebhookError('bad_signature', 'The signature does not match the body');
  if (Math.abs(now / 1000 - timestamp) > toleranceSeconds) {
    throw new WebhookError('stale', `Signed ${Math.round(now / 1000 - timestamp)} s ago; more than ${toleranceSeconds} s is a replay`);
  }
  let event: DepositEvent;
  try {
    event = JSON.parse(body);
  } catch {
    throw new WebhookError('malformed_body', 'The body is not JSON');
  }
  if (event?.event !== 'DEPOSIT_TRANSACTION' || typeof event.id !== 'string' || typeof event.data?.reference !== 'string') {
    throw new WebhookError('malformed_body', 'The body is not a DEPOSIT_TRANSACTION event');
  }
  return event;
}
