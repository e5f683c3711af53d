// Rate limits hold across instances. On one PostgreSQL, every instance counts in the
// same rows (storage/rate-limits.ts), so two instances allow the limit once, not twice, even
// when requests reach both at once; the store works the same on PGlite (the service counts
// in its process there: PGlite takes one instance).
import { afterEach, describe, expect, it } from 'vitest';
import { startService, type Service, type ServiceOptions } from '../../service/app.ts';
import { DEMO_MERCHANT } from '../../service/seed.ts';
import { RateLimitStore } from '../rate-limits.ts';
import { databaseOptions, freshPostgres, KINDS } from '../../testing/databases.ts';

const { publicKey } = DEMO_MERCHANT.keys.test;
const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const clean of cleanups.splice(0).reverse()) await clean();
});

async function service(options: ServiceOptions): Promise<Service> {
  const api = await startService({ demo: true, jobs: false, ...options });
  cleanups.push(() => api.close());
  return api;
}
const initialize = (api: Service, reference: string) =>
  fetch(api.url + '/api/v1/transaction/initialize', {
    method: 'POST',
    headers: { 'x-api-key': publicKey, 'content-type': 'application/json' },
    body: JSON.stringify({ reference, coin: 'USDT', currency: 'USD', amount: '5' }),
  }).then((r) => r.status);

describe.each(KINDS)('the rate-limit store, on %s', { timeout: 60_000 }, (kind) => {
  it('counts per limit and key within a window, starts again after it, and keeps no key as given', async () => {
    const api = await service(await databaseOptions(kind));
    const store = new RateLimitStore(api.db);
    expect(await store.count('a', '203.0.113.7', 60_000, 1_000)).toEqual({ count: 1, untilMs: 61_000 });
    expect(await store.count('a', '203.0.113.7', 60_000, 30_000)).toEqual({ count: 2, untilMs: 61_000 });
    expect(await store.count('b', '203.0.113.7', 60_000, 30_000)).toEqual({ count: 1, untilMs: 90_000 });
    expect(await store.count('a', '203.0.113.8', 60_000, 30_000)).toEqual({ count: 1, untilMs: 90_000 });
    expect(await store.count('a', '203.0.113.7', 60_000, 61_000)).toEqual({ count: 1, untilMs: 121_000 });
    const rows = await api.db.query<{ key_digest: string }>('SELECT key_digest FROM rate_limits');
    expect(rows.some((r) => r.key_digest.includes('203.0.113'))).toBe(false);
    // Counted at once, each count is another.
    const counts = await Promise.all(Array.from({ length: 8 }, () => store.count('c', 'k', 60_000, 70_000)));
    expect(counts.map((c) => c.count).sort((x, y) => x - y)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });
});

describe('two instances on one PostgreSQL', { timeout: 90_000 }, () => {
  it('share one allowance: three payments a minute from a client are three between them, one after another or at once', async () => {
    const databaseUrl = await freshPostgres();
    const clock = { ms: Date.UTC(2026, 0, 1) };
    const options = { databaseUrl, now: () => clock.ms, publicInitializesPerMinute: { perClient: 3 } };
    const [a, b] = [await service(options), await service(options)];
    expect([await initialize(a, 's-1'), await initialize(b, 's-2'), await initialize(a, 's-3')]).toEqual([201, 201, 201]);
    // Each instance alone has counted fewer than three; together they are at the limit.
    expect(await initialize(b, 's-4')).toBe(429);
    expect(await initialize(a, 's-5')).toBe(429);

    clock.ms += 60_000; // the next minute
    const statuses = await Promise.all(Array.from({ length: 10 }, (_, i) => initialize(i % 2 ? a : b, `t-${i}`)));
    expect(statuses.filter((s) => s === 201)).toHaveLength(3);
    expect(statuses.filter((s) => s === 429)).toHaveLength(7);
  });
});
