// What the service serves to browsers itself: checkout.js, the hosted payment-link pages
// and their assets, and uploaded cover photos. Pages carry a CSP that allows only this
// origin's scripts and forbids framing; files are never sniffed into something else.
import { clientOf } from '../http/client.ts';
import { cors } from '../http/respond.ts';
import { readFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { is } from '../../contract/fields.ts';
import { startLinkPayment } from './checkout.ts';
import { LinkInactive, NotFound, TooMany } from '../domain/errors.ts';
import type { Link } from './rules.ts';
import { fromRoot } from '../service/paths.ts';
import { builtFile, sendBuilt } from '../http/static.ts';
import { hostedPage, NOT_FOUND_PAGE } from './page-view.ts';
import type { Handler as AnyHandler, Schemas, ServiceParts } from '../api/context.ts';
import { route } from '../api/route.ts';

/** The parts of the service these routes use: their handlers are given these alone. */
type Uses = 'catalog' | 'config' | 'linkCheckouts' | 'links' | 'log' | 'merchants' | 'metrics' | 'now' | 'origin' | 'payments' | 'rates';
type Service = Pick<ServiceParts, Uses>;
type Handler<S extends Schemas = {}> = AnyHandler<S, Uses>;

const ASSETS = fromRoot('server/hosted/assets/');
const TYPES: Record<string, string> = { 'link.js': 'text/javascript; charset=utf-8', 'link.css': 'text/css; charset=utf-8' };

export const PAGE_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  // checkout.js loads ICU's number tables in a data: worker, off the page's thread.
  'worker-src data:',
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

const SAFE_HEADERS = { 'x-content-type-options': 'nosniff', 'referrer-policy': 'strict-origin-when-cross-origin' };

const page = (res: ServerResponse, status: number, html: string) =>
  void res
    .writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'content-security-policy': PAGE_POLICY, ...SAFE_HEADERS })
    .end(html);

/**
 * checkout.js at its stable URL (merchants' script tags): compressed, revalidated by ETag, so a
 * repeat page view costs a 304 and its headers.
 */
export const built =
  (name: string): Handler =>
  async ({ req, res, service }) => {
    const file = await builtFile(service.config.distDir + name);
    if (!file) throw new NotFound(`/${name} is not built yet: run npm run build`);
    sendBuilt(req, res, file, name.endsWith('.js') ? 'text/javascript; charset=utf-8' : 'application/json', 'revalidate', SAFE_HEADERS);
    return undefined;
  };

export const asset: Handler = async ({ params, res }) => {
  if (!TYPES[params.name]) throw new NotFound(`No asset ${params.name}`);
  res.writeHead(200, { 'content-type': TYPES[params.name], 'cache-control': 'no-cache', ...SAFE_HEADERS }).end(await readFile(ASSETS + params.name));
  return undefined;
};

/**
 * The checkout's words in a language other than English, as JSON: the bundle carries only
 * English and fetches the one it needs. Any origin may read them, as it may read the script.
 */
/** The checkout's words in French or Arabic: built beside checkout.js (dist/locales/<lang>.json). */
export const locale: Handler = async ({ req, params, res, service }) => {
  const lang = /^([a-z]{2})\.json$/.exec(params.lang)?.[1];
  const words = lang && (await builtFile(`${service.config.distDir}locales/${lang}.json`));
  if (!words) throw new NotFound(`No words for ${params.lang}: the checkout speaks English, and the languages built into dist/locales/`);
  cors(res);
  sendBuilt(req, res, words, 'application/json; charset=utf-8', { maxAgeSeconds: 300 }, SAFE_HEADERS);
  return undefined;
};

export const file: Handler = async ({ params, res, service }) => {
  const found = await service.links.file(params.id);
  if (!found) throw new NotFound('No such file');
  res
    .writeHead(200, {
      'content-type': found.contentType,
      'cache-control': 'public, max-age=3600',
      'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
      ...SAFE_HEADERS,
    })
    .end(Buffer.from(found.data));
  return undefined;
};

/** A link by slug for a public page: ids are not slugs here. */
async function linkBySlug(service: Service, slug: string): Promise<Link | undefined> {
  const link = await service.links.find(slug);
  return link && link.slug === slug ? link : undefined;
}

export const linkPage: Handler = async ({ params, res, service }) => {
  const link = await linkBySlug(service, params.slug);
  const merchant = link && (await service.merchants.byId(link.merchantId));
  if (!link || !merchant) return page(res, 404, NOT_FOUND_PAGE);
  return page(res, link.isActive ? 200 : 410, hostedPage(link, merchant, service.origin()));
};

/** The page's pay button: the server works out the amount from the link and makes the payment. */
/** The pay button's form as JSON: its fields are read by what the link takes (amountFor). */
const CheckoutBody = is<Record<string, unknown>>((v) => v !== null && typeof v === 'object' && !Array.isArray(v), 'an object');

export const linkCheckout: Handler<{ body: typeof CheckoutBody }> = async ({ req, res, params, service, body }) => {
  const link = await linkBySlug(service, params.slug);
  if (!link) throw new NotFound(`No payment link ${params.slug}`);
  if (!link.isActive) throw new LinkInactive(`Payment link ${link.slug} is deactivated: it cannot receive payments`);
  // Anyone may press the page's button: each press makes a payment, so each client's presses
  // are counted and refused past its allowance.
  const wait = await service.linkCheckouts.perClient.hit(clientOf(req, service.config.trustProxies), res);
  if (wait !== undefined) throw new TooMany(`Too many payments started from this page; try again in ${wait} s`, wait);
  return { status: 201, body: await startLinkPayment(service, link, body) };
};

// Served to browsers: not in the API's reference (api-doc.ts documents /api/v1 only).
export const routes = [
  route({ method: 'GET', path: '/checkout.js', auth: 'none', handler: built('checkout.js'), summary: 'the checkout script' }),
  route({ method: 'GET', path: '/checkout.js.map', auth: 'none', handler: built('checkout.js.map'), summary: 'its source map' }),
  route({
    method: 'GET',
    path: '/checkout/locales/:lang',
    auth: 'none',
    handler: locale,
    summary: "the checkout's words in French or Arabic (fr.json, ar.json)",
    description: 'English is built into the script.',
  }),
  route({
    method: 'GET',
    path: '/hosted/:name',
    auth: 'none',
    handler: asset,
    summary: "the hosted pages' script and style",
    description: '`link.js` and `link.css`.',
  }),
  route({ method: 'GET', path: '/files/:id', auth: 'none', handler: file, summary: 'an uploaded cover photo or logo' }),
  route({
    method: 'GET',
    path: '/pay/:slug',
    auth: 'none',
    handler: linkPage,
    summary: "a payment link's page",
    description:
      "Title, description, cart with adjustable quantities or the fixed charge, or for a donation the cover, social links and an amount; 410 with a notice when the link is deactivated. Under a CSP of `script-src 'self'` and `frame-ancestors 'none'`.",
  }),
  route({
    method: 'POST',
    path: '/pay/:slug/checkout',
    auth: 'none',
    handler: linkCheckout,
    body: CheckoutBody,
    summary: "the page's pay button: a server-priced payment",
    description:
      '`{ email, quantities?, amount?, currency?, phone?, address?, promo? }`: the server works out the amount, refuses an inactive link (409), and answers `{ reference, amount, currency, key }` for the widget. Presses are counted per client address and per link (429).',
  }),
];
