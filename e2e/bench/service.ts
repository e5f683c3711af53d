// The service's rows of npm run bench: throughput and latency under load on PGlite and on
// PostgreSQL, restart time after SIGKILL, and memory under anonymous traffic. Each in a
// process of its own, so the load generator does not share the service's event loop.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEMO_MERCHANT } from '../../server/service/seed.ts';
import { startCluster, type Cluster } from '../../server/testing/postgres.ts';
import { MAIN, spawnService } from '../../server/testing/process.ts';
import { load, type LoadResult } from './load.ts';
import { ms, summarize, table, type Summary } from './stats.ts';

const KEY = DEMO_MERCHANT.keys.test.publicKey;
/** What a merchant's server sends: its secret key (the public key is limited per client, for pages). */
const SECRET = DEMO_MERCHANT.keys.test.secretKey;
const CLIENTS = 16;
/** Each measured phase's length: one run of --service-only stays near two minutes. */
const PHASE_SECONDS = 10;
/** A start on a loaded machine (other work on its cores) can pass the tests' 30 s: the bench waits longer rather than fail. */
const START_MS = 120_000;
const start = (env: Record<string, string>, nodeFlags: string[] = []) => spawnService(env, MAIN, undefined, START_MS, nodeFlags);

/** CPU time of a process in ms, from /proc/<pid>/stat: its own, and (`children`) its reaped children's. */
const TICK_MS = 1000 / Number(execFileSync('getconf', ['CLK_TCK']).toString().trim() || 100);
function cpuMs(pid: number, children = false): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // fields[0] is field 3 (state)
  const [utime, stime, cutime, cstime] = [11, 12, 13, 14].map((i) => Number(fields[i]));
  return (utime + stime + (children ? cutime + cstime : 0)) * TICK_MS;
}

/**
 * All of PostgreSQL's CPU: the postmaster, its live processes (backends, writers), and the
 * ones that exited (a pgbench run's backends), which the postmaster reaped into its own count.
 */
function postgresCpuMs(cluster: Cluster): number {
  const postmaster = Number(readFileSync(join(cluster.data, 'postmaster.pid'), 'utf8').split('\n')[0]);
  let total = cpuMs(postmaster, true);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === postmaster) total += cpuMs(Number(entry));
    } catch {
      // gone between the listing and the read
    }
  }
  return total;
}

export interface Phase {
  result: LoadResult;
  /** CPU per request, in ms: the service's process (PGlite included on PGlite) and PostgreSQL's. */
  serviceCpu: number;
  postgresCpu?: number;
  /** SQL statements PostgreSQL ran per request (pg_stat_statements' calls), BEGIN and COMMIT included. */
  statements?: number;
}

export interface PgbenchPhase {
  perSecond: number;
  latencyMs: number;
  postgresCpu: number;
  transactions: number;
}

export interface Statement {
  query: string;
  perRequest: number;
  execMs: number;
  /** Planning time per call (a prepared statement is planned only now and then; pg_stat_statements' own mean is per planning). */
  planMs: number;
}

export interface ServiceLoad {
  initialize: Phase;
  verify: Phase;
  restart: Summary;
  pgbench?: { insert: PgbenchPhase; select: PgbenchPhase };
  /** The statements behind each phase on PostgreSQL, the costliest first. */
  top?: { initialize: Statement[]; verify: Statement[] };
  load: number[];
}

/** pgbench with 16 clients on the same cluster: its single-row insert (a script) and its primary-key select (-S). */
function pgbench(cluster: Cluster): { insert: PgbenchPhase; select: PgbenchPhase } {
  const url = new URL(cluster.url);
  const connection = ['-h', url.hostname, '-p', url.port, '-U', 'postgres'];
  const tool = join(cluster.bin, 'pgbench');
  const dir = mkdtempSync(join(tmpdir(), 'bench-pgbench-'));
  try {
    execFileSync(tool, ['-i', '-s', '1', '-q', ...connection, 'postgres'], { stdio: 'pipe' });
    const script = join(dir, 'insert.sql');
    writeFileSync(
      script,
      "\\set n random(1, 1000000000)\nINSERT INTO bench_insert (merchant, reference, amount, created_ms) VALUES ('m', 'ref-' || :n, :n, :n);\n",
    );
    execFileSync(
      join(cluster.bin, 'psql'),
      [
        ...connection,
        '-q',
        '-c',
        'CREATE TABLE bench_insert (id bigserial PRIMARY KEY, merchant text NOT NULL, reference text NOT NULL, amount bigint NOT NULL, created_ms bigint NOT NULL)',
        'postgres',
      ],
      { stdio: 'pipe' },
    );
    const run = (args: string[]): PgbenchPhase => {
      const before = postgresCpuMs(cluster);
      const out = execFileSync(tool, ['-n', '-c', String(CLIENTS), '-j', '2', '-T', String(PHASE_SECONDS), ...args, ...connection, 'postgres'], {
        stdio: 'pipe',
      }).toString();
      const transactions = Number(/number of transactions actually processed: (\d+)/.exec(out)?.[1]);
      const failed = Number(/number of failed transactions: (\d+)/.exec(out)?.[1] ?? 0);
      if (!transactions || failed) throw new Error(`pgbench ${args.join(' ')} failed:\n${out}`);
      return {
        perSecond: Number(/tps = ([\d.]+)/.exec(out)?.[1]),
        latencyMs: Number(/latency average = ([\d.]+) ms/.exec(out)?.[1]),
        postgresCpu: (postgresCpuMs(cluster) - before) / transactions,
        transactions,
      };
    };
    return { insert: run(['-f', script]), select: run(['-S']) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The service in its own process (so the load generator does not share its event loop), on
 * PGlite in a new data directory or on a PostgreSQL cluster of its own, beside pgbench on the
 * same cluster; then its restart time on the data the load left, as the median of three.
 * Initialize makes new references with the secret key, as a merchant's server does; verify
 * reads them back with it. Any answer other than 2xx fails the bench (printServiceLoad).
 */
export async function serviceLoad(kind: 'pglite' | 'postgres'): Promise<ServiceLoad> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-data-'));
  const cluster =
    kind === 'postgres' ? await startCluster({ shared_preload_libraries: 'pg_stat_statements', 'pg_stat_statements.track_planning': 'on' }) : undefined;
  const env: Record<string, string> = cluster ? { DATABASE_URL: cluster.url } : { DATA_DIR: dataDir };
  const { default: pg } = await import('pg');
  const stats = cluster && new pg.Client({ connectionString: cluster.url });
  try {
    const pgbenchRates = cluster && pgbench(cluster);
    await stats?.connect();
    await stats?.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    // BENCH_CPU_PROF=<dir>: the first PostgreSQL service runs under node --cpu-prof, its profile written there when it stops.
    const profile = kind === 'postgres' ? process.env.BENCH_CPU_PROF : undefined;
    let service = await start(env, profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : []);
    const pid = service.child.pid!;
    const run = Date.now().toString(36);
    const phase = async (work: () => Promise<LoadResult>): Promise<{ phase: Phase; top?: Statement[] }> => {
      await stats?.query('SELECT pg_stat_statements_reset()');
      const [service0, postgres0] = [cpuMs(pid), cluster ? postgresCpuMs(cluster) : 0];
      const result = await work();
      const [service1, postgres1] = [cpuMs(pid), cluster ? postgresCpuMs(cluster) : 0];
      const phase: Phase = { result, serviceCpu: (service1 - service0) / result.n };
      if (!cluster || !stats) return { phase };
      phase.postgresCpu = (postgres1 - postgres0) / result.n;
      const rows = (
        await stats.query(
          `SELECT query, calls::float8 AS calls, mean_exec_time AS exec, total_plan_time / calls AS plan FROM pg_stat_statements
          WHERE query NOT ILIKE '%pg_stat_statements%' ORDER BY total_exec_time + total_plan_time DESC`,
        )
      ).rows as Array<{ query: string; calls: number; exec: number; plan: number }>;
      phase.statements = rows.reduce((sum, r) => sum + r.calls, 0) / result.n;
      const top = rows
        .slice(0, 6)
        .map((r) => ({ query: r.query.replace(/\s+/g, ' ').slice(0, 100), perRequest: r.calls / result.n, execMs: r.exec, planMs: r.plan }));
      return { phase, top };
    };
    const initialize = await phase(() =>
      load(
        service.url,
        SECRET,
        (i) => ({
          method: 'POST',
          path: '/api/v1/transaction/initialize',
          body: { reference: `load-${run}-${i}`, coin: 'USDT', currency: 'NGN', amount: '15000.50' },
        }),
        { clients: CLIENTS, seconds: PHASE_SECONDS },
      ),
    );
    const created = Math.max(1, initialize.phase.result.statuses[201] ?? 0);
    const verify = await phase(() =>
      load(service.url, SECRET, (i) => ({ method: 'GET', path: `/api/v1/transaction/verify/load-${run}-${i % created}` }), {
        clients: CLIENTS,
        seconds: PHASE_SECONDS,
      }),
    );
    const restarts: number[] = [];
    if (profile) {
      await service.kill(); // a stop, not SIGKILL: the profile is written on the way out
      service = await start(env);
    }
    for (let i = 0; i < 3; i++) {
      await service.kill('SIGKILL');
      service = await start(env);
      restarts.push(service.startMs);
    }
    await service.kill();
    return {
      initialize: initialize.phase,
      verify: verify.phase,
      restart: summarize(restarts),
      pgbench: pgbenchRates,
      top: initialize.top && verify.top && { initialize: initialize.top, verify: verify.top },
      load: loadavg(),
    };
  } finally {
    await stats?.end().catch(() => {});
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
  const service = await start({ DATA_DIR: dataDir });
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
      await load(service.url, KEY, () => ({ method: 'POST', path: `/pay/${slug}/checkout`, body: { email: 'bench@example.com' } }), {
        ...opts,
        total: n * 0.1,
      });
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

const pct = (a: number, b: number) => `${((100 * a) / b).toFixed(1)}%`;
const cpu = (value: number | undefined) => (value === undefined ? '' : `${value.toFixed(2)} ms`);

/** The service's table, beside pgbench's; throws (the bench exits 1) when a phase answered anything but 2xx. */
export function printServiceLoad(services: Record<'pglite' | 'postgres', ServiceLoad>) {
  const { pglite, postgres } = services;
  const bench = postgres.pgbench!;
  const phaseRow = (name: string, p: Phase, limit?: PgbenchPhase) => [
    name,
    `${Math.round(p.result.perSecond)}/s`,
    limit ? pct(p.result.perSecond, limit.perSecond) : '',
    ms(p.result.median),
    ms(p.result.p99),
    cpu(p.serviceCpu),
    cpu(p.postgresCpu),
    limit && p.postgresCpu !== undefined ? pct(limit.postgresCpu, p.postgresCpu) : '',
    p.statements === undefined ? '' : p.statements.toFixed(2),
    String(p.result.n),
    String(p.result.errors),
  ];
  const pgbenchRow = (name: string, b: PgbenchPhase) => [
    name,
    `${Math.round(b.perSecond)}/s`,
    '100%',
    `avg ${ms(b.latencyMs)}`,
    '',
    '',
    cpu(b.postgresCpu),
    '100%',
    '1',
    String(b.transactions),
    '0',
  ];
  const fmtLoad = (l: number[]) => l.map((x) => x.toFixed(2)).join(', ');
  console.log(
    `\n${CLIENTS} clients each (pgbench -c ${CLIENTS} -j 2; the service's keep-alive HTTP clients), ${PHASE_SECONDS} s a phase, load average ${fmtLoad(postgres.load)} (PostgreSQL) and ${fmtLoad(pglite.load)} (PGlite)`,
  );
  console.log(
    table([
      ['phase', 'rate', 'of pgbench', 'p50', 'p99', 'service CPU/op', 'PostgreSQL CPU/op', 'pgbench CPU/op ratio', 'statements/req', 'requests', 'errors'],
      pgbenchRow('pgbench: single-row INSERT (custom script)', bench.insert),
      pgbenchRow('pgbench: primary-key SELECT (-S)', bench.select),
      phaseRow('PostgreSQL: POST /transaction/initialize (secret key, new refs)', postgres.initialize, bench.insert),
      phaseRow('PostgreSQL: GET /transaction/verify/:reference (secret key)', postgres.verify, bench.select),
      phaseRow('PGlite: POST /transaction/initialize (secret key, new refs)', pglite.initialize),
      phaseRow('PGlite: GET /transaction/verify/:reference (secret key)', pglite.verify),
    ]),
  );
  for (const [name, top] of Object.entries(postgres.top ?? {})) {
    console.log(`\nPostgreSQL statements behind ${name}, costliest first (pg_stat_statements)`);
    console.log(
      table([
        ['statement', 'per request', 'mean exec', 'plan per call'],
        ...top.map((s) => [s.query, s.perRequest.toFixed(2), `${s.execMs.toFixed(3)} ms`, `${s.planMs.toFixed(3)} ms`]),
      ]),
    );
  }
  console.log(
    '\n' +
      table([
        ['restart after SIGKILL, spawn to listening (the payments above stored)', 'median', 'min', 'max', 'n'],
        ['PGlite', ms(pglite.restart.median), ms(pglite.restart.min), ms(pglite.restart.max), String(pglite.restart.n)],
        ['PostgreSQL', ms(postgres.restart.median), ms(postgres.restart.min), ms(postgres.restart.max), String(postgres.restart.n)],
      ]),
  );
  const failed = Object.entries({
    'PostgreSQL initialize': postgres.initialize,
    'PostgreSQL verify': postgres.verify,
    'PGlite initialize': pglite.initialize,
    'PGlite verify': pglite.verify,
  })
    .filter(([, p]) => p.result.errors > 0)
    .map(([name, p]) => `${name}: ${p.result.errors} of ${p.result.n} answered other than 2xx (by status: ${JSON.stringify(p.result.statuses)})`);
  if (failed.length) throw new Error(`the service bench is void, phases answered errors:\n${failed.join('\n')}`);
}
