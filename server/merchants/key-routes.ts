// The merchant's own secret key (secret key or the dashboard's session): a new one for the
// caller's mode, shown once, the old one refused now or after a delay.
import { answer } from '../../contract/api.ts';
import { RolledKey } from '../../contract/dashboard.ts';
import { RollKeyBody } from '../../contract/dashboard-requests.ts';
import { ByMember, NewRestrictedKeyAnswer, RestrictedKeyBody, RestrictedKeysAnswer } from '../../contract/team.ts';
import { Done } from '../../contract/api.ts';
import { NotFound } from '../domain/errors.ts';
import type { StepUpRule } from '../factors/rules.ts';
import { lacking, type Grants } from '../domain/permissions.ts';
import { actorOf } from '../audit/rules.ts';
import type { RestrictedKeyRow } from './keys-rules.ts';
import { ok } from '../http/respond.ts';
import { makeRestrictedKey, rollFullKey } from './keys.ts';
import type { Handler as AnyHandler, Schemas } from '../api/context.ts';
import { route } from '../api/route.ts';

/** The parts of the service these routes use: their handlers are given these alone. */
type Uses = 'log' | 'mail' | 'merchants' | 'now';
type Handler<S extends Schemas = {}> = AnyHandler<S, Uses>;

/**
 * Who is stepped up to roll: the owner in live mode; an admin in either mode (with a second
 * factor: the route's memberFactor), for this roll. Any other member is refused by the handler.
 */
const ROLL_STEP_UP: StepUpRule = (account) =>
  account.actor?.kind === 'member' ? lacking(account.grants as Grants | undefined, 'all').length === 0 : account.mode === 'live';

/**
 * A new secret key for the caller's mode. The old one is refused now, or, with
 * `revoke_old_after` seconds (at most a week), keeps working until then so servers can move.
 * The body is optional: no body (or no content-type) is "now".
 */
export const rollKey: Handler<{ body: typeof RollKeyBody }> = async ({ body, account, service }) => {
  const { secretKey, oldKeyValidUntil: until } = await rollFullKey(service, account, body.revoke_old_after ?? 0);
  return ok(
    201,
    { mode: account.mode, secretKey, oldKeyValidUntil: until },
    until ? `New secret key: shown this once; the old one works until ${until}` : 'New secret key: shown this once; the old one no longer works',
  );
};

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const keyView = (k: RestrictedKeyRow) => ({
  id: k.id,
  name: k.name,
  mode: k.mode,
  hint: k.hint,
  permissions: k.permissions,
  createdAt: new Date(k.createdMs).toISOString(),
  createdBy: k.createdBy,
  expiresAt: iso(k.expiresMs),
  lastUsedAt: iso(k.lastUsedMs),
  lastUsedFrom: k.lastUsedFrom,
});

/** A restricted key: never wider than whoever makes it (a member's role, a restricted key's own set). */
export const createRestrictedKey: Handler<{ body: typeof RestrictedKeyBody }> = async ({ body, account, service }) => {
  const made = await makeRestrictedKey(service, account, { name: body.name, permissions: body.permissions, expiresAt: body.expires_at });
  return ok(201, { ...keyView(made), secretKey: made.secretKey }, 'Restricted key: shown this once');
};

export const listRestrictedKeys: Handler = async ({ account, service }) => {
  const keys = await service.merchants.restrictedKeys(account);
  return ok(200, keys.map(keyView), `${keys.length} restricted keys`);
};

export const revokeRestrictedKey: Handler<{ params: typeof ByMember }> = async ({ params, account, service }) => {
  const gone = await service.merchants.revokeRestrictedKey(account, params.id);
  if (!gone) throw new NotFound('No such restricted key in this mode');
  // Its person is told too: a key they rely on stopped.
  await service.mail.securityChanged(account.merchant, {
    change: 'key_revoked',
    detail: `${gone.name} (${account.mode}), by ${actorOf(account).label}`,
    modes: [account.mode],
    by: account,
    target: gone.id,
    concerned: { person: gone.holder ?? undefined },
  });
  return ok(200, undefined, 'Restricted key revoked: it no longer works');
};

export const routes = [
  route({
    method: 'POST',
    path: '/api/v1/keys/restricted',
    auth: 'merchant',
    permission: 'developers.write',
    stepUp: 'live',
    handler: createRestrictedKey,
    tag: 'Account',
    body: RestrictedKeyBody,
    summary: 'a restricted secret key of the mode with the permissions chosen, shown once',
    description:
      "Its `permissions` (docs/team.md) are checked on every request it makes, by each route's declared permission. Never wider than its maker: a member's role or a restricted key's own set (403 `permission_denied` naming what is lacking). Optional `expires_at` (in the future, within a year; a key made by an expiring key expires no later than it, by default with it): from then on the key is refused, 401 saying it expired. Rolling the full key leaves restricted keys alone. The owner and the person it belongs to are told (SECURITY_CHANGED, and e-mail).",
    responses: { 201: NewRestrictedKeyAnswer },
    errors: [403],
    idempotency: 'secret',
  }),
  route({
    method: 'GET',
    path: '/api/v1/keys/restricted',
    auth: 'merchant',
    permission: 'developers.read',
    handler: listRestrictedKeys,
    tag: 'Account',
    summary: "the mode's restricted keys (hints only)",
    description:
      "Each key's id, name, hint (never the key), permissions, `createdBy` (who made it, as the audit log names them: the owner, a member by id and e-mail, or a key by id and hint; null for a key made before this was kept), `expiresAt` (null: never), and `lastUsedAt` and `lastUsedFrom` (when and from which client address it was last used, kept to the minute; null: not yet), oldest first.",
    responses: { 200: RestrictedKeysAnswer },
  }),
  route({
    method: 'DELETE',
    path: '/api/v1/keys/restricted/:id',
    auth: 'merchant',
    permission: 'developers.write',
    handler: revokeRestrictedKey,
    tag: 'Account',
    params: ByMember,
    summary: 'revoke a restricted key at once',
    description: 'Refused from now on, on every instance (the cached account is dropped). 404 for a key of another mode or merchant.',
    responses: { 200: Done },
    errors: [404],
  }),
  route({
    method: 'POST',
    path: '/api/v1/keys/roll',
    auth: 'merchant',
    permission: 'developers.write',
    stepUp: ROLL_STEP_UP,
    memberFactor: true,
    handler: rollKey,
    tag: 'Payments',
    errors: [403],
    summary: 'a new secret key for the mode, shown once; the old one stops working now or after a delay',
    description:
      "The mode's secret key (the one the caller's key or the dashboard's mode names; a test key never touches live keys) is replaced: the new one is answered this once. The old one is refused from now, or, with `revoke_old_after` seconds (at most a week), keeps working until `oldKeyValidUntil`. The body is optional. Public keys stay.",
    body: RollKeyBody,
    optionalBody: true,
    responses: { 201: answer(RolledKey) },
    idempotency: 'secret',
  }),
];
