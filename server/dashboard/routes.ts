// The merchant's dashboard: its page (one HTML shell for every screen, under a strict CSP), its
// built script and style, and its sign-in: set a password with a one-time link, sign in, read
// the session, sign out here or everywhere. The screens read the public API with the session.
import type { IncomingMessage } from 'node:http';
import { authenticateSession, cookie, sessionCookieName } from '../http/auth.ts';
import { SetPasswordBody, SignInBody } from '../../contract/dashboard-requests.ts';
import { SignInFactorBody } from '../../contract/factors.ts';
import { CHALLENGE_MS } from '../factors/rules.ts';
import { proveAs } from '../factors/routes.ts';
import { stepUpOptions } from '../factors/use-cases.ts';
import { AcceptInvitationBody } from '../../contract/team.ts';
import { DEVICE_COOKIE, DEVICE_MAX_AGE_S } from '../email/use-cases.ts';
import { invalidField, NotFound, Unauthorized } from '../domain/errors.ts';
import { hashPassword, passwordProblem, SESSION_MS } from '../merchants/sign-in-rules.ts';
import { checkPassword } from './sign-in.ts';
import { joinByInvitation } from './invitation.ts';
import { clientOf } from '../http/client.ts';
import { ok, type Reply } from '../http/respond.ts';
import { builtFile, hashedName, sendBuilt, splitHashedName } from '../http/static.ts';
import { headTags } from '../hosted/page-head.ts';
import type { Merchant } from '../domain/account.ts';
import type { Session } from './store.ts';
import { ROLE_PERMISSIONS, type Actor } from '../domain/permissions.ts';
import type { Handler as AnyHandler, Schemas, ServiceParts } from '../api/context.ts';
import { fromOurPages, rateLimited, type RouteCheck } from '../api/checks.ts';
import { route } from '../api/route.ts';

/** The parts of the service these routes use: their handlers are given these alone. */
type Uses = 'audit' | 'catalog' | 'config' | 'dashboard' | 'factors' | 'log' | 'mail' | 'merchants' | 'now' | 'origin' | 'signIns' | 'team';
type Service = Pick<ServiceParts, Uses>;
type Handler<S extends Schemas = {}> = AnyHandler<S, Uses>;

/** Only this origin's script, style and API; no inline script or style, no framing, no other origin. */
export const DASHBOARD_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

const SAFE_HEADERS = { 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer' };
/** The dashboard is no one's to find: no search engine lists its pages (the meta tag says so too). */
const NOINDEX = { 'x-robots-tag': 'noindex, nofollow' };

/** The page, naming the script and style by their content's hash (so they are cached for good). */
const shell = (script: string, style: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>Dashboard</title>
${headTags("The merchant's dashboard of this payment service: payments, links, products, events and settings.", true)}
<link rel="stylesheet" href="/dashboard/assets/${style}">
<script type="module" src="/dashboard/assets/${script}"></script>
</head>
<body>
<div id="app"><p>Loading the dashboard…</p></div>
<noscript>The dashboard needs JavaScript.</noscript>
</body>
</html>
`;

/** An asset's name with its hash, or the plain name while it is not built (its request then says so). */
async function assetName(service: Service, name: string): Promise<string> {
  const file = await builtFile(`${service.config.distDir}dashboard/${name}`);
  return file ? hashedName(name, file.hash) : name;
}

/** Every screen's address answers the same shell; the dashboard's router draws the screen. */
export const page: Handler = async ({ res, service }) => {
  const html = shell(await assetName(service, 'dashboard.js'), await assetName(service, 'dashboard.css'));
  res
    .writeHead(200, {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'content-security-policy': DASHBOARD_POLICY,
      ...SAFE_HEADERS,
      ...NOINDEX,
    })
    .end(html);
  return undefined;
};

/** A chunk of the build (dashboard/vite.config.ts names them): letters, digits, - and _ only, so no path. */
const CHUNK = /^chunk-[A-Za-z0-9_-]{1,80}\.js(\.map)?$/;

const ASSET_TYPES: Record<string, string> = {
  'dashboard.js': 'text/javascript; charset=utf-8',
  'dashboard.js.map': 'application/json',
  'dashboard.css': 'text/css; charset=utf-8',
};

/**
 * The dashboard's script and style: under their hashed name (the page's) cached for good, under
 * the plain name revalidated; an old hash is gone (404), never answered with other content.
 */
export const asset: Handler = async ({ req, params, res, service }) => {
  // A screen's chunk: its name carries its content's hash (the build's), so it is cached for good.
  if (CHUNK.test(params.name)) {
    const file = await builtFile(`${service.config.distDir}dashboard/${params.name}`);
    if (!file) throw new NotFound(`/dashboard/assets/${params.name} is not this build's: reload the dashboard`);
    sendBuilt(req, res, file, params.name.endsWith('.map') ? 'application/json' : 'text/javascript; charset=utf-8', 'immutable', SAFE_HEADERS);
    return undefined;
  }
  const hashed = splitHashedName(params.name);
  const name = hashed?.name ?? params.name;
  const type = ASSET_TYPES[name];
  if (!type) throw new NotFound(`No dashboard asset ${params.name.slice(0, 80)}`);
  const file = await builtFile(`${service.config.distDir}dashboard/${name}`);
  if (!file) throw new NotFound(`/dashboard/assets/${name} is not built yet: run npm run build`);
  if (hashed && hashed.hash !== file.hash) throw new NotFound(`/dashboard/assets/${params.name.slice(0, 80)} is not this build's: reload the dashboard`);
  sendBuilt(req, res, file, type, hashed ? 'immutable' : 'revalidate', SAFE_HEADERS);
  return undefined;
};

const secure = (service: Service) => service.origin().startsWith('https:');

function sessionCookie(service: Service, token: string, maxAgeSeconds: number): string {
  return `${sessionCookieName(service.origin())}=${token}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${secure(service) ? '; Secure' : ''}`;
}

/** The mode's networks as the dashboard names them, in the order of NETWORKS_FILE (none: an empty list). */
const networksOf = (service: Service, mode: 'test' | 'live') => service.catalog.networks(mode).map((n) => ({ chainId: n.chainId, name: n.name }));

/** The mode's coins as the dashboard offers them: symbol, chain and decimals. */
const coinsOf = (service: Service, mode: 'test' | 'live') =>
  service.catalog.coins(mode).map((c) => ({ symbol: c.symbol, chainId: c.chainId, decimals: c.decimals }));

async function sessionView(
  service: Service,
  merchant: Merchant,
  csrf: string,
  expiresMs: number,
  role: Actor = 'owner',
  secondFactor?: Session['secondFactor'],
) {
  const [test, live] = await Promise.all([service.merchants.publicKey({ merchant, mode: 'test' }), service.merchants.publicKey({ merchant, mode: 'live' })]);
  return {
    merchant: { id: merchant.id, businessName: merchant.businessName, businessEmail: merchant.businessEmail },
    // What the screens may offer (the service checks each request itself, whatever they show).
    role,
    permissions: [...ROLE_PERMISSIONS[role]],
    // Whether this person has a second factor, and must add one before anything else.
    secondFactor: { enrolled: secondFactor?.enrolled ?? false, mustEnrol: secondFactor?.mustEnrol ?? false },
    csrfToken: csrf,
    expiresAt: new Date(expiresMs).toISOString(),
    publicKeys: { test, live },
    networks: { test: networksOf(service, 'test'), live: networksOf(service, 'live') },
    coins: { test: coinsOf(service, 'test'), live: coinsOf(service, 'live') },
  };
}

/** Signs in: the owner, or a member (`member`) with their role. */
async function startSession(service: Service, req: IncomingMessage, merchantId: string, message: string, member?: { id: string; role: Actor }): Promise<Reply> {
  const merchant = (await service.merchants.byId(merchantId))!;
  const started = await service.dashboard.startSession(merchantId, service.now(), SESSION_MS, member?.id);
  const secondFactor = (await service.dashboard.session(started.token, service.now()))?.secondFactor;
  const reply = ok(200, await sessionView(service, merchant, started.csrf, started.expiresMs, member?.role, secondFactor), message);
  // The browser's device cookie: a sign-in from one this person never used before is e-mailed to them (email/use-cases.ts).
  const device = await service.mail.signedIn(merchantId, merchant.businessName, member?.id ?? 'owner', cookie(req, DEVICE_COOKIE));
  const deviceCookie = `${DEVICE_COOKIE}=${device}; Path=/dashboard; HttpOnly; SameSite=Strict; Max-Age=${DEVICE_MAX_AGE_S}${secure(service) ? '; Secure' : ''}`;
  return { ...reply, headers: { 'set-cookie': [sessionCookie(service, started.token, SESSION_MS / 1000), deviceCookie] } };
}

/**
 * A request that signs in (or sets a password) must come from our own pages (no login CSRF),
 * and one client tries only so many, whatever the e-mail: guessing across many accounts is
 * slowed as guessing one is.
 */
const FROM_OUR_PAGES: RouteCheck[] = [
  fromOurPages,
  rateLimited({
    limiter: (service) => service.signIns,
    key: ({ req, service }) => clientOf(req, service.config.trustProxies),
    message: (wait) => `Too many sign-in attempts from this address; try again in ${wait} s`,
  }),
];

/** The one-time link: its token (from the link's #fragment, never sent in a URL) and a new password. */
export const setPassword: Handler<{ body: typeof SetPasswordBody }> = async (ctx) => {
  const { service, body } = ctx;
  const problem = passwordProblem(body.password);
  if (problem) throw invalidField('password', problem);
  const merchantId = await service.dashboard.setPassword(body.token, await hashPassword(body.password, service.config.passwordHashCost), service.now());
  if (!merchantId)
    throw invalidField('token', 'this sign-in link was used already, has expired (after 24 hours) or is not one of ours: ask the operator for a new one');
  service.log.info({ merchant: merchantId }, 'dashboard password set');
  return startSession(service, ctx.req, merchantId, 'Password set; you are signed in');
};

/**
 * Wrong passwords lock the e-mail for the client address that sent them, not for everyone: a
 * stranger failing on the owner's e-mail locks out only themself. Only very many failures from
 * many addresses at once lock the e-mail for all, until the owner's new sign-in link.
 */
export const signIn: Handler<{ body: typeof SignInBody }> = async (ctx) => {
  const { service, body } = ctx;
  const { merchantId: found, memberId } = await checkPassword(service, body.email, body.password, clientOf(ctx.req, service.config.trustProxies));
  // A person with a second factor is not signed in by the password alone.
  const kinds = [...new Set((await service.factors.factors({ merchantId: found, holder: memberId ?? 'owner' })).map((f) => f.kind))].sort();
  if (kinds.length) return awaitFactor(service, found, memberId, kinds);
  service.log.info({ merchant: found, member: memberId }, 'dashboard sign-in');
  if (!memberId) return startSession(service, ctx.req, found, 'Signed in');
  const session = (await service.dashboard.memberOf(found, memberId))!;
  return startSession(service, ctx.req, found, 'Signed in', { id: memberId, role: session.role });
};

/**
 * The password was right and its person has a second factor: a session that opens
 * nothing waits five minutes for it (its cookie, HttpOnly as every session's); 202 naming the
 * kinds the person has. POST /dashboard/api/session/factor proves one and signs in.
 */
async function awaitFactor(service: Service, merchantId: string, memberId: string | undefined, kinds: string[]): Promise<Reply> {
  const started = await service.dashboard.startSession(merchantId, service.now(), CHALLENGE_MS, memberId, true);
  service.log.info({ merchant: merchantId, member: memberId }, 'dashboard sign-in waits for a second factor');
  const reply = ok(
    202,
    { factorNeeded: kinds, expiresAt: new Date(started.expiresMs).toISOString() },
    'Password right: now your passkey, an authenticator code or a recovery code',
  );
  return { ...reply, headers: { 'set-cookie': [sessionCookie(service, started.token, CHALLENGE_MS / 1000)] } };
}

/** The sign-in waiting for this browser's second factor: whose it is, as the factors' routes name a person. */
async function waiting(service: Service, req: IncomingMessage) {
  const token = cookie(req, sessionCookieName(service.origin()));
  const found = token ? await service.dashboard.awaitingFactor(token, service.now()) : undefined;
  if (!token || !found)
    throw new Unauthorized('No sign-in is waiting for a second factor here (it waits five minutes): sign in with your e-mail and password again');
  const merchant = (await service.merchants.byId(found.merchantId))!;
  const member = found.memberId ? await service.dashboard.memberOf(found.merchantId, found.memberId) : undefined;
  const actor = found.memberId && member ? { kind: 'member' as const, id: found.memberId, label: member.email, role: member.role } : undefined;
  const account = { merchant, mode: 'test' as const, via: 'secret' as const, session: true, ...(actor ? { actor } : {}) };
  return {
    token,
    member: found.memberId && member ? { id: found.memberId, role: member.role } : undefined,
    account,
    who: { merchantId: found.merchantId, holder: found.memberId ?? 'owner' },
  };
}

/** The sign-in's second step with a passkey: its challenge (single-use, five minutes). */
export const signInFactorOptions: Handler = async (ctx) => {
  const { who } = await waiting(ctx.service, ctx.req);
  return ok(200, await stepUpOptions(ctx.service.factors, who, ctx.service.origin(), ctx.service.now()), 'Confirm with your passkey');
};

/**
 * The sign-in's second step: one proof (counted per person with the step-up's tries: five wrong
 * lock that kind, a recovery code is the way back), then the waiting session is replaced by a
 * signed-in one under a new cookie.
 */
export const signInFactor: Handler<{ body: typeof SignInFactorBody }> = async (ctx) => {
  const { service } = ctx;
  const pending = await waiting(service, ctx.req);
  // The proof is audited (factors/routes.ts): the audit log is one of the parts this file uses.
  await proveAs({ req: ctx.req, service: { ...service, audit: service.audit } }, pending, ctx.body);
  if (!(await service.dashboard.takeAwaiting(pending.token))) throw new Unauthorized('This sign-in was finished already: sign in again');
  service.log.info({ merchant: pending.who.merchantId, member: pending.member?.id }, 'dashboard sign-in with a second factor');
  return startSession(service, ctx.req, pending.who.merchantId, 'Signed in', pending.member);
};

/** An invitation used: once, by the e-mail it was made for; the new member is signed in. */
export const acceptInvitation: Handler<{ body: typeof AcceptInvitationBody }> = async ({ req, body, service }) => {
  const { member, merchantId } = await joinByInvitation(service, body, clientOf(req, service.config.trustProxies));
  service.log.info({ merchant: merchantId, member: member.id }, 'invitation accepted');
  return startSession(service, req, merchantId, 'Welcome: you are signed in', { id: member.id, role: member.role });
};

/**
 * "Am I signed in?": the dashboard asks as it opens, so nobody signed in is an answer (200,
 * no `data`), not a refusal a browser logs as a failed request.
 */
export const getSession: Handler = async ({ req, service }) => {
  const account = await authenticateSession(req, service.dashboard, service.now(), service.origin()).catch((error: unknown) => {
    if (error instanceof Unauthorized) return undefined;
    throw error;
  });
  if (!account) return ok(200, undefined, 'Not signed in');
  const session = (await service.dashboard.session(cookie(req, sessionCookieName(service.origin()))!, service.now()))!;
  return ok(200, await sessionView(service, account.merchant, session.csrf, session.expiresMs, session.member?.role, session.secondFactor), 'Signed in');
};

/** Signs this browser out: its session ends now, and a copy of its cookie opens nothing. */
export const signOut: Handler = async ({ req, res, service }) => {
  await authenticateSession(req, service.dashboard, service.now(), service.origin());
  await service.dashboard.endSession(cookie(req, sessionCookieName(service.origin()))!);
  res.setHeader('set-cookie', sessionCookie(service, '', 0));
  return { status: 204, body: undefined };
};

/** Signs out everywhere: the owner, every session of the merchant; a member, their own. */
export const signOutEverywhere: Handler = async ({ req, res, service }) => {
  const account = await authenticateSession(req, service.dashboard, service.now(), service.origin());
  // A member signs only themself out everywhere; the owner, every session of the business.
  await service.dashboard.endAll(account.merchant.id, account.actor?.kind === 'member' ? account.actor.id : undefined);
  res.setHeader('set-cookie', sessionCookie(service, '', 0));
  return { status: 204, body: undefined };
};

// The dashboard's own sign-in is not in the merchants' reference (api-doc.ts documents /api/v1 only).
export const routes = [
  route({
    method: 'GET',
    path: '/dashboard',
    auth: 'none',
    handler: page,
    summary: 'the dashboard (its home screen)',
    description: "One HTML page with no inline script, `default-src 'none'`, `script-src 'self'`, `connect-src 'self'`, `frame-ancestors 'none'`.",
  }),
  // A merchant typing the address with its slash got a 404.
  route({ method: 'GET', path: '/dashboard/', auth: 'none', handler: page, summary: 'the dashboard, as /dashboard' }),
  route({ method: 'GET', path: '/dashboard/:screen', auth: 'none', handler: page, summary: 'a dashboard screen (the same page; its router draws the screen)' }),
  route({ method: 'GET', path: '/dashboard/payments/:reference', auth: 'none', handler: page, summary: "a payment's screen" }),
  route({
    method: 'GET',
    path: '/dashboard/assets/:name',
    auth: 'none',
    handler: asset,
    summary: "the dashboard's script, its screens' chunks and its style",
    description: "`dashboard.js`, `chunk-*.js` (the frame's and each screen's chunk, named by its hash) and `dashboard.css`, built by `npm run build`.",
  }),
  route({
    method: 'POST',
    path: '/dashboard/api/password',
    auth: 'none',
    handler: setPassword,
    body: SetPasswordBody,
    checks: FROM_OUR_PAGES,
    summary: "a sign-in link's token and a new password: signs in",
    description:
      "`{ token, password }`: the sign-in link's token (from its `#fragment`) and a password of 10 to 200 characters; the link is used once; signs in (the session cookie).",
  }),
  route({
    method: 'POST',
    path: '/dashboard/api/session',
    auth: 'none',
    handler: signIn,
    body: SignInBody,
    checks: FROM_OUR_PAGES,
    summary: 'e-mail and password: a session cookie',
    description:
      '401 wrong; 429 with Retry-After after three wrong ones in a row (1 s, 2 s, 4 s …, 15 minutes from the tenth). A person with a second factor is answered 202 `{ factorNeeded, expiresAt }` and signed in by `POST /dashboard/api/session/factor`.',
  }),
  route({
    method: 'POST',
    path: '/dashboard/api/invitation',
    auth: 'none',
    handler: acceptInvitation,
    body: AcceptInvitationBody,
    checks: FROM_OUR_PAGES,
    summary: "an invitation's token, the invited e-mail and a password: signs the new member in",
    description:
      "`{ token, email, password }`: the token from the link's `#fragment`; another e-mail than the invited one is refused (400 naming `email`) and the link stays usable by its own; a used or expired link is 400 naming `token`.",
  }),

  route({
    method: 'POST',
    path: '/dashboard/api/session/factor/options',
    auth: 'none',
    handler: signInFactorOptions,
    checks: FROM_OUR_PAGES,
    summary: 'a sign-in waiting for its second factor: options to confirm with a passkey',
  }),
  route({
    method: 'POST',
    path: '/dashboard/api/session/factor',
    auth: 'none',
    handler: signInFactor,
    body: SignInFactorBody,
    checks: FROM_OUR_PAGES,
    summary: "a sign-in's second step: a passkey's answer, an authenticator code or a recovery code; signs in",
    description:
      "After `POST /dashboard/api/session` answered 202 `factorNeeded`: one of `{ passkey }`, `{ code }`, `{ recovery_code }`, within five minutes. Wrong tries count with the step-up's (five wrong lock that kind: 403 `factor_locked`); 401 when no sign-in is waiting.",
  }),
  route({
    method: 'GET',
    path: '/dashboard/api/session',
    auth: 'none',
    handler: getSession,
    summary: 'who is signed in, the CSRF token, the public keys',
    description: 'Nobody signed in: 200 without `data`, not a 401.',
  }),
  route({
    method: 'DELETE',
    path: '/dashboard/api/session',
    auth: 'none',
    handler: signOut,
    summary: 'sign this browser out',
    description: 'With `x-csrf-token`; 204.',
  }),
  route({
    method: 'DELETE',
    path: '/dashboard/api/sessions',
    auth: 'none',
    handler: signOutEverywhere,
    summary: 'sign out everywhere',
    description: 'With `x-csrf-token`; 204.',
  }),
];
