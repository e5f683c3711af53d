// The OpenAPI 3.1 document of the service's API, made from the routes (api/route.ts: each
// declares its method, path, who may call, summary, description, the contract's zod schemas of
// its path, query and body, and its answers) by zod's own JSON Schema output: nothing here
// restates a shape or an operation.
// The contract's leaves are zod checks with the words of their error message ("a whole
// number", "one of USD, GBP, …"); LEAVES gives each such message its JSON Schema, and a
// leaf whose message is not there fails the document's test.
import * as z from 'zod/mini';
import { ErrorEnvelope, EVENT_SCHEMAS } from '../../contract/api.ts';
import { EVENT_TYPES } from '../../contract/events.ts';
import { STATUSES } from '../../contract/schemas.ts';
import { operationCodes } from './error-codes.ts';
import { PayoutBody, PayoutFields } from '../../contract/payouts.ts';
import { bankAccountBody, bankAccountSchemas } from './bank-account-doc.ts';
import { takesIdempotencyKey, TAGS, type Route, type Tag } from './route.ts';

type Schema = z.core.$ZodType;
export type JsonSchema = Record<string, unknown>;

/** The routes the document covers: the JSON API and the operator's health checks (not the files and pages served to browsers, nor the operator's own API). */
export const documented = (route: Pick<Route, 'path'>): boolean =>
  (route.path.startsWith('/api/v1/') && route.path !== '/api/v1/reference') || route.path === '/healthz' || route.path === '/readyz';
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
  'a number or a numeric string': {
    anyOf: [
      { type: 'number', exclusiveMinimum: 0 },
      { type: 'string', pattern: '^\\d+(\\.\\d{1,2})?$' },
    ],
    description: 'Decimal text of the fiat currency (such as "24.50"), or the same as a JSON number: at most 2 decimals, at most 100000000',
  },
  '1 to 64 letters, digits or . _ : - (or a whole number)': {
    anyOf: [
      { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,64}$' },
      { type: 'integer', minimum: 0 },
    ],
  },
  '1 to 64 letters, digits or . _ : -': { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,64}$' },
  'an e-mail address such as ada@example.com': { type: 'string', format: 'email', maxLength: 254 },
  'a name of 1 to 100 characters': { type: 'string', minLength: 1, maxLength: 100 },
  'a name of 1 to 100 characters, without control characters or links': {
    type: 'string',
    minLength: 1,
    maxLength: 100,
    pattern: '^[^\\u0000-\\u001f\\u007f-\\u009f]*$',
  },
  'US dollars as decimal text, such as 50 or 25.50': { type: 'string', pattern: '^\\d{1,12}(\\.\\d{1,2})?$' },
  'a password of at most 200 characters': { type: 'string', minLength: 1, maxLength: 200 },
  'an http(s) URL such as https://api.example.com': { type: 'string', format: 'uri', pattern: '^https?://' },
  'a JSON object (or its JSON text)': { anyOf: [{ type: 'object' }, { type: 'string' }], description: 'at most 4096 bytes as JSON' },
  'an object': { type: 'object' },
  'a UUID': { type: 'string', format: 'uuid' },
  'a URL': { type: 'string', format: 'uri' },
  'a URL or ""': { anyOf: [{ type: 'string', format: 'uri' }, { const: '' }] },
  'a decimal amount as text': { type: 'string', pattern: '^\\d+(\\.\\d+)?$' },
  'a signed decimal amount as text': { type: 'string', pattern: '^-?\\d+(\\.\\d+)?$' },
  'a statement cursor: next of the page before': { type: 'string', pattern: '^\\d{1,15}$' },
  'a chain id such as 56 (in the query)': { type: 'string', pattern: '^[1-9]\\d{0,15}$' },
  'an amount greater than 0 as decimal text, such as "12.5"': { type: 'string', pattern: '^\\d{1,18}(\\.\\d{1,36})?$' },
  'a quote id from POST /api/v1/swaps/quote': { type: 'string', format: 'uuid' },
  'an empty object': { type: 'object', maxProperties: 0 },
  'a whole number as text': { type: 'string', pattern: '^\\d+$' },
  'an amount greater than 0 as exact decimal text of the coin (such as "5" or "0.5"), or "rest"': {
    anyOf: [{ type: 'string', pattern: '^\\d{1,36}(\\.\\d{1,36})?$' }, { const: 'rest' }],
  },
  'base units greater than 0 as a whole number in text (such as "5000000")': { type: 'string', pattern: '^\\d{1,78}$' },
  'a reason of 1 to 500 characters': { type: 'string', minLength: 1, maxLength: 500 },
  'whole seconds from 0 to 604800 (a week)': { type: 'integer', minimum: 0, maximum: 604800 },
  'a 0x contract address': { type: 'string', pattern: '^0x[0-9a-fA-F]{40}$' },
  'a 0x address of 40 hex digits, not the zero address': {
    type: 'string',
    pattern: '^0x[0-9a-fA-F]{40}$',
    not: { pattern: '^0x0{40}$' },
    description:
      'EIP-55 checksummed (mixed case) or all lower case: a mixed-case address whose checksum is wrong is refused (400), as a mistyped one; never the zero address.',
  },
  'a transaction hash: 0x followed by 64 hexadecimal digits': { type: 'string', pattern: '^0x[0-9a-fA-F]{64}$' },
  'a 0x address of 40 hex digits': { type: 'string', pattern: '^0x[0-9a-fA-F]{40}$' },
  'a 32-byte nonce: 0x followed by 64 hexadecimal digits': { type: 'string', pattern: '^0x[0-9a-fA-F]{64}$' },
  'a signature: 0x followed by at least 65 bytes in hexadecimal': { type: 'string', pattern: '^0x([0-9a-fA-F]{2}){65,4096}$' },
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
  'a cursor: next of the page before': {
    type: 'string',
    pattern: '^[A-Za-z0-9_-]{1,200}$',
    description: 'opaque: `next` of the page before, as it was answered',
  },
  'a whole number from 1 to 100': { type: 'integer', minimum: 1, maximum: 100 },
  'a reference, e-mail, deposit address or transaction hash': { type: 'string', maxLength: 254 },
  'an amount greater than 0 as text with at most 2 decimals': { type: 'string', pattern: '^\\d{1,9}(\\.\\d{1,2})?$' },
  'a merchant id (a UUID, as merchant list shows)': { type: 'string', format: 'uuid' },
  'a change id (a UUID, as the list and the PENDING events give it)': { type: 'string', format: 'uuid' },
  'whole seconds from 1 to 30': { type: 'integer', minimum: 1, maximum: 30 },
  'whole seconds from 0 to 30': { type: 'integer', minimum: 0, maximum: 30 },
  'a status, amount paid, coin and expiry such as pending:0:USDT:2026-01-01T00:00:00.000Z': {
    type: 'string',
    pattern: '^[a-z]+:[\\d.]+:[A-Z]{2,6}:[\\dT:.Z+-]{10,40}(:[\\d.e-]+:\\d+)?$',
  },
  "a whole number of at least 1 (an event's seq)": { type: 'integer', minimum: 1 },
  'a whole number from 1 to 200': { type: 'integer', minimum: 1, maximum: 200 },
  'a whole number from 1 to 1000000': { type: 'integer', minimum: 1, maximum: 1000000 },
  'a page size from 1 to 100': { type: 'integer', minimum: 1, maximum: 100 },
  anything: {},
};

/** A field that holds an amount of money, by its name: its description must say the amount's form. */
export const AMOUNT_FIELD =
  /amount|^fee$|feeIn|_fee$|^overpaid$|^arrived$|^credited$|^(amount|minimum)_received$|^ledger$|^onChain$|^balance$|^due$|^daily$|^spent$|^left$/i;

/**
 * What an amount field's form is, by its JSON Schema (and, for plain text, its name), for the
 * fields whose contract says nothing more (the checkout's own schemas stay free of words it
 * never shows). Every amount of the API is one of these; docs/api.md, "How money is written".
 */
function amountForm(name: string, schema: JsonSchema, siblings: readonly string[]): string | undefined {
  // The kept-for-older-clients forms of a refund's amount, and a timeline's transfer, whose token may be one not listed.
  if (name === 'amount_exact') return 'Deprecated: the same as `amount` (exact decimal text of the coin), kept for older clients.';
  if (name === 'amount_base_units')
    return 'Deprecated: `amount` in base units of the coin, a whole number in text, kept for older clients during the deprecation period.';
  if (name === 'amount' && siblings.includes('txHash') && siblings.includes('kind'))
    return 'Exact decimal text of the coin (such as "0.5"): the payment\'s, or the one `coin` and `chainId` name; for a token the service does not list, base units as a whole number in text and `coin` its address.';
  const decimal = 'Exact decimal text (such as "0.5"): of the payment\'s coin for a coin amount, of the currency for a fiat one; never a float.';
  const number =
    "A JSON number whose shortest text is the exact amount (the spec's form), in the coin or the currency the object names; where an `…Exact` field stands beside it, that is the same amount as decimal text.";
  const types = ([] as unknown[]).concat(schema.type ?? (schema.anyOf as JsonSchema[] | undefined)?.map((s) => s.type) ?? []);
  if (schema.anyOf && types.includes('number') && types.includes('string'))
    return 'Decimal text of the fiat currency (such as "24.50", at most 2 decimals), or the same as a JSON number.';
  if (types.includes('number') || types.includes('integer')) return number;
  if (!types.includes('string')) return undefined;
  const pattern = String(schema.pattern ?? '');
  if (pattern === '^\\d+$')
    return 'Base units of the token as a whole number in text: a raw chain transfer, whose token the service may not list (so no decimals to write it with).';
  if (pattern.startsWith('^-?')) return 'Exact signed decimal text of the coin (such as "-0.5"): a movement out of the balance is negative.';
  if (pattern || /Exact$|^overpaid$|^arrived$|^credited$|^amount$|^merchantAmount$|^daily$|^fee$/.test(name)) return decimal;
  return undefined;
}

/** Gives each amount field of a schema that says nothing of its form the words of its form (amountForm). */
function describeAmounts(node: unknown): void {
  if (!node || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    node.forEach(describeAmounts);
    return;
  }
  const o = node as JsonSchema;
  const properties = o.properties as Record<string, JsonSchema> | undefined;
  for (const [name, schema] of Object.entries(properties ?? {})) {
    if (!AMOUNT_FIELD.test(name) || schema.description !== undefined || schema.properties || schema.items) continue;
    const form = amountForm(name, schema, Object.keys(properties!));
    if (form) properties![name] = { ...schema, description: form, ...(/^amount_(exact|base_units)$/.test(name) ? { deprecated: true } : {}) };
  }
  for (const value of Object.values(o)) describeAmounts(value);
}

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

/**
 * Bodies whose check goes beyond their zod shape, documented as the whole check: the bank account's fields per currency (bank-account-doc.ts).
 */
const CHECKED_FURTHER = new Map<Schema, () => JsonSchema>([[PayoutBody, bankAccountBody]]);

export function jsonSchema(schema: Schema, io: 'input' | 'output', untyped?: Untyped): JsonSchema {
  const out = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io,
    unrepresentable: 'any',
    override: (ctx) => {
      // A rule across fields the contract wrote with its JSON Schema (fields.ts's exactlyOne).
      for (const check of ((ctx.zodSchema as Schema)._zod.def as { checks?: Array<{ jsonSchema?: JsonSchema }> }).checks ?? []) {
        if (check.jsonSchema) Object.assign(ctx.jsonSchema, structuredClone(check.jsonSchema));
      }
      const further = CHECKED_FURTHER.get(ctx.zodSchema as Schema);
      if (further) {
        for (const key of Object.keys(ctx.jsonSchema)) delete (ctx.jsonSchema as JsonSchema)[key];
        return void Object.assign(ctx.jsonSchema, further());
      }
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
  // An amount's form, where its contract did not say it (fields.ts's says); a leaf is one schema
  // for every field it types, so this is done per field, on the output.
  describeAmounts(out);
  return out;
}

const ERROR_WORDS: Record<number, string> = {
  400: 'Bad input: each wrong field is named in `errors`',
  401: 'A missing or unknown key, or the wrong kind of key',
  403: "Refused for this key (the sandbox with a live key), a member's role or a restricted key without the permission (`permission_denied` names it), or a dashboard session's write without its CSRF token or from another origin",
  404: 'Nothing by that id or reference',
  409: 'A conflict with the state of the payment, link or account, or an Idempotency-Key used for another request',
  413: 'A body over 16 KiB (2 MiB for a multipart form)',
  429: 'Too many requests: Retry-After says how long to wait (whole seconds)',
  500: 'An unexpected error: it was logged, and the service keeps running',
  503: 'Not ready, or (coins, initialize) no fresh exchange rate for the currency',
};

const SUCCESS_WORDS: Record<number, string> = { 200: 'OK', 201: 'Created', 202: 'Accepted' };

/** Headers an error answer carries beside its envelope. */
const ERROR_HEADERS: Record<number, Record<string, unknown>> = {
  429: {
    'Retry-After': { required: true, description: 'Whole seconds to wait before trying again', schema: { type: 'string', pattern: '^\\d+$' } },
    'RateLimit-Policy': {
      required: false,
      description:
        'The limits counted on this request (IETF draft-ietf-httpapi-ratelimit-headers), one list member each: `"<name>";q=<requests>;w=<window seconds>`. Every answer a limit counted carries it, not only a 429.',
      schema: string,
    },
    RateLimit: {
      required: false,
      description: 'Where each of those limits stands: `"<name>";r=<requests left>;t=<seconds until its window ends>`.',
      schema: string,
    },
  },
};

const TAG_WORDS: Record<Tag, string> = {
  Payments: "Quoting and taking a payment (the checkout, public key), verifying it (either key), the sandbox's deposits, and the merchant's list of payments.",
  Products: "The merchant's products and their prices, which standard payment links sell.",
  Subscriptions: 'Plans (a price in a coin per period) and subscriptions to them, charged each period from one ERC-20 approval.',
  Account: 'The business (name, e-mail, logo), its warnings, and rolling its secret key.',
  Webhooks: 'Where events are delivered and how they are signed, the events feed, the payout address, and changes of where money goes that wait their delay.',
  'Payment links': "Standard and donation links, their hosted pages' details and their QR codes.",
  'Bank payouts': 'Bank accounts per currency, rates, and paying a balance out to a bank (balance settlement).',
  Balances: 'Settlement (wallet or balance), balances, swaps between coins, and withdrawals on chain (balance settlement).',
  Refunds: 'Money of a payment sent back to the customer, in full or in part, never past what arrived for it (balance settlement).',
  Operations: 'Health checks and this document.',
};

/** Webhook event names as operation ids: DEPOSIT_TRANSACTION → depositTransactionEvent. */
const eventOperationId = (type: string): string => type.toLowerCase().replace(/_(.)/g, (_m, c: string) => c.toUpperCase()) + 'Event';

/** The whole document, for the routes given (the route table) and the origin it is served on. */
export function openApiDocument(routes: ReadonlyArray<Route>, origin: string, untyped?: Untyped): JsonSchema {
  const errorSchema = jsonSchema(ErrorEnvelope, 'output', untyped) as { properties: Record<string, JsonSchema>; required: string[] };
  const error = { $ref: '#/components/schemas/Error' };
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes.filter(documented)) {
    const path = openApiPath(route.path);
    const op = route;
    if (!op.tag || !op.responses) throw new Error(`openapi: ${route.method} ${route.path} is in the API but declares no tag or answers (responses)`);
    const pathParams = [...route.path.matchAll(/:([a-zA-Z]+)/g)].map((m) => m[1]);
    const paramSchemas = op.params && (jsonSchema(op.params, 'input', untyped) as { properties: Record<string, JsonSchema> }).properties;
    const parameters: unknown[] = pathParams.map((name) => ({ name, in: 'path', required: true, schema: paramSchemas?.[name] ?? { type: 'string' } }));
    if (op.query) {
      const query = jsonSchema(op.query, 'input', untyped) as { properties: Record<string, JsonSchema>; required?: string[] };
      for (const [name, schema] of Object.entries(query.properties))
        parameters.push({ name, in: 'query', required: query.required?.includes(name) ?? false, schema });
    }
    const errors = operationCodes(route);
    // Idempotency-Key: its value is checked (400), and another request with it is a 409.
    if (takesIdempotencyKey(route)) {
      parameters.push({
        name: 'Idempotency-Key',
        in: 'header',
        required: false,
        schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[!-~]([ -~]*[!-~])?$' },
        description: `A key of yours (a UUID, say) that makes a retry safe: the same key and the same request within 24 hours answer the first answer again, with its status and \`Idempotent-Replayed: true\`; the same key with another body or endpoint is a 409; per merchant, mode and credential. Not with the public key (400).${route.idempotency === 'secret' ? ' This answer shows a secret once and is not kept: a replay answers 409 saying the request was done.' : ''}${route.movesMoney ? ' This request moves money: an unexpected error (500) is kept and answered again too, never run a second time.' : ''}`,
      });
    }
    const responses: Record<string, unknown> = {};
    for (const [status, schema] of Object.entries(op.responses)) {
      const media = op.mediaType && Number(status) < 300 ? op.mediaType : 'application/json';
      responses[status] = {
        description: SUCCESS_WORDS[Number(status)] ?? ERROR_WORDS[Number(status)],
        content: { [media]: { schema: jsonSchema(schema, 'output', untyped) } },
      };
    }
    for (const [status, codes] of errors) {
      if (responses[status]) continue;
      // The envelope, with the codes this operation answers at this status.
      const schema = {
        ...errorSchema,
        properties: { ...errorSchema.properties, code: { type: 'string', enum: codes } },
        required: [...errorSchema.required, 'code'],
      };
      responses[status] = {
        description: ERROR_WORDS[status],
        ...(ERROR_HEADERS[status] ? { headers: ERROR_HEADERS[status] } : {}),
        content: { 'application/json': { schema } },
      };
    }
    let requestBody: unknown;
    if (op.body && op.multipart) {
      const form = jsonSchema(op.body, 'input', untyped) as { properties: Record<string, JsonSchema> };
      form.properties[op.multipart.file] = { type: 'string', contentMediaType: 'application/octet-stream', description: op.multipart.fileWords };
      requestBody = { required: true, content: { 'multipart/form-data': { schema: form } } };
    } else if (op.body) {
      requestBody = { required: !op.optionalBody, content: { 'application/json': { schema: jsonSchema(op.body, 'input', untyped) } } };
    }
    const security =
      route.auth === 'public'
        ? [{ publicKey: [] }]
        : route.auth === 'secret'
          ? [{ secretKey: [] }]
          : route.auth === 'either'
            ? [{ publicKey: [] }, { secretKey: [] }]
            : route.auth === 'merchant'
              ? [{ secretKey: [] }, { session: [] }]
              : [];
    paths[path] ??= {};
    paths[path][route.method.toLowerCase()] = {
      operationId: `${route.method.toLowerCase()}${path.replace(/\{([a-zA-Z]+)\}/g, 'By_$1').replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ?? '').toUpperCase())}`,
      summary: route.summary,
      ...(op.description ? { description: op.description } : {}),
      tags: [op.tag],
      security,
      // The permission a member's role or a restricted key needs for it (docs/team.md).
      ...(route.permission ? { 'x-permission': route.permission } : {}),
      ...(parameters.length ? { parameters } : {}),
      ...(requestBody ? { requestBody } : {}),
      responses,
    };
  }
  const webhooks: Record<string, unknown> = {};
  for (const type of EVENT_TYPES) {
    webhooks[type] = {
      post: {
        operationId: eventOperationId(type),
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
        // Signed: the receiver checks either signature header with its webhook secret.
        security: [{ standardWebhooks: [] }, { serviceSignature: [] }],
        responses: { '2XX': { description: 'Received; anything else is retried' } },
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Stablecoin payment service API',
      version: '1',
      description: `Payments in USDT, USDC, BUSD and DAI, payment links, webhooks and bank payouts. Payment statuses: ${STATUSES.join(', ')}. Every error is the envelope \`Error\`, whose \`code\` (each operation lists those it may answer) tells one refusal from another; every answer has a \`Request-Id\` header, also in the service's log line. A path the API does not have answers 404 and a method a path does not have answers 405 with \`Allow\` naming the methods it has (\`components.responses\`). Made from the service's route table and its contract's schemas.`,
      license: { name: 'MIT', identifier: 'MIT' },
    },
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    servers: [{ url: origin }],
    tags: TAGS.map((name) => ({ name, description: TAG_WORDS[name] })),
    paths,
    webhooks,
    components: {
      schemas: {
        Error: errorSchema,
        ...bankAccountSchemas(
          (name) => (jsonSchema(PayoutFields, 'input', untyped) as { properties: Record<string, JsonSchema> }).properties[name],
          LEAVES['true or false'],
        ),
      },
      responses: {
        NotFound: { description: 'No such path in the API (any method)', content: { 'application/json': { schema: error } } },
        MethodNotAllowed: {
          description: 'A method this path does not have: no operation answers it, the path does',
          headers: { Allow: { required: true, description: 'The methods the path has, as its operations in this document', schema: string } },
          content: { 'application/json': { schema: error } },
        },
      },
      securitySchemes: {
        publicKey: { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'The public key, pk_test_… or pk_live_…: checkout pages carry it.' },
        secretKey: {
          type: 'http',
          scheme: 'bearer',
          description: 'The secret key, sk_test_… or sk_live_…, as `Authorization: Bearer sk_…`: from servers only.',
        },
        standardWebhooks: {
          type: 'apiKey',
          in: 'header',
          name: 'webhook-signature',
          description:
            'Standard Webhooks: `webhook-signature: v1,<base64 HMAC-SHA256 of "webhook-id.webhook-timestamp.body">` under the bytes of the base64 after `whsec_` of the webhook secret (one per secret during a rotation). Any Standard Webhooks library verifies it.',
        },
        serviceSignature: {
          type: 'apiKey',
          in: 'header',
          name: 'x-service-signature',
          description: '`x-service-signature: t=<seconds>,v1=<hex HMAC-SHA256 of "t.body" under the whole secret>`: `verifyWebhook` of the SDK checks it.',
        },
        session: {
          type: 'apiKey',
          in: 'cookie',
          name: 'dashboard_session',
          description:
            "The merchant's dashboard session (HttpOnly, SameSite=Strict), set by signing in at /dashboard. `x-mode: test|live` (test by default) picks the mode; a request that changes anything also carries `x-csrf-token` (the session's) and comes from the service's origin, or is refused with 403.",
        },
      },
    },
  };
}
