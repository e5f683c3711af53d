// Who is calling: a public key in x-api-key (checkout pages) or a secret key as a bearer
// token (merchant servers), as each route's `auth` asks. The answer is an Account (merchant +
// mode) that every handler and store names; a refusal is an Unauthorized, never a guess.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isSecretKey, publicKeyMode } from '../../contract/keys.ts';
import type { Account } from '../domain/account.ts';
import { Unauthorized } from '../domain/errors.ts';
import type { Auth } from './router.ts';

/** The one question auth asks of storage: whose key is this? */
export interface KeyOwners {
  authenticate(key: string, kind: 'public' | 'secret'): Promise<Account | undefined>;
}

export async function authenticate(req: IncomingMessage, auth: Exclude<Auth, 'none' | 'operator'>, owners: KeyOwners): Promise<Account> {
  const bearer = req.headers.authorization;
  if (auth === 'secret' || (auth === 'either' && bearer)) {
    const match = /^Bearer (\S+)$/.exec(bearer ?? '');
    if (!match) throw new Unauthorized('Missing Authorization: Bearer <secret key> header');
    if (!isSecretKey(match[1])) throw new Unauthorized('A public key cannot authorize this endpoint: send your secret key, from your server');
    const account = await owners.authenticate(match[1], 'secret');
    if (!account) throw new Unauthorized('Unknown secret key');
    return account;
  }
  const key = req.headers['x-api-key'];
  if (typeof key !== 'string' || key === '') throw new Unauthorized('Missing x-api-key header: send your public key (pk_test_… or pk_live_…)');
  if (isSecretKey(key)) throw new Unauthorized('A secret key was sent to a public endpoint. Never expose it in a browser; roll it now.');
  const account = publicKeyMode(key) && (await owners.authenticate(key, 'public'));
  if (!account) throw new Unauthorized('Unknown public key');
  return account;
}

const digest = (text: string) => createHash('sha256').update(text).digest();

/**
 * The operator's endpoints: `Authorization: Bearer <operator token>`, compared in constant time
 * (as digests, so not even the length leaks). A merchant's key, live or test, never opens them.
 */
export function authenticateOperator(req: IncomingMessage, token: string | undefined): void {
  if (!token) throw new Unauthorized('This service has no operator token: set ADMIN_TOKEN, or give it a DATA_DIR, where it makes one');
  const match = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '');
  if (!match) throw new Unauthorized('Missing Authorization: Bearer <operator token> header');
  if (!timingSafeEqual(digest(match[1]), digest(token))) {
    throw new Unauthorized(/^(pk|sk)_(test|live)_/.test(match[1]) ? 'A merchant key cannot authorize an operator endpoint: send the operator token' : 'Unknown operator token');
  }
}
