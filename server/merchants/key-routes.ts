// The merchant's own secret key (secret key or the dashboard's session): a new one for the
// caller's mode, shown once, the old one refused now or after a delay.
import { answer } from '../../contract/api.ts';
import { RolledKey } from '../../contract/dashboard.ts';
import { RollKeyBody } from '../../contract/dashboard-requests.ts';
import { ok } from '../http/respond.ts';
import type { Handler as AnyHandler, Schemas } from '../routes/context.ts';
import { route } from '../routes/route.ts';

/** The parts of the service these routes use: their handlers are given these alone. */
type Uses = 'log' | 'merchants' | 'now';
type Handler<S extends Schemas = {}> = AnyHandler<S, Uses>;

/**
 * A new secret key for the caller's mode. The old one is refused now, or, with
 * `revoke_old_after` seconds (at most a week), keeps working until then so servers can move.
 * The body is optional: no body (or no content-type) is "now".
 */
export const rollKey: Handler<{ body: typeof RollKeyBody }> = async ({ body, account, service }) => {
  const delayMs = (body.revoke_old_after ?? 0) * 1000;
  const nowMs = service.now();
  const keys = (await service.merchants.rollSecretKeys(account.merchant.id, nowMs, [account.mode], delayMs))!;
  service.log.info({ merchant: account.merchant.id, mode: account.mode, delaySeconds: delayMs / 1000 }, 'secret key rolled by the merchant');
  const until = delayMs > 0 ? new Date(nowMs + delayMs).toISOString() : null;
  return ok(201, { mode: account.mode, secretKey: keys[account.mode], oldKeyValidUntil: until }, until ? `New secret key: shown this once; the old one works until ${until}` : 'New secret key: shown this once; the old one no longer works');
};

export const routes = [
  route({
    method: 'POST', path: '/api/v1/keys/roll', auth: 'merchant', handler: rollKey, tag: 'Payments',
    summary: 'a new secret key for the mode, shown once; the old one stops working now or after a delay',
    description:
      'The mode\'s secret key (the one the caller\'s key or the dashboard\'s mode names; a test key never touches live keys) is replaced: the new one is answered this once. The old one is refused from now, or, with `revoke_old_after` seconds (at most a week), keeps working until `oldKeyValidUntil`. The body is optional. Public keys stay.',
    body: RollKeyBody, optionalBody: true, responses: { 201: answer(RolledKey) }, idempotency: 'secret',
  }),
];
