// One declaration per endpoint: a route is one object that says its method and path, who may
// call it, what it does (summary, description), the contract's schemas of its path, query and
// body, its answers and errors, and its checks. The pipeline checks a request against it
// (once, at the boundary) and hands the handler the checked input; the OpenAPI document
// (api-doc.ts) is made from the same objects. Each resource file exports its `routes`.
import type * as z from 'zod/mini';
import type { ErrorCode } from '../../contract/error-codes.ts';
import { invalidField } from '../domain/errors.ts';
import { idempotencyKeyOf } from '../domain/idempotency.ts';
import { actorOf, detailsOf, operatorActor, targetOf } from '../audit/rules.ts';
import { inAuditScope, type AuditRecord } from '../storage/audit.ts';
import { type Permission, requirePermission } from '../domain/permissions.ts';
import { PermissionDenied, SecondFactorRequired, StepUpRequired } from '../domain/errors.ts';
import { actionDigest, needsStepUp, STEP_UP_MS, type StepUpRule } from '../factors/rules.ts';
import { cookie, sessionCookieName } from '../http/auth.ts';
import { clientOf } from '../http/client.ts';
import { readJson } from '../http/body.ts';
import { readMultipart } from '../http/multipart.ts';
import type { ServedRoute } from '../http/pipeline.ts';
import type { Reply } from '../http/respond.ts';
import { parse } from '../http/validate.ts';
import type { Auth } from '../http/router.ts';
import type { AnyCtx, Handler, Schemas, ServiceParts } from './context.ts';
import { runChecks, type RouteCheck } from './checks.ts';
import { claimKey, keyedRequest, scopeOf } from './idempotency.ts';

/** The reference's sections: every documented route is in one. */
export const TAGS = [
  'Payments',
  'Products',
  'Subscriptions',
  'Account',
  'Webhooks',
  'Payment links',
  'Bank payouts',
  'Balances',
  'Refunds',
  'Operations',
] as const;
export type Tag = (typeof TAGS)[number];

/** A multipart form: the route's `body` schema checks its text fields; `file` is its one file. */
export interface Multipart {
  file: string;
  fileBytes: number;
  fieldBytes: number;
  /** What the file may be, for the document. */
  fileWords: string;
}

export interface Route extends Schemas {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  auth: Auth;
  /** One line: the reference's title of the operation. */
  summary: string;
  /** More than the summary, where it helps. */
  description?: string;
  /** Its section of the reference; every route of the API (documented in api-doc.ts) has one. */
  tag?: Tag;
  /** The body may be left out (no content-type, or an empty one): the handler gets `body` parsed from {}. */
  optionalBody?: boolean;
  multipart?: Multipart;
  /** Each success status and its whole body; errors are added from what the route declares and can refuse. */
  responses?: Record<number, z.ZodMiniType>;
  /**
   * Errors it answers beyond those of its key, body, path and checks (error-codes.ts): a status
   * (its general code: 409 is `conflict`) or a finer code by name (`insufficient_balance`).
   */
  errors?: Array<number | ErrorCode>;
  /** Its success answer is this media type (text, described by `responses`' words), not JSON. */
  mediaType?: 'text/csv';
  /** Its cross-cutting checks, in the order they run (fromOurPages, rateLimited, testOnly, balanceOnly, faultable). */
  checks?: RouteCheck[];
  /**
   * It moves a merchant's money (a withdrawal, a swap, a bank payout, a refund): counted against
   * the merchant's rate of such requests once the body reads, after its listed checks of then
   * (429 with Retry-After; replays of an Idempotency-Key are not counted), and under an
   * Idempotency-Key an unexpected error's answer (500) is kept too, and a first request cut off
   * before it answered is never run again (409): whether it moved money is not known, and a
   * retry must never move it twice.
   */
  movesMoney?: true;
  /**
   * The one permission a caller needs (domain/permissions.ts), checked by the service for every
   * request of a dashboard session (the member's role) and of a secret key (a restricted key's
   * set) before anything else of the request: 403 `permission_denied` naming it. Every route a
   * session or a secret key may call declares one (server/team/tests/team.test.ts names any that does
   * not); undeclared, only the owner and a full secret key may call it.
   */
  permission?: Permission;
  /**
   * A second factor proved for this very request (step-up), checked centrally
   * after the permission for a dashboard session: `'live'`, in live mode (money moves, new
   * destinations, key rolls); `'always'`, in either mode (who may act at all: members); a rule
   * of its own (an admin's key roll, in either mode). 403 `step_up_required` otherwise, which the
   * dashboard answers by asking for a passkey or a code for this request, then sending it again.
   * A step-up opens the one request it was asked for (mode, method, path, body), once. Secret
   * keys are not stepped up (restricted keys narrow them); see docs/team.md.
   */
  stepUp?: StepUpRule;
  /**
   * A member's session (not the owner's) must also have a second factor to step up with, where
   * `stepUp` applies: without one, 403 `step_up_required` asking them to add one, as an admin's
   * key roll: "behind a step-up" would otherwise pass for a member with no factor at all.
   */
  memberFactor?: true;
  /** Not in the audit log though it is a write (it changes nothing: a quote); every other write of an account is. */
  audited?: false;
  /**
   * `Idempotency-Key` (api/idempotency.ts): every POST, PUT, PATCH and DELETE called with a
   * secret key, a dashboard session or the operator token takes one, unless `false` (a body
   * holding a password, whose digest is not kept: the header is then ignored, as on GET).
   * `'secret'`: the answer shows a secret once (a new secret key, a sign-in link): it is never
   * kept, and a replay answers 409 saying the request was done.
   */
  idempotency?: false | 'secret';
  // Typed against the declared schemas by route(); stored without them.
  // biome-ignore lint/suspicious/noExplicitAny: routes of every schema share one list, and a handler's ctx differs per route
  handler: (ctx: any) => Promise<Reply | undefined>;
}

/** A route, its handler's input typed from the schemas it declares. */
export const route = <S extends Schemas>(r: Omit<Route, keyof Schemas | 'handler'> & S & { handler: Handler<S> }): Route => r;

/** Whether the route takes an Idempotency-Key: a write by an account or the operator, unless it says not. */
export const takesIdempotencyKey = (route: Pick<Route, 'method' | 'auth' | 'idempotency'>): boolean =>
  route.method !== 'GET' && route.auth !== 'none' && route.idempotency !== false;

/**
 * The route's input, checked in the order a caller should fix it (Idempotency-Key, path,
 * query, its checks of before the body, body); then, under an Idempotency-Key, the first answer
 * again or the key claimed; then its checks of after the body, and its handler.
 */
async function answer(route: Route, ctx: AnyCtx, seen: { body?: unknown; replayed?: boolean }): Promise<Reply | undefined> {
  const key = takesIdempotencyKey(route) ? idempotencyKeyOf(ctx.req.headers['idempotency-key']) : undefined;
  const scope = key === undefined ? undefined : scopeOf(ctx.account);
  if (route.params) ctx.params = parse(route.params, ctx.params, 'path');
  if (route.query) ctx.query = parse(route.query, ctx.query, 'query');
  // A session's request that wants a step-up is checked first (as before it was bound
  // to its request), which needs its body as sent: read before the checks, checked after it.
  const stepped = route.auth === 'merchant' && !!ctx.account?.session && needsStepUp(route.stepUp, ctx.account, !!ctx.account.secondFactor?.enrolled);
  if (!stepped) await runChecks(route, ctx, 'before body');
  const { req } = ctx;
  /** The body as sent (JSON, or a form's fields), for the key's digest and the step-up's. */
  let sent: unknown;
  let form: Awaited<ReturnType<typeof readMultipart>> | undefined;
  if (route.multipart) {
    const { file, fileBytes, fieldBytes } = route.multipart;
    if (!/^multipart\/form-data/i.test(req.headers['content-type'] ?? '')) throw invalidField('content-type', `expected a multipart form (${file} is a file)`);
    form = await readMultipart(req, { fileBytes, fieldBytes });
    sent = Object.fromEntries(form.fields);
  } else if (route.body) {
    const absent = req.headers['content-type'] === undefined || (req.headers['content-length'] === '0' && req.headers['transfer-encoding'] === undefined);
    sent = route.optionalBody && absent ? {} : await readJson(req);
  }
  seen.body = sent;
  ctx.sent = sent;
  if (stepped) {
    await requireStepUp(ctx, ctx.account.mode, `${route.method} ${route.path} needs your second factor, confirmed for this request`);
    await runChecks(route, ctx, 'before body');
  }
  if (form) ctx.files = form.files;
  if (route.body) ctx.body = parse(route.body, sent);
  if (key === undefined || scope === undefined) {
    if (await runChecks(route, ctx, 'after body')) return undefined;
    return route.handler(ctx);
  }
  const url = new URL(req.url ?? '/', 'http://service.invalid');
  const claimed = await claimKey(ctx.service, {
    scope,
    key,
    request: keyedRequest(route.method, url.pathname, Object.fromEntries(url.searchParams), sent, ctx.files),
    movesMoney: !!route.movesMoney,
    withholds: route.idempotency === 'secret',
  });
  if ('replay' in claimed) {
    seen.replayed = true;
    return claimed.replay;
  }
  // A refusal before the handler (a rate limit, an injected fault) is not the request's answer: not kept.
  try {
    if (await runChecks(route, ctx, 'after body')) {
      await claimed.held.release();
      return undefined;
    }
  } catch (error) {
    await claimed.held.release();
    throw error;
  }
  return claimed.held.run(() => route.handler(ctx));
}

/** Whether the caller is a session or a secret key: who is held to the route's permission and written to the audit log. */
const heldToPermissions = (route: Route, ctx: AnyCtx): boolean =>
  route.auth !== 'none' && route.auth !== 'operator' && !!ctx.account && (ctx.account.session === true || ctx.account.via === 'secret');

/** The caller's permission for the route: a member's role, a restricted key's set; undeclared, only everything opens it. */
export function checkPermission(route: Route, ctx: AnyCtx): void {
  if (!heldToPermissions(route, ctx)) return;
  const who = ctx.account.actor ? `${ctx.account.actor.kind === 'member' ? `This member (${ctx.account.actor.role})` : 'This restricted key'}` : 'This caller';
  if (route.permission) {
    requirePermission(ctx.account.grants, route.permission, who);
    return;
  }
  if (ctx.account.grants !== undefined && ctx.account.grants !== 'all')
    throw new PermissionDenied(`${route.method} ${route.path} declares no permission: only the owner or a full secret key may call it`);
}

/**
 * A session's second factor: one the owner requires and its person lacks opens nothing (they
 * enrol first, from the dashboard's own routes); a member must have one where the route says so.
 * Whether the step-up was proved for this request is checked once the body is read (answer()).
 */
export function checkSecondFactor(route: Route, ctx: AnyCtx): void {
  const factor = route.auth === 'merchant' && ctx.account?.session ? ctx.account.secondFactor : undefined;
  if (!factor) return;
  if (factor.mustEnrol)
    throw new SecondFactorRequired('The owner requires a second factor of every member: add a passkey or an authenticator app in Security first');
  if (route.memberFactor && ctx.account.actor?.kind === 'member' && !factor.enrolled && needsStepUp(route.stepUp, ctx.account, true)) {
    throw new StepUpRequired(
      `${route.method} ${route.path} needs a second factor of a member${route.stepUp === 'live' ? ' in live mode' : ''}: add a passkey or an authenticator app in Security, confirm it, then send it again`,
    );
  }
}

/**
 * This request takes the session's step-up: one proved for exactly it (its mode,
 * method, path and body as sent) within five minutes, used once. 403 `step_up_required`
 * otherwise: POST /dashboard/api/step-up with the proof and `for` this request, then send it again.
 */
export async function requireStepUp(
  ctx: { req: AnyCtx['req']; sent?: unknown; service: Pick<ServiceParts, 'dashboard' | 'now' | 'origin'> },
  mode: string,
  what: string,
): Promise<void> {
  const token = cookie(ctx.req, sessionCookieName(ctx.service.origin()));
  const action = actionDigest(mode, ctx.req.method ?? 'GET', ctx.req.url ?? '/', ctx.sent);
  if (token && (await ctx.service.dashboard.useStepUp(token, action, ctx.service.now(), STEP_UP_MS))) return;
  throw new StepUpRequired(
    `${what}: confirm with your passkey, authenticator code or a recovery code for it (POST /dashboard/api/step-up with \`for\` this request), then send it again; a step-up opens one request, once`,
  );
}

/**
 * The audit log's rows a request would write (one per mode it changes), less the target its
 * change names: a write of a session or a secret key, not replayed; the operator's writes to one
 * merchant (its path's `:id`), in both modes, with the operator's name (the `X-Operator` header
 * the commands send) as actor. Undefined: not audited.
 */
function auditRecords(route: Route, ctx: AnyCtx): AuditRecord[] | undefined {
  if (route.method === 'GET' || route.audited === false) return undefined;
  const params = ctx.params as Record<string, string>;
  const base = {
    atMs: ctx.service.now(),
    client: clientOf(ctx.req, ctx.service.config.trustProxies),
    action: `${route.method} ${route.path}`,
    target: targetOf(params, undefined),
    details: {},
  };
  if (heldToPermissions(route, ctx)) return [{ ...base, merchantId: ctx.account.merchant.id, mode: ctx.account.mode, actor: actorOf(ctx.account) }];
  if (route.auth === 'operator' && route.path.startsWith('/operator/v1/merchants/:id/') && /^[0-9a-f-]{36}$/i.test(params.id ?? '')) {
    const actor = operatorActor(ctx.req.headers['x-operator']);
    return (['test', 'live'] as const).map((mode) => ({ ...base, merchantId: params.id!.toLowerCase(), mode, actor }));
  }
  return undefined;
}

/**
 * Checks the permission, answers, and writes a write's success (not a replay) to the audit log:
 * inside the change's own transaction where its store marks it (storage/audit.ts), else right
 * after it succeeded.
 */
async function permittedAnswer(route: Route, ctx: AnyCtx): Promise<Reply | undefined> {
  checkPermission(route, ctx);
  checkSecondFactor(route, ctx);
  const sent: { body?: unknown; replayed?: boolean } = {};
  const records = auditRecords(route, ctx);
  if (!records) return answer(route, ctx, sent);
  const params = () => ctx.params as Record<string, string>;
  // The operator's change of one mode (its body's `mode`: fees, a withdrawal limit) is in that mode's log only.
  const only = () => (route.auth === 'operator' ? (sent.body as { mode?: unknown } | undefined)?.mode : undefined);
  const withDetails = () => records.filter((r) => only() === undefined || r.mode === only()).map((r) => ({ ...r, details: detailsOf(params(), sent.body) }));
  const { result: reply, written } = await inAuditScope(withDetails, () => answer(route, ctx, sent));
  if (!written && !sent.replayed && (reply === undefined || reply.status < 400)) {
    const target = route.auth === 'operator' ? params().id : targetOf(params(), reply?.body);
    await ctx.service.audit.append(withDetails().map((r) => ({ ...r, target })));
  }
  return reply;
}

/**
 * The route as the pipeline runs it: the pipeline matches and authenticates (it knows no
 * schema and no part of the service); this checks the declared input and runs its checks, then calls
 * the handler with what they give.
 */
export const served = (route: Route): ServedRoute<ServiceParts> => ({
  method: route.method,
  path: route.path,
  auth: route.auth,
  handler: ({ req, res, params, query, account, service }) =>
    permittedAnswer(route, { req, res, params, query: Object.fromEntries(query), body: undefined, files: new Map(), account, service } as AnyCtx),
});
