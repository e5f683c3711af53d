// Products and prices (secret key or the dashboard's session): make, list, read, rename or
// archive a product; add a price to it; read a price. A standard link's cart takes these
// prices' ids (and the seeded catalogue's), never another merchant's nor an archived one.
import { PriceBody, ProductBody, ProductsQuery, ProductUpdateBody } from '../../contract/products.ts';
import { invalidField, NotFound } from '../domain/errors.ts';
import { readJson } from '../http/body.ts';
import { ok } from '../http/respond.ts';
import { parse } from '../http/validate.ts';
import type { StoredPrice, StoredProduct } from '../storage/products.ts';
import type { Handler } from './context.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const idOf = (raw: string, field = 'id') => {
  if (!UUID.test(raw)) throw invalidField(field, `expected an id (a UUID), received ${JSON.stringify(raw.slice(0, 40))}`);
  return raw.toLowerCase();
};

const iso = (ms: number) => new Date(ms).toISOString();
const priceView = (p: StoredPrice) => ({ id: p.id, productId: p.productId, currency: p.currency, amount: p.amount, archived: p.archived, createdAt: iso(p.createdMs) });
const productView = (p: StoredProduct) => ({
  id: p.id, name: p.name, description: p.description, archived: p.archived, createdAt: iso(p.createdMs), updatedAt: iso(p.updatedMs), prices: p.prices.map(priceView),
});

export const createProduct: Handler = async ({ req, account, service }) => {
  const body = parse(ProductBody, await readJson(req));
  const product = await service.products.create(account, { name: body.name.trim(), description: body.description ?? '', prices: body.prices ?? [] }, service.now());
  return ok(201, productView(product), 'Product created');
};

export const listProducts: Handler = async ({ query, account, service }) => {
  const q = parse(ProductsQuery, Object.fromEntries(query), 'query');
  const limit = q.limit === undefined ? 25 : Number(q.limit);
  const after = q.cursor === undefined ? undefined : { createdMs: Number(q.cursor.split('.')[0]), id: q.cursor.slice(q.cursor.indexOf('.') + 1) };
  const rows = await service.products.list(account, after, limit + 1);
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return ok(200, page.map(productView), 'Products', { next: rows.length > limit && last ? `${last.createdMs}.${last.id}` : null });
};

export const getProduct: Handler = async ({ params, account, service }) => {
  const product = await service.products.get(account, idOf(params.id));
  if (!product) throw new NotFound(`No product ${params.id}`);
  return ok(200, productView(product), 'Product');
};

export const updateProduct: Handler = async ({ req, params, account, service }) => {
  const id = idOf(params.id);
  const body = parse(ProductUpdateBody, await readJson(req));
  const product = await service.products.update(account, id, { ...body, name: body.name?.trim() }, service.now());
  if (!product) throw new NotFound(`No product ${params.id}`);
  return ok(200, productView(product), body.archived ? 'Product archived: its prices stay on existing links and are not offered to new carts' : 'Product updated');
};

export const addPrice: Handler = async ({ req, params, account, service }) => {
  const id = idOf(params.id);
  const body = parse(PriceBody, await readJson(req));
  const price = await service.products.addPrice(account, id, body, service.now());
  if (!price) throw new NotFound(`No product ${params.id}`);
  return ok(201, priceView(price), 'Price created: a standard link\'s cart takes its id');
};

export const getPrice: Handler = async ({ params, account, service }) => {
  const price = await service.products.price(account, idOf(params.id));
  if (!price) throw new NotFound(`No price ${params.id}`);
  return ok(200, priceView(price), 'Price');
};
