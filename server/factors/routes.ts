// A person's second factors and step-up (issue 37), from a dashboard session only (its cookie,
// and on writes its CSRF token and the service's origin, as every session write): list them,
// add a passkey or an authenticator app (recovery codes come with the first, shown once), renew
// the recovery codes, remove one (each change, and each recovery code used, e-mailed to the
// person), and prove one (step-up) before money moves. The owner may require one of every
// member. Adding or removing a factor once you have one needs a step-up first: a stolen
// password alone cannot add the thief's own.
import { PasskeyBody, PolicyBody, StepUpBody, TotpBody, UnlockBody } from '../../contract/factors.ts';
import type { Account } from '../domain/account.ts';
import { Forbidden, NotFound, StepUpRequired } from '../domain/errors.ts';
import { authenticateSession, cookie, sessionCookieName } from '../http/auth.ts';
import { clientOf } from '../http/client.ts';
import { ok } from '../http/respond.ts';
import type { Handler as AnyHandler, Schemas, ServiceParts } from '../routes/context.ts';
import { route, type Limits } from '../routes/route.ts';
import type { SecurityChange } from '../email/use-cases.ts';
import { holderOf, needsStepUp, STEP_UP_MS } from './rules.ts';
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
  return { account, who: { merchantId: account.merchant.id, holder: holderOf(account.actor) }, token, name: account.actor?.label ?? account.merchant.businessEmail };
}

/** Changing one's factors once one has some needs a fresh one, as money moves do. */
function freshFactor(account: Account, nowMs: number): void {
  if (account.secondFactor && needsStepUp('always', account.mode, account.secondFactor, nowMs)) {
    throw new StepUpRequired('Changing your second factors needs one within the last five minutes: confirm with your passkey, authenticator code or a recovery code first');
  }
}

/** Each person's factor changes and step-ups, in both modes' audit logs (they are the person's, not a mode's). */
async function audited(ctx: Ctx, account: Account, action: string, target: string | undefined, values: Record<string, string> = {}): Promise<void> {
  const { service } = ctx;
  const actor = account.actor ?? { kind: 'owner' as const, id: 'owner', label: account.merchant.businessEmail };
  await service.audit.append((['test', 'live'] as const).map((mode) => ({ merchantId: account.merchant.id, mode, atMs: service.now(), actor: { kind: actor.kind, id: actor.id, label: actor.label }, client: clientOf(ctx.req, service.config.trustProxies), action, target, details: { values } })));
}

/** Both feeds' who-may-do-what: a person's factors are not a mode's. */
const MODES = ['test', 'live'] as const;

/** The person and the owner are told their factors changed (an event, and e-mails in their language), whoever made the change. */
const told = (ctx: Ctx, session: Awaited<ReturnType<typeof me>>, change: SecurityChange) =>
  ctx.service.mail.securityChanged(session.account.merchant, { change, detail: `${session.account.actor?.label ?? 'the owner'}'s second factors`, modes: MODES, by: session.account, concerned: { person: session.who.holder } });

const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());

export const listFactors: Handler = async (ctx) => {
  const { account, who } = await me(ctx);
  const { factors } = ctx.service;
  const [mine, left, required] = await Promise.all([factors.factors(who), factors.recoveryCodesLeft(who), factors.required(who.merchantId)]);
  const stepped = account.secondFactor?.steppedUpMs;
  return ok(200, {
    factors: mine.map((f) => ({ id: f.id, kind: f.kind, label: f.label, createdAt: iso(f.createdMs), usedAt: iso(f.usedMs) })),
    recoveryCodesLeft: left,
    required,
    // The owner sets the requirement (the screen shows its switch to them only).
    owner: !account.actor,
    steppedUpUntil: stepped !== undefined && stepped + STEP_UP_MS > ctx.service.now() ? iso(stepped + STEP_UP_MS) : null,
  }, `${mine.length} second factor(s)`);
};

/** After the first factor: its recovery codes (shown once), and the session counts as stepped up (it just proved one). */
async function added(ctx: Ctx, session: Awaited<ReturnType<typeof me>>, made: { id: string; first: boolean }, kind: string) {
  const { service } = ctx;
  const recoveryCodes = made.first ? await renewRecoveryCodes(service.factors, session.who, service.now()) : undefined;
  await service.dashboard.steppedUp(session.token, service.now());
  await audited(ctx, session.account, `POST /dashboard/api/factors/${kind}`, made.id, { kind });
  await told(ctx, session, kind === 'passkey' ? 'passkey_added' : 'totp_added');
  service.log.info({ merchant: session.who.merchantId, kind }, 'second factor added');
  return ok(201, { id: made.id, ...(recoveryCodes ? { recoveryCodes } : {}) }, recoveryCodes ? 'Added. Keep these recovery codes somewhere safe: they are shown this once, and each works once' : 'Added');
}

export const passkeyStart: Handler = async (ctx) => {
  const session = await me(ctx);
  freshFactor(session.account, ctx.service.now());
  return ok(200, await passkeyOptions(ctx.service.factors, session.who, { name: session.name, business: session.account.merchant.businessName }, ctx.service.origin(), ctx.service.now()), 'Create a passkey with these options');
};

export const passkeyFinish: Handler<{ body: typeof PasskeyBody }> = async (ctx) => {
  const session = await me(ctx);
  freshFactor(session.account, ctx.service.now());
  const made = await registerPasskey(ctx.service.factors, session.who, ctx.body.response, ctx.body.label ?? 'Passkey', ctx.service.origin(), ctx.service.now());
  return added(ctx, session, made, 'passkey');
};

export const totpStart: Handler = async (ctx) => {
  const session = await me(ctx);
  freshFactor(session.account, ctx.service.now());
  return ok(200, await totpOptions(ctx.service.factors, session.who, { name: session.name, business: session.account.merchant.businessName }, ctx.service.now()), 'Add this secret to your authenticator app, then send its code');
};

export const totpFinish: Handler<{ body: typeof TotpBody }> = async (ctx) => {
  const session = await me(ctx);
  freshFactor(session.account, ctx.service.now());
  const made = await registerTotp(ctx.service.factors, session.who, ctx.body.code, ctx.body.label ?? 'Authenticator app', ctx.service.now());
  return added(ctx, session, made, 'totp');
};

export const recoveryCodes: Handler = async (ctx) => {
  const session = await me(ctx);
  if (!session.account.secondFactor?.enrolled) throw new NotFound('Add a passkey or an authenticator app first: recovery codes come with it');
  freshFactor(session.account, ctx.service.now());
  const codes = await renewRecoveryCodes(ctx.service.factors, session.who, ctx.service.now());
  await audited(ctx, session.account, 'POST /dashboard/api/factors/recovery-codes', undefined);
  await told(ctx, session, 'recovery_codes');
  return ok(201, { recoveryCodes: codes }, 'New recovery codes, shown this once; the earlier ones no longer work');
};

export const removeFactor: Handler = async (ctx) => {
  const session = await me(ctx);
  freshFactor(session.account, ctx.service.now());
  if (!(await ctx.service.factors.remove(session.who, ctx.params.id))) throw new NotFound('No such second factor of yours');
  await audited(ctx, session.account, 'DELETE /dashboard/api/factors/:id', ctx.params.id);
  await told(ctx, session, 'factor_removed');
  return { status: 204, body: undefined };
};

export const setPolicy: Handler<{ body: typeof PolicyBody }> = async (ctx) => {
  const session = await me(ctx);
  if (session.account.actor) throw new Forbidden('Only the owner requires a second factor of every member');
  freshFactor(session.account, ctx.service.now());
  await ctx.service.factors.setRequired(session.who.merchantId, ctx.body.required, ctx.service.now());
  await audited(ctx, session.account, 'PUT /dashboard/api/factors/policy', undefined, { required: String(ctx.body.required) });
  return ok(200, { required: ctx.body.required }, ctx.body.required ? 'Every member now needs a second factor: those without one are sent to add one before anything else' : 'A second factor is no longer required');
};

export const stepUpStart: Handler = async (ctx) => {
  const session = await me(ctx);
  return ok(200, await stepUpOptions(ctx.service.factors, session.who, ctx.service.origin(), ctx.service.now()), 'Confirm with your passkey');
};

/** A lock of the person's proofs set or lifted (issue 48): in both modes' audit logs, and e-mailed to the person and the owner. */
async function lockChanged(ctx: Ctx, account: Account, holder: string, change: 'step_up_locked' | 'step_up_unlocked', kinds: ProofKind[], by?: Account): Promise<void> {
  await audited(ctx, by ?? account, change === 'step_up_locked' ? 'lock second-factor proofs (too many wrong)' : 'unlock second-factor proofs', holder, { kinds: kinds.join(',') });
  await ctx.service.mail.securityChanged(account.merchant, { change, detail: `${holder === 'owner' ? 'the owner' : (account.actor?.label ?? holder)}: ${kinds.join(', ')}`, modes: MODES, by: by ?? account, concerned: { person: holder } });
}

export const stepUp: Handler<{ body: typeof StepUpBody }> = async (ctx) => {
  const session = await me(ctx);
  const nowMs = ctx.service.now();
  const proved = await prove(ctx.service.factors, session.who, ctx.body, ctx.service.origin(), nowMs, (kind) => lockChanged(ctx, session.account, session.who.holder, 'step_up_locked', [kind]));
  if (proved.unlocked.length) await lockChanged(ctx, session.account, session.who.holder, 'step_up_unlocked', proved.unlocked);
  await ctx.service.dashboard.steppedUp(session.token, nowMs);
  await audited(ctx, session.account, 'POST /dashboard/api/step-up', undefined, { with: ctx.body.passkey ? 'passkey' : ctx.body.code ? 'totp' : 'recovery_code' });
  // A recovery code used is told: if it was not the person, their codes are in someone's hands.
  if (!ctx.body.passkey && !ctx.body.code) await told(ctx, session, 'recovery_code_used');
  return ok(200, { steppedUpUntil: iso(nowMs + STEP_UP_MS) }, `Confirmed with ${proved.with}: money may move for five minutes`);
};

/** The owner lifts a member's locks (issue 48): their wrong tries forgotten, each kind usable again. */
export const unlock: Handler<{ body: typeof UnlockBody }> = async (ctx) => {
  const session = await me(ctx);
  if (session.account.actor) throw new Forbidden('Only the owner unlocks a member\'s second factor');
  freshFactor(session.account, ctx.service.now());
  const member = (await ctx.service.mail.people(session.who.merchantId)).find((p) => p.person === ctx.body.member.toLowerCase() && p.person !== 'owner');
  if (!member) throw new NotFound('No such member');
  const lifted = await ctx.service.factors.clearTries({ merchantId: session.who.merchantId, holder: member.person });
  if (lifted.length) await lockChanged(ctx, { ...session.account, actor: { kind: 'member', id: member.person, label: member.email } }, member.person, 'step_up_unlocked', lifted, session.account);
  return ok(200, { unlocked: lifted }, lifted.length ? `Unlocked: ${lifted.join(', ')}` : 'Nothing of theirs was locked');
};

/** Proofs are guessed no faster than passwords: per client address, with the sign-ins' allowance. */
const GUESSES: Limits = {
  rate: [{ limiter: (service) => service.signIns, key: ({ req, service }) => clientOf(req, service.config.trustProxies), afterBody: true, message: (wait) => `Too many tries from this address; try again in ${wait} s` }],
};

// The dashboard's own routes (auth 'none': the session is checked by each handler), not in the merchants' reference.
export const routes = [
  route({ method: 'GET', path: '/dashboard/api/factors', auth: 'none', handler: listFactors, summary: 'my second factors, recovery codes left, the owner\'s requirement, my step-up' }),
  route({ method: 'POST', path: '/dashboard/api/factors/passkey/options', auth: 'none', handler: passkeyStart, summary: 'options to create a passkey (a single-use challenge, five minutes)' }),
  route({ method: 'POST', path: '/dashboard/api/factors/passkey', auth: 'none', handler: passkeyFinish, body: PasskeyBody, limits: GUESSES, summary: 'the new passkey: added (recovery codes with the first factor, shown once)' }),
  route({ method: 'POST', path: '/dashboard/api/factors/totp/options', auth: 'none', handler: totpStart, summary: 'a new authenticator secret and its otpauth:// URI' }),
  route({ method: 'POST', path: '/dashboard/api/factors/totp', auth: 'none', handler: totpFinish, body: TotpBody, limits: GUESSES, summary: 'the app\'s first code: added (recovery codes with the first factor, shown once)' }),
  route({ method: 'POST', path: '/dashboard/api/factors/recovery-codes', auth: 'none', handler: recoveryCodes, summary: 'new recovery codes, shown once (after a step-up)' }),
  route({ method: 'DELETE', path: '/dashboard/api/factors/:id', auth: 'none', handler: removeFactor, summary: 'remove a second factor (after a step-up)' }),
  route({ method: 'PUT', path: '/dashboard/api/factors/policy', auth: 'none', handler: setPolicy, body: PolicyBody, summary: 'the owner: require a second factor of every member' }),
  route({ method: 'POST', path: '/dashboard/api/factors/unlock', auth: 'none', handler: unlock, body: UnlockBody, summary: 'the owner: unlock a member locked out of step-up by wrong tries (after a step-up)' }),
  route({ method: 'POST', path: '/dashboard/api/step-up/options', auth: 'none', handler: stepUpStart, summary: 'options to confirm with a passkey (a single-use challenge)' }),
  route({ method: 'POST', path: '/dashboard/api/step-up', auth: 'none', handler: stepUp, body: StepUpBody, limits: GUESSES, summary: 'a passkey\'s answer, an authenticator code or a recovery code: money may move for five minutes' }),
];
