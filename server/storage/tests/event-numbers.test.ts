// Item 5: event numbers leaked other merchants' volume. The feed's `seq` was one
// sequence for the whole instance, so a merchant's own events came back as 1 and 5 when another
// merchant made 3 between. Now each (merchant, mode) numbers its own events 1, 2, 3…, the feed
// pages by those numbers, and two writers of one account at once never share or skip one. On
// PGlite and on PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type Service } from '../../service/app.ts';
import { databaseOptions, KINDS } from '../../testing/databases.ts';

const ADMIN = 'op_event_numbers_token_0123456789abcdef0123456789';

describe.each(KINDS)('event numbers on %s', { timeout: 60_000 }, (kind) => {
  let api: Service;
  type Made = { id: string; keys: { test: { secretKey: string } } };

  beforeAll(async () => {
    api = await startService({ ...(await databaseOptions(kind)), adminToken: ADMIN, jobs: false });
  }, 60_000);
  afterAll(() => api?.close());

  async function call(method: string, path: string, bearer: string, body?: unknown) {
    const response = await fetch(api.url + path, {
      method,
      headers: { authorization: `Bearer ${bearer}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: response.status, body: await response.json() };
  }

  let n = 0;
  async function merchant(): Promise<Made> {
    const made = await call('POST', '/operator/v1/merchants', ADMIN, { name: `Numbers ${++n}`, email: `numbers${n}-${kind}@shop.example` });
    expect(made.status).toBe(201);
    return made.body.data;
  }

  /** One event in the merchant's test feed: a sandbox payment paid in full. */
  async function paid(m: Made, reference: string) {
    const key = m.keys.test.secretKey;
    expect(
      (await call('POST', '/api/v1/transaction/initialize', key, { reference, coin: 'USDT', currency: 'USD', amount: '10', email: 'ada@example.com' })).status,
    ).toBe(201);
    expect((await call('POST', '/api/v1/sandbox/deposit', key, { reference, kind: 'exact' })).status).toBeLessThan(300);
  }

  const feed = async (m: Made, query = '') =>
    (await call('GET', `/api/v1/events${query}`, m.keys.test.secretKey)).body as { data: Array<{ seq: number }>; next: string };

  it("numbers each merchant's events 1, 2, 3 whatever other merchants do between them, and pages by those numbers", async () => {
    const a = await merchant();
    const b = await merchant();
    await paid(a, 'a-1');
    for (const ref of ['b-1', 'b-2', 'b-3']) await paid(b, ref);
    await paid(a, 'a-2');
    await paid(a, 'a-3');
    const all = await feed(a);
    const numbers = all.data.map((e) => e.seq);
    expect(numbers).toEqual(numbers.map((_, i) => i + 1));
    expect(numbers.length).toBeGreaterThanOrEqual(3);
    expect((await feed(b)).data.map((e) => e.seq)[0]).toBe(1);
    // The feed pages by those numbers: by cursor, before a seq, and from the latest.
    const first = await feed(a, '?limit=1');
    expect((await feed(a, `?cursor=${first.next}`)).data.map((e) => e.seq)).toEqual(numbers.slice(1));
    expect((await feed(a, `?before=${numbers.length}&limit=2`)).data.map((e) => e.seq)).toEqual(numbers.slice(-3, -1));
    expect((await feed(a, '?after=latest')).next).toBe(all.next);
    expect((await feed(a, `?cursor=${all.next}`)).data).toEqual([]);
  });

  it('two writers of one account at once never share or skip a number', async () => {
    const a = await merchant();
    await Promise.all(Array.from({ length: 8 }, (_, i) => paid(a, `race-${i}`)));
    const numbers = (await feed(a, '?limit=200')).data.map((e) => e.seq);
    expect(numbers.length).toBeGreaterThanOrEqual(8);
    expect(numbers).toEqual(numbers.map((_, i) => i + 1));
  });
});
