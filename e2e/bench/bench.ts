// npm run bench: measures the built dist/checkout.js in Chromium against the service, and
// the service under load on both databases; prints medians (with min and max) next to
// baselines measured in the same run. `-- --service-only` runs only the service's
// part, `-- --memory` its memory under 100,000 anonymous requests, `-- --chain` detection
// latency and the watcher's cost on a local dev chain, `-- --cold` only the cold rows,
// `-- --merchant` the cold and merchant-page rows, `-- --wire` the bytes a first and a repeat
// view download. The cold and merchant-page rows measure two
// builds in the same run: before (`--before <file or commit>`, by default the build of git
// HEAD, made in a temporary folder) and after (dist/checkout.js, or `--bundle <file>`).
// A script, not a test: it asserts nothing, it reports.
import { execFileSync, execSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright';
import { DEMO_MERCHANT } from '../../server/service/seed.ts';
import { startService, type ServiceOptions } from '../../server/service/app.ts';
import { startMerchantSite } from '../../demo/merchant/server.ts';
import { findChromium, LOOPBACK_ONLY_FLAGS, QUIET_FLAGS } from '../support/chromium.ts';
import { ms, summarize, table, type Summary } from './stats.ts';
import { ROOT } from '../../demo/paths.ts';
import { chainBench } from './chain.ts';
import { printServiceLoad, serviceLoad, serviceMemory } from './service.ts';
import { coldBench, RATES, type ColdRow } from './cold.ts';
import { merchantBench, type MerchantRow } from './merchant.ts';
import { wireBench } from './wire.ts';
import { BUNDLE_BUDGET } from '../support/budget.ts';

const KEY = DEMO_MERCHANT.keys.test.publicKey;
const OPEN_RUNS = 30;
const WARMUP = 5;
const PAYMENTS = 10;
const WINDOW_MS = 60_000;
const CYCLES = 50;

type Window = typeof globalThis & {
  ServiceCheckout(options: Record<string, unknown>): { reference: string; close(): void };
  bench: Record<string, unknown>;
};

async function servers(options: ServiceOptions = {}) {
  const api = await startService({ demo: true, ...options });
  const shop = await startMerchantSite({ apiUrl: api.url, publicKey: KEY, webhookSecret: 'whsec_bench0unused0secret' });
  return { api, shop, close: () => Promise.all([api.close(), shop.close()]) };
}

/** A merchant page with checkout.js loaded from the API's origin by a script tag. */
async function merchantPage(browser: Browser, shopUrl: string, apiUrl: string): Promise<Page> {
  const page = await browser.newPage();
  await page.goto(shopUrl + '/blank.html');
  await page.addScriptTag({ url: apiUrl + '/checkout.js' });
  return page;
}

const dialog = (page: Page) => page.locator('[data-service-checkout] [role=dialog]');

/** Open latency: from the call to the dialog painted and focused, against a static modal of the same markup. */
async function openLatency(browser: Browser, shopUrl: string, apiUrl: string) {
  const page = await merchantPage(browser, shopUrl, apiUrl);
  const samples = await page.evaluate(
    async ({ key, runs, warmup }) => {
      const w = window as unknown as Window;
      // After the next frame: a task posted from requestAnimationFrame runs once it painted.
      const painted = () => new Promise<number>((resolve) => requestAnimationFrame(() => setTimeout(() => resolve(performance.now()))));
      const options = { key, amount: 24.5, currency: 'USD', name: 'Ada Lovelace', email: 'ada@example.com' };
      let markup = '';
      let css = '';
      async function openCheckout(): Promise<[number, number]> {
        const t0 = performance.now();
        const handle = w.ServiceCheckout(options);
        const mounted = performance.now();
        const t1 = await painted();
        const root = document.querySelector('[data-service-checkout]')!.shadowRoot!;
        if (!root.activeElement) throw new Error('the dialog was painted without focus');
        markup ||= root.innerHTML;
        css ||= [...root.adoptedStyleSheets[0].cssRules].map((rule) => rule.cssText).join('\n');
        handle.close();
        await painted();
        return [mounted - t0, t1 - t0];
      }
      let sheet: CSSStyleSheet | undefined;
      async function openStatic(): Promise<[number, number]> {
        const t0 = performance.now();
        const host = document.createElement('div');
        const root = host.attachShadow({ mode: 'open' });
        if (!sheet) {
          sheet = new CSSStyleSheet();
          sheet.replaceSync(css);
        }
        root.adoptedStyleSheets = [sheet];
        root.innerHTML = markup;
        document.body.appendChild(host);
        root.querySelector<HTMLElement>('[role=dialog]')!.focus();
        const mounted = performance.now();
        const t1 = await painted();
        host.remove();
        await painted();
        return [mounted - t0, t1 - t0];
      }
      const checkout: number[] = [];
      const plain: number[] = [];
      const checkoutSync: number[] = [];
      const plainSync: number[] = [];
      for (let i = 0; i < warmup + runs; i++) {
        const [aSync, a] = await openCheckout();
        const [bSync, b] = await openStatic();
        if (i >= warmup) {
          checkout.push(a);
          plain.push(b);
          checkoutSync.push(aSync);
          plainSync.push(bSync);
        }
      }
      return { checkout, plain, checkoutSync, plainSync, markup, css };
    },
    { key: KEY, runs: OPEN_RUNS, warmup: WARMUP },
  );
  await page.close();
  return {
    checkout: summarize(samples.checkout),
    plain: summarize(samples.plain),
    checkoutSync: summarize(samples.checkoutSync),
    plainSync: summarize(samples.plainSync),
    look: { markup: samples.markup, css: samples.css },
  };
}

/** Opens the checkout on the payment screen for USDT; resolves with its reference. */
async function toPaymentScreen(page: Page): Promise<string> {
  const reference = await page.evaluate((key) => {
    const w = window as unknown as Window;
    w.bench = {};
    const handle = w.ServiceCheckout({
      key,
      amount: 24.5,
      currency: 'USD',
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      onSuccess: () => (w.bench.success = performance.now()),
    });
    w.bench.close = () => handle.close();
    return handle.reference;
  }, KEY);
  await dialog(page)
    .getByRole('button', { name: /^USDT / })
    .click();
  await dialog(page).locator('[data-amount]').waitFor();
  return reference;
}

/** Detection: from a deposit made elsewhere (not through the widget) to onSuccess. */
async function detection(browser: Browser, options: ServiceOptions) {
  const s = await servers(options);
  const page = await merchantPage(browser, s.shop.url, s.api.url);
  const samples: number[] = [];
  for (let i = 0; i < PAYMENTS; i++) {
    const reference = await toPaymentScreen(page);
    await page.waitForTimeout(200 + Math.random() * 3000); // a customer takes a while; any phase of the poll
    samples.push(
      await page.evaluate(
        async ({ api, key, reference }) => {
          const w = window as unknown as Window;
          const t0 = performance.now();
          await fetch(api + '/api/v1/sandbox/deposit', {
            method: 'POST',
            headers: { 'x-api-key': key, 'content-type': 'application/json' },
            body: JSON.stringify({ reference, kind: 'exact' }),
          });
          while (w.bench.success === undefined) await new Promise((resolve) => setTimeout(resolve, 2));
          (w.bench.close as () => void)();
          return (w.bench.success as number) - t0;
        },
        { api: s.api.url, key: KEY, reference },
      ),
    );
  }
  await page.close();
  await s.close();
  return summarize(samples);
}

/** Requests the payment screen makes in WINDOW_MS while the customer does nothing. */
async function requestsPerMinute(browser: Browser, options: ServiceOptions): Promise<number> {
  const s = await servers(options);
  const page = await merchantPage(browser, s.shop.url, s.api.url);
  await toPaymentScreen(page);
  let count = 0;
  page.on('request', (request) => {
    if (request.url().startsWith(s.api.url)) count++;
  });
  await page.waitForTimeout(WINDOW_MS);
  await page.close();
  await s.close();
  return count * (60_000 / WINDOW_MS);
}

/** DOM nodes, event listeners and JS heap after forced GC, before and after CYCLES open/pay-screen/close cycles. */
async function leaks(browser: Browser) {
  const s = await servers();
  const page = await merchantPage(browser, s.shop.url, s.api.url);
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  /** Live instances of a prototype, counted by DevTools; the handles are released again. */
  const live = async (prototype: string) => {
    const { result } = await cdp.send('Runtime.evaluate', { expression: prototype, objectGroup: 'bench' });
    const { objects } = await cdp.send('Runtime.queryObjects', { prototypeObjectId: result.objectId!, objectGroup: 'bench' });
    const { result: length } = await cdp.send('Runtime.callFunctionOn', {
      objectId: objects.objectId!,
      functionDeclaration: 'function () { return this.length; }',
      returnByValue: true,
    });
    await cdp.send('Runtime.releaseObjectGroup', { objectGroup: 'bench' });
    return length.value as number;
  };
  const measure = async () => {
    for (let i = 0; i < 3; i++) await cdp.send('HeapProfiler.collectGarbage');
    const { metrics } = await cdp.send('Performance.getMetrics');
    const get = (name: string) => metrics.find((m) => m.name === name)?.value ?? NaN;
    return {
      nodes: get('Nodes'),
      listeners: get('JSEventListeners'),
      heap: get('JSHeapUsedSize'),
      controllers: await live('AbortController.prototype'),
      shadowRoots: await live('ShadowRoot.prototype'),
    };
  };
  const cycle = async () => {
    await toPaymentScreen(page);
    await page.evaluate(() => {
      const w = window as unknown as Window;
      (w.bench.close as () => void)();
      w.bench = {}; // the benchmark's own reference to the last checkout goes too
    });
    await page.waitForTimeout(20);
  };
  for (let i = 0; i < 3; i++) await cycle();
  await page.waitForTimeout(300);
  const before = await measure();
  for (let i = 0; i < CYCLES; i++) await cycle();
  await page.waitForTimeout(300);
  const after = await measure();
  // A second batch tells warm-up (compiled code, feedback) from a leak: a leak grows again.
  for (let i = 0; i < CYCLES; i++) await cycle();
  await page.waitForTimeout(300);
  const again = await measure();
  await page.close();
  await s.close();
  return { before, after, again };
}

const row = (name: string, s: Summary, target = '') => [name, ms(s.median), ms(s.min), ms(s.max), String(s.n), target];

const ratio = (a: Summary, b: Summary) => `${(a.median / b.median).toFixed(2)}x`;

/** The cold rows: each measure of each build beside its baseline from the same run, and their ratio. */
function coldTable(rows: ColdRow[]): string {
  const cell = (s: Summary) => [ms(s.median), ms(s.min), ms(s.max), String(s.n)];
  return table([
    ['cold, fresh context per sample', 'median', 'min', 'max', 'n', 'ratio', 'target'],
    ...rows.flatMap(({ rate, pageView, idle, firstOpen, openLongest }) => [
      [`${rate}x CPU  page view: a 2.5 KB loader-sized script (baseline)`, ...cell(pageView.loader!), '', ''],
      ...Object.keys(openLongest).flatMap((build) => [
        [
          `${rate}x CPU  page view, ${build}: checkout.js script tag, JS compile + run`,
          ...cell(pageView[build]!),
          ratio(pageView[build]!, pageView.loader!),
          rate === 4 ? '<= 20 ms' : '',
        ],
        [`${rate}x CPU  page view, ${build}: idle-time preparation after it (no open), summed`, ...cell(idle[build]!), '', ''],
      ]),
      [`${rate}x CPU  first open: static modal of the same markup (baseline)`, ...cell(firstOpen.plain!), '', ''],
      ...Object.keys(openLongest).flatMap((build) => [
        [
          `${rate}x CPU  first open, ${build}: ServiceCheckout() to painted and focused`,
          ...cell(firstOpen[build]!),
          ratio(firstOpen[build]!, firstOpen.plain!),
          '<= 2x',
        ],
        [`${rate}x CPU  first open, ${build}: longest run of checkout.js in its frames`, ...cell(openLongest[build]!), '', ''],
      ]),
    ]),
  ]);
}

/** The merchant-page rows: long animation frames on a page that includes the script, nobody opening it. */
function merchantTable(rows: MerchantRow[]): string {
  const cell = (s: Summary) => [ms(s.median), ms(s.min), ms(s.max), String(s.n)];
  return table([
    ['merchant page, fresh context per sample, no open', 'median', 'min', 'max', 'n', '>= 50 ms', 'target'],
    ...rows.flatMap(({ rate, longest, over50, blocking }) => [
      [`${rate}x CPU  page without the script (baseline): total blocking time of long frames`, ...cell(blocking.none!), '', ''],
      ...Object.keys(longest)
        .filter((build) => build !== 'none')
        .flatMap((build) => [
          [
            `${rate}x CPU  ${build}: longest run of checkout.js's code in a long frame`,
            ...cell(longest[build]!),
            `${over50[build]} of ${longest[build]!.n}`,
            rate === 4 ? 'none >= 50 ms' : '',
          ],
          [`${rate}x CPU  ${build}: total blocking time of long frames`, ...cell(blocking[build]!), '', ''],
        ]),
    ]),
  ]);
}

/** The build to compare with: a bundle file, or a commit (HEAD by default) built in a temporary folder. */
function beforeBundle(): { path: string; bundle: Buffer } {
  const given = process.argv.indexOf('--before');
  const which = given > 0 ? process.argv[given + 1]! : 'HEAD';
  if (existsSync(which)) return { path: which, bundle: readFileSync(which) };
  const dir = mkdtempSync(join(tmpdir(), 'bench-before-'));
  try {
    execSync(`git archive ${which} | tar -x -C ${dir}`, { cwd: ROOT, stdio: 'inherit' });
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
    execFileSync(join(ROOT, 'node_modules/.bin/vite'), ['build', '--logLevel', 'warn'], { cwd: dir, stdio: 'inherit' });
    const commit = execFileSync('git', ['rev-parse', '--short', which], { cwd: ROOT }).toString().trim();
    return { path: `${which} (${commit})`, bundle: readFileSync(join(dir, 'dist/checkout.js')) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main() {
  if (process.argv.includes('--memory')) {
    const readings = await serviceMemory();
    console.log(
      '\n' +
        table([['anonymous requests served', 'service RSS'], ...readings.map((r) => [r.requests.toLocaleString('en'), `${(r.rssKb / 1024).toFixed(1)} MB`])]),
    );
    return;
  }
  if (process.argv.includes('--chain')) {
    await chainBench();
    return;
  }
  if (process.argv.includes('--wire')) {
    const browser = await chromium.launch({ executablePath: findChromium(), args: [...QUIET_FLAGS, ...LOOPBACK_ONLY_FLAGS] });
    // The baseline's service: dist/ without the precompressed .br and .gz beside each file.
    const whole = mkdtempSync(join(tmpdir(), 'bench-wire-'));
    cpSync(join(ROOT, 'dist'), whole, { recursive: true, filter: (path) => !/\.(br|gz)$/.test(path) });
    const s = await servers();
    const b = await servers({ distDir: whole + '/' });
    try {
      console.log('\n' + (await wireBench(browser, { shopUrl: s.shop.url, apiUrl: s.api.url }, { shopUrl: b.shop.url, apiUrl: b.api.url })));
    } finally {
      await Promise.all([s.close(), b.close(), browser.close()]);
      rmSync(whole, { recursive: true, force: true });
    }
    return;
  }
  if (process.argv.includes('--service-only')) {
    printServiceLoad({ pglite: await serviceLoad('pglite'), postgres: await serviceLoad('postgres') });
    return;
  }
  const executablePath = findChromium();
  const browser = await chromium.launch({ executablePath, args: [...QUIET_FLAGS, ...LOOPBACK_ONLY_FLAGS] });
  // --bundle <file>: the cold rows of another build (an earlier commit's, say), for before and after.
  const given = process.argv.indexOf('--bundle');
  const bundlePath = given > 0 ? process.argv[given + 1]! : ROOT + 'dist/checkout.js';
  const bundle = readFileSync(bundlePath);
  const previous = beforeBundle();
  /** As the budget test measures it: gzip -9 of a file named checkout.js (the name is in the header). */
  const gzipped = (b: Buffer) => {
    const dir = mkdtempSync(join(tmpdir(), 'bench-gzip-'));
    try {
      writeFileSync(join(dir, 'checkout.js'), b);
      return execFileSync('gzip', ['-9', '-c', join(dir, 'checkout.js')]).length;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  console.log(`ServiceCheckout benchmark: ${browser.version()} (${executablePath ?? "Playwright's"}), node ${process.version}`);
  console.log(`after:  ${bundlePath} ${bundle.length} bytes, ${gzipped(bundle)} bytes gzip -9 (budget ${BUNDLE_BUDGET})`);
  console.log(`before: ${previous.path} ${previous.bundle.length} bytes, ${gzipped(previous.bundle)} bytes gzip -9\n`);
  const bundles = { before: previous.bundle, after: bundle };

  const s = await servers();
  const open = await openLatency(browser, s.shop.url, s.api.url);
  console.log('open latency measured');
  const cold = await coldBench(browser, s.shop.url, s.api.url, KEY, bundles, open.look);
  if (process.argv.includes('--cold')) {
    await s.close();
    await browser.close();
    console.log('\n' + coldTable(cold));
    return;
  }
  const merchant = await merchantBench(browser, s.shop.url, s.api.url, bundles, RATES);
  await s.close();
  if (process.argv.includes('--merchant')) {
    await browser.close();
    console.log('\n' + coldTable(cold) + '\n\n' + merchantTable(merchant));
    return;
  }
  const [longPoll, plainPoll] = [await detection(browser, {}), await detection(browser, { longPoll: false })];
  console.log('detection measured');
  const [longRate, plainRate] = await Promise.all([requestsPerMinute(browser, {}), requestsPerMinute(browser, { longPoll: false })]);
  console.log('request rates measured');
  const memory = await leaks(browser);
  await browser.close();
  const services = { pglite: await serviceLoad('pglite'), postgres: await serviceLoad('postgres') };

  console.log(
    '\n' +
      table([
        ['measure', 'median', 'min', 'max', 'n', 'target'],
        row('open: ServiceCheckout() to dialog painted and focused', open.checkout),
        row('open: static modal of the same markup (baseline)', open.plain),
        ['open: ratio of medians, checkout / static', `${(open.checkout.median / open.plain.median).toFixed(2)}x`, '', '', '', '<= 2x'],
        row('open, script part: call to dialog mounted and focused', open.checkoutSync),
        row('open, script part: static modal (baseline)', open.plainSync),
        ['open, script part: ratio of medians', `${(open.checkoutSync.median / open.plainSync.median).toFixed(2)}x`, '', '', '', ''],
        row('detection: deposit to onSuccess, long poll', longPoll, '< 300 ms'),
        row('detection: deposit to onSuccess, plain poll every 3 s (baseline)', plainPoll),
        ['requests per minute on the payment screen, long poll', String(longRate), '', '', `${WINDOW_MS / 1000} s`, '<= 6'],
        ['requests per minute on the payment screen, plain poll (baseline)', String(plainRate), '', '', `${WINDOW_MS / 1000} s`, ''],
      ]),
  );

  console.log('\n' + coldTable(cold));
  console.log('\n' + merchantTable(merchant));

  printServiceLoad(services);

  const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
  const { before, after, again } = memory;
  console.log(
    '\n' +
      table([
        [`open/payment-screen/close cycles, forced GC`, 'baseline', `+${CYCLES}`, `+${2 * CYCLES}`, `change, 1st ${CYCLES}`, `change, 2nd ${CYCLES}`],
        ['DOM nodes', String(before.nodes), String(after.nodes), String(again.nodes), String(after.nodes - before.nodes), String(again.nodes - after.nodes)],
        [
          'event listeners',
          String(before.listeners),
          String(after.listeners),
          String(again.listeners),
          String(after.listeners - before.listeners),
          String(again.listeners - after.listeners),
        ],
        ['JS heap used', kb(before.heap), kb(after.heap), kb(again.heap), kb(after.heap - before.heap), kb(again.heap - after.heap)],
        [
          'live AbortControllers (one per checkout)',
          String(before.controllers),
          String(after.controllers),
          String(again.controllers),
          String(after.controllers - before.controllers),
          String(again.controllers - after.controllers),
        ],
        [
          'live ShadowRoots (one per checkout)',
          String(before.shadowRoots),
          String(after.shadowRoots),
          String(again.shadowRoots),
          String(after.shadowRoots - before.shadowRoots),
          String(again.shadowRoots - after.shadowRoots),
        ],
      ]),
  );
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
