// The metric families an operator alerts on, each seen moving after real traffic:
// request durations by route template, webhook delivery attempts, failures and durations,
// rate-limit refusals, long polls held, and payouts, swaps and withdrawals by state; and
// docs/operating.md's table, which names every family with its type, equal to what is registered.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { paymentVersion } from '../../contract/schemas.ts';
import { startService, type Service } from '../service/app.ts';
import { fromRoot } from '../service/paths.ts';
import { DEMO_MERCHANT } from '../service/seed.ts';
import { databaseOptions, ONLY_PGLITE } from '../testing/databases.ts';
import { startReceiver } from '../testing/receiver.ts';

const { publicKey, secretKey } = DEMO_MERCHANT.keys.test;
const TOKEN = 'op_families_' + 'f'.repeat(40);
const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const clean of cleanups.splice(0).reverse()) await clean();
});

const scrape = async (api: Service) => (await fetch(api.url + '/metrics', { headers: { authorization: `Bearer ${TOKEN}` } })).text();
const sample = (text: string, series: string): number | undefined => {
  const line = text.split('\n').find((l) => l.startsWith(series + ' '));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};
/** Every family the exposition declares, with its type (prom-client's own process metrics aside). */
const families = (text: string) =>
  new Map([...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].filter(([, name]) => !/^service_(process|nodejs)_/.test(name!)).map(([, name, type]) => [name!, type!]));
/** docs/operating.md's table of metrics: each row's family and type. */
const documented = () =>
  new Map(
    [...readFileSync(fromRoot('docs/operating.md'), 'utf8').matchAll(/^\| `(service_[a-z0-9_]+)(?:\{[a-z_,]*\})?` \| (counter|gauge|histogram) \|/gm)].map(
      ([, name, type]) => [name!, type!],
    ),
  );
const waitFor = async (what: () => Promise<boolean> | boolean, ms = 20_000) => {
  for (const started = Date.now(); !(await what()); ) {
    if (Date.now() - started > ms) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

describe.each(ONLY_PGLITE)('metric families, on %s', { timeout: 90_000 }, (kind) => {
  it('each moves with the traffic it counts, and docs/operating.md names every family with its type', async () => {
    const api = await startService({
      demo: true,
      adminToken: TOKEN,
      webhookRetryMs: 50,
      jobIntervalMs: 50,
      publicInitializesPerMinute: { perClient: 2 },
      ...(await databaseOptions(kind)),
    });
    cleanups.push(() => api.close());
    const call = (method: string, path: string, body?: unknown, auth: Record<string, string> = { 'x-api-key': publicKey }) =>
      fetch(api.url + path, { method, headers: { ...auth, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    // The merchant's endpoint fails twice, then takes the event.
    const hook = await startReceiver('unverified here', 500);
    cleanups.push(() => hook.close());
    expect((await call('PUT', '/api/v1/webhook', { url: hook.url }, { authorization: `Bearer ${secretKey}` })).status).toBe(200);
    for (const reference of ['f-1', 'f-2'])
      expect((await call('POST', '/api/v1/transaction/initialize', { reference, coin: 'USDT', currency: 'USD', amount: '5' })).status).toBe(201);
    // The third from this client is over its allowance of two a minute.
    expect((await call('POST', '/api/v1/transaction/initialize', { reference: 'f-3', coin: 'USDT', currency: 'USD', amount: '5' })).status).toBe(429);
    expect((await call('GET', '/nowhere/f-1')).status).toBe(404);
    expect((await call('POST', '/api/v1/sandbox/deposit', { reference: 'f-1', kind: 'exact' })).status).toBe(200);
    await waitFor(() => hook.events.length + hook.refused >= 2);
    hook.status = 200;
    await waitFor(async () => (await api.deliveries()).some((d) => d.status === 200));

    // A long poll held while the scrape runs.
    const verify = await (await call('GET', '/api/v1/transaction/verify/f-2')).json();
    const held = call('GET', `/api/v1/transaction/verify/f-2?wait=20&since=${encodeURIComponent(paymentVersion(verify.data))}`);
    held.catch(() => {}); // cut short when the service closes
    await waitFor(() => api.parts.changes.waiting === 1);
    // A withdrawal and a swap, as their stores record them.
    const [merchant] = await api.db.query<{ id: string }>('SELECT id FROM merchants LIMIT 1');
    await api.db.query(
      `INSERT INTO withdrawals (id, merchant_id, mode, chain_id, symbol, token, decimals, address, amount, usd_cents, state, created_ms, updated_ms) VALUES ($1, $2, 'test', 97, 'USDT', '0x01', 6, '0x02', 5, 500, 'pending', 1, 1)`,
      [randomUUID(), merchant!.id],
    );
    await api.db.query(
      `INSERT INTO swaps (id, merchant_id, mode, chain_id, from_symbol, to_symbol, from_token, to_token, from_decimals, to_decimals, amount_in, pool_out, fee, minimum_out, state, expires_ms, created_ms, updated_ms)
       VALUES ($1, $2, 'live', 97, 'USDT', 'USDC', '0x01', '0x02', 6, 6, 5, 5, 0, 5, 'failed', 1, 1, 1)`,
      [randomUUID(), merchant!.id],
    );
    // A refund and its send (a withdrawals row of purpose 'refund'): counted as a refund, never as a withdrawal.
    const [payment] = await api.db.query<{ id: string }>(`SELECT id FROM payments WHERE reference = 'f-2'`);
    const refundId = randomUUID();
    await api.db.query(
      `INSERT INTO refunds (id, merchant_id, mode, payment_id, reference, coin, chain_id, token, decimals, address, amount, reason, settlement, state, created_ms, updated_ms)
       VALUES ($1, $2, 'test', $3, 'f-2', 'USDT', 97, '0x01', 6, '0x02', 5, 'r', 'balance', 'ready', 1, 1)`,
      [refundId, merchant!.id, payment!.id],
    );
    await api.db.query(
      `INSERT INTO withdrawals (id, merchant_id, mode, chain_id, symbol, token, decimals, address, amount, usd_cents, state, created_ms, updated_ms, purpose) VALUES ($1, $2, 'test', 97, 'USDT', '0x01', 6, '0x02', 5, 500, 'pending', 1, 1, 'refund')`,
      [refundId, merchant!.id],
    );
    const text = await scrape(api);

    // Durations by the route's template, never the URL (a reference, a path could hold anything).
    expect(sample(text, 'service_http_request_duration_seconds_count{method="POST",route="/api/v1/transaction/initialize"}')).toBe(3);
    expect(sample(text, 'service_http_request_duration_seconds_count{method="GET",route="unmatched"}')).toBe(1);
    expect(text).not.toContain('f-1');
    expect(text).not.toContain('nowhere');
    const attempts = await api.deliveries();
    const failed = attempts.filter((d) => d.status !== 200).length;
    expect(failed).toBeGreaterThanOrEqual(2);
    expect(sample(text, 'service_webhook_delivery_attempts_total{mode="test"}')).toBe(attempts.length);
    expect(sample(text, 'service_webhook_delivery_failures_total{mode="test",reason="status"}')).toBe(failed);
    expect(sample(text, 'service_webhook_delivery_duration_seconds_count{mode="test"}')).toBe(attempts.length);
    expect(sample(text, 'service_rate_limit_refusals_total{limit="public_initialize_per_client"}')).toBe(1);
    expect(sample(text, 'service_long_polls_held')).toBe(1);
    expect(sample(text, 'service_withdrawals{mode="test",state="pending"}')).toBe(1);
    expect(sample(text, 'service_swaps{mode="live",state="failed"}')).toBe(1);
    expect(sample(text, 'service_refunds{mode="test",state="ready"}')).toBe(1);

    expect(documented().size).toBeGreaterThan(20);
    expect(Object.fromEntries(documented())).toEqual(Object.fromEntries(families(text)));
  });
});
