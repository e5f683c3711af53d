// A person's second factors and step-up, from a dashboard session only (its cookie,
// and on writes its CSRF token and the service's origin, as every session write): list them,
// add a passkey or an authenticator app (recovery codes come with the first, shown once), renew
// the recovery codes, remove one (each change, and each recovery code used, e-mailed to the
// person), and prove one (step-up) before money moves. The owner may require one of every
// member. Adding or removing a factor once you have one needs a step-up first: a stolen
// password alone cannot add the thief's own.
import { PasskeyBody, PolicyBody, StepUpBody, TotpBody, UnlockBody } from '../../contract/factors.ts';
import type { Account } from '../domain/account.ts';
import { Forbidden, NotFound } from '../domain/errors.ts';
import { authenticateSession, cookie, sessionCookieName } from '../http/auth.ts';
import { clientOf } from '../http/client.ts';
import { ok } from '../http/respond.ts';
import type { Handler as AnyHandler, Schemas, ServiceParts } from '../api/context.ts';
import { rateLimited, type RouteCheck } from '../api/checks.ts';
import { requireStepUp, route } from '../api/route.ts';
import type { SecurityChange } from '../email/use-cases.ts';
import { actionDigest, holderOf, STEP_UP_MS } from './rules.ts';
import type { ProofKind, Who } from './store.ts';
import { passkeyOptions, prove, registerPasskey, registerTotp, renewRecoveryCodes, stepUpOptions, totpOptions } from './use-cases.ts';

/** The parts of the service these routes use: their handlers are given these alone. */
type Uses = 'audit' | 'config' | 'dashboard' | 'factors' | 'log' | 'mail' | 'now' | 'origin' | 'signIns';
type Service = Pick<ServiceParts, Uses>;
type Handler<S extends Schemas = {}> = AnyHandler<S, Uses>;
type Ctx = Parameters<Handler>[0];

/** The signed-in person: their session's account, who they are, and their session's token. */
async function me({ req, service }: { req: Ctx['req']; service: Service }): Promise<{ account: Account; who: Who; token: string; name: string }> {
  const account = await authenticateSession(req, service.dashboard, service.now(), service.origin());
  const token = cookie(req, sessionCookieName(service.origin()))!;
  return {
    account,
    who: { merchantId: account.merchant.id, holder: holderOf(account.actor) },
    token,
    name: account.actor?.label ?? account.merchant.businessEmail,
  };
}

/** Changing one's factors once one has some needs a step-up for that very change, as money moves do. */
async function freshFactor(ctx: Ctx, account: Account): Promise<void> {
  if (account.secondFactor?.enrolled) await requireStepUp(ctx, account.mode, 'Changing your second factors needs one, confirmed for this change');
}

/** What the audit, the e-mails and the proof need of the service: the sign-in's second step uses them too. */
type ProofCtx = { req: Ctx['req']; service: Pick<ServiceParts, 'audit' | 'config' | 'factors' | 'mail' | 'now' | 'origin'> };

/** Each person's factor changes and step-ups, in both modes' audit logs (they are the person's, not a mode's). */
async function audited(ctx: ProofCtx, account: Account, action: string, target: string | undefined, values: Record<string, string> = {}): Promise<void> {
  const { service } = ctx;
  const actor = account.actor ?? { kind: 'owner' as const, id: 'owner', label: account.merchant.businessEmail };
  await service.audit.append(
    (['test', 'live'] as const).map((mode) => ({
      merchantId: account.merchant.id,
      mode,
      atMs: service.now(),
      actor: { kind: actor.kind, id: actor.id, label: actor.label },
      client: clientOf(ctx.req, service.config.trustProxies),
      action,
      target,
      details: { values },
    })),
  );
}

/** Both feeds' who-may-do-what: a person's factors are not a mode's. */
const MODES = ['test', 'live'] as const;

/** The person and the owner are told their factors changed (an event, and e-mails in their language), whoever made the change. */
const told = (ctx: ProofCtx, session: { who: Who; account: Account }, change: SecurityChange) =>
  ctx.service.mail.securityChanged(session.account.merchant, {
    change,
    detail: `${session.account.actor?.label ?? 'the owner'}'s second factors`,
    modes: MODES,
    by: session.account,
    concerned: { person: session.who.holder },
  });

const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());

export const listFactors: Handler = async (ctx) => {
  const { account, who } = await me(ctx);
  const { factors } = ctx.service;
  const [mine, left, required] = await Promise.all([factors.factors(who), factors.recoveryCodesLeft(who), factors.required(who.merchantId)]);
  return ok(
    200,
    {
      factors: mine.map((f) => ({ id: f.id, kind: f.kind, label: f.label, createdAt: iso(f.createdMs), usedAt: iso(f.usedMs) })),
      recoveryCodesLeft: left,
      required,
      // The owner sets the requirement (the screen shows its switch to them only).
      owner: !account.actor,
    },
    `${mine.length} second factor(s)`,
  );
};

/** After the first factor: its recovery codes (shown once). It steps up nothing: a step-up is for one request. */
async function added(ctx: Ctx, session: Awaited<ReturnType<typeof me>>, made: { id: string; first: boolean }, kind: string) {
  const { service } = ctx;
  const recoveryCodes = made.first ? await renewRecoveryCodes(service.factors, session.who, service.now()) : undefined;
  await audited(ctx, session.account, `POST /dashboard/api/factors/${kind}`, made.id, { kind });
  await told(ctx, session, kind === 'passkey' ? 'passkey_added' : 'totp_added');
  service.log.info({ merchant: session.who.merchantId, kind }, 'second factor added');
  return ok(
    201,
    { id: made.id, ...(recoveryCodes ? { recoveryCodes } : {}) },
    recoveryCodes ? 'Added. Keep these recovery codes somewhere safe: they are shown this once, and each works once' : 'Added',
  );
}

export const passkeyStart: Handler = async (ctx) => {
  const session = await me(ctx);
  await freshFactor(ctx, session.account);
  return ok(
    200,
    await passkeyOptions(
      ctx.service.factors,
      session.who,
      { name: session.name, business: session.account.merchant.businessName },
      ctx.service.origin(),
      ctx.service.now(),
    ),
    'Create a passkey with these options',
  );
};

/** The challenge it answers was handed out stepped up (passkeyStart): this needs no step-up of its own. */
export const passkeyFinish: Handler<{ body: typeof PasskeyBody }> = async (ctx) => {
  const session = await me(ctx);
  const made = await registerPasskey(ctx.service.factors, session.who, ctx.body.response, ctx.body.label ?? 'Passkey', ctx.service.origin(), ctx.service.now());
  return added(ctx, session, made, 'passkey');
};

export const totpStart: Handler = async (ctx) => {
  const session = await me(ctx);
  await freshFactor(ctx, session.account);
  return ok(
    200,
    await totpOptions(ctx.service.factors, session.who, { name: session.name, business: session.account.merchant.businessName }, ctx.service.now()),
    'Add this secret to your authenticator app, then send its code',
  );
};

/** The secret it proves was handed out stepped up (totpStart), to this person only: no step-up of its own. */
export const totpFinish: Handler<{ body: typeof TotpBody }> = async (ctx) => {
  const session = await me(ctx);
  const made = await registerTotp(ctx.service.factors, session.who, ctx.body.code, ctx.body.label ?? 'Authenticator app', ctx.service.now());
  return added(ctx, session, made, 'totp');
};

export const recoveryCodes: Handler = async (ctx) => {
  const session = await me(ctx);
  if (!session.account.secondFactor?.enrolled) throw new NotFound('Add a passkey or an authenticator app first: recovery codes come with it');
  await freshFactor(ctx, session.account);
  const codes = await renewRecoveryCodes(ctx.service.factors, session.who, ctx.service.now());
  await audited(ctx, session.account, 'POST /dashboard/api/factors/recovery-codes', undefined);
  await told(ctx, session, 'recovery_codes');
  return ok(201, { recoveryCodes: codes }, 'New recovery codes, shown this once; the earlier ones no longer work');
};

export const removeFactor: Handler = async (ctx) => {
  const session = await me(ctx);
  await freshFactor(ctx, session.account);
  if (!(await ctx.service.factors.remove(session.who, ctx.params.id))) throw new NotFound('No such second factor of yours');
  await audited(ctx, session.account, 'DELETE /dashboard/api/factors/:id', ctx.params.id);
  await told(ctx, session, 'factor_removed');
  return { status: 204, body: undefined };
};

export const setPolicy: Handler<{ body: typeof PolicyBody }> = async (ctx) => {
  const session = await me(ctx);
  if (session.account.actor) throw new Forbidden('Only the owner requires a second factor of every member');
  await freshFactor(ctx, session.account);
  await ctx.service.factors.setRequired(session.who.merchantId, ctx.body.required, ctx.service.now());
  await audited(ctx, session.account, 'PUT /dashboard/api/factors/policy', undefined, { required: String(ctx.body.required) });
  return ok(
    200,
    { required: ctx.body.required },
    ctx.body.required
      ? 'Every member now needs a second factor: those without one are sent to add one before anything else'
      : 'A second factor is no longer required',
  );
};

export const stepUpStart: Handler = async (ctx) => {
  const session = await me(ctx);
  return ok(200, await stepUpOptions(ctx.service.factors, session.who, ctx.service.origin(), ctx.service.now()), 'Confirm with your passkey');
};

/** A lock of the person's proofs set or lifted: in both modes' audit logs, and e-mailed to the person and the owner. */
async function lockChanged(
  ctx: ProofCtx,
  account: Account,
  holder: string,
  change: 'step_up_locked' | 'step_up_unlocked',
  kinds: ProofKind[],
  by?: Account,
): Promise<void> {
  await audited(ctx, by ?? account, change === 'step_up_locked' ? 'lock second-factor proofs (too many wrong)' : 'unlock second-factor proofs', holder, {
    kinds: kinds.join(','),
  });
  await ctx.service.mail.securityChanged(account.merchant, {
    change,
    detail: `${holder === 'owner' ? 'the owner' : (account.actor?.label ?? holder)}: ${kinds.join(', ')}`,
    modes: MODES,
    by: by ?? account,
    concerned: { person: holder },
  });
}

/**
 * One proof of the person's second factor, for a step-up or the sign-in's second step: counted
 * per person and kind (a lock audited and e-mailed; a recovery code lifts them and is e-mailed,
 * as it was not the person if they did not use it). Answers what it was proved with.
 */
export async function proveAs(
  ctx: ProofCtx,
  session: { account: Account; who: Who },
  proof: { passkey?: Record<string, unknown>; code?: string; recovery_code?: string },
): Promise<string> {
  const proved = await prove(ctx.service.factors, session.who, proof, ctx.service.origin(), ctx.service.now(), (kind) =>
    lockChanged(ctx, session.account, session.who.holder, 'step_up_locked', [kind]),
  );
  if (proved.unlocked.length) await lockChanged(ctx, session.account, session.who.holder, 'step_up_unlocked', proved.unlocked);
  if (!proof.passkey && !proof.code) await told(ctx, session, 'recovery_code_used');
  return proved.with;
}

/**
 * A step-up: the proof, and `for` the one request it opens (its method, path and
 * body; the mode is this request's x-mode). That request, sent within five minutes, takes it
 * once; no other request is opened by it. A new step-up replaces the last.
 */
export const stepUp: Handler<{ body: typeof StepUpBody }> = async (ctx) => {
  const session = await me(ctx);
  const nowMs = ctx.service.now();
  const { method, path, body } = ctx.body.for;
  const proved = await proveAs(ctx, session, ctx.body);
  await ctx.service.dashboard.steppedUp(session.token, actionDigest(session.account.mode, method, path, body), nowMs);
  const action = `${method.toUpperCase()} ${new URL(path, 'http://any.invalid').pathname}`;
  await audited(ctx, session.account, 'POST /dashboard/api/step-up', undefined, {
    with: ctx.body.passkey ? 'passkey' : ctx.body.code ? 'totp' : 'recovery_code',
    for: action,
    mode: session.account.mode,
  });
  return ok(
    200,
    { for: action, mode: session.account.mode, until: iso(nowMs + STEP_UP_MS) },
    `Confirmed with ${proved}: ${action} may be sent once, in the next five minutes`,
  );
};

/** The owner lifts a member's locks: their wrong tries forgotten, each kind usable again. */
export const unlock: Handler<{ body: typeof UnlockBody }> = async (ctx) => {
  const session = await me(ctx);
  if (session.account.actor) throw new Forbidden("Only the owner unlocks a member's second factor");
  await freshFactor(ctx, session.account);
  const member = (await ctx.service.mail.people(session.who.merchantId)).find((p) => p.person === ctx.body.member.toLowerCase() && p.person !== 'owner');
  if (!member) throw new NotFound('No such member');
  const lifted = await ctx.service.factors.clearTries({ merchantId: session.who.merchantId, holder: member.person });
  if (lifted.length)
    await lockChanged(
      ctx,
      { ...session.account, actor: { kind: 'member', id: member.person, label: member.email } },
      member.person,
      'step_up_unlocked',
      lifted,
      session.account,
    );
  return ok(200, { unlocked: lifted }, lifted.length ? `Unlocked: ${lifted.join(', ')}` : 'Nothing of theirs was locked');
};

/** Proofs are guessed no faster than passwords: per client address, with the sign-ins' allowance. */
const GUESSES: RouteCheck[] = [
  rateLimited({
    limiter: (service) => service.signIns,
    key: ({ req, service }) => clientOf(req, service.config.trustProxies),
    afterBody: true,
    message: (wait) => `Too many tries from this address; try again in ${wait} s`,
  }),
];

// The dashboard's own routes (auth 'none': the session is checked by each handler), not in the merchants' reference.
export const routes = [
  route({
    method: 'GET',
    path: '/dashboard/api/factors',
    auth: 'none',
    handler: listFactors,
    summary: "my second factors, recovery codes left, the owner's requirement, my step-up",
  }),
  route({
    method: 'POST',
    path: '/dashboard/api/factors/passkey/options',
    auth: 'none',
    handler: passkeyStart,
    summary: 'options to create a passkey (a single-use challenge, five minutes)',
  }),
  route({
    method: 'POST',
    path: '/dashboard/api/factors/passkey',
    auth: 'none',
    handler: passkeyFinish,
    body: PasskeyBody,
    checks: GUESSES,
    summary: 'the new passkey: added (recovery codes with the first factor, shown once)',
  }),
  route({
    method: 'POST',
    path: '/dashboard/api/factors/totp/options',
    auth: 'none',
    handler: totpStart,
    summary: 'a new authenticator secret and its otpauth:// URI',
  }),
  route({
    method: 'POST',
    path: '/dashboard/api/factors/totp',
    auth: 'none',
    handler: totpFinish,
    body: TotpBody,
    checks: GUESSES,
    summary: "the app's first code: added (recovery codes with the first factor, shown once)",
  }),
  route({
    method: 'POST',
    path: '/dashboard/api/factors/recovery-codes',
    auth: 'none',
    handler: recoveryCodes,
    summary: 'new recovery codes, shown once (after a step-up)',
  }),
  route({ method: 'DELETE', path: '/dashboard/api/factors/:id', auth: 'none', handler: removeFactor, summary: 'remove a second factor (after a step-up)' }),
  route({
    method: 'PUT',
    path: '/dashboard/api/factors/policy',
    auth: 'none',
    handler: setPolicy,
    body: PolicyBody,
    summary: 'the owner: require a second factor of every member',
  }),
  route({
    method: 'POST',
    path: '/dashboard/api/factors/unlock',
    auth: 'none',
    handler: unlock,
    body: UnlockBody,
    summary: 'the owner: unlock a member locked out of step-up by wrong tries (after a step-up)',
  }),
  route({
    method: 'POST',
    path: '/dashboard/api/step-up/options',
    auth: 'none',
    handler: stepUpStart,
    summary: 'options to confirm with a passkey (a single-use challenge)',
  }),
  route({
    method: 'POST',
    path: '/dashboard/api/step-up',
    auth: 'none',
    handler: stepUp,
    body: StepUpBody,
    checks: GUESSES,
    summary: "a passkey's answer, an authenticator code or a recovery code, for one request: it may be sent once, in the next five minutes",
  }),
];
