// The operator's endpoints, behind the operator token: merchants made and listed while the
// service runs (their keys work at once: every request reads keys from the database), and the
// Prometheus metrics.
import { MerchantCreateBody, WithdrawalLimitBody } from '../../contract/operator.ts';
import { readJson } from '../http/body.ts';
import { invalidField, NotFound } from '../domain/errors.ts';
import { ok } from '../http/respond.ts';
import { parse } from '../http/validate.ts';
import { SIGN_IN_LINK_MS } from '../domain/sign-in.ts';
import type { Handler, ServiceParts } from './context.ts';
import type { Account } from '../domain/account.ts';

export const createMerchant: Handler = async ({ req, service }) => {
  const body = parse(MerchantCreateBody, await readJson(req));
  const created = await service.merchants.create({ businessName: body.name.trim(), businessEmail: body.email.trim(), businessLogo: body.logo ?? '' }, service.now());
  service.log.info({ merchant: created.id }, 'merchant created by the operator');
  const { id, businessName, businessEmail, keys, webhookSecrets } = created;
  const signInUrl = await signInUrlFor(service, id);
  return ok(201, { id, businessName, businessEmail, keys, webhookSecrets, signInUrl }, 'Merchant created: the secret keys and the sign-in link are shown this once');
};

/**
 * The dashboard's one-time sign-in link on the public origin, valid 24 hours, where the owner
 * sets a password. Its token is in the #fragment: browsers never send it in a request line,
 * a log or a Referer; the page posts it once. Only its hash is kept.
 */
async function signInUrlFor(service: ServiceParts, merchantId: string): Promise<string | undefined> {
  const token = await service.dashboard.issueLink(merchantId, service.now(), SIGN_IN_LINK_MS);
  return token && `${service.origin()}/dashboard/welcome#token=${token}`;
}

/** A new sign-in link for a merchant's owner (a forgotten password): earlier links stop working; the password changes only when it is used. */
export const signInLink: Handler = async ({ params, service }) => {
  const id = params.id;
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) throw invalidField('id', `expected a merchant id (a UUID, as merchant list shows), received ${JSON.stringify(id.slice(0, 40))}`);
  const signInUrl = await signInUrlFor(service, id);
  if (!signInUrl) throw new NotFound(`No merchant ${id}`);
  service.log.info({ merchant: id }, 'dashboard sign-in link issued by the operator');
  return ok(201, { id, signInUrl }, 'A one-time sign-in link, valid 24 hours: shown this once');
};

/** Prometheus's text format; the operator token, as a scraper's bearer token. */
export const metrics: Handler = async ({ res, service }) => {
  const { contentType, text } = await service.metrics.scrape();
  res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' }).end(text);
  return undefined;
};

/** New secret keys for a merchant who lost (or leaked) theirs: the old ones stop working now. */
export const rollSecretKeys: Handler = async ({ params, service }) => {
  const id = params.id;
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) throw invalidField('id', `expected a merchant id (a UUID, as merchant list shows), received ${JSON.stringify(id.slice(0, 40))}`);
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
export const setWithdrawalLimit: Handler = async ({ req, params, service }) => {
  const id = params.id;
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) throw invalidField('id', `expected a merchant id (a UUID, as merchant list shows), received ${JSON.stringify(id.slice(0, 40))}`);
  const body = parse(WithdrawalLimitBody, await readJson(req));
  const owner = { merchant: { id } as Account['merchant'], mode: body.mode };
  if (!(await service.withdrawals.setWithdrawalLimit(owner, body.daily, service.now()))) throw new NotFound(`No merchant ${id}`);
  const now = await service.withdrawals.withdrawalLimit(owner);
  service.log.info({ merchant: id, mode: body.mode, daily: now.daily, own: now.set }, 'withdrawal limit set by the operator');
  return ok(200, { id, mode: body.mode, currency: 'USD', daily: now.daily, default: !now.set }, `Daily withdrawal limit in ${body.mode} mode: ${now.daily} USD`);
};
