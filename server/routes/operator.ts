// The operator's endpoints, behind the operator token: merchants made and listed while the
// service runs (their keys work at once: every request reads keys from the database), and the
// Prometheus metrics.
import { MerchantCreateBody } from '../../contract/operator.ts';
import { readJson } from '../http/body.ts';
import { invalidField, NotFound } from '../domain/errors.ts';
import { ok } from '../http/respond.ts';
import { parse } from '../http/validate.ts';
import type { Handler } from './context.ts';

export const createMerchant: Handler = async ({ req, service }) => {
  const body = parse(MerchantCreateBody, await readJson(req));
  const created = await service.merchants.create({ businessName: body.name.trim(), businessEmail: body.email.trim(), businessLogo: body.logo ?? '' }, service.now());
  service.log.info({ merchant: created.id }, 'merchant created by the operator');
  const { id, businessName, businessEmail, keys, webhookSecrets } = created;
  return ok(201, { id, businessName, businessEmail, keys, webhookSecrets }, 'Merchant created: the secret keys are shown this once');
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
