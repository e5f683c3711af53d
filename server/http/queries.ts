// Query strings, validated at the edge like bodies: each names its field when it is wrong.
import * as z from 'zod/mini';
import { amount, currency } from '../../contract/fields.ts';

/** GET /api/v1/coins?amount=&currency=: a price to quote every coin at, both or neither. */
export const CoinsQuery = z
  .object({ amount: z.optional(amount), currency: z.optional(currency) })
  .check(
    z.refine((q) => (q.amount === undefined) === (q.currency === undefined), {
      error: 'amount and currency go together: give both or neither',
      path: ['currency'],
    }),
  );
