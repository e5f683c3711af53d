// The merchant's business as customers see it (secret key or the dashboard's session): its
// name, e-mail and logo. What live customers see changes only with a live key or the owner's
// session (a test key stays in the sandbox); the sign-in e-mail only from the session, with the
// current password, and the previous address is told (an ACCOUNT_EMAIL_CHANGED event). A logo is uploaded as a file, and only an image whose bytes say so
// (PNG, JPEG, GIF, WebP) is kept and served at /files/:id, as cover photos are: an HTML or SVG
// file sent as a "logo" is refused, so it can never be served from our origin.
import * as z from 'zod/mini';
import { BusinessAnswer } from '../../contract/dashboard.ts';
import { WarningsAnswer } from '../../contract/warnings.ts';
import { BusinessBody } from '../../contract/dashboard-requests.ts';
import type { Account, Merchant } from '../domain/account.ts';
import { Forbidden, invalidField, TooMany } from '../domain/errors.ts';
import { updateBusiness } from './business.ts';
import { clientOf } from '../http/client.ts';
import { imageTypeOf } from '../links/rules.ts';
import { ok } from '../http/respond.ts';
import { moneyWarnings } from './warnings-rules.ts';
import type { Handler as AnyHandler, Schemas } from '../api/context.ts';
import { route } from '../api/route.ts';

/** The parts of the service these routes use: their handlers are given these alone. */
type Uses = 'catalog' | 'config' | 'dashboard' | 'events' | 'journal' | 'links' | 'log' | 'merchants' | 'now' | 'origin' | 'readiness' | 'signIns';
type Handler<S extends Schemas = {}> = AnyHandler<S, Uses>;

const LOGO_BYTES = 512 * 1024;
/** The logo's form has no text fields: only the file. */
const LogoForm = z.object({});

const businessView = (merchant: Merchant) => ({
  businessName: merchant.businessName,
  businessEmail: merchant.businessEmail,
  businessLogo: merchant.businessLogo,
});

export const getAccount: Handler = async ({ account, service }) => ok(200, businessView((await service.merchants.byId(account.merchant.id))!), 'Business');

/** A test key changes nothing live customers see. */
function notTestKey(account: Account): void {
  if (account.mode === 'test' && !account.session) {
    throw new Forbidden('A test key cannot change the business live customers see: use the live secret key, or the dashboard');
  }
}

export const updateAccount: Handler<{ body: typeof BusinessBody }> = async ({ req, res, body, account, service }) => {
  notTestKey(account);
  const paced = async () => {
    const wait = await service.signIns.hit(clientOf(req, service.config.trustProxies), res);
    if (wait !== undefined) throw new TooMany(`Too many password attempts from this address; try again in ${wait} s`, wait);
  };
  const asked = { name: body.business_name, email: body.business_email, currentPassword: body.current_password };
  return ok(200, businessView(await updateBusiness(service, account, asked, paced)), 'Business updated');
};

export const putLogo: Handler<{ body: typeof LogoForm }> = async ({ files, account, service }) => {
  notTestKey(account);
  const logo = files.get('logo');
  if (!logo || logo.data.length === 0) throw invalidField('logo', 'expected an image file');
  // The bytes decide, not the declared type nor the file's name.
  const type = imageTypeOf(logo.data);
  if (!type) throw invalidField('logo', `expected a PNG, JPEG, GIF or WebP image, received ${logo.contentType.slice(0, 60)} that is not one`);
  const id = await service.links.addFile(account, type, logo.data, service.now());
  const merchant = await service.merchants.updateProfile(account.merchant.id, { businessLogo: `${service.origin()}/files/${id}` });
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

export const routes = [
  route({
    method: 'GET',
    path: '/api/v1/account',
    auth: 'merchant',
    permission: 'account.read',
    handler: getAccount,
    tag: 'Account',
    summary: 'the business: name, e-mail, logo',
    description: '`businessName`, `businessEmail`, `businessLogo` (a URL or "").',
    responses: { 200: BusinessAnswer },
  }),
  route({
    method: 'PATCH',
    path: '/api/v1/account',
    auth: 'merchant',
    permission: 'account.write',
    handler: updateAccount,
    tag: 'Account',
    summary: 'a new business name or e-mail',
    description:
      "What live customers see changes only with a live key or the owner's session: a test key gets 403. The e-mail is the one the owner signs in to the dashboard with, so it changes only from the session with `current_password` (a key gets 403), and the previous address is told (ACCOUNT_EMAIL_CHANGED); another business's address is a 409.",
    body: BusinessBody,
    responses: { 200: BusinessAnswer },
    errors: [403, 'email_in_use', 429],
    // Its body may hold the owner's password: no digest of it is kept (the name and e-mail it sets are the same again anyway).
    idempotency: false,
  }),
  route({
    method: 'GET',
    path: '/api/v1/account/warnings',
    auth: 'merchant',
    permission: 'account.read',
    handler: getWarnings,
    tag: 'Account',
    summary: 'what blocks money: no webhook URL, no payout address, a failing webhook endpoint, the service not ready',
    description:
      "Each `{ code, message, params }`; empty when nothing blocks money. `message` is the sentence in English; `params` the names and numbers it holds (`mode`; `network`, `chainId`; `status` or `error`, `at`; `checks`, how many readiness checks fail), for saying it in another language. `no_webhook_url`: events wait for one; `no_payout_address`: the mode's network has none (and payments settle to the wallet); `webhook_failing`: the latest delivery was not answered 2xx; `not_ready`: a readiness check fails.",
    responses: { 200: WarningsAnswer },
  }),
  route({
    method: 'PUT',
    path: '/api/v1/account/logo',
    auth: 'merchant',
    permission: 'account.write',
    handler: putLogo,
    tag: 'Account',
    summary: "upload the business's logo (multipart; an image, sniffed)",
    description:
      "A live key or the owner's session (a test key gets 403). A multipart form with the file `logo` (PNG, JPEG, GIF or WebP by its bytes, at most 512 KiB; HTML, SVG or anything else is refused, 400 naming `logo`). It is served at `/files/{id}`, and `businessLogo` is that URL.",
    body: LogoForm,
    multipart: { file: 'logo', fileBytes: LOGO_BYTES, fieldBytes: 1024, fileWords: 'PNG, JPEG, GIF or WebP, at most 512 KiB' },
    responses: { 200: BusinessAnswer },
    errors: [403],
  }),
];
