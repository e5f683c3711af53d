// Query strings, validated at the edge like bodies: each names its field when it is wrong. A
// query's values are text; each leaf here checks the text, and its words give the document
// its JSON Schema (api-doc.ts's LEAVES).
import * as z from 'zod/mini';
import { PaymentsQuery } from '../../contract/dashboard-requests.ts';
import { amount, COINS, currency, is, later, oneOf } from '../../contract/fields.ts';
import { pageQuery } from '../../contract/paging.ts';
import { PAYOUT_CURRENCIES } from '../../contract/payouts.ts';
import { MAX_WAIT_SECONDS } from '../../contract/schemas.ts';
import { BANKS } from '../payouts/rules.ts';

/** Whole-number text from min to max, in `words`. */
const whole = (min: number, max: number, words: string) =>
  is<string>((v) => typeof v === 'string' && /^\d{1,16}$/.test(v) && Number(v) >= min && Number(v) <= max, words);

/** GET /api/v1/coins?amount=&currency=: a price to quote every coin at, both or neither. */
export const CoinsQuery = z.object({ amount: z.optional(amount), currency: z.optional(currency) }).check(
  z.refine((q) => (q.amount === undefined) === (q.currency === undefined), {
    error: 'amount and currency go together: give both or neither',
    path: ['currency'],
  }),
);

/** GET /api/v1/transaction/verify/:reference?wait=&since=: a long poll, both or neither. */
export const VerifyQuery = later(() =>
  z
    .object({
      wait: z.optional(whole(1, MAX_WAIT_SECONDS, `whole seconds from 1 to ${MAX_WAIT_SECONDS}`)),
      since: z.optional(
        is<string>(
          (v) => typeof v === 'string' && /^[a-z]+:[\d.]+:[A-Z]{2,6}:[\dT:.Z+-]{10,40}(:[\d.e-]+:\d+)?$/.test(v),
          'a status, amount paid, coin and expiry such as pending:0:USDT:2026-01-01T00:00:00.000Z',
        ),
      ),
    })
    .check(
      z.refine((q) => q.wait === undefined || q.since !== undefined, {
        error: 'a status, amount paid, coin and expiry such as pending:0:USDT:2026-01-01T00:00:00.000Z, with wait',
        path: ['since'],
      }),
      z.refine((q) => q.since === undefined || q.wait !== undefined, { error: `whole seconds from 1 to ${MAX_WAIT_SECONDS}, with since`, path: ['wait'] }),
    ),
);

/** GET /api/v1/payments/export.csv: the list's filters, without its cursor and limit. */
export const ExportQuery = later(() => {
  const { cursor: _cursor, limit: _limit, ...filters } = PaymentsQuery.shape;
  return z.object(filters);
});

/** GET /api/v1/events: from a cursor (or, without one, where `after` says: latest, recent), or before a seq; a limit; a wait. */
export const EventsQuery = later(() =>
  z.object({
    ...pageQuery(200),
    after: z.optional(oneOf(['latest', 'recent'])),
    before: z.optional(whole(1, Number.MAX_SAFE_INTEGER, "a whole number of at least 1 (an event's seq)")),
    wait: z.optional(whole(0, MAX_WAIT_SECONDS, `whole seconds from 0 to ${MAX_WAIT_SECONDS}`)),
  }),
);

/** GET /api/v1/payment_links: by cursor as every list, or by the spec's page and page_size. */
export const LinksQuery = later(() =>
  z.object({
    ...pageQuery(),
    page: z.optional(whole(1, 1_000_000, 'a whole number from 1 to 1000000')),
    page_size: z.optional(whole(1, 100, 'a page size from 1 to 100')),
  }),
);

/** GET /api/v1/bank/payouts: a page of the bank accounts. */
export const BankAccountsQuery = later(() => z.object(pageQuery()));

/** GET /api/v1/swaps, /api/v1/withdrawals, /api/v1/bank/payouts/withdrawals: a page of the history, newest first. */
export const HistoryQuery = later(() => z.object(pageQuery()));

/** GET /api/v1/bank?country=: the banks of a country. */
export const BankQuery = later(() => z.object({ country: oneOf(Object.keys(BANKS)) }));

/** GET /api/v1/bank/payouts/rate?coin=&currency=. */
export const RateQuery = later(() => z.object({ coin: oneOf(COINS), currency: oneOf(PAYOUT_CURRENCIES) }));
