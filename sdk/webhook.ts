// Signing and verifying webhooks on a merchant's server: the contract's scheme with Node's
// HMAC. Never for the browser: it needs the webhook signing secret.
import { createHmac } from 'node:crypto';
import { signatureHeader, verifySignedEvent, type Hmac, type VerifyOptions } from '../contract/webhook-signature.ts';
import type { ServiceEvent } from '../contract/events.ts';

export { DEFAULT_TOLERANCE_SECONDS, SIGNATURE_HEADER, WebhookError, type WebhookRefusal } from '../contract/webhook-signature.ts';
export type { DepositEvent, DiscrepancyEvent, EventType, PayoutEvent, ReversedEvent, ServiceEvent, UnmatchedEvent } from '../contract/events.ts';
export { EVENT_TYPES } from '../contract/events.ts';

const hmac: Hmac = (secret, message) => createHmac('sha256', secret).update(message).digest('hex');

/**
 * The header value for a body: `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "t.body")>`.
 * With several secrets (during a rotation) it carries one v1 per secret.
 */
export const signWebhook = (secrets: string | string[], rawBody: string, timestamp = Math.floor(Date.now() / 1000)): string =>
  signatureHeader(hmac, secrets, rawBody, timestamp);

/**
 * Checks a delivery and returns its event; throws WebhookError when it is not genuine or
 * too old. Pass the body exactly as received (a string or Buffer), before any JSON parsing,
 * and your webhook signing secret (whsec_…). Throws TypeError for a missing secret or
 * options that are not finite numbers: a misconfigured verifier must not accept anything.
 */
export const verifyWebhook = (rawBody: string | Buffer, signatureHeader: string | string[] | undefined, secret: string, options?: VerifyOptions): ServiceEvent =>
  verifySignedEvent(hmac, typeof rawBody === 'string' ? rawBody : rawBody.toString('utf8'), signatureHeader, secret, options);
