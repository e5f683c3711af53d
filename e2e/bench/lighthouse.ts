// Lighthouse scores of the dashboard's Home and Balances, as a signed-in merchant
// sees them: the built service in a process of its own on a new PGlite data directory, a
// merchant made by the operator, its one-time sign-in link used to set a password (the
// session cookie), a few test payments so Home has rows; then Lighthouse on each screen,
// with the cookie in its extra headers, on its mobile (default) and desktop presets.
// Lighthouse is not a dependency of the project (CI would install it for nothing): it is
// installed once, pinned (13 wants Node 22), into a folder under the OS temp dir; that
// download is the only traffic beyond loopback, and Chromium runs with its own background
// traffic off. Run: npm run bench:lighthouse (it builds first).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAIN, spawnService } from '../../server/testing/process.ts';
import { table } from './stats.ts';

const VERSION = '12.2.3';
const CACHE = join(tmpdir(), `lighthouse-${VERSION}`);
const CLI = join(CACHE, 'node_modules', 'lighthouse', 'cli', 'index.js');
const CHROME = process.env.CHROME_PATH ?? '/usr/bin/chromium';
const ADMIN = 'op_lighthouse_bench_0123456789abcdef0123456789ab';
const SCREENS = [
  ['Home', '/dashboard'],
  ['Balances', '/dashboard/balances'],
] as const;
const PRESETS = (process.env.LIGHTHOUSE_PRESETS ?? 'mobile,desktop').split(',');
/** Chromium without the traffic of its own (updates, safe browsing, metrics, sync): only loopback. */
const CHROME_FLAGS = [
  '--headless=new',
  '--no-sandbox',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-default-apps',
  '--disable-domain-reliability',
  '--disable-client-side-phishing-detection',
  '--no-first-run',
  '--no-default-browser-check',
  '--metrics-recording-only',
  '--disable-features=OptimizationHints,MediaRouter',
].join(' ');

if (!existsSync(CLI)) {
  console.log(`installing lighthouse@${VERSION} into ${CACHE} (once)`);
  execFileSync('npm', ['install', '--prefix', CACHE, '--no-save', '--no-audit', '--no-fund', `lighthouse@${VERSION}`], { stdio: 'inherit' });
}

interface Audit {
  score: number | null;
  numericValue?: number;
  title: string;
  scoreDisplayMode: string;
  details?: { items?: unknown[] };
}
interface Report {
  categories: Record<string, { score: number | null; auditRefs: Array<{ id: string; weight: number }> }>;
  audits: Record<string, Audit>;
  runtimeError?: { code: string; message: string };
}

const dataDir = mkdtempSync(join(tmpdir(), 'bench-lighthouse-'));
const service = await spawnService({ DATA_DIR: dataDir, ADMIN_TOKEN: ADMIN, SEED_DEMO_MERCHANT: 'false' }, MAIN, undefined, 120_000);
try {
  const json = async (path: string, init: RequestInit & { expect?: number } = {}) => {
    const response = await fetch(service.url + path, init);
    if (response.status !== (init.expect ?? 200) && response.status !== 201)
      throw new Error(`${init.method ?? 'GET'} ${path}: ${response.status} ${await response.text()}`);
    return response;
  };
  const made = (
    await (
      await json('/operator/v1/merchants', {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Harbour Tea', email: 'owner@harbour-tea.example' }),
      })
    ).json()
  ).data as { signInUrl: string; keys: { test: { secretKey: string } } };
  const token = new URL(made.signInUrl).hash.replace(/^#token=/, '');
  const signedIn = await json('/dashboard/api/password', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token, password: 'a long enough password' }),
  });
  const session = signedIn.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  if (!/=/.test(session)) throw new Error('setting the password gave no session cookie');
  for (let i = 0; i < 12; i++) {
    await json('/api/v1/transaction/initialize', {
      method: 'POST',
      headers: { authorization: `Bearer ${made.keys.test.secretKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        reference: `order-${1000 + i}`,
        coin: 'USDT',
        currency: 'USD',
        amount: `${12 + i}.50`,
        customer_email: `customer${i}@example.com`,
      }),
      expect: 201,
    });
  }

  const rows = [['screen', 'preset', 'performance', 'accessibility', 'best-practices', 'LCP', 'TBT', 'transferred']];
  const failed: string[] = [];
  for (const preset of PRESETS) {
    for (const [screen, path] of SCREENS) {
      const out = join(dataDir, `${screen}-${preset}.json`);
      execFileSync(
        process.execPath,
        [
          CLI,
          service.url + path,
          '--quiet',
          '--output=json',
          `--output-path=${out}`,
          '--only-categories=performance,accessibility,best-practices',
          `--extra-headers=${JSON.stringify({ Cookie: session })}`,
          `--chrome-flags=${CHROME_FLAGS}`,
          '--no-enable-error-reporting',
          '--disable-full-page-screenshot',
          ...(preset === 'desktop' ? ['--preset=desktop'] : []),
        ],
        { env: { ...process.env, CHROME_PATH: CHROME }, stdio: ['ignore', 'ignore', 'inherit'] },
      );
      const report = JSON.parse(readFileSync(out, 'utf8')) as Report;
      if (report.runtimeError) throw new Error(`${screen} (${preset}): ${report.runtimeError.code} ${report.runtimeError.message}`);
      // Signed in, or the scores are the sign-in form's: the screen's API calls answered 200 (the events long poll still open at the end is not finished).
      const requests = (report.audits['network-requests']?.details?.items ?? []) as Array<{ url: string; statusCode: number; finished: boolean }>;
      const api = requests.filter((r) => new URL(r.url).pathname.startsWith('/api/v1/'));
      if (!api.length || api.some((r) => r.finished && r.statusCode !== 200))
        throw new Error(`${screen} (${preset}) was not measured signed in: ${JSON.stringify(api)}`);
      const score = (id: string) => (report.categories[id]?.score == null ? '-' : String(Math.round(report.categories[id]!.score! * 100)));
      const value = (id: string) => report.audits[id]?.numericValue ?? NaN;
      rows.push([
        screen,
        preset,
        score('performance'),
        score('accessibility'),
        score('best-practices'),
        `${Math.round(value('largest-contentful-paint'))} ms`,
        `${Math.round(value('total-blocking-time'))} ms`,
        `${(value('total-byte-weight') / 1024).toFixed(1)} KiB`,
      ]);
      for (const category of ['accessibility', 'best-practices']) {
        for (const ref of report.categories[category]?.auditRefs ?? []) {
          const audit = report.audits[ref.id];
          if (audit && audit.score !== null && audit.score < 1 && audit.scoreDisplayMode !== 'informative' && audit.scoreDisplayMode !== 'notApplicable') {
            failed.push(`${screen} (${preset}) ${category}: ${ref.id} (weight ${ref.weight}) ${audit.title}`);
          }
        }
      }
    }
  }
  console.log(
    `\nLighthouse ${VERSION}, ${CHROME}, Node ${process.version}, load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(', ')}\n`,
  );
  console.log(table(rows));
  console.log(failed.length ? `\nFailed audits:\n${[...new Set(failed)].join('\n')}` : '\nNo accessibility or best-practices audit failed.');
} finally {
  await service.kill();
  rmSync(dataDir, { recursive: true, force: true });
}
