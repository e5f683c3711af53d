// The payment-link endpoints of the spec. Secret key (or the dashboard's session) for
// everything a merchant server does; reading a link under /pay/ also takes the public key, as
// a payment page does.
import { DonationLinkForm, DonationLinkUpdateBody, isUuid, LinkStatusBody, StandardLinkBody, StandardLinkUpdateBody } from '../../contract/payment-links.ts';
import { invalidField } from '../domain/errors.ts';
import { applyCommon, assertCartOrCharge, assertType, buildCart, imageTypeOf, newLink, type Link } from '../domain/links.ts';
import { readJson } from '../http/body.ts';
import { readMultipart } from '../http/multipart.ts';
import { ok } from '../http/respond.ts';
import { parse } from '../http/validate.ts';
import { byIdView, bySlugView, donationView, linkUrl, listItemView, standardCreatedView } from '../views/links.ts';
import { qrView } from '../views/qr.ts';
import type { Ctx, Handler } from './context.ts';

const COVER_PHOTO_BYTES = 2 * 1024 * 1024;

const cartOf = async (ctx: Ctx, entries: Parameters<typeof buildCart>[0]) => {
  const lines: number[] = [];
  for (let i = 0; i < entries.length; i++) lines.push(await ctx.service.links.nextLineId());
  return buildCart(entries, await ctx.service.links.prices(ctx.account), () => lines.shift()!, ctx.service.now());
};

export const getLink: Handler = async ({ params, account, service }) => {
  const link = await service.links.own(account, params.key);
  // Told apart by form: a UUID is an id, anything else a slug.
  return ok(200, isUuid(params.key) ? byIdView(link) : bySlugView(link, account.merchant, service.origin()), 'Payment link found');
};

const number = (query: URLSearchParams, name: string, fallback: number, max: number) => {
  const raw = query.get(name);
  const value = raw === null ? fallback : Number(raw);
  if (!Number.isInteger(value) || value < 1 || value > max) throw invalidField(name, `expected a whole number from 1 to ${max}, received ${JSON.stringify(raw)}`);
  return value;
};

export const listLinks: Handler = async ({ query, account, service }) => {
  const { items, ...pages } = await service.links.list(account, number(query, 'page', 1, 1_000_000), number(query, 'page_size', 10, 100));
  return { status: 200, body: { status: 'success', statusCode: 200, data: items.map(listItemView), ...pages } };
};

/** A link's address as a QR code (an SVG path, as a payment's), for the merchant to print or show. */
export const linkQr: Handler = async ({ params, account, service }) => {
  const link = await service.links.own(account, params.id);
  return ok(200, qrView(linkUrl(service.origin(), link)), 'QR code');
};

export const setLinkStatus: Handler = async ({ req, params, account, service }) => {
  const { is_active } = parse(LinkStatusBody, await readJson(req));
  const link = await service.links.own(account, params.id);
  link.isActive = is_active;
  link.updatedMs = service.now();
  await service.links.save(link);
  return ok(200, undefined, 'Payment link status updated');
};

export const createStandard: Handler = async (ctx) => {
  const { account, service } = ctx;
  const body = parse(StandardLinkBody, await readJson(ctx.req));
  assertCartOrCharge(!!body.cart?.length, !!body.charge);
  const link = newLink(account, 'standard', body.title, service.now());
  applyCommon(link, body, service.now());
  if (body.cart?.length) link.cart = await cartOf(ctx, body.cart);
  else link.charge = { amount: String(body.charge!.amount), currency: body.charge!.currency };
  await service.links.save(link);
  return ok(201, standardCreatedView(link, service.origin()), 'Payment link created successfully');
};

export const updateStandard: Handler = async (ctx) => {
  const { account, service } = ctx;
  const body = parse(StandardLinkUpdateBody, await readJson(ctx.req));
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

export const createDonation: Handler = async (ctx) => {
  const { account, service } = ctx;
  if (!/^multipart\/form-data/i.test(ctx.req.headers['content-type'] ?? '')) throw invalidField('content-type', 'expected a multipart form (cover_photo is a file)');
  const form = await readMultipart(ctx.req, { fileBytes: COVER_PHOTO_BYTES, fieldBytes: 8192 });
  const fields = parse(DonationLinkForm, Object.fromEntries(form.fields));
  const bool = (value: 'true' | 'false' | undefined) => (value === undefined ? undefined : value === 'true');
  const link: Link = newLink(account, 'donation', fields.title.trim(), service.now());
  applyCommon(
    link,
    {
      description: fields.description,
      options: { collect_phone: bool(fields['options[collect_phone]']) },
      action: {
        redirect: bool(fields['action[redirect]']),
        redirect_url: fields['action[redirect_url]'],
        success_message: fields['action[success_message]'],
        show_confirmation_page: bool(fields['action[show_confirmation_page]']),
      },
      social_links: { facebook: fields['social_links[facebook]'], twitter: fields['social_links[twitter]'], instagram: fields['social_links[instagram]'] },
      website_url: fields.website_url,
    },
    service.now(),
  );
  const photo = form.files.get('cover_photo');
  if (photo && photo.data.length > 0) {
    // The bytes decide, not the part's declared type: a file is served as what it is.
    const type = imageTypeOf(photo.data);
    if (!type) throw invalidField('cover_photo', `expected a PNG, JPEG, GIF or WebP image, received ${photo.contentType.slice(0, 60)} that is not one`);
    const id = await service.links.addFile(account, type, photo.data, service.now());
    link.image = `${service.origin()}/files/${id}`;
  }
  await service.links.save(link);
  return ok(201, donationView(link, service.origin()), 'Donation link created successfully');
};

export const updateDonation: Handler = async ({ req, account, service }) => {
  const body = parse(DonationLinkUpdateBody, await readJson(req));
  const link = await service.links.own(account, body.id);
  assertType(link, 'donation');
  if (body.is_active !== undefined) link.isActive = body.is_active;
  applyCommon(link, body, service.now());
  await service.links.save(link);
  return ok(200, donationView(link, service.origin()));
};
