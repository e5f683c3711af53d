// The operator's endpoints, behind the operator token: merchants made and listed while the
// service runs (their keys work at once: every request reads keys from the database), and the
// Prometheus metrics.
import * as z from 'zod/mini';
import { is } from '../../contract/fields.ts';
import { MerchantCreateBody, MerchantFeeBody, WithdrawalLimitBody } from '../../contract/operator.ts';
import { isUuid } from '../../contract/payment-links.ts';
import { NotFound } from '../domain/errors.ts';
import { ok } from '../http/respond.ts';
import { SIGN_IN_LINK_MS } from './sign-in-rules.ts';
import type { Handler as AnyHandler, Schemas, ServiceParts } from '../api/context.ts';
import type { Account } from '../domain/account.ts';
import { route } from '../api/route.ts';

/** The parts of the service these routes use: their handlers are given these alone. */
type Uses = 'dashboard' | 'fees' | 'log' | 'mail' | 'merchants' | 'metrics' | 'now' | 'origin' | 'withdrawals';
type Service = Pick<ServiceParts, Uses>;
type Handler<S extends Schemas = {}> = AnyHandler<S, Uses>;

const ByMerchant = z.object({ id: is<string>(isUuid, 'a merchant id (a UUID, as merchant list shows)') });
type ByMerchant = { params: typeof ByMerchant };

export const createMerchant: Handler<{ body: typeof MerchantCreateBody }> = async ({ body, service }) => {
  const created = await service.merchants.create(
    { businessName: body.name.trim(), businessEmail: body.email.trim(), businessLogo: body.logo ?? '' },
    service.now(),
  );
  service.log.info({ merchant: created.id }, 'merchant created by the operator');
  const { id, businessName, businessEmail, keys, webhookSecrets } = created;
  const signInUrl = await signInUrlFor(service, id);
  return ok(
    201,
    { id, businessName, businessEmail, keys, webhookSecrets, signInUrl },
    'Merchant created: the secret keys and the sign-in link are shown this once',
  );
};

/**
 * The dashboard's one-time sign-in link on the public origin, valid 24 hours, where the owner
 * sets a password. Its token is in the #fragment: browsers never send it in a request line,
 * a log or a Referer; the page posts it once. Only its hash is kept.
 */
async function signInUrlFor(service: Service, merchantId: string): Promise<string | undefined> {
  const token = await service.dashboard.issueLink(merchantId, service.now(), SIGN_IN_LINK_MS);
  return token && `${service.origin()}/dashboard/welcome#token=${token}`;
}

/** A new sign-in link for a merchant's owner (a forgotten password): earlier links stop working; the password changes only when it is used. */
export const signInLink: Handler<ByMerchant> = async ({ params, service }) => {
  const id = params.id;
  const signInUrl = await signInUrlFor(service, id);
  if (!signInUrl) throw new NotFound(`No merchant ${id}`);
  // Answered to the operator (the way back in when mail fails too) and, with e-mail on, sent to the owner.
  const merchant = await service.merchants.byId(id);
  const emailed = await service.mail.signInLink(id, merchant?.businessName ?? '', signInUrl);
  service.log.info({ merchant: id, emailed }, 'dashboard sign-in link issued by the operator');
  return ok(
    201,
    { id, signInUrl, emailed },
    emailed
      ? 'A one-time sign-in link, valid 24 hours: shown this once, and e-mailed to the owner'
      : 'A one-time sign-in link, valid 24 hours: shown this once; e-mail is off (no SMTP_URL), pass it on by hand',
  );
};

/** Prometheus's text format; the operator token, as a scraper's bearer token. */
export const metrics: Handler = async ({ res, service }) => {
  const { contentType, text } = await service.metrics.scrape();
  res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' }).end(text);
  return undefined;
};

/** New secret keys for a merchant who lost (or leaked) theirs: the old ones stop working now. */
export const rollSecretKeys: Handler<ByMerchant> = async ({ params, service }) => {
  const id = params.id;
  const secretKeys = await service.merchants.rollSecretKeys(id, service.now());
  if (!secretKeys) throw new NotFound(`No merchant ${id}`);
  service.log.info({ merchant: id }, 'secret keys rolled by the operator');
  return ok(201, { id, secretKeys }, 'New secret keys: shown this once; the old ones no longer work');
};

export const listMerchants: Handler = async ({ service }) => ok(200, await service.merchants.list(), 'Merchants');

/**
 * A merchant's ONE daily limit in a mode, in US dollars, on money leaving its balance
 * (withdrawals and bank payouts, every coin and network; null: back to the service's default):
 * a stolen secret key then moves at most that much a day.
 */
export const setWithdrawalLimit: Handler<ByMerchant & { body: typeof WithdrawalLimitBody }> = async ({ body, params, service }) => {
  const id = params.id;
  const owner = { merchant: { id } as Account['merchant'], mode: body.mode };
  if (!(await service.withdrawals.setWithdrawalLimit(owner, body.daily, service.now()))) throw new NotFound(`No merchant ${id}`);
  const now = await service.withdrawals.withdrawalLimit(owner);
  service.log.info({ merchant: id, mode: body.mode, daily: now.daily, own: now.set }, 'withdrawal limit set by the operator');
  return ok(
    200,
    { id, mode: body.mode, currency: 'USD', daily: now.daily, default: !now.set },
    `Daily withdrawal limit in ${body.mode} mode: ${now.daily} USD`,
  );
};

/**
 * The operator's fee on a merchant's new payments in a mode: basis points and who bears it
 * (null: back to FEE_BPS, FEE_BEARER). Payments already made keep theirs (bound into their
 * deposit addresses).
 */
export const setMerchantFee: Handler<ByMerchant & { body: typeof MerchantFeeBody }> = async ({ body, params, service }) => {
  const id = params.id;
  const terms = body.bps === null ? null : { bps: body.bps, bearer: body.bearer ?? 'customer' };
  if (!(await service.fees.set(id, body.mode, terms, service.now()))) throw new NotFound(`No merchant ${id}`);
  const now = await service.fees.terms(id, body.mode);
  service.log.info({ merchant: id, mode: body.mode, bps: now.bps, bearer: now.bearer, own: now.own }, 'fee set by the operator');
  return ok(
    200,
    { id, mode: body.mode, bps: now.bps, bearer: now.bearer, default: !now.own },
    `Fee in ${body.mode} mode: ${now.bps} basis points, borne by the ${now.bearer}`,
  );
};

// The operator's API is not in the merchants' reference (api-doc.ts documents /api/v1 only).
export const routes = [
  route({
    method: 'POST',
    path: '/operator/v1/merchants',
    auth: 'operator',
    handler: createMerchant,
    body: MerchantCreateBody,
    idempotency: 'secret',
    summary: 'operator token: make a merchant, its keys shown this once',
    description:
      '`{ name, email, logo? }`; 201 with its keys, webhook secrets and a one-time dashboard sign-in link, the one time the secret keys are shown (`merchant create`).',
  }),
  route({
    method: 'GET',
    path: '/operator/v1/merchants',
    auth: 'operator',
    handler: listMerchants,
    summary: 'operator token: every merchant',
    description: 'Oldest first (`merchant list`).',
  }),
  route({
    method: 'POST',
    path: '/operator/v1/merchants/:id/secret-keys',
    auth: 'operator',
    handler: rollSecretKeys,
    params: ByMerchant,
    idempotency: 'secret',
    summary: 'operator token: new secret keys for a merchant; the old ones stop working',
    description: 'Test and live, shown this once; the public keys stay, restricted secret keys are revoked (`merchant roll-keys`).',
  }),
  route({
    method: 'PUT',
    path: '/operator/v1/merchants/:id/withdrawal-limits',
    auth: 'operator',
    handler: setWithdrawalLimit,
    params: ByMerchant,
    body: WithdrawalLimitBody,
    summary: "operator token: a merchant's one daily limit, in US dollars per mode, on withdrawals and bank payouts",
    description:
      '`{ mode, daily }`: `daily` in US dollars as decimal text (to the cent), `"0"` allows none, `null` returns to `WITHDRAWAL_DAILY_LIMIT`; every coin and network leaving the balance counts at its rate; answers the limit that now holds (`merchant withdrawal-limit`).',
  }),
  route({
    method: 'PUT',
    path: '/operator/v1/merchants/:id/fees',
    auth: 'operator',
    handler: setMerchantFee,
    params: ByMerchant,
    body: MerchantFeeBody,
    summary: "operator token: the operator's fee on a merchant's new payments, per mode",
    description:
      '`{ mode, bps, bearer? }`: `bps` whole basis points from 0 to 1000 (100 is 1%), `bearer` `customer` (added to the price; the default) or `merchant` (deducted from what it receives), `bps` `null` returns to `FEE_BPS`/`FEE_BEARER`; payments already made keep their terms; answers the terms that now hold (`merchant fee`).',
  }),
  route({
    method: 'POST',
    path: '/operator/v1/merchants/:id/sign-in-link',
    auth: 'operator',
    handler: signInLink,
    params: ByMerchant,
    idempotency: 'secret',
    summary: "operator token: a new one-time dashboard sign-in link (24 h) for a merchant's owner",
    description: 'On `PUBLIC_URL`; earlier links stop working, and using it signs out every session (`merchant sign-in-link --id <merchant id>`).',
  }),
  route({
    method: 'GET',
    path: '/metrics',
    auth: 'operator',
    handler: metrics,
    summary: 'operator token: Prometheus metrics',
    description: "The operator token as a scraper's bearer token.",
  }),
];
