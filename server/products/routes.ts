// Products and prices (secret key or the dashboard's session): make, list, read, rename or
// archive a product; add a price to it; read a price. A standard link's cart takes these
// prices' ids (the demo's seeded catalogue is its merchant's products), never another merchant's nor an archived one.
import * as z from 'zod/mini';
import { answer } from '../../contract/api.ts';
import { uuid } from '../../contract/payment-links.ts';
import { Price, PriceBody, Product, ProductBody, ProductsPage, ProductsQuery, ProductUpdateBody } from '../../contract/products.ts';
import { NotFound } from '../domain/errors.ts';
import { cursorText, keysetOf, pageOf, UUID } from '../http/cursor.ts';
import { ok } from '../http/respond.ts';
import type { StoredPrice, StoredProduct } from './store.ts';
import type { Handler as AnyHandler, Schemas } from '../api/context.ts';
import { route } from '../api/route.ts';

/** The parts of the service these routes use: their handlers are given these alone. */
type Uses = 'now' | 'products';
type Handler<S extends Schemas = {}> = AnyHandler<S, Uses>;

/** A product's or price's id in the path: a UUID, in any case. */
const ById = z.object({
  id: z.pipe(
    uuid,
    z.transform((id: string) => id.toLowerCase()),
  ),
});
type ById = { params: typeof ById };

const iso = (ms: number) => new Date(ms).toISOString();
const priceView = (p: StoredPrice) => ({
  id: p.id,
  productId: p.productId,
  currency: p.currency,
  amount: p.amount,
  archived: p.archived,
  createdAt: iso(p.createdMs),
});
const productView = (p: StoredProduct) => ({
  id: p.id,
  name: p.name,
  description: p.description,
  archived: p.archived,
  createdAt: iso(p.createdMs),
  updatedAt: iso(p.updatedMs),
  prices: p.prices.map(priceView),
});

export const createProduct: Handler<{ body: typeof ProductBody }> = async ({ body, account, service }) => {
  const product = await service.products.create(
    account,
    { name: body.name.trim(), description: body.description ?? '', prices: body.prices ?? [] },
    service.now(),
  );
  return ok(201, productView(product), 'Product created');
};

export const listProducts: Handler<{ query: typeof ProductsQuery }> = async ({ query: q, account, service }) => {
  const limit = q.limit === undefined ? 25 : Number(q.limit);
  const after = q.cursor === undefined ? undefined : keysetOf('products', q.cursor, UUID);
  const rows = await service.products.list(account, after, limit + 1);
  const { page, ...paging } = pageOf(rows, limit, (p) => cursorText('products', p.createdMs, p.id));
  return ok(200, page.map(productView), 'Products', paging);
};

export const getProduct: Handler<ById> = async ({ params, account, service }) => {
  const product = await service.products.get(account, params.id);
  if (!product) throw new NotFound(`No product ${params.id}`);
  return ok(200, productView(product), 'Product');
};

export const updateProduct: Handler<ById & { body: typeof ProductUpdateBody }> = async ({ body, params, account, service }) => {
  const id = params.id;
  const product = await service.products.update(account, id, { ...body, name: body.name?.trim() }, service.now());
  if (!product) throw new NotFound(`No product ${params.id}`);
  return ok(
    200,
    productView(product),
    body.archived ? 'Product archived: its prices stay on existing links and are not offered to new carts' : 'Product updated',
  );
};

export const addPrice: Handler<ById & { body: typeof PriceBody }> = async ({ body, params, account, service }) => {
  const id = params.id;
  const price = await service.products.addPrice(account, id, body, service.now());
  if (!price) throw new NotFound(`No product ${params.id}`);
  return ok(201, priceView(price), "Price created: a standard link's cart takes its id");
};

export const getPrice: Handler<ById> = async ({ params, account, service }) => {
  const price = await service.products.price(account, params.id);
  if (!price) throw new NotFound(`No price ${params.id}`);
  return ok(200, priceView(price), 'Price');
};

export const routes = [
  route({
    method: 'GET',
    path: '/api/v1/products',
    auth: 'merchant',
    permission: 'payments.read',
    handler: listProducts,
    tag: 'Products',
    summary: 'the products and their prices, newest first',
    description:
      'Newest first, each with its prices; `cursor` is `next` of the page before (opaque; `next` is null and `has_more` false on the last page); `limit` 1–100 (25).',
    query: ProductsQuery,
    responses: { 200: ProductsPage },
  }),
  route({
    method: 'POST',
    path: '/api/v1/products',
    auth: 'merchant',
    permission: 'payments.write',
    handler: createProduct,
    tag: 'Products',
    summary: 'make a product, with prices',
    description: 'A name, a description and prices (`amount` as text, at most 2 decimals).',
    body: ProductBody,
    responses: { 201: answer(Product) },
  }),
  route({
    method: 'GET',
    path: '/api/v1/products/:id',
    auth: 'merchant',
    permission: 'payments.read',
    handler: getProduct,
    tag: 'Products',
    summary: 'one product and its prices',
    description: "The product by its id, archived or not, with every price it has; 404 for another merchant's or mode's.",
    params: ById,
    responses: { 200: answer(Product) },
  }),
  route({
    method: 'PATCH',
    path: '/api/v1/products/:id',
    auth: 'merchant',
    permission: 'payments.write',
    handler: updateProduct,
    tag: 'Products',
    summary: 'rename, describe or archive a product',
    description:
      "A rename reaches its prices on links. `archived: true` keeps the product's prices off new carts (400 naming `cart.N.price_id`); links that have them keep them.",
    params: ById,
    body: ProductUpdateBody,
    responses: { 200: answer(Product) },
  }),
  route({
    method: 'POST',
    path: '/api/v1/products/:id/prices',
    auth: 'merchant',
    permission: 'payments.write',
    handler: addPrice,
    tag: 'Products',
    summary: "a new price for a product, for links' carts",
    description: "A standard link's cart takes the price's `id` as `price_id` (its own mode's and the seeded catalogue's only, never another merchant's).",
    params: ById,
    body: PriceBody,
    responses: { 201: answer(Price) },
  }),
  route({
    method: 'GET',
    path: '/api/v1/prices/:id',
    auth: 'merchant',
    permission: 'payments.read',
    handler: getPrice,
    tag: 'Products',
    summary: 'one price',
    description: "A price by its id (as a standard link's cart names it): its product, currency and amount; 404 for another merchant's or mode's.",
    params: ById,
    responses: { 200: answer(Price) },
  }),
];
