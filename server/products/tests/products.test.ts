// Products and prices over HTTP: made with prices, listed by cursor, renamed,
// archived; a standard link's cart takes the merchant's own prices and refuses another
// merchant's and an archived one's; the dashboard's session works with its CSRF token. Every
// answer of a documented route is held to the OpenAPI document.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { holdAnswersToOpenApi } from '../../testing/conformance.ts';
import { startService, type Service } from '../../service/app.ts';
import { cheapPasswords } from '../../testing/passwords.ts';

holdAnswersToOpenApi();

const ADMIN = 'op_products_test_token_0123456789abcdef0123456789';
let api: Service;

async function call(path: string, init: { method?: string; key?: string; body?: unknown; headers?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { ...init.headers };
  if (init.key) headers.authorization = `Bearer ${init.key}`;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(api.url + path, {
    method: init.method ?? 'GET',
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  return { status: response.status, body: await response.json(), headers: response.headers };
}

async function merchant(name: string) {
  const made = await call('/operator/v1/merchants', {
    method: 'POST',
    key: ADMIN,
    body: { name, email: `owner@${name.toLowerCase().replace(/\W/g, '')}.example` },
  });
  return made.body.data as { id: string; signInUrl: string; keys: { test: { secretKey: string }; live: { secretKey: string } } };
}

beforeAll(async () => {
  api = await startService({ adminToken: ADMIN, jobs: false, ...cheapPasswords });
});
afterAll(() => api?.close());

describe('products and prices', () => {
  it("makes a product with prices, reads it, adds a price, renames it; a link's cart takes its prices", async () => {
    const m = await merchant('Tea House');
    const key = m.keys.test.secretKey;
    const made = await call('/api/v1/products', {
      method: 'POST',
      key,
      body: {
        name: 'Oolong, 100 g',
        description: 'Roasted.',
        prices: [
          { currency: 'USD', amount: '9.50' },
          { currency: 'EUR', amount: '8' },
        ],
      },
    });
    expect(made.status).toBe(201);
    const product = made.body.data;
    expect(product).toMatchObject({ name: 'Oolong, 100 g', description: 'Roasted.', archived: false });
    expect(product.prices.map((p: { currency: string; amount: string }) => `${p.amount} ${p.currency}`)).toEqual(['9.50 USD', '8 EUR']);
    const added = await call(`/api/v1/products/${product.id}/prices`, { method: 'POST', key, body: { currency: 'NGN', amount: '15000.00' } });
    expect(added.status).toBe(201);
    expect(added.body.data).toMatchObject({ productId: product.id, currency: 'NGN', amount: '15000.00', archived: false });
    expect((await call(`/api/v1/prices/${added.body.data.id}`, { key })).body.data.amount).toBe('15000.00');
    expect((await call(`/api/v1/products/${product.id}`, { key })).body.data.prices).toHaveLength(3);

    const renamed = await call(`/api/v1/products/${product.id}`, { method: 'PATCH', key, body: { name: 'Oolong, 250 g' } });
    expect(renamed.body.data).toMatchObject({ name: 'Oolong, 250 g', description: 'Roasted.' });
    const link = await call('/api/v1/payment_links/standard', {
      method: 'POST',
      key,
      body: { title: 'Tea', cart: [{ price_id: product.prices[0].id, quantity: 2 }] },
    });
    expect(link.status, JSON.stringify(link.body)).toBe(201);
    const page = await fetch(`${api.url}/pay/${link.body.data.slug}`).then((r) => r.text());
    expect(page).toContain('Oolong, 250 g');
    // The live mode has its own products.
    expect((await call('/api/v1/products', { key: m.keys.live.secretKey })).body.data).toEqual([]);
    expect((await call(`/api/v1/products/${product.id}`, { key: m.keys.live.secretKey })).status).toBe(404);
  });

  it('lists newest first by cursor', async () => {
    const m = await merchant('Many Products');
    const key = m.keys.test.secretKey;
    for (let i = 0; i < 5; i++) {
      await call('/api/v1/products', { method: 'POST', key, body: { name: `Item ${i}` } });
      await new Promise((resolve) => setTimeout(resolve, 3));
    }
    const names: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Awaited<ReturnType<typeof call>> = await call(`/api/v1/products?limit=2${cursor ? `&cursor=${cursor}` : ''}`, { key });
      expect(page.status).toBe(200);
      names.push(...page.body.data.map((p: { name: string }) => p.name));
      cursor = page.body.next;
    } while (cursor);
    expect(names).toEqual(['Item 4', 'Item 3', 'Item 2', 'Item 1', 'Item 0']);
  });

  it("refuses another merchant's products and prices, and archived prices on new carts", async () => {
    const a = await merchant('Owner A');
    const b = await merchant('Owner B');
    const product = (
      await call('/api/v1/products', { method: 'POST', key: a.keys.test.secretKey, body: { name: 'Secret blend', prices: [{ currency: 'USD', amount: '5' }] } })
    ).body.data;
    const priceId = product.prices[0].id;
    const bKey = b.keys.test.secretKey;
    expect((await call(`/api/v1/products/${product.id}`, { key: bKey })).status).toBe(404);
    expect((await call(`/api/v1/prices/${priceId}`, { key: bKey })).status).toBe(404);
    expect((await call(`/api/v1/products/${product.id}`, { method: 'PATCH', key: bKey, body: { archived: true } })).status).toBe(404);
    expect((await call(`/api/v1/products/${product.id}/prices`, { method: 'POST', key: bKey, body: { currency: 'USD', amount: '0.01' } })).status).toBe(404);
    const stolen = await call('/api/v1/payment_links/standard', {
      method: 'POST',
      key: bKey,
      body: { title: 'Not mine', cart: [{ price_id: priceId, quantity: 1 }] },
    });
    expect(stolen.status).toBe(400);
    expect(stolen.body.errors[0].field).toBe('cart.0.price_id');
    expect((await call('/api/v1/products', { key: bKey })).body.data).toEqual([]);

    const archived = await call(`/api/v1/products/${product.id}`, { method: 'PATCH', key: a.keys.test.secretKey, body: { archived: true } });
    expect(archived.body.data.archived).toBe(true);
    expect((await call(`/api/v1/prices/${priceId}`, { key: a.keys.test.secretKey })).body.data.archived).toBe(true);
    const refused = await call('/api/v1/payment_links/standard', {
      method: 'POST',
      key: a.keys.test.secretKey,
      body: { title: 'Old', cart: [{ price_id: priceId, quantity: 1 }] },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].field).toBe('cart.0.price_id');
  });

  it('names each wrong field', async () => {
    const m = await merchant('Bad Input');
    const key = m.keys.test.secretKey;
    const cases: Array<[string, string, unknown, string]> = [
      ['POST', '/api/v1/products', { name: '' }, 'name'],
      ['POST', '/api/v1/products', { name: 'x', prices: [{ currency: 'USD', amount: '1.234' }] }, 'prices.0.amount'],
      ['POST', '/api/v1/products', { name: 'x', prices: [{ currency: 'JPY', amount: '1' }] }, 'prices.0.currency'],
      ['PATCH', '/api/v1/products/not-an-id', { name: 'y' }, 'id'],
      ['GET', '/api/v1/products?limit=500', undefined, 'limit'],
      ['GET', '/api/v1/prices/123', undefined, 'id'],
    ];
    for (const [method, path, body, field] of cases) {
      const answer = await call(path, { method, key, body });
      expect(answer.status, `${method} ${path}`).toBe(400);
      expect(answer.body.errors[0].field, `${method} ${path}`).toBe(field);
    }
    expect((await call('/api/v1/products/00000000-0000-4000-8000-000000000000', { key })).status).toBe(404);
    expect((await call('/api/v1/products', { headers: { 'x-api-key': 'pk_test_nope' } })).status).toBe(401);
  });

  it("the dashboard's session makes products too, with its CSRF token only", async () => {
    const m = await merchant('Session Shop');
    const token = new URL(m.signInUrl).hash.replace('#token=', '');
    const signedIn = await call('/dashboard/api/password', { method: 'POST', body: { token, password: 'correct horse battery' } });
    const cookie = signedIn.headers.get('set-cookie')!.split(';')[0];
    const csrf = signedIn.body.data.csrfToken;
    expect((await call('/api/v1/products', { method: 'POST', headers: { cookie }, body: { name: 'Forged' } })).status).toBe(403);
    const made = await call('/api/v1/products', { method: 'POST', headers: { cookie, 'x-csrf-token': csrf }, body: { name: 'Made in the dashboard' } });
    expect(made.status).toBe(201);
    expect((await call('/api/v1/products', { headers: { cookie } })).body.data.map((p: { name: string }) => p.name)).toEqual(['Made in the dashboard']);
  });
});
