// The payment-link endpoints of the spec. Secret key (or the dashboard's session) for
// everything a merchant server does; reading a link under /pay/ also takes the public key, as
// a payment page does.
import * as z from 'zod/mini';
import { answer, Done } from '../../contract/api.ts';
import {
  DonationLink,
  DonationLinkForm,
  DonationLinkUpdateBody,
  isUuid,
  LinkById,
  LinkBySlug,
  LinkList,
  LinkStatusBody,
  StandardLinkBody,
  StandardLinkCreated,
  StandardLinkUpdateBody,
  uuid,
} from '../../contract/payment-links.ts';
import { Qr } from '../../contract/schemas.ts';
import { invalidField } from '../domain/errors.ts';
import { applyCommon, assertCartOrCharge, assertType, buildCart, linkPages, newLink } from './rules.ts';
import { cursorText, keysetOf, pageOf, UUID } from '../http/cursor.ts';
import { LinksQuery } from '../http/queries.ts';
import { ok } from '../http/respond.ts';
import { byIdView, bySlugView, donationView, linkUrl, listItemView, standardCreatedView } from './views.ts';
import { qrView } from '../payments/qr.ts';
import { createDonationLink } from './donation.ts';
import type { Ctx, Handler as AnyHandler, Schemas } from '../api/context.ts';
import { route } from '../api/route.ts';

/** The parts of the service these routes use: their handlers are given these alone. */
type Uses = 'links' | 'now' | 'origin';
type Handler<S extends Schemas = {}> = AnyHandler<S, Uses>;

const COVER_PHOTO_BYTES = 2 * 1024 * 1024;

const cartOf = async (ctx: Pick<Ctx<{}, Uses>, 'account' | 'service'>, entries: Parameters<typeof buildCart>[0]) => {
  const lines: number[] = [];
  for (let i = 0; i < entries.length; i++) lines.push(await ctx.service.links.nextLineId());
  return buildCart(entries, await ctx.service.links.prices(ctx.account), () => lines.shift()!, ctx.service.now());
};

export const getLink: Handler = async ({ params, account, service }) => {
  const link = await service.links.own(account, params.key);
  // Told apart by form: a UUID is an id, anything else a slug.
  return ok(200, isUuid(params.key) ? byIdView(link) : bySlugView(link, account.merchant, service.origin()), 'Payment link found');
};

export const listLinks: Handler<{ query: typeof LinksQuery }> = async ({ query: q, account, service }) => {
  if (q.limit !== undefined && q.page_size !== undefined)
    throw invalidField('page_size', "expected limit or page_size, not both (page_size is the spec's name for limit)");
  if (q.cursor !== undefined && q.page !== undefined) throw invalidField('page', 'expected page or cursor, not both');
  const size = Number(q.limit ?? q.page_size ?? 10);
  const from = q.cursor === undefined ? { page: Number(q.page ?? 1) } : { after: keysetOf('links', q.cursor, UUID) };
  const { links, count, above } = await service.links.list(account, size, from);
  const { page, ...paging } = pageOf(links, size, (l) => cursorText('links', l.createdMs, l.id));
  return { status: 200, body: { status: 'success', statusCode: 200, data: page.map(listItemView), ...linkPages(count, above, size), ...paging } };
};

/** A link by its id, as the spec says (a UUID): never a slug, so `pay/{key}` and `{id}/status` or `{id}/qr` cannot both match one path. */
const ByLinkId = z.object({ id: uuid });

/** A link's address as a QR code (an SVG path, as a payment's), for the merchant to print or show. */
export const linkQr: Handler<{ params: typeof ByLinkId }> = async ({ params, account, service }) => {
  const link = await service.links.own(account, params.id);
  return ok(200, qrView(linkUrl(service.origin(), link)), 'QR code');
};

export const setLinkStatus: Handler<{ body: typeof LinkStatusBody; params: typeof ByLinkId }> = async ({ body: { is_active }, params, account, service }) => {
  const link = await service.links.own(account, params.id);
  link.isActive = is_active;
  link.updatedMs = service.now();
  await service.links.save(link);
  return ok(200, undefined, 'Payment link status updated');
};

export const createStandard: Handler<{ body: typeof StandardLinkBody }> = async (ctx) => {
  const { account, service, body } = ctx;
  assertCartOrCharge(!!body.cart?.length, !!body.charge);
  const link = newLink(account, 'standard', body.title, service.now());
  applyCommon(link, body, service.now());
  if (body.cart?.length) link.cart = await cartOf(ctx, body.cart);
  else link.charge = { amount: String(body.charge!.amount), currency: body.charge!.currency };
  await service.links.save(link);
  return ok(201, standardCreatedView(link, service.origin()), 'Payment link created successfully');
};

export const updateStandard: Handler<{ body: typeof StandardLinkUpdateBody }> = async (ctx) => {
  const { account, service, body } = ctx;
  const link = await service.links.own(account, body.id);
  assertType(link, 'standard');
  if (body.title !== undefined) link.title = body.title;
  applyCommon(link, { ...body, action: body.action && { ...body.action, show_confirmation_page: body.action.confirmation_page } }, service.now());
  if (body.cart?.length) {
    link.cart = await cartOf(ctx, body.cart);
    link.charge = undefined;
  }
  await service.links.save(link);
  return ok(200, standardCreatedView(link, service.origin()), 'Payment link updated');
};

export const createDonation: Handler<{ body: typeof DonationLinkForm }> = async ({ account, service, body, files }) => {
  const link = await createDonationLink(service, account, body, files.get('cover_photo'));
  return ok(201, donationView(link, service.origin()), 'Donation link created successfully');
};

export const updateDonation: Handler<{ body: typeof DonationLinkUpdateBody }> = async ({ body, account, service }) => {
  const link = await service.links.own(account, body.id);
  assertType(link, 'donation');
  if (body.is_active !== undefined) link.isActive = body.is_active;
  applyCommon(link, body, service.now());
  await service.links.save(link);
  return ok(200, donationView(link, service.origin()));
};

const tag = 'Payment links' as const;
const standard = { body: StandardLinkBody, responses: { 201: answer(StandardLinkCreated) } };
const standardUpdate = { body: StandardLinkUpdateBody, responses: { 200: answer(StandardLinkCreated) }, errors: [404, 409] };

export const routes = [
  route({
    method: 'GET',
    path: '/api/v1/payment_links',
    auth: 'merchant',
    permission: 'payments.read',
    handler: listLinks,
    tag,
    summary: "the merchant's links, a page at a time",
    description:
      "Newest first. Pages as every list does: `cursor` is `next` of the page before (opaque; `next` is null and `has_more` false on the last page), `limit` 1–100 (10). The spec's page fields stay: `page` (instead of `cursor`) and `page_size` (the same as `limit`) page by number, and every answer also has `count`, `currentPage`, `nextPage`, `prevPage`, `lastPage`.",
    query: LinksQuery,
    responses: { 200: LinkList },
  }),
  route({
    method: 'GET',
    path: '/api/v1/payment_links/pay/:key',
    auth: 'either',
    permission: 'payments.read',
    handler: getLink,
    tag,
    summary: 'a link by slug, or by id',
    description:
      "By slug: the detail by slug (`params`, `businessName`, `url`, …). By id (a UUID): the detail by id (`linkType`, `options`, `action.confirmationPage`, …). Answers keep the spec's field names, its inconsistencies included (`allowPromo`/`allowPromotion`, `showConfirmationPage`/`confirmationPage`, `coverPhoto`/`image`, `webSiteUrl`/`websiteUrl`).",
    responses: { 200: answer(z.union([LinkBySlug, LinkById])) },
  }),
  route({
    method: 'POST',
    path: '/api/v1/payment_links/standard',
    auth: 'merchant',
    permission: 'payments.write',
    handler: createStandard,
    tag,
    summary: 'create a standard link',
    description:
      'A `cart` of `{ price_id, quantity, quantity_adjustable }` (prices of `POST /api/v1/products/{id}/prices` or the seeded catalogue), or (ours) a `charge` `{ amount, currency }`.',
    ...standard,
  }),
  route({
    method: 'PUT',
    path: '/api/v1/payment_links/standard',
    auth: 'merchant',
    permission: 'payments.write',
    handler: updateStandard,
    tag,
    summary: 'update a standard link',
    description: "`id` plus the fields to change; the action's flag is `confirmation_page`.",
    ...standardUpdate,
  }),
  route({
    method: 'POST',
    path: '/api/v1/payment_links',
    auth: 'merchant',
    permission: 'payments.write',
    handler: createStandard,
    tag,
    summary: "create a standard link (the spec's other path)",
    description: 'The same as `POST /api/v1/payment_links/standard`: the spec shows both paths.',
    ...standard,
  }),
  route({
    method: 'PUT',
    path: '/api/v1/payment_links',
    auth: 'merchant',
    permission: 'payments.write',
    handler: updateStandard,
    tag,
    summary: "update a standard link (the spec's other path)",
    description: 'The same as `PUT /api/v1/payment_links/standard`: the spec shows both paths.',
    ...standardUpdate,
  }),
  route({
    method: 'POST',
    path: '/api/v1/payment_links/donation',
    auth: 'merchant',
    permission: 'payments.write',
    handler: createDonation,
    tag,
    summary: 'create a donation link (multipart)',
    description:
      'A multipart form (parsed by busboy): `title`, `description`, `action[…]`, `options[collect_phone]`, `social_links[…]`, `cover_photo` (PNG, JPEG, GIF or WebP, 2 MiB, stored in the database), `business_id`, `website_url`; booleans as the text `true`/`false`.',
    body: DonationLinkForm,
    multipart: { file: 'cover_photo', fileBytes: COVER_PHOTO_BYTES, fieldBytes: 8192, fileWords: 'PNG, JPEG, GIF or WebP, at most 2 MiB' },
    responses: { 201: answer(DonationLink) },
  }),
  route({
    method: 'PUT',
    path: '/api/v1/payment_links/donation',
    auth: 'merchant',
    permission: 'payments.write',
    handler: updateDonation,
    tag,
    summary: 'update a donation link',
    description: 'JSON: `id`, `is_active`, `description`, `options`, `action`, `social_links`, `website_url`; 200, no message.',
    body: DonationLinkUpdateBody,
    responses: { 200: answer(DonationLink) },
    errors: [404],
  }),
  route({
    method: 'PUT',
    path: '/api/v1/payment_links/:id/status',
    auth: 'merchant',
    permission: 'payments.write',
    handler: setLinkStatus,
    tag,
    params: ByLinkId,
    summary: 'activate or deactivate a link',
    description: '`{ "is_active": true | false }` (the spec does not show the body; this is ours).',
    body: LinkStatusBody,
    responses: { 200: Done },
  }),
  route({
    method: 'GET',
    path: '/api/v1/payment_links/:id/qr',
    auth: 'merchant',
    permission: 'payments.read',
    handler: linkQr,
    tag,
    params: ByLinkId,
    summary: "a link's address as a QR code (an SVG path)",
    description: "The link's `url` as a QR code: `uri` is the URL, `path` draws its dark modules.",
    responses: { 200: answer(Qr) },
  }),
];
