// Bytes on the wire: what a customer's browser downloads from the service for a
// merchant page with checkout.js's script tag, and what the dashboard costs, on a first view
// (a fresh browser context: nothing cached) and a repeat view (the same context, the page
// loaded again), counting headers, as Chromium reports them (CDP Network.loadingFinished's
// encodedDataLength). The baseline in the same run: the same views without the precompressed files, every
// file whole on every view: a second service on a copy of dist/ without the compressed files,
// its requests routed through Playwright, which turns the browser's cache off.
import type { Browser } from 'playwright';
import { table } from './stats.ts';

type Views = { first: number; repeat: number; requests: number };

async function views(browser: Browser, url: string, origin: string, identity: boolean): Promise<Views> {
  const context = await browser.newContext();
  try {
    if (identity) await context.route(`${origin}/**`, (route) => route.continue());
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    const urls = new Map<string, string>();
    let bytes = 0;
    let requests = 0;
    cdp.on('Network.requestWillBeSent', (e) => urls.set(e.requestId, e.request.url));
    cdp.on('Network.loadingFinished', (e) => {
      if (!urls.get(e.requestId)?.startsWith(origin)) return;
      bytes += e.encodedDataLength;
      requests += 1;
    });
    const load = async () => {
      await page.goto(url, { waitUntil: 'networkidle' });
      const counted = bytes;
      bytes = 0;
      return counted;
    };
    const first = await load();
    const repeat = await load();
    return { first, repeat, requests };
  } finally {
    await context.close();
  }
}

/** The table of wire bytes: the merchant page's script tag and the dashboard, before and after. */
export type Site = { shopUrl: string; apiUrl: string };

/** `served`: the service as built; `whole`: one on a dist/ without .br and .gz (the baseline). */
export async function wireBench(browser: Browser, served: Site, whole: Site): Promise<string> {
  const rows: string[][] = [['bytes from the service, headers included', 'first view', 'repeat view', 'goal']];
  for (const [name, path, goal, onShop] of [
    ['merchant page with checkout.js', '/', 'first <= 23,000, repeat <= 1,000', true],
    ['the dashboard (its sign-in screen)', '/dashboard', '', false],
  ] as const) {
    const url = (site: Site) => (onShop ? site.shopUrl : site.apiUrl) + path;
    const before = await views(browser, url(whole), whole.apiUrl, true);
    const after = await views(browser, url(served), served.apiUrl, false);
    const n = (v: number) => v.toLocaleString('en');
    rows.push([`${name}: whole files, no cache (baseline)`, n(before.first), n(before.repeat), '']);
    rows.push([`${name}: as served`, n(after.first), n(after.repeat), goal]);
    rows.push([`${name}: ratio, as served / baseline`, (after.first / before.first).toFixed(2) + 'x', (after.repeat / before.repeat).toFixed(2) + 'x', '']);
  }
  return table(rows);
}
