// The payment-link endpoints of the spec. Secret key for everything a merchant server does;
// reading a link under /pay/ also takes the public key, as the payment page does.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type * as z from 'zod/mini';
import type { KeyMode } from '../../src/options/keys.ts';
import {
  DonationLinkUpdateBody,
  isUuid,
  LinkStatusBody,
  StandardLinkBody,
  StandardLinkUpdateBody,
} from '../../src/wire/links.ts';
import type { Merchant } from './catalog.ts';
import { HttpError, readBody, readJson, sendJson } from './http.ts';
import type { LinkStore } from './links.ts';
import { parseMultipart, type FormFile } from './multipart.ts';

type Auth = (req: IncomingMessage) => { merchant: Merchant; mode: KeyMode };

export interface LinkRouteContext {
  links: LinkStore;
  files: Map<string, FormFile>;
  publicKey: Auth;
  secretKey: Auth;
  parse<S extends z.ZodMiniType>(schema: S, body: unknown): z.output<S>;
  origin(): string;
}

const ok = (res: ServerResponse, statusCode: number, data: unknown, message?: string, extra: object = {}) =>
  sendJson(res, statusCode, { status: 'success', statusCode, ...(message ? { message } : {}), ...extra, data });

const COVER_PHOTO_BYTES = 2 * 1024 * 1024;
const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];

/** Answers the request when it is a payment-link call; returns false otherwise. */
export async function linkRoutes(ctx: LinkRouteContext, req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams): Promise<boolean> {
  const method = req.method ?? 'GET';
  const { links } = ctx;

  const file = /^\/files\/([0-9a-f-]+)$/.exec(path);
  if (method === 'GET' && file) {
    const found = ctx.files.get(file[1]);
    if (!found) throw new HttpError(404, 'No such file');
    res.writeHead(200, { 'content-type': found.contentType, 'cache-control': 'public, max-age=3600' }).end(found.data);
    return true;
  }
  if (!path.startsWith('/api/v1/payment_links')) return false;

  const pay = /^\/api\/v1\/payment_links\/pay\/([^/]+)$/.exec(path);
  if (method === 'GET' && pay) {
    const { merchant, mode } = req.headers.authorization ? ctx.secretKey(req) : ctx.publicKey(req);
    const key = decodeURIComponent(pay[1]);
    const link = links.find(key);
    if (!link || link.merchant !== merchant || link.mode !== mode) throw new HttpError(404, `No payment link ${key}`);
    // Told apart by form: a UUID is an id, anything else a slug.
    if (isUuid(key)) return void ok(res, 200, links.byId(link), 'Payment link found'), true;
    return void ok(res, 200, links.bySlug(link), 'Payment link found'), true;
  }

  const { merchant, mode } = ctx.secretKey(req);
  if (method === 'GET' && path === '/api/v1/payment_links') {
    const number = (name: string, fallback: number, max: number) => {
      const raw = query.get(name);
      const value = raw === null ? fallback : Number(raw);
      if (!Number.isInteger(value) || value < 1 || value > max) {
        throw new HttpError(400, `${name}: expected a whole number from 1 to ${max}, received ${JSON.stringify(raw)}`, [{ field: name, message: `expected 1 to ${max}` }]);
      }
      return value;
    };
    const page = links.list(merchant, mode, number('page', 1, 1_000_000), number('page_size', 10, 100));
    const { items, ...pages } = page;
    return void sendJson(res, 200, { status: 'success', statusCode: 200, data: items.map((l) => links.listItem(l)), ...pages }), true;
  }
  const status = /^\/api\/v1\/payment_links\/([^/]+)\/status$/.exec(path);
  if (method === 'PUT' && status) {
    const { is_active } = ctx.parse(LinkStatusBody, await readJson(req));
    links.setActive(merchant, mode, decodeURIComponent(status[1]), is_active);
    return void sendJson(res, 200, { status: 'success', statusCode: 200, message: 'Payment link status updated' }), true;
  }
  if (path === '/api/v1/payment_links/standard' || path === '/api/v1/payment_links') {
    if (method === 'POST') {
      const link = links.createStandard(merchant, mode, ctx.parse(StandardLinkBody, await readJson(req)));
      return void ok(res, 201, links.standardCreated(link), 'Payment link created successfully'), true;
    }
    if (method === 'PUT') {
      const link = links.updateStandard(merchant, mode, ctx.parse(StandardLinkUpdateBody, await readJson(req)));
      return void ok(res, 200, links.standardCreated(link), 'Payment link updated'), true;
    }
  }
  if (path === '/api/v1/payment_links/donation') {
    if (method === 'POST') {
      const type = req.headers['content-type'] ?? '';
      if (!/^multipart\/form-data/i.test(type)) throw new HttpError(400, 'A donation link is created with a multipart form (cover_photo is a file)');
      const form = parseMultipart(await readBody(req, COVER_PHOTO_BYTES + 64 * 1024), type);
      let image = '';
      const photo = form.files.get('cover_photo');
      if (photo && photo.data.length > 0) {
        if (!IMAGE_TYPES.includes(photo.contentType)) {
          throw new HttpError(400, `cover_photo: expected a PNG, JPEG, GIF or WebP image, received ${photo.contentType}`, [{ field: 'cover_photo', message: 'expected an image' }]);
        }
        const id = randomUUID();
        ctx.files.set(id, photo);
        image = `${ctx.origin()}/files/${id}`;
      }
      const link = links.createDonation(merchant, mode, form.fields, image);
      return void ok(res, 201, links.donation(link), 'Donation link created successfully'), true;
    }
    if (method === 'PUT') {
      const link = links.updateDonation(merchant, mode, ctx.parse(DonationLinkUpdateBody, await readJson(req)));
      return void ok(res, 200, links.donation(link)), true;
    }
  }
  throw new HttpError(404, `No endpoint ${method} ${path}`);
}
