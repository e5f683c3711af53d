// The operator's endpoints, behind the operator token: merchants made and listed while the
// service runs (their keys work at once: every request reads keys from the database), and the
// Prometheus metrics.
import { MerchantCreateBody } from '../../contract/operator.ts';
import { readJson } from '../http/body.ts';
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

export const listMerchants: Handler = async ({ service }) => ok(200, await service.merchants.list(), 'Merchants');
