// Contract tests: every payment-link endpoint of the spec, valid and invalid input, each
// response checked against a schema written from the spec's tables.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type * as z from 'zod/mini';
import { DonationLink, LinkById, LinkBySlug, LinkList, StandardLinkCreated } from '../../../contract/payment-links.ts';
import { ErrorBody, success } from '../../../contract/schemas.ts';
import { DEMO_MERCHANT, DEMO_PRICES } from '../../service/seed.ts';
import { startService, type Service } from '../../service/app.ts';
import { RateLimiter } from '../../http/rate-limit.ts';
import { configFromEnv } from '../../service/config.ts';
import { holdAnswersToOpenApi } from '../../testing/conformance.ts';

// Every answer of the API seen here must be one the OpenAPI document allows.
holdAnswersToOpenApi();

const { publicKey, secretKey } = DEMO_MERCHANT.keys.test;
let api: Service;
let beans: string;
let mug: string;
let beansNgn: string;

const ADMIN = 'op_links_test_token_0123456789abcdef0123456789ab';

beforeAll(async () => {
  api = await startService({ demo: true, adminToken: ADMIN });
  const prices = [...(await api.parts.links.prices()).values()];
  beans = prices.find((p) => p.product.name.startsWith('Single') && p.currency === 'USD')!.id;
  beansNgn = prices.find((p) => p.currency === 'NGN')!.id;
  mug = prices.find((p) => p.product.name === 'Enamel mug')!.id;
});
afterAll(() => api.close());

async function call(method: string, path: string, body?: unknown, auth: 'secret' | 'public' | 'none' = 'secret') {
  const headers: Record<string, string> = {};
  if (auth === 'secret') headers.authorization = `Bearer ${secretKey}`;
  if (auth === 'public') headers['x-api-key'] = publicKey;
  let payload: BodyInit | undefined;
  if (body instanceof FormData) payload = body;
  else if (body !== undefined) {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(body);
  }
  const response = await fetch(api.url + path, { method, headers, body: payload });
  return { status: response.status, body: await response.json() };
}

function conforms<S extends z.ZodMiniType>(schema: S, value: unknown) {
  const result = schema.safeParse(value);
  if (!result.success) throw new Error(JSON.stringify(result.error.issues.slice(0, 3)));
}

const standard = (extra: Record<string, unknown> = {}) => ({
  title: 'Coffee for the office',
  description: 'Two bags and a mug',
  options: { collect_phone: true, allow_promo: false, collect_address: true },
  action: { redirect: false, redirect_url: '', show_confirmation_page: true, success_message: 'Thanks!' },
  cart: [
    { price_id: beans, quantity: 2, quantity_adjustable: true },
    { price_id: mug, quantity: 1, quantity_adjustable: false },
  ],
  ...extra,
});

describe('standard links', () => {
  it("creates one from a cart: 201, the spec's create shape (allowPromotion, image)", async () => {
    const { status, body } = await call('POST', '/api/v1/payment_links/standard', standard());
    expect(status).toBe(201);
    conforms(success(StandardLinkCreated), body);
    expect(body.message).toMatch(/created successfully/);
    expect(body.data).toMatchObject({
      type: 'standard',
      isActive: true,
      network: 'testnet',
      charge: {},
      options: { collectAddress: true, collectPhone: true, allowPromotion: false },
    });
    expect(body.data.cart.items.map((i: { quantity: number }) => i.quantity)).toEqual([2, 1]);
    expect(body.data.cart.items[0].product).toHaveProperty('image');
    expect(body.data.url).toBe(`${api.url}/pay/${body.data.slug}`);
  });

  it.each([
    [{ amount: '0.001', currency: 'USD' }, 'charge.amount'],
    [{ amount: '10', currency: 'XYZ' }, 'charge.currency'],
    [{ amount: '123456789012345678901', currency: 'USD' }, 'charge.amount'],
    [{ amount: '100000000.01', currency: 'USD' }, 'charge.amount'],
    [{ amount: -5, currency: 'USD' }, 'charge.amount'],
  ])('refuses a charge no customer could pay: %j', async (charge, field) => {
    const { status, body } = await call('POST', '/api/v1/payment_links/standard', { title: 'Bad charge', charge });
    expect(status).toBe(400);
    expect(body.errors.map((e: { field: string }) => e.field)).toEqual([field]);
  });

  it('creates one with a fixed charge, also at the path without /standard', async () => {
    const { status, body } = await call('POST', '/api/v1/payment_links', { title: 'Donation box', charge: { amount: '15.00', currency: 'USD' } });
    expect(status).toBe(201);
    conforms(success(StandardLinkCreated), body);
    expect(body.data).toMatchObject({ charge: { amount: '15.00', currency: 'USD' }, cart: {} });
  });

  // Bodies are built when each test runs: the price ids are only known after beforeAll.
  it.each([
    ['no title', () => ({ ...standard(), title: '' }), 'title'],
    ['an unknown price', () => standard({ cart: [{ price_id: '00000000-0000-4000-8000-000000000000', quantity: 1 }] }), 'cart.0.price_id'],
    ['a quantity of 0', () => standard({ cart: [{ price_id: beans, quantity: 0 }] }), 'cart.0.quantity'],
    ['a price id that is not a UUID', () => standard({ cart: [{ price_id: 'beans', quantity: 1 }] }), 'cart.0.price_id'],
    [
      'prices in two currencies',
      () =>
        standard({
          cart: [
            { price_id: beans, quantity: 1 },
            { price_id: beansNgn, quantity: 1 },
          ],
        }),
      'cart',
    ],
    ['neither cart nor charge', () => ({ title: 'Empty' }), 'cart'],
    ['a redirect without a URL', () => standard({ action: { redirect: true } }), 'action.redirect_url'],
    ['a redirect URL that is not a URL', () => standard({ action: { redirect: true, redirect_url: 'javascript:alert(1)' } }), 'action.redirect_url'],
    ['a boolean option given as text', () => standard({ options: { collect_phone: 'yes' } }), 'options.collect_phone'],
  ])('refuses %s, naming the field', async (_name, body, field) => {
    const response = await call('POST', '/api/v1/payment_links/standard', body());
    expect(response.status).toBe(400);
    conforms(ErrorBody, response.body);
    expect(
      response.body.errors.map((e: { field: string }) => e.field),
      JSON.stringify(response.body),
    ).toContain(field);
  });

  it('updates one (confirmation_page in the action), at both paths', async () => {
    const created = (await call('POST', '/api/v1/payment_links/standard', standard())).body.data;
    const updated = await call('PUT', '/api/v1/payment_links/standard', {
      id: created.id,
      business_id: DEMO_MERCHANT.id,
      network: 'testnet',
      title: 'Coffee, renamed',
      action: { confirmation_page: false, success_message: 'Merci' },
      cart: [{ item_id: created.cart.items[0].id, price_id: beans, quantity: 3, quantity_adjustable: true }],
    });
    expect(updated.status).toBe(200);
    conforms(success(StandardLinkCreated), updated.body);
    expect(updated.body.data).toMatchObject({ title: 'Coffee, renamed', action: { showConfirmationPage: false, successMessage: 'Merci' } });
    expect(updated.body.data.cart.items.map((i: { quantity: number }) => i.quantity)).toEqual([3]);
    const again = await call('PUT', '/api/v1/payment_links', { id: created.id, description: 'Same link' });
    expect(again.body.data.description).toBe('Same link');
    expect((await call('PUT', '/api/v1/payment_links/standard', { id: 'nope' })).status).toBe(400);
    expect((await call('PUT', '/api/v1/payment_links/standard', { id: '00000000-0000-4000-8000-000000000000' })).status).toBe(404);
  });
});

describe('reading links', () => {
  it('reads by slug and by id under /pay/, told apart by the UUID form, each in its own shape', async () => {
    const created = (await call('POST', '/api/v1/payment_links/standard', standard())).body.data;
    const bySlug = await call('GET', `/api/v1/payment_links/pay/${created.slug}`, undefined, 'public');
    expect(bySlug.status).toBe(200);
    conforms(success(LinkBySlug), bySlug.body);
    expect(bySlug.body.message).toMatch(/found/);
    expect(bySlug.body.data).toMatchObject({ businessName: DEMO_MERCHANT.businessName, params: ['email', 'address', 'phone'], url: created.url });
    expect(bySlug.body.data.cart.items[0].product).toHaveProperty('coverPhoto');
    const byId = await call('GET', `/api/v1/payment_links/pay/${created.id}`);
    conforms(success(LinkById), byId.body);
    expect(byId.body.data).toMatchObject({
      linkType: 'standard',
      businessId: DEMO_MERCHANT.id,
      action: { confirmationPage: true },
      options: { allowPromo: false },
    });
    expect((await call('GET', '/api/v1/payment_links/pay/no-such-slug', undefined, 'public')).status).toBe(404);
  });

  it('lists with the documented pagination fields, newest first', async () => {
    const first = await call('GET', '/api/v1/payment_links?page=1&page_size=2');
    expect(first.status).toBe(200);
    conforms(LinkList, first.body);
    expect(first.body).toMatchObject({ currentPage: 1, prevPage: null, nextPage: 2 });
    expect(first.body.data).toHaveLength(2);
    const last = await call('GET', `/api/v1/payment_links?page=${first.body.lastPage}&page_size=2`);
    expect(last.body).toMatchObject({ nextPage: null, prevPage: first.body.lastPage - 1 });
    expect(first.body.count).toBeGreaterThanOrEqual(first.body.data.length);
    expect((await call('GET', '/api/v1/payment_links?page=0')).status).toBe(400);
    expect((await call('GET', '/api/v1/payment_links?page_size=101')).status).toBe(400);
  });

  it('keeps merchant calls to the secret key: a public key, or none, gets 401', async () => {
    expect((await call('GET', '/api/v1/payment_links', undefined, 'public')).status).toBe(401);
    expect((await call('GET', '/api/v1/payment_links', undefined, 'none')).status).toBe(401);
    expect((await call('POST', '/api/v1/payment_links/standard', standard(), 'public')).status).toBe(401);
  });
});

describe('donation links', () => {
  const form = (fields: Record<string, string>, photo?: Blob) => {
    const data = new FormData();
    for (const [name, value] of Object.entries(fields)) data.append(name, value);
    if (photo) data.append('cover_photo', photo, 'cover.png');
    return data;
  };
  const PNG = new Blob(
    [
      Buffer.from(
        '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000a49444154789c6360000000020001e221bc330000000049454e44ae426082',
        'hex',
      ),
    ],
    { type: 'image/png' },
  );
  const fields = {
    title: 'Rebuild the school roof',
    description: 'Every bit helps',
    'action[redirect]': 'false',
    'action[redirect_url]': '',
    'action[success_message]': 'Thank you!',
    'action[show_confirmation_page]': 'true',
    'options[collect_phone]': 'true',
    'social_links[facebook]': 'https://facebook.com/school',
    'social_links[twitter]': 'https://x.com/school',
    'social_links[instagram]': 'https://instagram.com/school',
    business_id: DEMO_MERCHANT.id,
    website_url: 'https://school.example',
  };

  it('creates one from a multipart form with a cover photo (booleans as text), and serves the photo', async () => {
    const { status, body } = await call('POST', '/api/v1/payment_links/donation', form(fields, PNG));
    expect(status).toBe(201);
    conforms(success(DonationLink), body);
    expect(body.data).toMatchObject({
      type: 'donation',
      options: { collectPhone: true },
      websiteUrl: 'https://school.example',
      socialLinks: { twitter: 'https://x.com/school' },
      sessions: [],
    });
    const image = await fetch(body.data.image);
    expect(image.headers.get('content-type')).toBe('image/png');
    expect(
      Buffer.from(await image.arrayBuffer())
        .subarray(1, 4)
        .toString(),
    ).toBe('PNG');
    const listed = await call('GET', '/api/v1/payment_links?page_size=100');
    expect(listed.body.data.find((l: { id: string }) => l.id === body.data.id)).toMatchObject({ type: 'donation', webSiteUrl: 'https://school.example' });
  });

  it.each([
    ['no title', { ...fields, title: '' }, PNG, 'title'],
    ['a boolean that is not true or false', { ...fields, 'options[collect_phone]': 'yes' }, PNG, 'options[collect_phone]'],
    ['a cover photo that is not an image', fields, new Blob(['<script>'], { type: 'text/html' }), 'cover_photo'],
    ['HTML that calls itself a PNG', fields, new Blob(['<html><script>alert(1)</script>'], { type: 'image/png' }), 'cover_photo'],
    ['a 5,000-character title', { ...fields, title: 'x'.repeat(5000) }, PNG, 'title'],
    ['a javascript: website', { ...fields, website_url: 'javascript:alert(1)' }, PNG, 'website_url'],
    ['a javascript: redirect', { ...fields, 'action[redirect_url]': 'javascript:alert(1)' }, PNG, 'action[redirect_url]'],
    ['a javascript: social link', { ...fields, 'social_links[twitter]': 'javascript:alert(1)' }, PNG, 'social_links[twitter]'],
  ])('refuses %s', async (_name, given, photo, field) => {
    const response = await call('POST', '/api/v1/payment_links/donation', form(given, photo));
    expect(response.status).toBe(400);
    expect(response.body.errors.map((e: { field: string }) => e.field)).toContain(field);
  });

  it('serves the hosted page and the photo with a CSP that forbids framing, nosniff and a referrer policy', async () => {
    const { body } = await call('POST', '/api/v1/payment_links/donation', form(fields, PNG));
    const pageAnswer = await fetch(body.data.url);
    const policy = pageAnswer.headers.get('content-security-policy') ?? '';
    expect(policy).toContain("frame-ancestors 'none'");
    expect(policy).toContain("script-src 'self'");
    expect(policy).toContain('worker-src data:'); // checkout.js loads ICU's tables in a data: worker
    expect(pageAnswer.headers.get('x-content-type-options')).toBe('nosniff');
    expect(pageAnswer.headers.get('referrer-policy')).toBe('strict-origin-when-cross-origin');
    const image = await fetch(body.data.image);
    expect(image.headers.get('x-content-type-options')).toBe('nosniff');
    expect(image.headers.get('content-security-policy')).toContain("default-src 'none'");
  });

  it('refuses a cover photo over 2 MiB with 413, before keeping it', async () => {
    const big = new Uint8Array(2 * 1024 * 1024 + 1);
    big.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    const response = await call('POST', '/api/v1/payment_links/donation', form(fields, new Blob([big], { type: 'image/png' })));
    expect(response.status).toBe(413);
  });

  it('files each part under its own name, whatever its filename says', async () => {
    const boundary = 'b0undary';
    const body = [
      `--${boundary}`,
      'Content-Disposition: form-data; name="title"',
      '',
      'Real title',
      `--${boundary}`,
      'Content-Disposition: form-data; filename="name=title"; name="cover_photo"',
      'Content-Type: image/png',
      '',
      Buffer.from(await PNG.arrayBuffer()).toString('latin1'),
      `--${boundary}--`,
      '',
    ].join('\r\n');
    const response = await fetch(api.url + '/api/v1/payment_links/donation', {
      method: 'POST',
      headers: { authorization: `Bearer ${secretKey}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
      body: Buffer.from(body, 'latin1'),
    });
    const answer = await response.json();
    expect(response.status).toBe(201);
    expect(answer.data.title).toBe('Real title');
    expect(answer.data.image).toMatch(/\/files\//);
    conforms(success(DonationLink), answer);
  });

  it('updates one with JSON: 200, no message', async () => {
    const created = (await call('POST', '/api/v1/payment_links/donation', form(fields))).body.data;
    const { status, body } = await call('PUT', '/api/v1/payment_links/donation', {
      id: created.id,
      is_active: true,
      description: 'Nearly there',
      social_links: { instagram: '' },
      website_url: 'https://school.example/roof',
    });
    expect(status).toBe(200);
    conforms(success(DonationLink), body);
    expect(body.message).toBeUndefined();
    expect(body.data).toMatchObject({
      description: 'Nearly there',
      websiteUrl: 'https://school.example/roof',
      socialLinks: { instagram: '', twitter: 'https://x.com/school' },
    });
  });
});

describe('activating and deactivating', () => {
  it('switches a link with { is_active }, and a deactivated link refuses payments', async () => {
    const link = (await call('POST', '/api/v1/payment_links/standard', standard())).body.data;
    const off = await call('PUT', `/api/v1/payment_links/${link.id}/status`, { is_active: false });
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({ status: 'success', statusCode: 200, message: expect.stringMatching(/status updated/) });
    const pay = (reference: string) =>
      call('POST', '/api/v1/transaction/initialize', { reference, coin: 'USDT', currency: 'USD', amount: '61.00', payment_link: link.slug }, 'public');
    const refused = await pay('link-off-1');
    expect(refused.status).toBe(409);
    expect(refused.body.message).toMatch(/deactivated: it cannot receive payments/);
    await call('PUT', `/api/v1/payment_links/${link.id}/status`, { is_active: true });
    expect((await pay('link-on-1')).status).toBe(201);
    expect((await call('PUT', `/api/v1/payment_links/${link.id}/status`, { is_active: 'no' })).status).toBe(400);
    expect((await call('PUT', `/api/v1/payment_links/${link.id}/status`, {}, 'public')).status).toBe(401);
  });
});

describe('the seeded catalogue (issue 36)', () => {
  it("is the demo merchant's test-mode products, as the dashboard's Products screen lists them; no other merchant's cart takes its prices", async () => {
    const listed = await call('GET', '/api/v1/products');
    expect(listed.status).toBe(200);
    const products = listed.body.data as Array<{ name: string; archived: boolean; prices: Array<{ id: string; currency: string; amount: string }> }>;
    const shown = Object.fromEntries(products.map((p) => [p.name, p.prices.map((x) => `${x.id} ${x.amount} ${x.currency}`)]));
    expect(shown).toEqual({
      'Single-origin beans, 1 kg': [`${DEMO_PRICES.beansUsd} 24.50 USD`, `${DEMO_PRICES.beansNgn} 38000.00 NGN`],
      'Enamel mug': [`${DEMO_PRICES.mugUsd} 12.00 USD`],
    });
    expect(products.every((p) => !p.archived)).toBe(true);
    // Another merchant's cart is refused the demo's price, as any merchant's own price.
    const made = await fetch(`${api.url}/operator/v1/merchants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Other Roasters', email: 'owner@other-roasters.example' }),
    });
    const other = ((await made.json()).data as { keys: { test: { secretKey: string } } }).keys.test.secretKey;
    const stolen = await fetch(`${api.url}/api/v1/payment_links/standard`, {
      method: 'POST',
      headers: { authorization: `Bearer ${other}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Not mine', cart: [{ price_id: DEMO_PRICES.beansUsd, quantity: 1 }] }),
    });
    expect(stolen.status).toBe(400);
    expect((await stolen.json()).errors[0].field).toBe('cart.0.price_id');
  });
});

describe("a hosted link's pay button", () => {
  it('refuses a cart priced in a currency the service cannot quote with 409 and a reason, never "Internal error"', async () => {
    // Made in the store: the API takes only the currencies the service quotes.
    const made = await api.parts.products.create(
      { merchant: { id: DEMO_MERCHANT.id }, mode: 'test' },
      { name: 'Tea, 500 g', description: 'Kenyan', prices: [{ currency: 'KES', amount: '900.00' }] },
      Date.now(),
    );
    const kes = made.prices[0]!;
    const created = await call('POST', '/api/v1/payment_links/standard', { title: 'Tea', cart: [{ price_id: kes.id, quantity: 1 }] });
    expect(created.status).toBe(201);
    const paid = await call('POST', `/pay/${created.body.data.slug}/checkout`, { email: 'ada@example.com' }, 'none');
    expect(paid.status).toBe(409);
    expect(paid.body.message).toMatch(/priced in KES, which this service cannot take payments in/);
  });

  // POST /pay/:slug/checkout had no limit: anyone could create unlimited payments.
  it('counts presses: at most 20 payments a minute from one client, then 429 with Retry-After', async () => {
    const created = await call('POST', '/api/v1/payment_links/standard', { title: 'Limited', charge: { amount: '5.00', currency: 'USD' } });
    const press = () => call('POST', `/pay/${created.body.data.slug}/checkout`, { email: 'ada@example.com' }, 'none');
    api.parts.linkCheckouts.perClient = new RateLimiter(20, 60_000); // a fresh minute: other tests pressed too
    const answers = [];
    for (let i = 0; i < 21; i++) answers.push(await press());
    expect(answers.slice(0, 20).every((a) => a.status === 201)).toBe(true);
    expect(answers[20].status).toBe(429);
    expect(answers[20].body.message).toMatch(/Too many payments started from this page/);
  });
});

// A link's url and a donation's cover image were built from the listening address.
describe('PUBLIC_URL', () => {
  it('puts every URL the service hands out on the public origin', async () => {
    const hosted = await startService({ demo: true, publicUrl: 'https://pay.example.com' });
    try {
      const created = await fetch(hosted.url + '/api/v1/payment_links/standard', {
        method: 'POST',
        headers: { authorization: `Bearer ${secretKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'Public', charge: { amount: '5.00', currency: 'USD' } }),
      }).then((r) => r.json());
      expect(created.data.url).toMatch(/^https:\/\/pay\.example\.com\/pay\//);
      const page = await fetch(hosted.url + '/pay/' + created.data.slug).then((r) => r.text());
      expect(page).not.toContain('127.0.0.1');
    } finally {
      await hosted.close();
    }
    expect(() => configFromEnv({ PUBLIC_URL: 'pay.example.com' })).toThrow(/PUBLIC_URL: expected an origin/);
    expect(() => configFromEnv({ PUBLIC_URL: 'https://pay.example.com/shop' })).toThrow(/PUBLIC_URL/);
    expect(configFromEnv({ PUBLIC_URL: 'https://pay.example.com/' }).publicUrl).toBe('https://pay.example.com');
  });
});
