// GET /metrics: Prometheus metrics behind the operator token: requests by route
// and status, payments by status, the webhook queue, sweeps, exchange rates' ages, readiness
// and each chain watcher's lag (on a real dev chain).
import { afterEach, describe, expect, it } from 'vitest';
import { startService, type Service } from '../service/app.ts';
import { toHex } from 'viem';
import { deployDevContracts, devAccount, devNetwork } from '../../devchain/deploy.ts';
import { startDevChain, TEST_BLOCK_SECONDS } from '../../devchain/anvil.ts';
import { DEMO_MERCHANT } from '../service/seed.ts';
import { databaseOptions, ONLY_PGLITE } from '../testing/databases.ts';

const { publicKey, secretKey } = DEMO_MERCHANT.keys.test;
const TOKEN = 'op_metrics_' + 'm'.repeat(40);
const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const clean of cleanups.splice(0).reverse()) await clean();
});

const scrape = (api: Service, headers: Record<string, string> = { authorization: `Bearer ${TOKEN}` }) => fetch(api.url + '/metrics', { headers });

/** The value of one sample line, by its exact name and labels. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(series + ' '));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe.each(ONLY_PGLITE)('GET /metrics, on %s', { timeout: 60_000 }, (kind) => {
  it('counts requests by route and status, payments by status, the webhook queue and sweeps; only for the operator token', async () => {
    let clock = Date.UTC(2026, 0, 1);
    const api = await startService({ demo: true, jobs: false, adminToken: TOKEN, now: () => clock, ...(await databaseOptions(kind)) });
    cleanups.push(() => api.close());
    const call = (method: string, path: string, body?: unknown, auth: Record<string, string> = { 'x-api-key': publicKey }) =>
      fetch(api.url + path, {
        method,
        headers: { ...auth, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      }).then(async (r) => ({ status: r.status, body: await r.json() }));

    expect((await call('PUT', '/api/v1/webhook', { url: 'https://shop.example/hooks' }, { authorization: `Bearer ${secretKey}` })).status).toBe(200);
    expect((await call('POST', '/api/v1/transaction/initialize', { reference: 'm-old', coin: 'USDT', currency: 'USD', amount: '5' })).status).toBe(201);
    clock += 16 * 60_000; // past the quote: m-old is expired
    for (const reference of ['m-open', 'm-paid'])
      expect((await call('POST', '/api/v1/transaction/initialize', { reference, coin: 'USDT', currency: 'USD', amount: '5' })).status).toBe(201);
    expect((await call('POST', '/api/v1/sandbox/deposit', { reference: 'm-paid', kind: 'exact' })).status).toBe(200);
    expect((await call('GET', '/nowhere/sk_test_in_a_path')).status).toBe(404);
    // A counted transfer not yet swept, on chain 97 (as the watcher records one).
    const [paid] = await api.db.query(`SELECT id FROM payments WHERE reference = 'm-paid'`);
    await api.db.query(
      `INSERT INTO chain_transfers (chain_id, tx_hash, log_index, block_number, block_hash, token, sender, recipient, amount, payment_id, state, seen_ms)
       VALUES (97, '0x01', 0, 1, '0x02', '0x03', '0x04', '0x05', 5, $1, 'credited', $2)`,
      [paid.id, clock],
    );
    clock += 30_000;

    for (const headers of <Record<string, string>[]>[
      {},
      { authorization: `Bearer ${secretKey}` },
      { authorization: `Bearer ${DEMO_MERCHANT.keys.live.secretKey}` },
      { 'x-api-key': publicKey },
      { authorization: `Bearer ${TOKEN.slice(0, -1)}` },
    ]) {
      expect((await scrape(api, headers)).status).toBe(401);
    }
    const answer = await scrape(api);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await answer.text();

    expect(sample(text, 'service_http_requests_total{method="POST",route="/api/v1/transaction/initialize",status="201"}')).toBe(3);
    expect(sample(text, 'service_http_requests_total{method="POST",route="/api/v1/sandbox/deposit",status="200"}')).toBe(1);
    // Unknown paths are one series, never the path itself (a path could hold anything).
    expect(sample(text, 'service_http_requests_total{method="GET",route="unmatched",status="404"}')).toBe(1);
    expect(sample(text, 'service_http_requests_total{method="GET",route="/metrics",status="401"}')).toBe(5);
    expect(text).not.toContain('nowhere');
    expect(text).not.toContain(TOKEN);

    expect(sample(text, 'service_payments{mode="test",status="expired"}')).toBe(1);
    expect(sample(text, 'service_payments{mode="test",status="pending"}')).toBe(1);
    expect(sample(text, 'service_payments{mode="test",status="confirmed"}')).toBe(1);
    // The deposit's event waits (no jobs run here), told 30 s ago.
    expect(sample(text, 'service_webhook_queue_depth')).toBe(1);
    expect(sample(text, 'service_webhook_queue_oldest_seconds')).toBe(30);
    expect(sample(text, 'service_transfers_counted{chain="97",swept="false"}')).toBe(1);
    expect(sample(text, 'service_exchange_rate_age_seconds{kind="fiat",name="NGN",fixed="true"}')).toBe(0);
    expect(sample(text, 'service_ready{check="database"}')).toBe(1);
    expect(sample(text, 'service_process_resident_memory_bytes')).toBeGreaterThan(0);
  });
});

describe('GET /metrics on a dev chain', { timeout: 120_000 }, () => {
  it("reports each chain watcher's lag behind its head as the watcher measures it, RPC failovers, and a node that stops answering", async () => {
    const chain = await startDevChain({ blockTimeSeconds: TEST_BLOCK_SECONDS });
    cleanups.push(() => chain.stop());
    const contracts = await deployDevContracts(chain, 3);
    // The first RPC URL answers nothing: every call fails over to the dev chain's.
    const network = { ...devNetwork(chain.url, contracts, 2), rpcUrls: ['http://127.0.0.1:9/', chain.url] };
    // Dev account 8 as the gas wallet (as the demo's sweeps use), holding 10,000 ETH.
    const api = await startService({
      demo: true,
      adminToken: TOKEN,
      networks: { test: network },
      watchIntervalMs: 100,
      gasKey: toHex(devAccount(8).getHdKey().privateKey!),
    });
    cleanups.push(() => api.close());
    const name = 'chain 31337 (Local dev chain)';
    let text = '';
    for (
      let i = 0;
      i < 100 && (sample(text, `service_ready{check="${name}"}`) !== 1 || sample(text, 'service_chain_watcher_lag_blocks{chain="31337"}') === undefined);
      i++
    ) {
      text = await (await scrape(api)).text();
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(sample(text, `service_ready{check="${name}"}`)).toBe(1);
    // One form of the chain label everywhere: its id.
    const lag = sample(text, 'service_chain_watcher_lag_blocks{chain="31337"}');
    expect(lag).toBeGreaterThanOrEqual(0);
    expect(lag).toBeLessThanOrEqual(50);
    expect(sample(text, 'service_chain_rpc_up{chain="31337"}')).toBe(1);
    expect(sample(text, 'service_rpc_failovers_total{chain="31337"}')).toBeGreaterThan(0);
    expect(sample(text, 'service_rpc_errors_total{chain="31337"}')).toBeGreaterThanOrEqual(sample(text, 'service_rpc_failovers_total{chain="31337"}')!);
    expect(text).not.toMatch(/chain="[^"\d]/);
    expect(sample(text, 'service_gas_wallet_balance{chain="31337"}')).toBeGreaterThan(9_000);
    expect(sample(text, 'service_ready{check="gas wallet on chain 31337"}')).toBe(1);

    // The node goes away: the watcher says so, and its last lag stays.
    await chain.stop();
    for (const until = Date.now() + 20_000; Date.now() < until && sample(text, 'service_chain_rpc_up{chain="31337"}') !== 0; ) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      text = await (await scrape(api)).text();
    }
    expect(sample(text, 'service_chain_rpc_up{chain="31337"}')).toBe(0);
    expect(sample(text, 'service_chain_watcher_lag_blocks{chain="31337"}')).toBeGreaterThanOrEqual(0);
    expect(sample(text, `service_ready{check="${name}"}`)).toBe(0);
  });
});
