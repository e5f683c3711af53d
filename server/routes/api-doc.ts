// The OpenAPI 3.1 document of the service's API, made from the route table (method, path,
// who may call, summary) and the contract's zod schemas (bodies, answers, events) by zod's
// own JSON Schema output: nothing here restates a shape. What the route table cannot say is
// said once per operation below: which schema its body and each answer has, and its query.
// The contract's leaves are zod checks with the words of their error message ("a whole
// number", "one of USD, GBP, …"); LEAVES gives each such message its JSON Schema, and a
// leaf whose message is not there fails the document's test.
import * as z from 'zod/mini';
import {
  Alive,
  answer,
  Bank,
  BankPayout,
  CoinsAnswer,
  Country,
  Deleted,
  Done,
  ErrorEnvelope,
  EVENT_SCHEMAS,
  EventRecord,
  EventsAnswer,
  Initialized,
  PayoutAddress,
  Payout,
  Rate,
  Readiness,
  WebhookEndpoint,
} from '../../contract/api.ts';
import { BusinessAnswer, WarningsAnswer, PaymentDetail, PaymentsPage, RolledKey } from '../../contract/dashboard.ts';
import { BusinessBody, PaymentsQuery, RollKeyBody } from '../../contract/dashboard-requests.ts';
import { EVENT_TYPES } from '../../contract/events.ts';
import { Price, PriceBody, Product, ProductBody, ProductsPage, ProductsQuery, ProductUpdateBody } from '../../contract/products.ts';
import { Balance, SettlementAnswer, SettlementBody, Swap, SwapBody, SwapQuoteBody, Withdrawal, WithdrawalBody } from '../../contract/balances.ts';
import { amount, coin, currency, int, oneOf, text } from '../../contract/fields.ts';
import {
  DonationLink,
  DonationLinkForm,
  DonationLinkUpdateBody,
  LinkById,
  LinkBySlug,
  LinkList,
  LinkStatusBody,
  StandardLinkBody,
  StandardLinkCreated,
  StandardLinkUpdateBody,
} from '../../contract/payment-links.ts';
import { DeletePayoutsBody, InitiatePayoutBody, PAYOUT_CURRENCIES, PayoutBody, PayoutFields } from '../../contract/payouts.ts';
import { DepositBody, InitializeBody, MerchantVerification, PayoutAddressBody, Qr, STATUSES, Verification, WebhookBody } from '../../contract/schemas.ts';
import type { RouteSpec } from '../http/router.ts';

type Schema = z.core.$ZodType;
export type JsonSchema = Record<string, unknown>;

interface Operation {
  tag: string;
  /** More than the route table's one line, where it helps. */
  description?: string;
  query?: Schema;
  body?: Schema;
  /** A multipart form (its text fields in `body`) with this file field. */
  file?: string;
  /** The body may be left out. */
  optionalBody?: boolean;
  /** Each success status and its whole body; errors are added from what the route can refuse. */
  responses: Record<number, Schema>;
  /** Errors this operation answers beyond those of its key, body and path (400, 401, 404, 413). */
  errors?: number[];
  /** Its success answer is this media type (text, described by `responses`' words), not JSON. */
  mediaType?: 'text/csv';
}

const verifyQuery = z.object({
  wait: z.optional(int),
  since: z.optional(text),
});
const either = (schemas: [Schema, Schema]) => z.union(schemas);

/** Every JSON operation of the API, keyed `METHOD path` as the route table writes it. */
export const OPERATIONS: Record<string, Operation> = {
  'GET /api/v1/coins': { tag: 'Payments', query: z.object({ amount: z.optional(amount), currency: z.optional(currency) }), responses: { 200: CoinsAnswer }, errors: [409, 503] },
  'POST /api/v1/transaction/initialize': {
    tag: 'Payments',
    description:
      'A coin is a symbol on a chain: the coin list has one entry per (symbol, network), each with its `chainId`. `chain_id` names the chain to pay on; without it, the one chain of the key\'s mode that takes the coin. Where the mode takes the coin on several chains, `chain_id` is required (400 naming it and the chains that take the coin): the service never guesses a chain, since a customer who sends on another chain than the payment\'s pays nothing toward it. A chain the mode does not take the coin on is a 400 naming `chain_id`. Re-quoting a reference on another chain gives it that chain\'s deposit address, unless something already arrived at its address (409).',
    body: InitializeBody,
    responses: { 200: answer(Initialized), 201: answer(Initialized) },
    errors: [409, 429, 503],
  },
  'GET /api/v1/transaction/verify/{reference}': {
    tag: 'Payments',
    description: 'With the public key the answer has no customer, metadata or exact amounts (Verification); with the secret key it has them (MerchantVerification). `wait` (1–30 s) with `since` (the version last seen: `status:amountPaid:coin:expiresAt`) holds the request until the payment changes.',
    query: verifyQuery,
    responses: { 200: answer(either([MerchantVerification, Verification])) },
    errors: [429],
  },
  'GET /api/v1/transaction/qr/{reference}': { tag: 'Payments', responses: { 200: answer(Qr) } },
  'POST /api/v1/transaction/settle/{reference}': { tag: 'Payments', responses: { 200: answer(either([MerchantVerification, Verification])) }, errors: [409] },
  'POST /api/v1/sandbox/deposit': { tag: 'Payments', body: DepositBody, responses: { 200: answer(either([MerchantVerification, Verification])) }, errors: [403, 409] },
  'GET /api/v1/payments': {
    tag: 'Payments',
    description: 'Newest first. `cursor` is `next` of the page before (null on the last page); `limit` 1–100 (25); `status`, `coin`, `from` and `to` (ISO 8601 times, `to` excluded) filter; `q` finds a reference, a customer\'s e-mail, a deposit address or a transaction hash (exactly, not by part).',
    query: PaymentsQuery,
    responses: { 200: PaymentsPage },
  },
  'GET /api/v1/payments/export.csv': {
    tag: 'Payments',
    description: 'The list\'s filters (`status`, `coin`, `from`, `to`, `q`; no cursor), newest first, at most 100,000 payments (narrow by date for more): RFC 4180 CSV with a header line (reference, status, created_at, coin, chain_id, amount_due, amount_paid, fiat_amount, currency, customer_name, customer_email, deposit_address, last_tx_hash, expires_at; amounts as exact decimal text). A field a spreadsheet would run as a formula (=, +, -, @ first) starts with an apostrophe.',
    query: PaymentsQuery,
    mediaType: 'text/csv',
    responses: { 200: text },
  },
  'GET /api/v1/payments/{reference}': {
    tag: 'Payments',
    description: 'The payment as verify answers the secret key, and its timeline, oldest first: created, each transfer (seen while confirming, then credited; or orphaned, late, unexpected, dust), confirmed, settled or expired, swept, each event told and each delivery attempt with the endpoint\'s answer. `explorer` is the network\'s explorer, for `${explorer}/tx/${hash}`.',
    responses: { 200: answer(PaymentDetail) },
  },
  'GET /api/v1/products': { tag: 'Products', description: 'Newest first; `cursor` is `next` of the page before (null on the last page); `limit` 1–100 (25).', query: ProductsQuery, responses: { 200: ProductsPage } },
  'POST /api/v1/products': { tag: 'Products', body: ProductBody, responses: { 201: answer(Product) } },
  'GET /api/v1/products/{id}': { tag: 'Products', responses: { 200: answer(Product) } },
  'PATCH /api/v1/products/{id}': { tag: 'Products', description: '`archived: true` keeps the product\'s prices off new carts; links that have them keep them.', body: ProductUpdateBody, responses: { 200: answer(Product) } },
  'POST /api/v1/products/{id}/prices': { tag: 'Products', description: 'A standard link\'s cart takes the price\'s `id` as `price_id`.', body: PriceBody, responses: { 201: answer(Price) } },
  'GET /api/v1/prices/{id}': { tag: 'Products', responses: { 200: answer(Price) } },
  'POST /api/v1/keys/roll': {
    tag: 'Payments',
    description:
      'The mode\'s secret key (the one the caller\'s key or the dashboard\'s mode names) is replaced: the new one is answered this once. The old one is refused from now, or, with `revoke_old_after` seconds (at most a week), keeps working until `oldKeyValidUntil`. The body is optional. Public keys stay.',
    body: RollKeyBody,
    optionalBody: true,
    responses: { 201: answer(RolledKey) },
  },
  'GET /api/v1/account': { tag: 'Account', responses: { 200: BusinessAnswer } },
  'GET /api/v1/account/warnings': { tag: 'Account', description: 'Empty when nothing blocks money. `no_webhook_url`: events wait for one; `no_payout_address`: the mode\'s network has none (and payments settle to the wallet); `webhook_failing`: the latest delivery was not answered 2xx; `not_ready`: a readiness check fails.', responses: { 200: WarningsAnswer } },
  'PATCH /api/v1/account': { tag: 'Account', description: 'The e-mail is also the one the owner signs in to the dashboard with.', body: BusinessBody, responses: { 200: BusinessAnswer } },
  'PUT /api/v1/account/logo': {
    tag: 'Account',
    description: 'A multipart form with the file `logo` (PNG, JPEG, GIF or WebP by its bytes, at most 512 KiB; HTML, SVG or anything else is refused). It is served at `/files/{id}`, and `businessLogo` is that URL.',
    body: z.object({}),
    file: 'logo',
    responses: { 200: BusinessAnswer },
  },
  'PUT /api/v1/webhook': { tag: 'Webhooks', body: WebhookBody, responses: { 200: answer(WebhookEndpoint) } },
  'GET /api/v1/webhook': { tag: 'Webhooks', responses: { 200: answer(WebhookEndpoint) } },
  'POST /api/v1/webhook/rotate': { tag: 'Webhooks', responses: { 200: answer(WebhookEndpoint) } },
  'PUT /api/v1/payout_address': { tag: 'Webhooks', body: PayoutAddressBody, responses: { 200: answer(PayoutAddress) }, errors: [409] },
  'GET /api/v1/payout_address': { tag: 'Webhooks', responses: { 200: answer(z.array(PayoutAddress)) } },
  'GET /api/v1/events': {
    tag: 'Webhooks',
    description: '`after` is a cursor (`next` of the last answer), `latest` (from now on) or `recent` (the page holds the `limit` newest events); `wait` (0–30 s) holds the request until an event comes. `before` (an event\'s `seq`, alone) pages back: the `limit` events before it, oldest first.',
    query: z.object({ after: z.optional(text), before: z.optional(int), limit: z.optional(int), wait: z.optional(int) }),
    responses: { 200: EventsAnswer },
  },
  'POST /api/v1/events/{id}/resend': { tag: 'Webhooks', responses: { 202: answer(EventRecord) } },
  'GET /api/v1/payment_links': { tag: 'Payment links', query: z.object({ page: z.optional(int), page_size: z.optional(int) }), responses: { 200: LinkList } },
  'GET /api/v1/payment_links/pay/{key}': { tag: 'Payment links', description: 'By slug: the detail by slug. By id (a UUID): the detail by id.', responses: { 200: answer(either([LinkBySlug, LinkById])) } },
  'POST /api/v1/payment_links/standard': { tag: 'Payment links', body: StandardLinkBody, responses: { 201: answer(StandardLinkCreated) } },
  'PUT /api/v1/payment_links/standard': { tag: 'Payment links', body: StandardLinkUpdateBody, responses: { 200: answer(StandardLinkCreated) }, errors: [404, 409] },
  'POST /api/v1/payment_links': { tag: 'Payment links', body: StandardLinkBody, responses: { 201: answer(StandardLinkCreated) } },
  'PUT /api/v1/payment_links': { tag: 'Payment links', body: StandardLinkUpdateBody, responses: { 200: answer(StandardLinkCreated) }, errors: [404, 409] },
  'POST /api/v1/payment_links/donation': { tag: 'Payment links', body: DonationLinkForm, file: 'cover_photo', responses: { 201: answer(DonationLink) } },
  'PUT /api/v1/payment_links/donation': { tag: 'Payment links', body: DonationLinkUpdateBody, responses: { 200: answer(DonationLink) }, errors: [404] },
  'PUT /api/v1/payment_links/{id}/status': { tag: 'Payment links', body: LinkStatusBody, responses: { 200: Done } },
  'GET /api/v1/payment_links/{id}/qr': { tag: 'Payment links', description: 'The link\'s `url` as a QR code: `uri` is the URL, `path` draws its dark modules.', responses: { 200: answer(Qr) } },
  'GET /api/v1/bank': { tag: 'Bank payouts', query: z.object({ country: text }), responses: { 200: answer(z.array(Bank)) } },
  'GET /api/v1/bank/payouts/countries': { tag: 'Bank payouts', responses: { 200: answer(z.array(Country)) } },
  'GET /api/v1/bank/payouts/currencies': { tag: 'Bank payouts', responses: { 200: answer(z.array(oneOf(PAYOUT_CURRENCIES))) } },
  'GET /api/v1/bank/payouts/rate': { tag: 'Bank payouts', description: 'From the rate provider (RATES_FILE) where it prices the currency; 503 when its rate is stale.', query: z.object({ coin, currency: oneOf(PAYOUT_CURRENCIES) }), responses: { 200: answer(Rate) }, errors: [503] },
  'POST /api/v1/bank/payouts/initiate': { tag: 'Bank payouts', body: InitiatePayoutBody, responses: { 201: answer(Payout) }, errors: [404, 409, 503] },
  'GET /api/v1/bank/payouts/withdrawals/{id}': { tag: 'Bank payouts', responses: { 200: answer(Payout) } },
  'POST /api/v1/bank/payouts': { tag: 'Bank payouts', body: PayoutBody, responses: { 201: answer(BankPayout) }, errors: [409] },
  'GET /api/v1/bank/payouts': { tag: 'Bank payouts', responses: { 200: answer(z.array(text)) } },
  'DELETE /api/v1/bank/payouts': { tag: 'Bank payouts', body: DeletePayoutsBody, responses: { 200: answer(Deleted) }, errors: [404] },
  'GET /api/v1/bank/payouts/{id}': { tag: 'Bank payouts', responses: { 200: answer(BankPayout) } },
  'PATCH /api/v1/bank/payouts/{id}': { tag: 'Bank payouts', body: PayoutFields, responses: { 200: answer(BankPayout) } },
  'GET /api/v1/settlement': { tag: 'Balances', responses: { 200: answer(SettlementAnswer) } },
  'PUT /api/v1/settlement': {
    tag: 'Balances',
    description: '`wallet` (the default): deposits are swept to your payout address and the service never holds your money. `balance`: deposits are swept to the operator\'s treasury and kept as your balance (the operator is then custodial). Applies to payments made after it.',
    body: SettlementBody,
    responses: { 200: answer(SettlementAnswer) },
    errors: [409],
  },
  'GET /api/v1/balances': { tag: 'Balances', description: 'Exact decimal text per coin and network: available (to spend), reserved (for a swap, payout or withdrawal under way), pending (paid, not yet swept to the treasury).', responses: { 200: answer(z.array(Balance)) } },
  'POST /api/v1/swaps/quote': { tag: 'Balances', body: SwapQuoteBody, responses: { 201: answer(Swap) }, errors: [409] },
  'POST /api/v1/swaps': { tag: 'Balances', body: SwapBody, responses: { 201: answer(Swap) }, errors: [404, 409] },
  'GET /api/v1/swaps/{id}': { tag: 'Balances', responses: { 200: answer(Swap) } },
  'POST /api/v1/withdrawals': { tag: 'Balances', body: WithdrawalBody, responses: { 201: answer(Withdrawal) }, errors: [409] },
  'GET /api/v1/withdrawals/{id}': { tag: 'Balances', responses: { 200: answer(Withdrawal) } },
  'GET /healthz': { tag: 'Operations', responses: { 200: answer(Alive) } },
  'GET /readyz': { tag: 'Operations', responses: { 200: Readiness, 503: Readiness } },
  'GET /api/v1/openapi.json': { tag: 'Operations', description: 'This document.', responses: { 200: z.looseObject({ openapi: text }) } },
};

/** The routes the document covers: the JSON API and the operator's health checks (not the files and pages served to browsers, nor the operator's own API). */
export const documented = (route: Pick<RouteSpec<unknown>, 'path'>): boolean => route.path.startsWith('/api/v1/') && route.path !== '/api/v1/reference' || route.path === '/healthz' || route.path === '/readyz';
export const openApiPath = (path: string): string => path.replace(/:([a-zA-Z]+)/g, '{$1}');

const string = { type: 'string' };
const number0 = { type: 'number', minimum: 0 };
/** The JSON Schema of each contract leaf, by the words its check answers with. */
const LEAVES: Record<string, JsonSchema> = {
  text: string,
  'true or false': { type: 'boolean' },
  'a whole number': { type: 'integer' },
  'a number of at least 0': number0,
  'a number greater than 0': { type: 'number', exclusiveMinimum: 0 },
  'an amount greater than 0': { type: 'number', exclusiveMinimum: 0 },
  'an ISO 8601 time': { type: 'string', format: 'date-time' },
  'a number or a numeric string': { anyOf: [{ type: 'number', exclusiveMinimum: 0 }, { type: 'string', pattern: '^\\d+(\\.\\d{1,2})?$' }], description: 'at most 2 decimals, at most 100000000' },
  '1 to 64 letters, digits or . _ : - (or a whole number)': { anyOf: [{ type: 'string', pattern: '^[A-Za-z0-9._:-]{1,64}$' }, { type: 'integer', minimum: 0 }] },
  '1 to 64 letters, digits or . _ : -': { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,64}$' },
  'an e-mail address such as ada@example.com': { type: 'string', format: 'email', maxLength: 254 },
  'a name of 1 to 100 characters': { type: 'string', minLength: 1, maxLength: 100 },
  'a password of at most 200 characters': { type: 'string', minLength: 1, maxLength: 200 },
  'an http(s) URL such as https://api.example.com': { type: 'string', format: 'uri', pattern: '^https?://' },
  'a JSON object (or its JSON text)': { anyOf: [{ type: 'object' }, { type: 'string' }], description: 'at most 4096 bytes as JSON' },
  'an object': { type: 'object' },
  'a UUID': { type: 'string', format: 'uuid' },
  'a URL': { type: 'string', format: 'uri' },
  'a URL or ""': { anyOf: [{ type: 'string', format: 'uri' }, { const: '' }] },
  'a decimal amount as text': { type: 'string', pattern: '^\\d+(\\.\\d+)?$' },
  'an amount greater than 0 as decimal text, such as "12.5"': { type: 'string', pattern: '^\\d{1,18}(\\.\\d{1,36})?$' },
  'a quote id from POST /api/v1/swaps/quote': { type: 'string', format: 'uuid' },
  'an empty object': { type: 'object', maxProperties: 0 },
  'a whole number as text': { type: 'string', pattern: '^\\d+$' },
  'whole seconds from 0 to 604800 (a week)': { type: 'integer', minimum: 0, maximum: 604800 },
  'a 0x contract address': { type: 'string', pattern: '^0x[0-9a-fA-F]{40}$' },
  'a 0x address of 40 hex digits, not the zero address': { type: 'string', pattern: '^0x[0-9a-fA-F]{40}$' },
  'a chain id such as 56': { type: 'integer', minimum: 1 },
  'a whole number from 0 to 36': { type: 'integer', minimum: 0, maximum: 36 },
  'an https URL': { type: 'string', pattern: '^https://' },
  'an SVG path of M, h, v and z': { type: 'string', pattern: '^[Mhvz\\d -]*$' },
  'a payment link id or slug': { type: 'string', pattern: '^[A-Za-z0-9-]{1,64}$' },
  'text of 1 to 200 characters': { type: 'string', minLength: 1, maxLength: 200 },
  'a lower-case country name such as nigeria': { type: 'string', pattern: '^[a-z][a-z ]{1,59}$' },
  'a payout id': { type: 'string', minLength: 1 },
  'the id of a registered bank payout': { type: 'string', minLength: 1 },
  'a title of 1 to 120 characters': { type: 'string', minLength: 1, maxLength: 120 },
  'text of at most 2000 characters': { type: 'string', maxLength: 2000 },
  'text of at most 500 characters': { type: 'string', maxLength: 500 },
  'a whole number from 1 to 1000': { type: 'integer', minimum: 1, maximum: 1000 },
  'a cursor: next of the page before': { type: 'string', pattern: '^\\d{1,16}\\.[0-9a-f-]{1,36}$' },
  'a whole number from 1 to 100': { type: 'string', pattern: '^\\d+$', description: 'from 1 to 100' },
  'a reference, e-mail, deposit address or transaction hash': { type: 'string', maxLength: 254 },
  'an amount greater than 0 as text with at most 2 decimals': { type: 'string', pattern: '^\\d{1,9}(\\.\\d{1,2})?$' },
  anything: {},
};

/** The message a contract leaf answers with, or undefined for a zod schema of another kind. */
function leafWords(schema: Schema): string | undefined {
  const def = schema._zod.def as { type: string; error?: (issue: unknown) => unknown };
  if (def.type !== 'custom' || !def.error) return undefined;
  const said = def.error({ code: 'custom', input: undefined });
  return typeof said === 'string' ? said : (said as { message?: string } | undefined)?.message;
}

function leafSchema(words: string): JsonSchema | undefined {
  const nullable = /^(.*) or null$/.exec(words);
  if (nullable) {
    const inner = leafSchema(nullable[1]);
    return inner && { anyOf: [inner, { type: 'null' }] };
  }
  const choice = /^one of (.*)$/.exec(words);
  if (choice) return { type: 'string', enum: choice[1].split(', ') };
  return LEAVES[words];
}

/** What zod's JSON Schema output could not type: filled by the document's test, which must find none. */
export interface Untyped {
  words: string[];
}

export function jsonSchema(schema: Schema, io: 'input' | 'output', untyped?: Untyped): JsonSchema {
  const out = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io,
    unrepresentable: 'any',
    override: (ctx) => {
      const words = leafWords(ctx.zodSchema as Schema);
      if (words === undefined) return;
      const leaf = leafSchema(words);
      if (leaf) Object.assign(ctx.jsonSchema, structuredClone(leaf));
      else {
        ctx.jsonSchema.description = words;
        untyped?.words.push(words);
      }
    },
  }) as JsonSchema;
  delete out.$schema;
  return out;
}

const ERROR_WORDS: Record<number, string> = {
  400: 'Bad input: each wrong field is named in `errors`',
  401: 'A missing or unknown key, or the wrong kind of key',
  403: 'Refused for this key (the sandbox with a live key), or a dashboard session\'s write without its CSRF token or from another origin',
  404: 'Nothing by that id or reference',
  409: 'A conflict with the state of the payment, link or account',
  413: 'A body over 16 KiB (2 MiB for a multipart form)',
  429: 'Too many requests: Retry-After says how long to wait',
  500: 'An unexpected error: it was logged, and the service keeps running',
  503: 'Not ready, or (coins, initialize) no fresh exchange rate for the currency',
};

const SUCCESS_WORDS: Record<number, string> = { 200: 'OK', 201: 'Created', 202: 'Accepted' };

/** The whole document, for the routes given (the route table) and the origin it is served on. */
export function openApiDocument(routes: ReadonlyArray<RouteSpec<unknown>>, origin: string, untyped?: Untyped): JsonSchema {
  const error = { $ref: '#/components/schemas/Error' };
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes.filter(documented)) {
    const path = openApiPath(route.path);
    const op = OPERATIONS[`${route.method} ${path}`];
    if (!op) throw new Error(`openapi: no description of ${route.method} ${path}: add it to OPERATIONS`);
    const pathParams = [...route.path.matchAll(/:([a-zA-Z]+)/g)].map((m) => m[1]);
    const parameters: unknown[] = pathParams.map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } }));
    if (op.query) {
      const query = jsonSchema(op.query, 'input', untyped) as { properties: Record<string, JsonSchema>; required?: string[] };
      for (const [name, schema] of Object.entries(query.properties)) parameters.push({ name, in: 'query', required: query.required?.includes(name) ?? false, schema });
    }
    const errors = new Set<number>([500, ...(op.errors ?? [])]);
    if (route.auth !== 'none') errors.add(401);
    // A session's writes answer 403 without their CSRF token.
    if (route.auth === 'merchant' && route.method !== 'GET') errors.add(403);
    if (op.body || op.query || pathParams.length) errors.add(400);
    if (op.body) errors.add(413);
    if (pathParams.length) errors.add(404);
    const responses: Record<string, unknown> = {};
    for (const [status, schema] of Object.entries(op.responses)) {
      const media = op.mediaType && Number(status) < 300 ? op.mediaType : 'application/json';
      responses[status] = { description: SUCCESS_WORDS[Number(status)] ?? ERROR_WORDS[Number(status)], content: { [media]: { schema: jsonSchema(schema, 'output', untyped) } } };
    }
    for (const status of [...errors].sort()) {
      if (responses[status]) continue;
      responses[status] = { description: ERROR_WORDS[status], content: { 'application/json': { schema: error } } };
    }
    let requestBody: unknown;
    if (op.body && op.file) {
      const form = jsonSchema(op.body, 'input', untyped) as { properties: Record<string, JsonSchema> };
      form.properties[op.file] = { type: 'string', contentMediaType: 'application/octet-stream', description: op.file === 'logo' ? 'PNG, JPEG, GIF or WebP, at most 512 KiB' : 'PNG, JPEG, GIF or WebP, at most 2 MiB' };
      requestBody = { required: true, content: { 'multipart/form-data': { schema: form } } };
    } else if (op.body) {
      requestBody = { required: !op.optionalBody, content: { 'application/json': { schema: jsonSchema(op.body, 'input', untyped) } } };
    }
    const security =
      route.auth === 'public' ? [{ publicKey: [] }]
      : route.auth === 'secret' ? [{ secretKey: [] }]
      : route.auth === 'either' ? [{ publicKey: [] }, { secretKey: [] }]
      : route.auth === 'merchant' ? [{ secretKey: [] }, { session: [] }]
      : [];
    paths[path] ??= {};
    paths[path][route.method.toLowerCase()] = {
      operationId: `${route.method.toLowerCase()}${path.replace(/\{([a-zA-Z]+)\}/g, 'By_$1').replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ?? '').toUpperCase())}`,
      summary: route.summary,
      ...(op.description ? { description: op.description } : {}),
      tags: [op.tag],
      security,
      ...(parameters.length ? { parameters } : {}),
      ...(requestBody ? { requestBody } : {}),
      responses,
    };
  }
  const webhooks: Record<string, unknown> = {};
  for (const type of EVENT_TYPES) {
    webhooks[type] = {
      post: {
        summary: `${type}, sent to the merchant's webhook URL`,
        description:
          'Signed with the webhook secret two ways: Standard Webhooks (`webhook-id`, the event id and the same on every retry; `webhook-timestamp`; `webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body" under the bytes of the base64 after whsec_>`, one per secret during a rotation) and `x-service-signature: t=<seconds>,v1=<hex HMAC-SHA256 of "t.body" under the whole secret>`. Answer 2xx; anything else is retried with backoff.',
        parameters: [
          { name: 'webhook-id', in: 'header', required: true, schema: string },
          { name: 'webhook-timestamp', in: 'header', required: true, schema: { type: 'string', pattern: '^\\d+$' } },
          { name: 'webhook-signature', in: 'header', required: true, schema: string },
          { name: 'x-service-signature', in: 'header', required: true, schema: string },
        ],
        requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(EVENT_SCHEMAS[type], 'output', untyped) } } },
        responses: { '2XX': { description: 'Received; anything else is retried' } },
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Stablecoin payment service API',
      version: '1',
      description: `Payments in USDT, USDC, BUSD and DAI, payment links, webhooks and bank payouts. Payment statuses: ${STATUSES.join(', ')}. Every error is the envelope \`Error\`. Made from the service's route table and its contract's schemas.`,
    },
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    servers: [{ url: origin }],
    tags: ['Payments', 'Products', 'Account', 'Webhooks', 'Payment links', 'Bank payouts', 'Balances', 'Operations'].map((name) => ({ name })),
    paths,
    webhooks,
    components: {
      schemas: { Error: jsonSchema(ErrorEnvelope, 'output', untyped) },
      securitySchemes: {
        publicKey: { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'The public key, pk_test_… or pk_live_…: checkout pages carry it.' },
        secretKey: { type: 'http', scheme: 'bearer', description: 'The secret key, sk_test_… or sk_live_…, as `Authorization: Bearer sk_…`: from servers only.' },
        session: {
          type: 'apiKey',
          in: 'cookie',
          name: 'dashboard_session',
          description: 'The merchant\'s dashboard session (HttpOnly, SameSite=Strict), set by signing in at /dashboard. `x-mode: test|live` (test by default) picks the mode; a request that changes anything also carries `x-csrf-token` (the session\'s) and comes from the service\'s origin, or is refused with 403.',
        },
      },
    },
  };
}
