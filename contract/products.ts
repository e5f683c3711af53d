// Products and their prices (secret key or the dashboard's session): what a standard link's
// cart refers to by price_id. A product is archived rather than deleted: its prices then stay
// on the links that have them, and cannot be added to new carts.
import * as z from 'zod/mini';
import { pageAnswer, pageQuery } from './paging.ts';
import { bool, currency, int, is, later, oneOf, text, timestamp } from './fields.ts';

const envelope = () => ({ status: oneOf(['success']), statusCode: int, message: z.optional(text) });
const name = is<string>((v) => typeof v === 'string' && v.trim().length > 0 && v.length <= 120, 'a title of 1 to 120 characters');
const description = is<string>((v) => typeof v === 'string' && v.length <= 2000, 'text of at most 2000 characters');
const priceAmount = is<string>(
  (v) => typeof v === 'string' && /^\d{1,9}(\.\d{1,2})?$/.test(v) && Number(v) > 0,
  'an amount greater than 0 as text with at most 2 decimals',
);

/** POST /api/v1/products/:id/prices, and each of `prices` when a product is made. */
export const PriceBody = later(() => z.object({ currency, amount: priceAmount }));
export const ProductBody = later(() => z.object({ name, description: z.optional(description), prices: z.optional(z.array(PriceBody)) }));
/** PATCH /api/v1/products/:id: the fields to change; `archived: true` keeps it off new carts. */
export const ProductUpdateBody = later(() => z.object({ name: z.optional(name), description: z.optional(description), archived: z.optional(bool) }));
export const ProductsQuery = later(() => z.object(pageQuery()));

export const Price = later(() => z.object({ id: text, productId: text, currency, amount: text, archived: bool, createdAt: timestamp }));
export type Price = z.infer<typeof Price>;
export const Product = later(() =>
  z.object({ id: text, name: text, description: text, archived: bool, createdAt: timestamp, updatedAt: timestamp, prices: z.array(Price) }),
);
export type Product = z.infer<typeof Product>;
export const ProductsPage = later(() => z.object({ ...envelope(), data: z.array(Product), ...pageAnswer() }));
