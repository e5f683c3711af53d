// A fresh service's /metrics, before any traffic, on the dev chain: every family has
// at least one series, and each labelled counter shows a series at 0 for every label the service
// knows from start (each watched chain, rate provider, rate limit, job, key mode), so a rate or
// an alert on it reads 0, never "no data". promtool passes the exposition as it is.
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type Service } from '../service/app.ts';
import { deployDevContracts, devNetwork, type DevContracts } from '../../devchain/deploy.ts';
import { startDevChain, type DevChain } from '../../devchain/anvil.ts';
import { DEV_CHAIN_POWERS } from '../../devchain/sandbox.ts';
import { until } from '../testing/chain.ts';

const TOKEN = 'op_fresh_' + 'f'.repeat(40);
let chain: DevChain;
let contracts: DevContracts;
let api: Service;

beforeAll(async () => {
  chain = await startDevChain({ blockTimeSeconds: 1 });
  contracts = await deployDevContracts(chain.url, 3);
  api = await startService({
    demo: true,
    adminToken: TOKEN,
    networks: { test: devNetwork(chain.url, contracts, 2) },
    devChain: DEV_CHAIN_POWERS,
    watchIntervalMs: 100,
    jobIntervalMs: 200,
  });
}, 120_000);
afterAll(async () => {
  await api?.close();
  await chain?.stop();
});

const scrape = async () => (await fetch(api.url + '/metrics', { headers: { authorization: `Bearer ${TOKEN}` } })).text();

/** Each family the exposition declares (prom-client's process metrics aside), with its series. */
function families(text: string): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const [, name] of text.matchAll(/^# TYPE (\S+) \S+$/gm)) if (!/^service_(process|nodejs)_/.test(name!)) found.set(name!, []);
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const series = line.split(' ')[0]!;
    const name = series.split('{')[0]!.replace(/_(bucket|sum|count)$/, '');
    found.get(name)?.push(line);
    found.get(series.split('{')[0]!)?.push(line);
  }
  return found;
}

describe("a fresh service's /metrics", { timeout: 120_000 }, () => {
  it('has a series in every family, and each labelled counter at 0 for every label known from start', async () => {
    // The watcher has ticked once (its gauges are set by a tick), and the jobs have ticked.
    const text = await until(
      'the watcher and the jobs ticked',
      async () => {
        const now = await scrape();
        return /^service_chain_rpc_up\{chain="31337"\} 1$/m.test(now) && /^service_job_runs_total\{job="[^"]+"\} [1-9]/m.test(now) ? now : false;
      },
      60_000,
    );
    const found = families(text);
    const empty = [...found].filter(([, series]) => series.length === 0).map(([name]) => name);
    expect(empty).toEqual([]);
    for (const series of [
      'service_rpc_errors_total{chain="31337"} 0',
      'service_rpc_failovers_total{chain="31337"} 0',
      'service_public_payments_ceiling_passed_total{kind="public_initialize",mode="live"} 0',
      'service_public_payments_ceiling_passed_total{kind="link_checkout",mode="test"} 0',
      'service_webhook_delivery_attempts_total{mode="live"} 0',
      'service_webhook_delivery_failures_total{mode="test",reason="status"} 0',
      'service_webhook_delivery_duration_seconds_count{mode="test"} 0',
      'service_rate_limit_refusals_total{limit="sign_in"} 0',
      'service_payments{mode="live",status="settled"} 0',
      'service_refunds{mode="test",state="confirmed"} 0',
      'service_email_outbox_depth 0',
      'service_job_failures_total{job="deliver webhooks"} 0',
    ]) {
      expect(text.split('\n'), series).toContain(series);
    }
    expect(text).toMatch(/^service_exchange_rate_fetch_failures_total\{provider="[^"]+"\} 0$/m);
    // Prometheus's own linter passes it as it is.
    const run = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
    expect(run.error).toBeUndefined();
    expect(`${run.stdout}${run.stderr}`.trim()).toBe('');
  });
});
