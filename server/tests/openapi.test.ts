// The OpenAPI document: valid by a real OpenAPI validator, made for every route of the API,
// and true: every answer this test sees, from every operation, success and error alike, has
// the schema the document gives that operation and status. So do real webhook deliveries.
import SwaggerParser from '@apidevtools/swagger-parser';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../contract/error-codes.ts';
import { startService, type Service } from '../service/app.ts';
import { AMOUNT_FIELD, documented, openApiDocument, openApiPath, type JsonSchema } from '../api/api-doc.ts';
import { ROUTES } from '../api/table.ts';
import { DEMO_MERCHANT } from '../service/seed.ts';

const { publicKey, secretKey } = DEMO_MERCHANT.keys.test;
const pub = { 'x-api-key': publicKey };
const sec = { authorization: `Bearer ${secretKey}` };

let api: Service;
let doc: JsonSchema;
const hooks: Array<{ body: string; headers: Record<string, unknown> }> = [];
let hookServer: ReturnType<typeof createServer>;

beforeAll(async () => {
  api = await startService({ demo: true, webhookRetryMs: 20 });
  doc = await (await fetch(`${api.url}/api/v1/openapi.json`)).json();
  hookServer = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    hooks.push({ body: Buffer.concat(chunks).toString(), headers: req.headers });
    res.writeHead(200).end();
  });
  await new Promise<void>((resolve) => hookServer.listen(0, '127.0.0.1', resolve));
}, 60_000);
afterAll(async () => {
  await api?.close();
  await new Promise((resolve) => hookServer?.close(resolve));
});

/** Every answer seen: which operation (by the document's path template), its status and body. */
const seen: Array<{ method: string; template: string; status: number; body: unknown; url: string; type?: string }> = [];

function templateOf(method: string, path: string): string {
  for (const route of ROUTES) {
    if (route.method !== method) continue;
    const pattern = new RegExp('^' + route.path.replace(/:[a-zA-Z]+/g, '[^/]+').replace(/\./g, '\\.') + '$');
    if (pattern.test(path)) return openApiPath(route.path);
  }
  throw new Error(`no route for ${method} ${path}`);
}

async function call(method: string, path: string, headers: Record<string, string> = {}, body?: unknown) {
  const init: RequestInit = { method, headers: { ...headers } };
  if (body instanceof FormData) init.body = body;
  else if (body !== undefined) {
    init.body = typeof body === 'string' ? body : JSON.stringify(body);
    (init.headers as Record<string, string>)['content-type'] = 'application/json';
  }
  const response = await fetch(api.url + path, init);
  const json = await response.json();
  seen.push({ method, template: templateOf(method, new URL(api.url + path).pathname), status: response.status, body: json, url: path });
  return { status: response.status, body: json };
}

async function until<T>(get: () => Promise<T | undefined> | T | undefined): Promise<T> {
  const end = Date.now() + 10_000;
  for (;;) {
    const found = await get();
    if (found !== undefined) return found;
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const PNG = new Blob(
  [
    Buffer.from(
      '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000a49444154789c6360000000020001e221bc330000000049454e44ae426082',
      'hex',
    ),
  ],
  { type: 'image/png' },
);

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document, by @apidevtools/swagger-parser', async () => {
    expect(doc.openapi).toBe('3.1.0');
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeTruthy();
  });

  it('has an operation for every route of the API and a route for every operation, each as its route declares it', () => {
    const api = ROUTES.filter(documented);
    const routes = api.map((r) => `${r.method} ${openApiPath(r.path)}`).sort();
    const paths = doc.paths as Record<
      string,
      Record<
        string,
        {
          summary: string;
          description?: string;
          tags: string[];
          requestBody?: unknown;
          parameters?: Array<{ name: string; in: string }>;
          responses: Record<string, unknown>;
        }
      >
    >;
    const operations = Object.entries(paths)
      .flatMap(([path, methods]) => Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`))
      .sort();
    expect(operations).toEqual(routes);
    expect(new Set(routes).size).toBe(routes.length);
    expect(routes.length).toBeGreaterThanOrEqual(59);
    // One source: each operation says what its route object says, and nothing else does.
    for (const route of api) {
      const op = paths[openApiPath(route.path)][route.method.toLowerCase()];
      expect(op.summary).toBe(route.summary);
      expect(op.description).toBe(route.description);
      expect(op.tags).toEqual([route.tag]);
      expect(!!op.requestBody, `${route.method} ${route.path}: a body in the document as on the route`).toBe(!!route.body);
      expect((op.parameters ?? []).filter((p) => p.in === 'query').length > 0).toBe(!!route.query);
      for (const status of Object.keys(route.responses!)) expect(op.responses[status]).toBeDefined();
    }
    // A route of the API that declares no answers cannot be documented: the document refuses it.
    const [first, ...rest] = api;
    expect(() => openApiDocument([{ ...first, responses: undefined }, ...rest], 'http://127.0.0.1:4010')).toThrow(/declares no tag or answers/);
  });

  it('gives every contract field a JSON Schema type: no leaf is left as just its words', () => {
    const untyped = { words: [] as string[] };
    openApiDocument(ROUTES, 'http://127.0.0.1:4010', untyped);
    expect(untyped.words).toEqual([]);
  });

  it('says the form of every amount field, in requests, answers and webhooks: decimal text, a JSON number or base units, in its description', () => {
    const found: string[] = [];
    const silent: string[] = [];
    const walk = (node: unknown, where: string) => {
      if (!node || typeof node !== 'object') return;
      if (Array.isArray(node)) return node.forEach((n, i) => walk(n, `${where}/${i}`));
      const o = node as Record<string, unknown>;
      for (const [name, schema] of Object.entries((o.properties ?? {}) as Record<string, JsonSchema>)) {
        const leaf = !['object', 'array'].includes(schema.type as string) && !schema.properties && !schema.items;
        if (!AMOUNT_FIELD.test(name) || !leaf) continue;
        found.push(name);
        if (!/decimal text|JSON number|base units/i.test(String(schema.description ?? '')))
          silent.push(`${where}/properties/${name}: ${JSON.stringify(schema)}`);
      }
      for (const [key, value] of Object.entries(o)) walk(value, `${where}/${key}`);
    };
    walk(doc.paths, '#/paths');
    walk(doc.webhooks, '#/webhooks');
    walk(doc.components, '#/components');
    // It looked at them: the refund's and the payment's amounts are among them.
    expect(found).toEqual(expect.arrayContaining(['amount', 'amount_base_units', 'amountPaid', 'amountPaidExact', 'overpaid', 'network_fee']));
    expect(silent).toEqual([]);
    // The refund's request: the one form, and the old one under its own name, exactly one of them.
    const refund = (doc.paths as any)['/api/v1/refunds'].post.requestBody.content['application/json'].schema;
    expect(refund.oneOf).toEqual([{ required: ['amount'] }, { required: ['amount_base_units'] }]);
    const link = (doc.paths as any)['/api/v1/payment_links/standard'].post.requestBody.content['application/json'].schema;
    expect([link.oneOf, link.properties.cart.minItems]).toEqual([[{ required: ['cart'] }, { required: ['charge'] }], 1]);
    expect(refund.properties.amount.description).toMatch(/^Exact decimal text of the payment's coin/);
    expect(refund.properties.amount_base_units).toMatchObject({ deprecated: true, description: expect.stringMatching(/^Deprecated/) });
  });

  it('names both keys as security schemes, each operation the keys its route takes, and the error envelope', () => {
    const components = doc.components as { securitySchemes: Record<string, unknown>; schemas: Record<string, JsonSchema> };
    expect(components.securitySchemes).toEqual({
      publicKey: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'x-api-key' }),
      secretKey: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
      session: expect.objectContaining({ type: 'apiKey', in: 'cookie', name: 'dashboard_session' }),
      // What signs a webhook: each event declares them as its security.
      standardWebhooks: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'webhook-signature' }),
      serviceSignature: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'x-service-signature' }),
    });
    for (const event of Object.values(doc.webhooks as Record<string, { post: { security: unknown[] } }>))
      expect(event.post.security).toEqual([{ standardWebhooks: [] }, { serviceSignature: [] }]);
    const paths = doc.paths as Record<
      string,
      Record<string, { security: unknown[]; responses: Record<string, { content: Record<string, { schema: unknown }> }>; requestBody?: { content: object } }>
    >;
    expect(paths['/api/v1/coins'].get.security).toEqual([{ publicKey: [] }]);
    expect(paths['/api/v1/webhook'].put.security).toEqual([{ secretKey: [] }, { session: [] }]);
    expect(paths['/api/v1/payout_address'].put.security).toEqual([{ secretKey: [] }, { session: [] }]);
    expect(Object.keys(paths['/api/v1/account/logo'].put.requestBody!.content)).toEqual(['multipart/form-data']);
    expect(paths['/api/v1/payments'].get.security).toEqual([{ secretKey: [] }, { session: [] }]);
    // A session's writes may be refused for want of their CSRF token.
    expect(Object.keys(paths['/api/v1/keys/roll'].post.responses)).toContain('403');
    expect(paths['/api/v1/transaction/verify/{reference}'].get.security).toEqual([{ publicKey: [] }, { secretKey: [] }]);
    expect(paths['/healthz'].get.security).toEqual([]);
    // Each error answer is the envelope with the codes this operation answers at that status.
    const envelope = (codes: string[]) => ({
      ...components.schemas.Error,
      properties: { ...(components.schemas.Error.properties as object), code: { type: 'string', enum: codes } },
      required: ['status', 'statusCode', 'message', 'code'],
    });
    expect(paths['/api/v1/webhook'].put.responses['401']).toEqual(
      expect.objectContaining({ content: { 'application/json': { schema: envelope(['unauthorized']) } } }),
    );
    expect(paths['/api/v1/webhook'].put.responses['403'].content['application/json'].schema).toEqual(
      envelope(['csrf_rejected', 'permission_denied', 'second_factor_required']),
    );
    expect(paths['/api/v1/withdrawals'].post.responses['409'].content['application/json'].schema).toEqual(
      // conflict: an Idempotency-Key used for another request, or still running.
      envelope([
        'balance_settlement_required',
        'chain_not_offered',
        'conflict',
        'destination_pending',
        'insufficient_balance',
        'not_configured',
        'treasury_held',
        'withdrawal_limit_exceeded',
      ]),
    );
    expect((components.schemas.Error.properties as { code: { enum: string[] } }).code.enum).toEqual(Object.keys(ERROR_CODES));
    expect(Object.keys(paths['/api/v1/payment_links/donation'].post.requestBody!.content)).toEqual(['multipart/form-data']);
    expect(components.schemas.Error.required).toEqual(['status', 'statusCode', 'message']);
    expect(Object.keys(doc.webhooks as object).sort()).toEqual([
      'ACCOUNT_EMAIL_CHANGED',
      'BANK_ACCOUNT_PENDING',
      'DEPOSIT_DISCREPANCY',
      'DEPOSIT_REVERSED',
      'DEPOSIT_TRANSACTION',
      'DEPOSIT_UNMATCHED',
      'PAYOUT_ADDRESS_PENDING',
      'PAYOUT_UPDATED',
      'REFUND_UPDATED',
      'SECURITY_CHANGED',
      'SUBSCRIPTION_PAYMENT_FAILED',
      'SUBSCRIPTION_UPDATED',
      'SWAP_UPDATED',
      'WITHDRAWAL_ADDRESS_PENDING',
      'WITHDRAWAL_UPDATED',
    ]);
  });

  it('is true of every answer of every operation: each body matches the schema of its operation and status', { timeout: 120_000 }, async () => {
    // Payments
    await call('GET', '/api/v1/coins', pub);
    await call('GET', '/api/v1/coins?amount=24.50&currency=USD', pub);
    await call('GET', '/api/v1/coins?amount=24.50', pub);
    await call('GET', '/api/v1/coins', {});
    await call('GET', '/api/v1/coins', sec);
    // Settlement: wallet by default; swaps answer 409 until the balance; then the demo merchant's test payments settle to a balance
    await call('GET', '/api/v1/settlement', sec);
    await call('POST', '/api/v1/swaps/quote', sec, { from: 'USDC', to: 'USDT', amount: '1' });
    await call('PUT', '/api/v1/settlement', sec, { settlement: 'custodial' });
    await call('PUT', '/api/v1/settlement', sec, { settlement: 'balance' });
    await call('POST', '/api/v1/transaction/initialize', pub, { reference: 'oa-1', coin: 'USDT', currency: 'USD', amount: '24.50' });
    await call('POST', '/api/v1/transaction/initialize', pub, { reference: 'oa-1', coin: 'USDT', currency: 'USD', amount: '24.50' });
    await call('POST', '/api/v1/transaction/initialize', sec, {
      reference: 'oa-2',
      coin: 'USDC',
      currency: 'EUR',
      amount: 10,
      customer_email: 'ada@example.com',
      metadata: { order: 7 },
      accept_partial_payment: true,
    });
    await call('POST', '/api/v1/transaction/initialize', pub, { reference: 'oa-3', coin: 'XRP', currency: 'USD', amount: '1.234' });
    await call('POST', '/api/v1/transaction/initialize', pub, '{"not json');
    await call('POST', '/api/v1/transaction/initialize', pub, { reference: 'x'.repeat(20), metadata: { big: 'x'.repeat(17_000) } });
    await call('GET', '/api/v1/transaction/verify/oa-1', pub);
    await call('GET', '/api/v1/transaction/verify/oa-2', sec);
    await call('GET', '/api/v1/transaction/verify/nothing-here', pub);
    await call('GET', '/api/v1/transaction/verify/oa-1?wait=99&since=x', pub);
    await call('GET', '/api/v1/transaction/qr/oa-1', pub);
    await call('GET', '/api/v1/transaction/qr/nothing-here', sec);
    await call('POST', '/api/v1/sandbox/deposit', pub, { reference: 'oa-2', kind: 'partial' });
    await call('POST', '/api/v1/sandbox/deposit', sec, { reference: 'oa-1', kind: 'nope' });
    await call('POST', '/api/v1/sandbox/deposit', { 'x-api-key': DEMO_MERCHANT.keys.live.publicKey }, { reference: 'oa-1', kind: 'exact' });
    await call('POST', '/api/v1/transaction/settle/oa-2', sec);
    await call('POST', '/api/v1/transaction/settle/oa-1', pub);
    await call('POST', '/api/v1/transaction/settle/nothing-here', pub);

    // Webhooks and events: deliveries go to a local receiver
    await call('PUT', '/api/v1/webhook', sec, { url: `http://127.0.0.1:${(hookServer.address() as AddressInfo).port}/hook` });
    await call('PUT', '/api/v1/webhook', sec, { url: 'javascript:alert(1)' });
    await call('PUT', '/api/v1/webhook', pub, { url: 'https://example.com/hook' });
    await call('GET', '/api/v1/webhook', sec);
    await call('POST', '/api/v1/sandbox/deposit', pub, { reference: 'oa-1', kind: 'exact' });
    // Paying with one signature: no chain here (409 chain_not_offered); a malformed body 400.
    const authorization = {
      from: '0x' + '1'.repeat(40),
      to: '0x' + '2'.repeat(40),
      value: '24500000',
      validAfter: '0',
      validBefore: '4102444800',
      nonce: '0x' + 'ab'.repeat(32),
    };
    await call('POST', '/api/v1/transaction/relay/oa-1', pub, { chain_id: 31337, authorization, signature: '0x' + 'cd'.repeat(65) });
    await call('POST', '/api/v1/transaction/relay/oa-1', pub, { chain_id: 31337, authorization: { ...authorization, value: '24.5' }, signature: '0x12' });
    await call('POST', '/api/v1/webhook/rotate', sec);
    await call('PUT', '/api/v1/payout_address', sec, { chain_id: 31337, address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8' });
    await call('PUT', '/api/v1/payout_address', sec, { chain_id: 0, address: '0x0' });
    await call('GET', '/api/v1/payout_address', sec);
    await until(() => (hooks.length > 0 ? true : undefined));
    const events = await call('GET', '/api/v1/events?limit=10', sec);
    await call('GET', '/api/v1/events?after=latest', sec);
    await call('GET', '/api/v1/events?limit=0', sec);
    await call('POST', `/api/v1/events/${(events.body as { data: Array<{ id: string }> }).data[0].id}/resend`, sec);
    await call('POST', '/api/v1/events/evt_unknown/resend', sec);

    // The merchant's payments (a session's calls are in dashboard.test.ts)
    const listed = await call('GET', '/api/v1/payments?limit=2', sec);
    await call('GET', `/api/v1/payments?cursor=${(listed.body as { next: string }).next}&status=incomplete&coin=USDC&q=ada@example.com`, sec);
    await call('GET', '/api/v1/payments?limit=0', sec);
    await call('GET', '/api/v1/payments/oa-2', sec);
    await call('GET', '/api/v1/payments/oa-unknown', sec);
    await call('GET', '/api/v1/payments/oa-2', pub);
    const csv = await fetch(`${api.url}/api/v1/payments/export.csv?coin=USDC`, { headers: sec });
    seen.push({
      method: 'GET',
      template: '/api/v1/payments/export.csv',
      status: csv.status,
      body: await csv.text(),
      url: '/api/v1/payments/export.csv',
      type: csv.headers.get('content-type') ?? '',
    });
    await call('GET', '/api/v1/payments/export.csv?status=paid', sec);

    // Plans and subscriptions: no chain here, so subscribing is 409 not_configured (server/subscriptions/tests have the chain)
    const plan = await call('POST', '/api/v1/plans', sec, { name: 'Tea club', coin: 'USDT', price: '9.99', period: 'month', periods: 12 });
    await call('POST', '/api/v1/plans', sec, { name: 'Tea club', coin: 'USDT', price: '9.999', period: 'fortnight', periods: 0 });
    await call('GET', '/api/v1/plans?limit=1', sec);
    await call('GET', '/api/v1/plans?limit=0', sec);
    await call('GET', `/api/v1/plans/${(plan.body as { data: { id: string } }).data.id}`, sec);
    await call('GET', '/api/v1/plans/nope', sec);
    await call('POST', '/api/v1/subscriptions', sec, { plan_id: (plan.body as { data: { id: string } }).data.id, wallet: '0x' + '1'.repeat(40) });
    await call('POST', '/api/v1/subscriptions', sec, { plan_id: 'nope', wallet: '0x0' });
    await call('GET', '/api/v1/subscriptions', sec);
    await call('GET', '/api/v1/subscriptions?cursor=x', sec);
    await call('GET', `/api/v1/subscriptions/${'0'.repeat(8)}-0000-4000-8000-${'0'.repeat(12)}`, sec);
    await call('POST', `/api/v1/subscriptions/${'0'.repeat(8)}-0000-4000-8000-${'0'.repeat(12)}/cancel`, sec);
    // Products and prices
    const product = await call('POST', '/api/v1/products', sec, { name: 'Oolong', prices: [{ currency: 'USD', amount: '9.50' }] });
    const productId = (product.body as { data: { id: string } }).data.id;
    await call('POST', '/api/v1/products', sec, { name: '' });
    await call('GET', '/api/v1/products?limit=1', sec);
    await call('GET', '/api/v1/products?limit=0', sec);
    await call('GET', `/api/v1/products/${productId}`, sec);
    await call('GET', '/api/v1/products/nope', sec);
    await call('PATCH', `/api/v1/products/${productId}`, sec, { name: 'Oolong, 250 g' });
    await call('PATCH', `/api/v1/products/${productId}`, sec, { archived: 'yes' });
    const price = await call('POST', `/api/v1/products/${productId}/prices`, sec, { currency: 'EUR', amount: '8' });
    await call('POST', `/api/v1/products/${productId}/prices`, sec, { currency: 'EUR', amount: '-1' });
    await call('GET', `/api/v1/prices/${(price.body as { data: { id: string } }).data.id}`, sec);
    await call('GET', '/api/v1/prices/nope', sec);

    // Payment links
    const prices = [...(await api.parts.links.prices()).values()];
    const beans = prices.find((p) => p.currency === 'USD')!.id;
    const created = await call('POST', '/api/v1/payment_links/standard', sec, {
      title: 'Beans',
      description: 'Two bags',
      cart: [{ price_id: beans, quantity: 2, quantity_adjustable: true }],
    });
    const link = (created.body as { data: { id: string; slug: string } }).data;
    await call('POST', '/api/v1/payment_links', sec, { title: 'A fixed charge', charge: { amount: '12.00', currency: 'USD' } });
    await call('POST', '/api/v1/payment_links', sec, { title: '' });
    await call('POST', '/api/v1/payment_links/standard', sec, { title: 'Beans', cart: [{ price_id: beans, quantity: 0 }] });
    await call('PUT', '/api/v1/payment_links/standard', sec, { id: '00000000-0000-4000-8000-000000000000', title: 'Nobody' });
    await call('PUT', '/api/v1/payment_links/standard', sec, { id: link.id, title: 'Beans, renamed' });
    await call('PUT', '/api/v1/payment_links', sec, { id: link.id, description: 'Three bags' });
    await call('PUT', '/api/v1/payment_links', sec, { id: 'not-a-uuid' });
    await call('GET', '/api/v1/payment_links?page=1&page_size=2', sec);
    await call('GET', '/api/v1/payment_links?page=0', sec);
    await call('GET', `/api/v1/payment_links/pay/${link.slug}`, pub);
    await call('GET', `/api/v1/payment_links/pay/${link.id}`, sec);
    await call('GET', '/api/v1/payment_links/pay/no-such-link', pub);
    const form = new FormData();
    form.append('title', 'Rebuild the roof');
    form.append('options[collect_phone]', 'true');
    form.append('cover_photo', PNG, 'cover.png');
    const donation = await call('POST', '/api/v1/payment_links/donation', sec, form);
    const badForm = new FormData();
    badForm.append('title', '');
    await call('POST', '/api/v1/payment_links/donation', sec, badForm);
    await call('PUT', '/api/v1/payment_links/donation', sec, {
      id: (donation.body as { data: { id: string } }).data.id,
      description: 'Every tile',
      is_active: true,
    });
    await call('PUT', '/api/v1/payment_links/donation', sec, { id: 'not-a-uuid' });
    await call('PUT', `/api/v1/payment_links/${link.id}/status`, sec, { is_active: false });
    await call('PUT', `/api/v1/payment_links/${link.id}/status`, sec, { is_active: 'no' });
    await call('GET', `/api/v1/payment_links/${link.id}/qr`, sec);
    await call('GET', '/api/v1/payment_links/00000000-0000-4000-8000-000000000000/qr', sec);

    // The business: its name, e-mail and logo (an image by its bytes; HTML refused)
    await call('GET', '/api/v1/account', sec);
    await call('GET', '/api/v1/account', pub);
    await call('GET', '/api/v1/account/warnings', sec);
    await call('GET', '/api/v1/account/warnings', pub);
    await call('PATCH', '/api/v1/account', sec, { business_name: DEMO_MERCHANT.businessName });
    await call('PATCH', '/api/v1/account', sec, { business_email: 'nope' });
    const logo = new FormData();
    logo.append('logo', PNG, 'logo.png');
    await call('PUT', '/api/v1/account/logo', sec, logo);
    const htmlLogo = new FormData();
    htmlLogo.append('logo', new Blob(['<html><script>alert(1)</script></html>'], { type: 'image/png' }), 'logo.png');
    await call('PUT', '/api/v1/account/logo', sec, htmlLogo);

    // Bank payouts: oa-1 was paid in full, so there is a balance to pay out
    await call('GET', '/api/v1/bank?country=nigeria', sec);
    await call('GET', '/api/v1/bank?country=atlantis', sec);
    await call('GET', '/api/v1/bank/payouts/countries', sec);
    await call('GET', '/api/v1/bank/payouts/currencies', sec);
    await call('GET', '/api/v1/bank/payouts/rate?coin=USDT&currency=NGN', sec);
    await call('GET', '/api/v1/bank/payouts/rate?coin=XRP&currency=JPY', sec);
    const bank = await call('POST', '/api/v1/bank/payouts', sec, {
      bank_name: 'Access Bank',
      bank_code: '044',
      account_name: 'Harbour Coffee Ltd',
      account_number: '0690000031',
      currency: 'NGN',
      country: 'nigeria',
      state: 'Lagos',
      default: true,
    });
    const bankId = (bank.body as { data: { id: string } }).data.id;
    await call('POST', '/api/v1/bank/payouts', sec, { currency: 'NGN', bank_name: 'Access Bank' });
    await call('GET', '/api/v1/bank/payouts', sec);
    await call('GET', `/api/v1/bank/payouts/${bankId}`, sec);
    await call('GET', '/api/v1/bank/payouts/00000000-0000-4000-8000-000000000000', sec);
    await call('PATCH', `/api/v1/bank/payouts/${bankId}`, sec, { state: 'Abuja' });
    await call('PATCH', '/api/v1/bank/payouts/00000000-0000-4000-8000-000000000000', sec, { state: 'Abuja' });
    const payout = await call('POST', '/api/v1/bank/payouts/initiate', sec, {
      payout_bank_id: bankId,
      coin: 'USDT',
      amount: 1,
      reference: 'po-oa-1',
      metadata: { invoice: 1 },
    });
    await call('POST', '/api/v1/bank/payouts/initiate', sec, { payout_bank_id: bankId, coin: 'USDT', amount: 1_000_000 });
    await call('GET', `/api/v1/bank/payouts/withdrawals/${(payout.body as { data: { id: string } }).data.id}`, sec);
    await call('GET', '/api/v1/bank/payouts/withdrawals/nope', sec);
    await call('GET', '/api/v1/bank/payouts/withdrawals?limit=1', sec);
    await call('GET', '/api/v1/bank/payouts/withdrawals?cursor=abc', sec);

    // A live key's new bank account waits the delay: listed as a change, cancelled by the owner (then gone: 404)
    const liveSec = { authorization: `Bearer ${DEMO_MERCHANT.keys.live.secretKey}` };
    const liveBank = await call('POST', '/api/v1/bank/payouts', liveSec, {
      bank_name: 'Access Bank',
      bank_code: '044',
      account_name: 'Harbour Coffee Ltd',
      account_number: '0690000031',
      currency: 'NGN',
      country: 'nigeria',
      state: 'Lagos',
    });
    expect((liveBank.body as { data: { effectiveAt?: string } }).data.effectiveAt).toBeDefined();
    await call('PATCH', `/api/v1/bank/payouts/${(liveBank.body as { data: { id: string } }).data.id}`, liveSec, { account_number: '0690000032' });
    const waiting = await call('GET', '/api/v1/destination_changes', liveSec);
    await call('GET', '/api/v1/destination_changes');
    const changeId = (waiting.body as { data: Array<{ id: string }> }).data[0]!.id;
    expect((await call('DELETE', `/api/v1/destination_changes/${changeId}`, liveSec)).status).toBe(200);
    expect((await call('DELETE', `/api/v1/destination_changes/${changeId}`, liveSec)).status).toBe(404);

    // Balances, swaps and withdrawals (no network here: no treasury, so swaps and withdrawals answer 409; the chain's are in balances/tests/balances.test.ts)
    await call('GET', '/api/v1/balances', sec);
    await call('GET', '/api/v1/balances', pub);
    await call('GET', '/api/v1/balances/entries?coin=USDT&limit=5', sec);
    await call('GET', '/api/v1/balances/entries?cursor=x', sec);
    const statement = await fetch(`${api.url}/api/v1/balances/statement.csv`, { headers: sec });
    seen.push({
      method: 'GET',
      template: '/api/v1/balances/statement.csv',
      status: statement.status,
      body: await statement.text(),
      url: '/api/v1/balances/statement.csv',
      type: statement.headers.get('content-type') ?? '',
    });
    await call('GET', '/api/v1/balances/statement.csv', pub);
    await call('GET', '/api/v1/settlement', pub);
    await call('POST', '/api/v1/swaps/quote', sec, { from: 'USDC', to: 'USDT', amount: '1' });
    await call('POST', '/api/v1/swaps/quote', sec, { from: 'USDC', to: 'USDT', amount: 'lots' });
    await call('POST', '/api/v1/swaps', sec, { quote_id: '00000000-0000-4000-8000-000000000000' });
    await call('POST', '/api/v1/swaps', sec, { quote_id: 7 });
    await call('GET', '/api/v1/swaps/00000000-0000-4000-8000-000000000000', sec);
    await call('POST', '/api/v1/withdrawals', sec, { coin: 'USDT', chain_id: 97, address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', amount: '1' });
    await call('POST', '/api/v1/withdrawals', sec, { coin: 'USDT', chain_id: 97, address: '0x7', amount: '1' });
    await call('GET', '/api/v1/withdrawals/00000000-0000-4000-8000-000000000000', sec);
    await call('GET', '/api/v1/swaps?limit=5', sec);
    await call('GET', '/api/v1/withdrawals', sec);
    await call('GET', '/api/v1/withdrawals/limit', sec);
    await call('GET', '/api/v1/withdrawals/limit', pub);
    await call('GET', '/api/v1/swaps?cursor=abc', sec);
    await call('GET', '/api/v1/withdrawals?limit=0', sec);
    // Refunds of a balance-settled payment (oa-1, paid): one, past what arrived, bad input, the list and one
    const refund = await call('POST', '/api/v1/refunds', sec, {
      reference: 'oa-1',
      amount: '0.5',
      reason: 'a broken cup',
      address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    });
    await call('POST', '/api/v1/refunds', sec, {
      reference: 'oa-1',
      amount_base_units: '1000',
      reason: 'the old form',
      address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    });
    await call('POST', '/api/v1/refunds', sec, {
      reference: 'oa-1',
      amount: '1' + '0'.repeat(30),
      reason: 'too much',
      address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    });
    await call('POST', '/api/v1/refunds', sec, {
      reference: 'oa-1',
      amount: '0.' + '0'.repeat(30) + '1',
      reason: 'past its decimals',
      address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    });
    await call('POST', '/api/v1/refunds', sec, { reference: 'nothing-here', amount: 'rest', reason: 'r', address: '0x7' });
    await call('GET', '/api/v1/refunds?reference=oa-1&limit=1', sec);
    await call('GET', '/api/v1/refunds?limit=0', sec);
    await call('GET', `/api/v1/refunds/${(refund.body as { data: { id: string } }).data.id}`, sec);
    await call('GET', '/api/v1/refunds/00000000-0000-4000-8000-000000000000', sec);
    // Canceled before the treasury signs it (jobs are off); a second cancel is refused
    await call('POST', `/api/v1/refunds/${(refund.body as { data: { id: string } }).data.id}/cancel`, sec);
    await call('POST', `/api/v1/refunds/${(refund.body as { data: { id: string } }).data.id}/cancel`, sec);
    // Wallet settlement's own routes (a balance-settled refund: 409 refund_state; a bad hash: 400).
    await call('GET', `/api/v1/refunds/${(refund.body as { data: { id: string } }).data.id}/qr`, sec);
    await call('POST', `/api/v1/refunds/${(refund.body as { data: { id: string } }).data.id}/transaction`, sec, { tx_hash: '0x' + 'ab'.repeat(32) });
    await call('POST', `/api/v1/refunds/${(refund.body as { data: { id: string } }).data.id}/transaction`, sec, { tx_hash: '0x12' });
    await call('PUT', '/api/v1/refunds/support_limit', sec, { daily: '50' });
    await call('PUT', '/api/v1/refunds/support_limit', sec, { daily: 'lots' });
    // Exceptions resolved in one step: overpaid payments, one's excess kept, another's sent back; nothing left to resolve refused
    for (const reference of ['oa-over-1', 'oa-over-2']) {
      await call('POST', '/api/v1/transaction/initialize', pub, { reference, coin: 'USDT', currency: 'USD', amount: 5 });
      await call('POST', '/api/v1/sandbox/deposit', pub, { reference, kind: 'over' });
    }
    await call('GET', '/api/v1/payments?needs_attention=true', sec);
    await call('POST', '/api/v1/payments/oa-over-1/accept', sec);
    await call('POST', '/api/v1/payments/oa-over-1/accept', sec);
    await call('POST', '/api/v1/payments/oa-over-2/send_back', sec, { reason: 'paid too much', address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8' });
    await call('POST', '/api/v1/payments/oa-over-2/send_back', sec, { reason: '' });
    const spare = await call('POST', '/api/v1/bank/payouts', sec, {
      bank_name: 'GCB Bank',
      bank_code: 'GH040100',
      account_name: 'Harbour Coffee GH',
      account_number: '1234567890',
      currency: 'GHS',
      country: 'ghana',
      city: 'Accra',
      address: '5 Independence Ave',
      street: 'Independence Ave',
      postal_code: 'GA-123',
    });
    await call('DELETE', '/api/v1/bank/payouts', sec, { ids: [(spare.body as { data: { id: string } }).data.id] });
    await call('DELETE', '/api/v1/bank/payouts', sec, { ids: [] });

    // The team, restricted keys and the audit log (a session's calls are in team.test.ts): a key lists, manages no one
    const none = '00000000-0000-4000-8000-000000000000';
    await call('GET', '/api/v1/members', sec);
    await call('GET', '/api/v1/members', pub);
    await call('POST', '/api/v1/members/invitations', sec, { email: 'ada@example.com', role: 'viewer' });
    await call('PATCH', `/api/v1/members/${none}`, sec, { role: 'viewer' });
    await call('DELETE', `/api/v1/members/${none}`, sec);
    await call('POST', `/api/v1/members/${none}/ownership`, sec);
    const restricted = await call('POST', '/api/v1/keys/restricted', sec, { name: 'reports', permissions: ['payments.read'] });
    await call('POST', '/api/v1/keys/restricted', sec, { name: 'reports', permissions: ['everything'] });
    await call('GET', '/api/v1/keys/restricted', sec);
    await call('GET', '/api/v1/keys/restricted', pub);
    await call('DELETE', `/api/v1/keys/restricted/${(restricted.body as { data: { id: string } }).data.id}`, sec);
    await call('DELETE', `/api/v1/keys/restricted/${none}`, sec);
    await call('GET', '/api/v1/email_choices', sec);
    await call('PUT', '/api/v1/email_choices', sec, { payment_received: true });
    await call('GET', '/api/v1/audit_log?limit=5', sec);
    await call('GET', '/api/v1/audit_log?limit=0', sec);

    // A new secret key: the last call with the old one
    await call('POST', '/api/v1/keys/roll', pub);
    await call('POST', '/api/v1/keys/roll', sec, { revoke_old_after: -1 });
    // Rolled with a delay: the old key keeps working for the calls below.
    await call('POST', '/api/v1/keys/roll', sec, { revoke_old_after: 60 });
    await call('POST', '/api/v1/keys/roll', sec);

    // Operations
    await call('GET', '/healthz');
    await call('GET', '/readyz');
    await call('GET', '/api/v1/openapi.json');

    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    const paths = doc.paths as Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: JsonSchema }> }> }>>;
    const errorSchema = (doc.components as { schemas: { Error: JsonSchema } }).schemas.Error;
    const resolve = (schema: JsonSchema) => (schema.$ref === '#/components/schemas/Error' ? errorSchema : schema);
    const problems: string[] = [];
    for (const answer of seen) {
      const response = paths[answer.template]?.[answer.method.toLowerCase()]?.responses[String(answer.status)];
      if (!response) {
        problems.push(`${answer.method} ${answer.url}: ${answer.status} is not in the document`);
        continue;
      }
      const media = Object.keys(response.content!)[0];
      if (media !== 'application/json') {
        if (!answer.type?.startsWith(media)) problems.push(`${answer.method} ${answer.url} ${answer.status}: not ${media}`);
        continue;
      }
      const schema = response.content!['application/json'].schema;
      if (!ajv.validate(resolve(schema), answer.body)) problems.push(`${answer.method} ${answer.url} ${answer.status}: ${ajv.errorsText(ajv.errors)}`);
    }
    expect(problems).toEqual([]);
    // Every operation answered at least once, and with an error at least once where it can refuse.
    const operations = Object.entries(paths).flatMap(([path, methods]) => Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`));
    const answered = new Set(seen.map((s) => `${s.method} ${s.template}`));
    expect(operations.filter((op) => !answered.has(op))).toEqual([]);
    const refused = new Set(seen.filter((s) => s.status >= 400).map((s) => `${s.method} ${s.template}`));
    expect(
      operations.filter(
        (op) =>
          !refused.has(op) &&
          !/GET \/(healthz|readyz|api\/v1\/openapi\.json|api\/v1\/bank\/payouts\/(countries|currencies))$/.test(op) &&
          !/^GET \/api\/v1\/(webhook|payout_address)$|^POST \/api\/v1\/webhook\/rotate$|^GET \/api\/v1\/bank\/payouts$/.test(op),
      ),
    ).toEqual([]);
    expect(seen.length).toBeGreaterThanOrEqual(75);
    console.log(
      `openapi conformance: ${seen.length} answers, ${answered.size} operations, ${new Set(seen.map((s) => `${s.method} ${s.template} ${s.status}`)).size} operation/status pairs`,
    );
  });

  it('is true of real webhook deliveries and the events feed: each body matches its event under webhooks', async () => {
    await until(() => (hooks.length >= 2 ? true : undefined));
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    const webhooks = doc.webhooks as Record<string, { post: { requestBody: { content: { 'application/json': { schema: JsonSchema } } } } }>;
    for (const { body, headers } of hooks) {
      const event = JSON.parse(body) as { event: string };
      const schema = webhooks[event.event].post.requestBody.content['application/json'].schema;
      expect(ajv.validate(schema, event), `${event.event}: ${ajv.errorsText(ajv.errors)}`).toBe(true);
      expect(headers['webhook-id']).toBe((event as unknown as { id: string }).id);
      // The payload names its type as the events feed does.
      expect((event as unknown as { type: string }).type).toBe(event.event);
    }
  });
});

describe('the API reference page', () => {
  it('is HTML made from the document: every operation and event, no script, nothing from another origin', async () => {
    // Once more on a reset connection: after the long conformance run above, a pooled keep-alive
    // socket is sometimes reset as it is reused (ECONNRESET before any answer; not understood yet,
    // see the issue 38 report). The page itself is checked on the answer.
    const response = await fetch(`${api.url}/api/v1/reference`).catch(() => fetch(`${api.url}/api/v1/reference`));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(response.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
    const html = await response.text();
    for (const [path, methods] of Object.entries(doc.paths as Record<string, object>)) {
      for (const method of Object.keys(methods)) expect(html).toContain(`${method.toUpperCase()}</span> <code>${path}</code>`);
    }
    for (const event of Object.keys(doc.webhooks as object)) expect(html).toContain(`<h3>${event}</h3>`);
    expect(html).not.toMatch(/<script/i);
    // Its one style is allowed by its hash, and nothing else is.
    const style = /<style>([\s\S]*?)<\/style>/.exec(html)![1];
    expect(response.headers.get('content-security-policy')).toContain(`style-src 'sha256-${createHash('sha256').update(style).digest('base64')}'`);
    // Its only link is the document; its icon is inline (data:), from no origin at all.
    const refs = html.match(/(?:src|href)="[^"#]*"/g)!;
    expect(refs.filter((r) => !r.startsWith('href="data:image/svg+xml,'))).toEqual(['href="openapi.json"']);
    expect(refs.length).toBe(2);
  });
});
