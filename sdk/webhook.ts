// Signing and verifying webhooks on a merchant's server: the contract's scheme with Node's
// HMAC. Never for the browser: it needs the webhook signing secret.
import { createHmac } from 'node:crypto';
import {
  SIGNATURE_HEADER,
  signatureHeader,
  standardHeaders,
  verifyDelivery,
  type Base64Hmac,
  type Hmac,
  type VerifyOptions,
} from '../contract/webhook-signature.ts';
import type { ServiceEvent } from '../contract/events.ts';

export {
  DEFAULT_TOLERANCE_SECONDS,
  SIGNATURE_HEADER,
  STANDARD_HEADERS,
  WebhookError,
  type VerifyOptions,
  type WebhookRefusal,
} from '../contract/webhook-signature.ts';
export type { DepositEvent, DiscrepancyEvent, EventType, PayoutEvent, ReversedEvent, ServiceEvent, UnmatchedEvent } from '../contract/events.ts';
export { EVENT_TYPES } from '../contract/events.ts';

const hmac: Hmac = (secret, message) => createHmac('sha256', secret).update(message).digest('hex');
const hmacBase64: Base64Hmac = (base64Key, message) => createHmac('sha256', Buffer.from(base64Key, 'base64')).update(message).digest('base64');

/**
 * The header value for a body: `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "t.body")>`.
 * With several secrets (during a rotation) it carries one v1 per secret.
 */
export const signWebhook = (secrets: string | string[], rawBody: string, timestamp = Math.floor(Date.now() / 1000)): string =>
  signatureHeader(hmac, secrets, rawBody, timestamp);

/**
 * The Standard Webhooks headers for a body: `webhook-id` (the event's id), `webhook-timestamp`
 * and `webhook-signature: v1,<base64>`, one signature per secret during a rotation.
 */
export const signStandardWebhook = (
  secrets: string | string[],
  eventId: string,
  rawBody: string,
  timestamp = Math.floor(Date.now() / 1000),
): Record<string, string> => standardHeaders(hmacBase64, secrets, eventId, rawBody, timestamp);

/** The request's headers as Node (or a framework) gives them, names in any case. */
export type WebhookHeaders = Record<string, string | string[] | undefined>;

/**
 * Checks a delivery and returns its event; throws WebhookError when it is not genuine or
 * too old. Pass the body exactly as received (a string or Buffer), before any JSON parsing;
 * the request's headers (`req.headers`: the Standard Webhooks `webhook-signature` is checked
 * when present, else `x-service-signature`), or the `x-service-signature` value alone; and
 * your webhook signing secret (whsec_…). Throws TypeError for a missing secret or options
 * that are not finite numbers: a misconfigured verifier must not accept anything.
 */
export function verifyWebhook(
  rawBody: string | Buffer,
  headers: WebhookHeaders | string | string[] | undefined,
  secret: string,
  options?: VerifyOptions,
): ServiceEvent {
  const all: WebhookHeaders = typeof headers === 'object' && headers !== null && !Array.isArray(headers) ? headers : { [SIGNATURE_HEADER]: headers };
  return verifyDelivery({ hex: hmac, base64: hmacBase64 }, typeof rawBody === 'string' ? rawBody : rawBody.toString('utf8'), all, secret, options);
}
