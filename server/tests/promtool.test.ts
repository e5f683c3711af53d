// What GET /metrics exposes passes Prometheus's own linter, `promtool check metrics`
// (Debian's `prometheus` package; .ci/run installs it where it is missing): names, types,
// units and help as Prometheus wants them, after traffic has made the labelled series.
import { spawnSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { startService } from '../service/app.ts';
import { DEMO_MERCHANT } from '../service/seed.ts';

const { publicKey, secretKey } = DEMO_MERCHANT.keys.test;
const TOKEN = 'op_promtool_' + 'p'.repeat(40);
const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const clean of cleanups.splice(0).reverse()) await clean();
});

/** promtool's problems with an exposition text: one line each, none when it is clean. */
function promtoolProblems(text: string): string[] {
  const run = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
  if (run.error) throw new Error(`promtool did not run (Debian's prometheus package has it): ${run.error.message}`);
  const problems = `${run.stdout}\n${run.stderr}`
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  if (run.status !== 0 && problems.length === 0) problems.push(`promtool exited ${run.status}`);
  return problems;
}

describe('promtool check metrics', { timeout: 60_000 }, () => {
  it('finds a problem where there is one (the check can fail)', () => {
    expect(promtoolProblems('# HELP broken_total a gauge named as a counter\n# TYPE broken_total gauge\nbroken_total 1\n').join('\n')).toMatch(/counter/i);
    expect(promtoolProblems('# HELP fine_total a counter\n# TYPE fine_total counter\nfine_total 1\n')).toEqual([]);
  });

  it('passes GET /metrics after traffic', async () => {
    const api = await startService({ demo: true, jobs: false, adminToken: TOKEN });
    cleanups.push(() => api.close());
    const call = (method: string, path: string, body?: unknown, auth: Record<string, string> = { 'x-api-key': publicKey }) =>
      fetch(api.url + path, { method, headers: { ...auth, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    expect((await call('PUT', '/api/v1/webhook', { url: 'https://shop.example/hooks' }, { authorization: `Bearer ${secretKey}` })).status).toBe(200);
    expect((await call('POST', '/api/v1/transaction/initialize', { reference: 'p-1', coin: 'USDT', currency: 'USD', amount: '5' })).status).toBe(201);
    expect((await call('POST', '/api/v1/sandbox/deposit', { reference: 'p-1', kind: 'exact' })).status).toBe(200);
    expect((await call('GET', '/nowhere')).status).toBe(404);
    const answer = await fetch(api.url + '/metrics', { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(answer.status).toBe(200);
    expect(promtoolProblems(await answer.text())).toEqual([]);
  });
});
