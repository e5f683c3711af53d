// The merchant's business as customers see it (secret key or the dashboard's session): its
// name, e-mail and logo. A logo is uploaded as a file, and only an image whose bytes say so
// (PNG, JPEG, GIF, WebP) is kept and served at /files/:id, as cover photos are: an HTML or SVG
// file sent as a "logo" is refused, so it can never be served from our origin.
import { BusinessBody } from '../../contract/dashboard-requests.ts';
import type { Merchant } from '../domain/account.ts';
import { invalidField } from '../domain/errors.ts';
import { imageTypeOf } from '../domain/links.ts';
import { readJson } from '../http/body.ts';
import { readMultipart } from '../http/multipart.ts';
import { ok } from '../http/respond.ts';
import { parse } from '../http/validate.ts';
import { moneyWarnings } from '../domain/warnings.ts';
import type { Handler } from './context.ts';

const LOGO_BYTES = 512 * 1024;

const businessView = (merchant: Merchant) => ({ businessName: merchant.businessName, businessEmail: merchant.businessEmail, businessLogo: merchant.businessLogo });

export const getAccount: Handler = async ({ account, service }) => ok(200, businessView((await service.merchants.byId(account.merchant.id))!), 'Business');

export const updateAccount: Handler = async ({ req, account, service }) => {
  const body = parse(BusinessBody, await readJson(req));
  const merchant = await service.merchants.updateProfile(
    account.merchant.id,
    { businessName: body.business_name?.trim(), businessEmail: body.business_email?.trim() },
    service.now(),
  );
  service.log.info({ merchant: account.merchant.id }, 'business profile updated');
  return ok(200, businessView(merchant!), 'Business updated');
};

export const putLogo: Handler = async ({ req, account, service }) => {
  if (!/^multipart\/form-data/i.test(req.headers['content-type'] ?? '')) throw invalidField('content-type', 'expected a multipart form (logo is a file)');
  const form = await readMultipart(req, { fileBytes: LOGO_BYTES, fieldBytes: 1024 });
  const logo = form.files.get('logo');
  if (!logo || logo.data.length === 0) throw invalidField('logo', 'expected an image file');
  // The bytes decide, not the declared type nor the file's name.
  const type = imageTypeOf(logo.data);
  if (!type) throw invalidField('logo', `expected a PNG, JPEG, GIF or WebP image, received ${logo.contentType.slice(0, 60)} that is not one`);
  const id = await service.links.addFile(account, type, logo.data, service.now());
  const merchant = await service.merchants.updateProfile(account.merchant.id, { businessLogo: `${service.origin()}/files/${id}` }, service.now());
  service.log.info({ merchant: account.merchant.id, type }, 'business logo uploaded');
  return ok(200, businessView(merchant!), 'Logo saved');
};

/** What blocks the merchant's money in this mode: no webhook URL, no payout address, a failing webhook endpoint, the service not ready. */
export const getWarnings: Handler = async ({ account, service }) => {
  // Each of the mode's networks needs its own payout address: the warnings of each, each said once.
  const networks = service.catalog.networks(account.mode);
  const [endpoint, payoutAddresses, settlement, lastAttempt, checks] = await Promise.all([
    service.merchants.endpoint(account),
    Promise.all(networks.map((network) => service.merchants.payoutAddress(account.merchant.id, account.mode, network.chainId))),
    service.journal.settlement(account.merchant.id, account.mode),
    service.dashboard.lastAttempt(account.merchant.id, account.mode),
    service.readiness(),
  ]);
  const each = (networks.length ? networks : [undefined]).flatMap((network, i) =>
    moneyWarnings({
      mode: account.mode,
      network: network && { chainId: network.chainId, name: network.name },
      webhookUrl: endpoint.url,
      payoutAddress: payoutAddresses[i],
      settlement,
      lastAttempt,
      notReady: checks.filter((c) => !c.ok),
    }),
  );
  const warnings = each.filter((w, i) => each.findIndex((x) => x.message === w.message) === i);
  return ok(200, warnings, warnings.length ? 'Something blocks money' : 'Nothing blocks money');
};
