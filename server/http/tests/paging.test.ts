// One way to page every list: payments, products, payment links, bank accounts, bank
// payouts (newest first) and the events feed each take `limit` (a whole number) and `cursor` (opaque: `next` of the page
// before) and answer `next` and `has_more` the same way; paging through N items a few at a time
// gives each exactly once. A bad limit or cursor (another list's cursor too) is a 400 naming the
// field. The links keep the spec's page fields beside. On PGlite and on PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { holdAnswersToOpenApi } from '../../testing/conformance.ts';
import { startService, type Service } from '../../service/app.ts';
import { databaseOptions, KINDS } from '../../testing/databases.ts';

holdAnswersToOpenApi();

const ADMIN = 'op_paging_test_token_0123456789abcdef0123456789ab';
const N = 5;
const BANK = {
  bank_name: 'JPMorgan Chase Bank',
  account_name: 'Harbour Coffee LLC',
  account_number: '000123456789',
  currency: 'USD',
  country: 'united states',
  account_type: 'personal',
  routing_number: '021000021',
  city: 'Brooklyn',
  state: 'NY',
  address: '12 Water St',
  postal_code: '11201',
};

describe.each(KINDS)('every list pages one way, on %s', { timeout: 120_000 }, (kind) => {
  let api: Service;
  let key: string;
  const made: Record<string, string[]> = { payments: [], products: [], payment_links: [], 'bank/payouts': [], 'bank/payouts/withdrawals': [], events: [] };

  async function call(method: string, path: string, body?: unknown) {
    const response = await fetch(api.url + path, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: response.status, body: await response.json() };
  }

  beforeAll(async () => {
    api = await startService({ ...(await databaseOptions(kind)), adminToken: ADMIN, jobs: false });
    const response = await fetch(api.url + '/operator/v1/merchants', {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Paging Shop', email: `paging-${kind}@shop.example` }),
    });
    key = (await response.json()).data.keys.test.secretKey;
    // On balance settlement, so that each payment leaves money to pay out (the payouts' history is a list too).
    expect((await call('PUT', '/api/v1/settlement', { settlement: 'balance' })).status).toBe(200);
    for (let i = 0; i < N; i++) {
      const payment = await call('POST', '/api/v1/transaction/initialize', {
        reference: `page-${i}`,
        coin: 'USDT',
        currency: 'USD',
        amount: '10',
        email: 'ada@example.com',
      });
      expect(payment.status).toBe(201);
      made.payments.push(`page-${i}`);
      // Each paid payment is one DEPOSIT_TRANSACTION event at least.
      expect((await call('POST', '/api/v1/sandbox/deposit', { reference: `page-${i}`, kind: 'exact' })).status).toBeLessThan(300);
      const product = await call('POST', '/api/v1/products', { name: `Tea ${i}`, prices: [{ currency: 'USD', amount: '5' }] });
      made.products.push(product.body.data.id);
      const link = await call('POST', '/api/v1/payment_links/standard', {
        title: `Link ${i}`,
        cart: [{ price_id: product.body.data.prices[0].id, quantity: 1 }],
      });
      expect(link.status).toBe(201);
      made.payment_links.push(link.body.data.id);
      const bank = await call('POST', '/api/v1/bank/payouts', { ...BANK, account_number: `00012345678${i}` });
      expect(bank.status).toBe(201);
      made['bank/payouts'].push(bank.body.data.id);
      const payout = await call('POST', '/api/v1/bank/payouts/initiate', { payout_bank_id: bank.body.data.id, coin: 'USDT', amount: 1.25 });
      expect(payout.status, JSON.stringify(payout.body)).toBe(201);
      made['bank/payouts/withdrawals'].push(payout.body.data.id);
    }
    made.events = ((await call('GET', '/api/v1/events?limit=200')).body.data as Array<{ id: string }>).map((e) => e.id);
    expect(made.events.length).toBeGreaterThanOrEqual(N);
  }, 120_000);
  afterAll(() => api?.close());

  const idOf: Record<string, (item: never) => string> = {
    payments: (p: { reference: string }) => p.reference,
    products: (p: { id: string }) => p.id,
    payment_links: (l: { id: string }) => l.id,
    'bank/payouts': (id: string) => id,
    'bank/payouts/withdrawals': (p: { id: string }) => p.id,
    events: (e: { id: string }) => e.id,
  };

  it.each(Object.keys(made))('%s: 2 at a time by cursor, each item exactly once; next and has_more end it', async (list) => {
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let pages = 0; ; pages++) {
      expect(pages).toBeLessThan(made[list].length);
      const page: { status: number; body: { data: never[]; next: string | null; has_more: boolean } } = await call(
        'GET',
        `/api/v1/${list}?limit=2${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(page.status, JSON.stringify(page.body)).toBe(200);
      expect(page.body.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.data.map(idOf[list]));
      expect(typeof page.body.has_more).toBe('boolean');
      if (!page.body.has_more) {
        // The feed goes on: its next is where to follow it from; every other list's last page says null.
        if (list === 'events') expect(page.body.next).toEqual(expect.any(String));
        else expect(page.body.next).toBeNull();
        break;
      }
      expect(page.body.next).toMatch(/^[A-Za-z0-9_-]+$/);
      cursor = page.body.next;
    }
    expect(seen.length).toBe(new Set(seen).size);
    expect([...seen].sort()).toEqual([...made[list]].sort());
  });

  it('the payouts come newest first, and the daily limit counts them: what left and what is left', async () => {
    const all = (await call('GET', '/api/v1/bank/payouts/withdrawals?limit=100')).body.data as Array<{ id: string }>;
    expect(all.map((p) => p.id)).toEqual([...made['bank/payouts/withdrawals']].reverse());
    const limit = await call('GET', '/api/v1/withdrawals/limit');
    expect(limit.status).toBe(200);
    // The service's default limit (WITHDRAWAL_DAILY_LIMIT), less N payouts of 1.25 USDT at its peg.
    const spent = (N * 1.25).toFixed(2);
    expect(limit.body.data).toEqual({
      currency: 'USD',
      daily: expect.stringMatching(/^\d+\.\d\d$/),
      spent,
      left: (Number(limit.body.data.daily) - Number(spent)).toFixed(2),
      window_hours: 24,
    });
  });

  it("the links keep the spec's page fields, by page number and by cursor alike", async () => {
    const first = await call('GET', '/api/v1/payment_links?limit=2');
    expect(first.body).toMatchObject({ count: N, currentPage: 1, nextPage: 2, prevPage: null, lastPage: Math.ceil(N / 2), has_more: true });
    const second = await call('GET', `/api/v1/payment_links?limit=2&cursor=${first.body.next}`);
    expect(second.body).toMatchObject({ count: N, currentPage: 2, nextPage: 3, prevPage: 1, has_more: true });
    const byNumber = await call('GET', '/api/v1/payment_links?page=2&page_size=2');
    expect(byNumber.body.data).toEqual(second.body.data);
    expect(byNumber.body.next).toBe(second.body.next);
    expect((await call('GET', '/api/v1/payment_links?page=3&page_size=2')).body).toMatchObject({ currentPage: 3, nextPage: null, has_more: false, next: null });
  });

  it('a bad limit or cursor is a 400 naming the field, on every list', async () => {
    const otherList = (await call('GET', '/api/v1/products?limit=1')).body.next as string;
    for (const list of Object.keys(made)) {
      const most = list === 'events' ? 200 : 100;
      for (const [query, field] of [
        ['limit=0', 'limit'],
        ['limit=two', 'limit'],
        [`limit=${most + 1}`, 'limit'],
        ['limit=1.5', 'limit'],
        ['cursor=not%20a%20cursor', 'cursor'],
        ['cursor=abc', 'cursor'],
        [`cursor=${list === 'products' ? (await call('GET', '/api/v1/payments?limit=1')).body.next : otherList}`, 'cursor'],
      ]) {
        const refused = await call('GET', `/api/v1/${list}?${query}`);
        expect(refused.status, `${list}?${query}`).toBe(400);
        expect(refused.body.code).toBe('validation_failed');
        expect(refused.body.errors, `${list}?${query}`).toEqual([{ field, message: expect.any(String) }]);
      }
    }
    expect((await call('GET', '/api/v1/payment_links?limit=2&page_size=2')).body.errors[0].field).toBe('page_size');
    expect(
      (await call('GET', `/api/v1/payment_links?page=2&cursor=${(await call('GET', '/api/v1/payment_links?limit=1')).body.next}`)).body.errors[0].field,
    ).toBe('page');
    expect((await call('GET', `/api/v1/events?after=latest&cursor=${(await call('GET', '/api/v1/events?limit=1')).body.next}`)).body.errors[0].field).toBe(
      'after',
    );
  });
});
