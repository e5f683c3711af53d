// Cold rows of npm run bench: what a customer on a mid-range phone pays, measured
// in a fresh browser context per sample (nothing cached, nothing warmed up) with Chromium's
// CPU throttled through CDP (Emulation.setCPUThrottlingRate) at 1×, 4× and 6×.
// - page view: JavaScript's time on the main thread for the script tag alone (compile and
//   run, no open), from CDP's ScriptDuration and V8CompileDuration, beside the same for a
//   2.5 KB script, a loader's size;
// - first open: ServiceCheckout() to the dialog painted and focused, on a page that loaded the
//   script and went idle, beside a static modal of the same markup and styles on such a page.
// Each pair is interleaved, its order alternating, so machine noise hits both alike.
import type { Browser, Page } from 'playwright';
import { summarize, type Summary } from './stats.ts';
import { LOAF_OBSERVER, longestRun, type Loaf } from './merchant.ts';

/** CPU throttling rates; BENCH_COLD_RATES=4 (comma-separated) measures fewer, for a quick look. */
export const RATES = (process.env.BENCH_COLD_RATES ?? '1,4,6').split(',').map(Number);
const SAMPLES = Number(process.env.BENCH_COLD_SAMPLES ?? 12);

/**
 * The baseline script: 2.5 KB of ordinary code, as a loader would be (a stub that queues
 * calls and fetches the real script), padded with small helpers of the same kind.
 */
export function loaderScript(bytes = 2560): string {
  let code =
    '(function(w,d){var q=[];function load(){var s=d.createElement("script");s.src=(d.currentScript||{}).src||"";s.async=true;d.head.appendChild(s)}' +
    'w.LoaderCheckout=function(o){if(!o||typeof o!=="object")throw new TypeError("options must be an object");q.push(o);if(q.length===1)load();return{close:function(){q.splice(q.indexOf(o),1)}}};';
  for (let i = 0; code.length < bytes - 40; i++) {
    code += `function h${i}(v,k){if(v==null)return k+" is missing";if(typeof v!=="string")return k+" must be text";var t=v.trim();return t.length>${i % 50}?"":k+" is too short"}w.h${i}=h${i};`;
  }
  return code + '})(window,document);';
}

async function freshPage(
  browser: Browser,
  rate: number,
  scripts: Record<string, Buffer | string>,
): Promise<{ page: Page; close(): Promise<void>; taskMs(): Promise<number> }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.addInitScript(LOAF_OBSERVER);
  // Both scripts come from memory the same way, so the serving costs the same for each.
  for (const [path, body] of Object.entries(scripts)) {
    await page.route(`**${path}`, (route) =>
      route.fulfill({ status: 200, contentType: 'text/javascript', body, headers: { 'access-control-allow-origin': '*' } }),
    );
  }
  const cdp = await context.newCDPSession(page);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate });
  await cdp.send('Performance.enable');
  // JavaScript's own time on the main thread: compiling and running (V8CompileDuration and
  // ScriptDuration), not the frames or the network around it.
  const taskMs = async () => {
    const { metrics } = await cdp.send('Performance.getMetrics');
    const metric = (name: string) => metrics.find((m) => m.name === name)!.value * 1000;
    return metric('ScriptDuration') + metric('V8CompileDuration');
  };
  return { page, taskMs, close: () => context.close() };
}

/** Adds a script tag and waits for its load event (the script has run by then). */
async function addScript(page: Page, url: string): Promise<void> {
  await page.evaluate(
    (src) =>
      new Promise<void>((resolve, reject) => {
        const script = document.createElement('script');
        script.src = src;
        script.onload = () => resolve();
        script.onerror = () => reject(new Error('could not load ' + src));
        document.head.appendChild(script);
      }),
    url,
  );
}

const quiet = (page: Page) => page.evaluate(() => new Promise<void>((resolve) => requestIdleCallback(() => setTimeout(resolve, 50), { timeout: 2000 })));

export interface ColdRow {
  rate: number;
  /** By build, and 'loader' (the baseline script). */
  pageView: Record<string, Summary>;
  /** Work the script leaves for when the page is idle (no open): paid by every page view, blocking nothing. */
  idle: Record<string, Summary>;
  /** By build, and 'plain' (the static modal). */
  firstOpen: Record<string, Summary>;
  /** The longest single run of checkout.js's code in the first open's frames (0: none long enough to be named). */
  openLongest: Record<string, Summary>;
}

/** `bundles`: builds by name (say before and after), each measured in every sample beside the baselines. */
export async function coldBench(
  browser: Browser,
  shopUrl: string,
  apiUrl: string,
  key: string,
  bundles: Record<string, Buffer>,
  look: { markup: string; css: string },
): Promise<ColdRow[]> {
  const builds = Object.keys(bundles);
  const scripts: Record<string, Buffer | string> = { '/bench/loader.js': loaderScript() };
  for (const build of builds) scripts[`/bench/${build}/checkout.js`] = bundles[build]!;
  const url = (which: string) => (which === 'loader' ? `${shopUrl}/bench/loader.js` : `${shopUrl}/bench/${which}/checkout.js`);
  const rotate = (list: string[], i: number) => list.map((_, k) => list[(k + i) % list.length]!);
  const samples = (names: string[]) => Object.fromEntries(names.map((n) => [n, [] as number[]]));
  const summaries = (by: Record<string, number[]>) => Object.fromEntries(Object.entries(by).map(([k, v]) => [k, summarize(v)]));
  const rows: ColdRow[] = [];
  for (const rate of RATES) {
    const view = samples(['loader', ...builds]);
    const idle = samples(['loader', ...builds]);
    const open = samples(['plain', ...builds]);
    const openLongest = samples(builds);
    for (let i = 0; i < SAMPLES; i++) {
      for (const which of rotate(['loader', ...builds], i)) {
        const { page, taskMs, close } = await freshPage(browser, rate, scripts);
        await page.goto(shopUrl + '/blank.html');
        await quiet(page);
        // Idle callbacks are held back while the script tag is measured, then run and measured
        // apart: work done when the page is idle is not the script tag's, but it is paid too.
        await page.evaluate(() => {
          const held: Array<() => void> = [];
          Object.assign(window, {
            held,
            requestIdleCallback: (callback: (deadline: IdleDeadline) => void) => held.push(() => callback({ didTimeout: false, timeRemaining: () => 50 })),
          });
        });
        const before = await taskMs();
        await addScript(page, url(which));
        const loaded = await taskMs();
        view[which]!.push(loaded - before);
        // Run as a task of the page's own (what page.evaluate runs is not counted as the page's
        // script), each callback held until the last one has run (a callback may ask for another).
        await page.evaluate(
          () =>
            new Promise<void>((resolve) => {
              const held = (window as unknown as { held: Array<() => void> }).held;
              const run = () => (held.length ? (held.shift()!(), setTimeout(run)) : setTimeout(resolve, 20));
              setTimeout(run);
            }),
        );
        idle[which]!.push((await taskMs()) - loaded);
        await close();
      }
      for (const which of rotate(['plain', ...builds], i)) {
        const { page, close } = await freshPage(browser, rate, scripts);
        await page.goto(shopUrl + '/blank.html');
        // The API origin stays the service's: the modal asks it for the coins as it opens.
        await addScript(page, url(which === 'plain' ? builds.at(-1)! : which));
        await quiet(page);
        await page.waitForTimeout(500); // the idle preparation, in however many pieces, is done
        await page.evaluate(() => ((window as unknown as { loafs: Loaf[] }).loafs.length = 0));
        open[which]!.push(
          await page.evaluate(
            async ({ which, key, apiUrl, markup, css }) => {
              const painted = () => new Promise<number>((resolve) => requestAnimationFrame(() => setTimeout(() => resolve(performance.now()))));
              const t0 = performance.now();
              if (which !== 'plain') {
                const w = window as unknown as { ServiceCheckout(o: Record<string, unknown>): unknown };
                w.ServiceCheckout({ key, apiBase: apiUrl, amount: 24.5, currency: 'USD', name: 'Ada Lovelace', email: 'ada@example.com' });
              } else {
                const host = document.createElement('div');
                const root = host.attachShadow({ mode: 'open' });
                const sheet = new CSSStyleSheet();
                sheet.replaceSync(css);
                root.adoptedStyleSheets = [sheet];
                root.innerHTML = markup;
                document.body.appendChild(host);
                root.querySelector<HTMLElement>('[role=dialog]')!.focus();
              }
              const t1 = await painted();
              const root = document.querySelector('[data-service-checkout]')?.shadowRoot ?? document.querySelector('body > div:last-child')!.shadowRoot!;
              if (!root.activeElement) throw new Error('the dialog was painted without focus');
              return t1 - t0;
            },
            { which, key, apiUrl, ...look },
          ),
        );
        if (which !== 'plain') {
          await page.waitForTimeout(300); // a frame's entry comes after the frame
          openLongest[which]!.push(longestRun(await page.evaluate(() => (window as unknown as { loafs: Loaf[] }).loafs), '/checkout.js'));
        }
        await close();
      }
    }
    rows.push({ rate, pageView: summaries(view), idle: summaries(idle), firstOpen: summaries(open), openLongest: summaries(openLongest) });
    console.log(`cold rows measured at ${rate}x CPU`);
  }
  return rows;
}
