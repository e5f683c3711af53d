// One way to page every list: `limit` (a whole number) and `cursor` (opaque: the
// `next` of the page before) in the query; `next` (the cursor of the following page, or null on
// the last) and `has_more` (whether there is a following page) in the answer. Kept apart from
// fields.ts so that the widget's and the dashboard's bundles do not carry it.
import * as z from 'zod/mini';
import { bool, is, nullable } from './fields.ts';

/** A cursor as the service answers it in `next`: base64url text the client passes back as it is. */
export const cursor = is<string>((v) => typeof v === 'string' && /^[A-Za-z0-9_-]{1,200}$/.test(v), 'a cursor: next of the page before');

/** How many items a page holds: a whole number from 1 to `max` (a query's values are text). */
export const limit = (max: 100 | 200) =>
  is<string>((v) => typeof v === 'string' && /^\d{1,3}$/.test(v) && Number(v) >= 1 && Number(v) <= max, `a whole number from 1 to ${max}`);

/** A list's query fields: its cursor and its limit. */
export const pageQuery = (max: 100 | 200 = 100) => ({ cursor: z.optional(cursor), limit: z.optional(limit(max)) });

/** A list's answer fields beside `data`: where the next page starts, and whether there is one. */
export const pageAnswer = () => ({ next: nullable<string>((v) => typeof v === 'string', 'text'), has_more: bool });
