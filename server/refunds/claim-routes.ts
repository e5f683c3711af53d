// The customer's side of a refund claim link, served to browsers: the page, its
// script and style, the refund the link opens, and the claim. The link's token is the only
// key: it is hashed and looked up, nothing else of a request names a refund, so one merchant's
// link cannot touch another refund. Each address is checked (EIP-55, not the service's treasury
// nor a deposit address) before the customer confirms it, and again when the refund is claimed.
import { readFile } from 'node:fs/promises';
import { getAddress, isAddress } from 'viem';
import * as z from 'zod/mini';
import { is } from '../../contract/fields.ts';
import { formatUnits } from '../../contract/money.ts';
import { invalidField, NotFound } from '../domain/errors.ts';
import { fromRoot } from '../service/paths.ts';
import { checkClaimable, checkDestination, type StoredRefund } from './rules.ts';
import { claimHashOf, claimRefund } from './use-cases.ts';
import { refundView } from './views.ts';
import { treasuryContext } from './asking.ts';
import { claimLang, claimPage } from './claim-page.ts';
import { PAGE_POLICY } from '../links/page-routes.ts';
import type { Handler as AnyHandler, Schemas } from '../api/context.ts';
import { route } from '../api/route.ts';

/** The parts of the service these routes use: their handlers are given these alone. */
type Uses = 'catalog' | 'merchants' | 'now' | 'ownAddresses' | 'refunds' | 'refundTransactions' | 'treasury';
type Handler<S extends Schemas = {}> = AnyHandler<S, Uses>;

const ASSETS = fromRoot('server/hosted/assets/');
const TYPES: Record<string, string> = { 'refund.js': 'text/javascript; charset=utf-8', 'refund.css': 'text/css; charset=utf-8' };
const SAFE_HEADERS = { 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer' };

export const page: Handler = async ({ req, res }) => {
  const lang = claimLang(new URL(req.url ?? '/', 'http://x').searchParams.get('lang'), req.headers['accept-language']);
  res
    .writeHead(200, {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'content-security-policy': PAGE_POLICY,
      'content-language': lang,
      ...SAFE_HEADERS,
    })
    .end(claimPage(lang));
  return undefined;
};

export const asset: Handler = async ({ params, res }) => {
  if (!TYPES[params.name]) throw new NotFound(`No asset ${params.name}`);
  res.writeHead(200, { 'content-type': TYPES[params.name], 'cache-control': 'no-cache', ...SAFE_HEADERS }).end(await readFile(ASSETS + params.name));
  return undefined;
};

const token = is<string>((v) => typeof v === 'string' && /^[A-Za-z0-9_-]{43}$/.test(v), 'the 43 characters after # in the refund link');
export const DetailsBody = z.object({ token });
export const ClaimBody = z.object({
  token,
  address: is<string>((v) => typeof v === 'string' && v.length <= 100, 'an address as text'),
  confirm: z.optional(z.boolean()),
});

const found = async (service: Parameters<Handler>[0]['service'], text: string): Promise<StoredRefund> => {
  const refund = await service.refunds.byClaim(claimHashOf(text));
  if (!refund)
    throw new NotFound('token: no refund has this link: check it was copied whole', [{ field: 'token', message: 'expected the token of a refund link' }]);
  return refund;
};

/** What the link opens: who refunds, how much of which coin on which network, until when. Nothing of the merchant's customer or payment beyond it. */
export const details: Handler<{ body: typeof DetailsBody }> = async ({ body, service }) => {
  const refund = await found(service, body.token);
  checkClaimable(refund, service.now());
  const merchant = await service.merchants.byId(refund.merchantId);
  const mode = refund.mode as 'test' | 'live';
  const network = service.catalog.coin(mode, refund.coin, refund.chainId)?.network ?? service.catalog.network(mode, refund.chainId)?.name;
  return {
    status: 200,
    body: {
      business: merchant?.businessName ?? '',
      amount: formatUnits(refund.amount, refund.decimals),
      coin: refund.coin,
      network: network ?? `chain ${refund.chainId}`,
      chain_id: refund.chainId,
      test: refund.mode === 'test',
      expires_at: new Date(refund.claimExpiresMs ?? 0).toISOString(),
    },
  };
};

/**
 * The customer's address checked (EIP-55 when mixed case; not the service's treasury nor a
 * deposit address), and answered checksummed for the confirm step; with `confirm: true` the
 * refund is claimed: ready, sent by the treasury.
 */
export const claim: Handler<{ body: typeof ClaimBody }> = async ({ body, service }) => {
  const refund = await found(service, body.token);
  const raw = body.address.trim();
  if (!/^0x[0-9a-fA-F]{40}$/.test(raw) || /^0x0{40}$/.test(raw))
    throw invalidField('address', 'expected 0x followed by 40 hexadecimal digits, not the zero address');
  if (!isAddress(raw, { strict: true }) && raw.slice(2) !== raw.slice(2).toLowerCase())
    throw invalidField('address', 'expected a valid EIP-55 checksum (mixed case), or all lower case');
  const address = getAddress(raw.toLowerCase());
  const context = treasuryContext({ treasury: service.treasury, ownAddresses: service.ownAddresses }, refund.mode as 'test' | 'live');
  if (!body.confirm) {
    checkClaimable(refund, service.now());
    checkDestination({ own: context.ownAddress(address), isDepositAddress: await service.refunds.isDepositAddress(address) });
    return { status: 200, body: { address, confirmed: false } };
  }
  const ready = await claimRefund(service.refundTransactions, refund, address, context, service.now(), refundView);
  return { status: 200, body: { address: ready.address, confirmed: true, status: ready.state } };
};

// Served to browsers: not in the API's reference (api-doc.ts documents /api/v1 only).
export const routes = [
  route({
    method: 'GET',
    path: '/refund',
    auth: 'none',
    handler: page,
    summary: "a refund claim link's page",
    description: "In English, French or Arabic (`?lang=`, else the browser's); the token is the fragment, read by the page's script.",
  }),
  route({
    method: 'GET',
    path: '/refund/assets/:name',
    auth: 'none',
    handler: asset,
    summary: "the claim page's script and style",
    description: '`refund.js` and `refund.css`.',
  }),
  route({
    method: 'POST',
    path: '/refund/details',
    auth: 'none',
    handler: details,
    body: DetailsBody,
    summary: 'the refund a claim link opens',
    description: '`{ token }`: business, amount, coin, network; 404 naming `token`, 409 `refund_link_used` or `refund_link_expired`.',
  }),
  route({
    method: 'POST',
    path: '/refund/claim',
    auth: 'none',
    handler: claim,
    body: ClaimBody,
    summary: "the customer names the refund's address",
    description:
      '`{ token, address, confirm? }`: the address checked and answered checksummed; with `confirm: true` the refund is claimed (`ready`). 400 naming `address` (format, checksum, the treasury, a deposit address); 409 `refund_link_used` or `refund_link_expired`.',
  }),
];
