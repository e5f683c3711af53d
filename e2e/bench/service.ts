// The service's rows of npm run bench: throughput and latency under load on PGlite and on
// PostgreSQL, restart time after SIGKILL, and memory under anonymous traffic. Each in a
// process of its own, so the load generator does not share the service's event loop.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEMO_MERCHANT } from '../../server/seed.ts';
import { startCluster } from '../../server/testing/postgres.ts';
import { spawnService } from '../../server/testing/process.ts';
import { load, type LoadResult } from './load.ts';
import { ms, summarize, table, type Summary } from './stats.ts';

const KEY = DEMO_MERCHANT.keys.test.publicKey;

/**
 * The service in its own process (so the load generator does not share its event loop), on
 * PGlite in a new data directory or on a PostgreSQL cluster of its own; then its restart
 * time on the data the load left, as the median of five.
 */
export async function serviceLoad(kind: 'pglite' | 'postgres'): Promise<{ initialize: LoadResult; verify: LoadResult; restart: Summary }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-data-'));
  const cluster = kind === 'postgres' ? await startCluster() : undefined;
  const env: Record<string, string> = cluster ? { DATABASE_URL: cluster.url } : { DATA_DIR: dataDir };
  try {
    let service = await spawnService(env);
    const run = Date.now().toString(36);
    const total = 4000;
    const clients = 16;
    const initialize = await load(service.url, KEY, (i) => ({
      method: 'POST',
      path: '/api/v1/transaction/initialize',
      body: { reference: `load-${run}-${i}`, coin: 'USDT', currency: 'NGN', amount: '15000.50' },
    }), { clients, total });
    const verify = await load(service.url, KEY, (i) => ({ method: 'GET', path: `/api/v1/transaction/verify/load-${run}-${i % total}` }), { clients, total });
    const restarts: number[] = [];
    for (let i = 0; i < 5; i++) {
      await service.kill('SIGKILL');
      service = await spawnService(env);
      restarts.push(service.startMs);
    }
    await service.kill();
    return { initialize, verify, restart: summarize(restarts) };
  } finally {
    cluster?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Resident memory of a process, in KB, from /proc. */
const rssKb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN);

/**
 * The service's memory under anonymous traffic: after 1,000 requests and after 100,000 of
 * the same mix (unknown keys, unknown paths, unknown references, and hosted-page checkouts
 * that each make a payment), with a pause for the heap to settle before each reading.
 */
export async function serviceMemory(): Promise<Array<{ requests: number; rssKb: number }>> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-memory-'));
  const service = await spawnService({ DATA_DIR: dataDir });
  try {
    const created = await fetch(service.url + '/api/v1/payment_links/standard', {
      method: 'POST',
      headers: { authorization: `Bearer ${DEMO_MERCHANT.keys.test.secretKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Bench', charge: { amount: '5.00', currency: 'USD' } }),
    });
    const { slug } = (await created.json()).data;
    const mix = async (n: number) => {
      const opts = { clients: 16 };
      await load(service.url, 'pk_test_nobody0000000000', () => ({ method: 'GET', path: '/api/v1/coins' }), { ...opts, total: n * 0.4 });
      await load(service.url, KEY, (i) => ({ method: 'GET', path: `/nothing/${i}` }), { ...opts, total: n * 0.3 });
      await load(service.url, KEY, (i) => ({ method: 'GET', path: `/api/v1/transaction/verify/none-${i}` }), { ...opts, total: n * 0.2 });
      await load(service.url, KEY, () => ({ method: 'POST', path: `/pay/${slug}/checkout`, body: { email: 'bench@example.com' } }), { ...opts, total: n * 0.1 });
    };
    const readings = [{ requests: 0, rssKb: rssKb(service.child.pid!) }];
    let sent = 0;
    for (const target of [1_000, 100_000]) {
      await mix(target - sent);
      sent = target;
      await new Promise((resolve) => setTimeout(resolve, 3000));
      readings.push({ requests: sent, rssKb: rssKb(service.child.pid!) });
    }
    return readings;
  } finally {
    await service.kill();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export function printServiceLoad(services: Record<'pglite' | 'postgres', Awaited<ReturnType<typeof serviceLoad>>>) {
  const loadRow = (name: string, r: LoadResult) => [name, `${Math.round(r.perSecond)}/s`, ms(r.median), ms(r.p99), String(r.n), String(r.errors)];
  console.log('\n' + table([
    ['the service in its own process, 16 keep-alive clients on loopback', 'throughput', 'p50', 'p99', 'requests', 'errors'],
    loadRow('PGlite: POST /transaction/initialize', services.pglite.initialize),
    loadRow('PGlite: GET /transaction/verify/:reference', services.pglite.verify),
    loadRow('PostgreSQL: POST /transaction/initialize', services.postgres.initialize),
    loadRow('PostgreSQL: GET /transaction/verify/:reference', services.postgres.verify),
  ]));
  console.log('\n' + table([
    ['restart after SIGKILL, spawn to listening (4,000 payments stored)', 'median', 'min', 'max', 'n'],
    ['PGlite', ms(services.pglite.restart.median), ms(services.pglite.restart.min), ms(services.pglite.restart.max), String(services.pglite.restart.n)],
    ['PostgreSQL', ms(services.postgres.restart.median), ms(services.postgres.restart.min), ms(services.postgres.restart.max), String(services.postgres.restart.n)],
  ]));
}

