// Who is calling: a public key in x-api-key (checkout pages) or a secret key as a bearer
// token (merchant servers), as each route's `auth` asks. The answer is an Account (merchant +
// mode) that every handler and store names; a refusal is an Unauthorized, never a guess.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isSecretKey, publicKeyMode } from '../../contract/keys.ts';
import type { Account } from '../domain/account.ts';
import { ROLE_PERMISSIONS, type Role } from '../domain/permissions.ts';
import { CsrfRejected, Invalid, Unauthorized } from '../domain/errors.ts';
import type { Auth } from './router.ts';

/** The one question auth asks of storage: whose key is this? */
export interface KeyOwners {
  authenticate(key: string, kind: 'public' | 'secret'): Promise<Account | undefined>;
}

/** The dashboard's sessions, by their cookie's token. */
export interface SessionLookup {
  session(
    token: string,
    nowMs: number,
  ): Promise<
    { merchant: Account['merchant']; csrf: string; member?: { id: string; email: string; role: Role }; secondFactor?: Account['secondFactor'] } | undefined
  >;
}

/** The dashboard's session cookie (HttpOnly, SameSite=Strict; Secure on https). */
export const SESSION_COOKIE = 'dashboard_session';

/**
 * Its name on a service at `publicOrigin`: `__Host-dashboard_session` on https, which browsers
 * take only with Secure, Path=/ and no Domain (a sibling subdomain or a plain-http page cannot
 * set or shadow it). On plain http (the demo and tests on loopback) Secure cannot be relied on,
 * so the prefix, which requires it, is not used there.
 */
export const sessionCookieName = (publicOrigin: string): string => (publicOrigin.startsWith('https:') ? `__Host-${SESSION_COOKIE}` : SESSION_COOKIE);

export function cookie(req: IncomingMessage, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}

/**
 * Whether a browser request comes from the service's own pages: its Origin (sent by browsers
 * on every cross-origin request and on every POST) is the public origin or the one the
 * request was addressed to. A page elsewhere cannot set Origin; without one (not a browser), true.
 */
export function sameOrigin(req: IncomingMessage, publicOrigin: string): boolean {
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  const host = req.headers.host;
  return origin === new URL(publicOrigin).origin || (host !== undefined && (origin === `http://${host}` || origin === `https://${host}`));
}

const SAFE_METHODS = new Set(['GET', 'HEAD']);

/**
 * A dashboard session: the cookie names it; a request that changes anything must also carry
 * its CSRF token in x-csrf-token (which a page on another origin cannot read nor, without a
 * preflight we refuse, send) and come from our own origin. The mode is x-mode (test by default).
 */
export async function authenticateSession(req: IncomingMessage, sessions: SessionLookup, nowMs: number, publicOrigin: string): Promise<Account> {
  const token = cookie(req, sessionCookieName(publicOrigin));
  if (!token) throw new Unauthorized('Missing Authorization: Bearer <secret key> header, or a dashboard session');
  const session = await sessions.session(token, nowMs);
  if (!session) throw new Unauthorized('Your dashboard session has ended: sign in again');
  if (!SAFE_METHODS.has(req.method ?? 'GET')) {
    const sent = req.headers['x-csrf-token'];
    if (!sameOrigin(req, publicOrigin)) throw new CsrfRejected('This request came from another origin: refused (CSRF)');
    if (typeof sent !== 'string' || !timingSafeEqual(digest(sent), digest(session.csrf)))
      throw new CsrfRejected('Missing or wrong x-csrf-token header: refused (CSRF)');
  }
  const mode = req.headers['x-mode'] ?? 'test';
  if (mode !== 'test' && mode !== 'live') throw new Invalid('x-mode: expected test or live', [{ field: 'x-mode', message: 'expected test or live' }]);
  // The signed-in owner has what the secret key gives: the same answers, the same powers; a
  // member, what their role gives (each route's permission, api/route.ts).
  const member = session.member;
  const secondFactor = session.secondFactor;
  if (!member) return { merchant: session.merchant, mode, via: 'secret', session: true, grants: 'all', secondFactor };
  return {
    merchant: session.merchant,
    mode,
    via: 'secret',
    session: true,
    grants: ROLE_PERMISSIONS[member.role],
    secondFactor,
    actor: { kind: 'member', id: member.id, label: member.email, role: member.role },
  };
}

export async function authenticate(
  req: IncomingMessage,
  auth: Exclude<Auth, 'none' | 'operator'>,
  owners: KeyOwners,
  sessions?: { lookup: SessionLookup; nowMs: number; origin: string },
): Promise<Account> {
  const bearer = req.headers.authorization;
  if (auth === 'merchant' && !bearer && sessions && cookie(req, sessionCookieName(sessions.origin)))
    return authenticateSession(req, sessions.lookup, sessions.nowMs, sessions.origin);
  if (auth === 'secret' || auth === 'merchant' || (auth === 'either' && bearer)) {
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
    throw new Unauthorized(
      /^(pk|sk)_(test|live)_/.test(match[1]) ? 'A merchant key cannot authorize an operator endpoint: send the operator token' : 'Unknown operator token',
    );
  }
}
