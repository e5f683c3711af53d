// Merchant-page rows of npm run bench: what checkout.js costs a page that includes
// it, measured as the page's own speed report sees it. Chromium's Long Animation Frame entries
// (frames of 50 ms or more) name each script that ran 5 ms or more inside them; a run of
// checkout.js's code of 50 ms or more is a long task the merchant's visitor can feel (a tap
// or a scroll waits for it: Interaction to Next Paint, Total Blocking Time).
// Each sample is a fresh browser context, CPU throttled through CDP, on a merchant page with
// the script tag in its HTML (the script from the API's origin, as merchants include it),
// watched for WAIT_MS after load with nobody opening the checkout; the same page without the
// script is the baseline. Builds and baseline are interleaved, their order rotating, so
// machine noise hits each alike.
import type { Browser } from 'playwright';
import { summarize, type Summary } from './stats.ts';

const SAMPLES = Number(process.env.BENCH_MERCHANT_SAMPLES ?? 8);
const WAIT_MS = Number(process.env.BENCH_MERCHANT_WAIT_MS ?? 6000);

/** What a Long Animation Frame observer collects: each frame's length and its scripts' runs. */
export interface Loaf {
  duration: number;
  blocking: number;
  scripts: Array<{ url: string; duration: number; invoker: string }>;
}

/** Put in every bench page before its own scripts: the frames, buffered from the start, in `window.loafs`. */
export const LOAF_OBSERVER = `window.loafs = [];
try {
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.loafs.push({ duration: e.duration, blocking: e.blockingDuration,
      scripts: e.scripts.map((s) => ({ url: s.sourceURL, duration: s.duration, invoker: s.invoker })) });
  }).observe({ type: 'long-animation-frame', buffered: true });
} catch (error) { window.loafs = String(error); }`;

/** The longest single run of code from a URL containing `marker`, across the frames; 0 when none was long enough to be named. */
export const longestRun = (loafs: Loaf[], marker: string) =>
  Math.max(0, ...loafs.flatMap((f) => f.scripts.filter((s) => s.url.includes(marker)).map((s) => s.duration)));

export interface MerchantRow {
  rate: number;
  /** Per build (and 'none', the page without the script): the longest run of checkout.js's code in a sample. */
  longest: Record<string, Summary>;
  /** Samples with a run of 50 ms or more. */
  over50: Record<string, number>;
  /** The page's total blocking time in long frames (each frame's blocking duration, summed). */
  blocking: Record<string, Summary>;
}

const page = (script?: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title>${script ? `<script src="${script}"></script>` : ''}</head>` +
  `<body><h1>Harbour Coffee</h1><p>A product page.</p><button id="pay">Pay with stablecoins</button></body></html>`;

export async function merchantBench(
  browser: Browser,
  shopUrl: string,
  apiUrl: string,
  bundles: Record<string, Buffer>,
  rates: number[],
): Promise<MerchantRow[]> {
  const pages = ['none', ...Object.keys(bundles)];
  const rows: MerchantRow[] = [];
  for (const rate of rates) {
    const longest: Record<string, number[]> = Object.fromEntries(pages.map((p) => [p, []]));
    const blocking: Record<string, number[]> = Object.fromEntries(pages.map((p) => [p, []]));
    for (let i = 0; i < SAMPLES; i++) {
      const order = pages.map((_, k) => pages[(k + i) % pages.length]!);
      for (const which of order) {
        const context = await browser.newContext();
        const tab = await context.newPage();
        const script = which === 'none' ? undefined : `${apiUrl}/bench/${which}/checkout.js`;
        await tab.route(`${shopUrl}/bench/shop.html`, (route) => route.fulfill({ status: 200, contentType: 'text/html', body: page(script) }));
        if (script)
          await tab.route(script, (route) =>
            route.fulfill({ status: 200, contentType: 'text/javascript', body: bundles[which]!, headers: { 'access-control-allow-origin': '*' } }),
          );
        await tab.addInitScript(LOAF_OBSERVER);
        const cdp = await context.newCDPSession(tab);
        await cdp.send('Emulation.setCPUThrottlingRate', { rate });
        await tab.goto(`${shopUrl}/bench/shop.html`, { waitUntil: 'load' });
        await tab.waitForTimeout(WAIT_MS);
        const loafs = await tab.evaluate(() => (window as unknown as { loafs: Loaf[] | string }).loafs);
        if (typeof loafs === 'string') throw new Error(`this Chromium has no Long Animation Frame entries: ${loafs}`);
        longest[which]!.push(longestRun(loafs, '/checkout.js'));
        blocking[which]!.push(loafs.reduce((sum, f) => sum + f.blocking, 0));
        await context.close();
      }
    }
    const sum = (by: Record<string, number[]>) => Object.fromEntries(Object.entries(by).map(([k, v]) => [k, summarize(v)]));
    rows.push({
      rate,
      longest: sum(longest),
      blocking: sum(blocking),
      over50: Object.fromEntries(Object.entries(longest).map(([k, v]) => [k, v.filter((d) => d >= 50).length])),
    });
    console.log(`merchant-page rows measured at ${rate}x CPU`);
  }
  return rows;
}
