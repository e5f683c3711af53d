// Node's HMAC-SHA256 as the contract's webhook signatures take it (the contract has no platform):
// hex under the secret's text for x-service-signature, base64 under the bytes of the secret's
// base64 key for Standard Webhooks.
import { createHmac } from 'node:crypto';
import type { Base64Hmac, Hmac } from '../../contract/webhook-signature.ts';

export const hmacSha256: Hmac = (secret, message) => createHmac('sha256', secret).update(message).digest('hex');
export const hmacSha256Base64: Base64Hmac = (base64Key, message) => createHmac('sha256', Buffer.from(base64Key, 'base64')).update(message).digest('base64');
