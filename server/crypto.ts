// Node's HMAC-SHA256 as the contract's webhook signatures take it (the contract has no platform).
import { createHmac } from 'node:crypto';
import type { Hmac } from '../contract/webhook-signature.ts';

export const hmacSha256: Hmac = (secret, message) => createHmac('sha256', secret).update(message).digest('hex');
