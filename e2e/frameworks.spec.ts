// service-checkout/react and service-checkout/vue in real apps: each built with Vite, served
// from its own origin, paid in Chromium against the service. Callbacks fire exactly once
// through constant re-renders (React's StrictMode included) and after an unmount mid-payment.
import { createServer, type Server } from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { build } from 'vite';
import { DEMO_MERCHANT } from '../server/service/seed.ts';
import { fromRoot } from '../server/service/paths.ts';
import { expect, modal, test } from './support/fixtures.ts';

type App = { url: string; close(): Promise<void> };

/** Builds e2e/apps/<name> with Vite and serves the result on localhost. */
async function buildAndServe(name: 'react' | 'vue'): Promise<App> {
  const outDir = mkdtempSync(join(tmpdir(), `app-${name}-`));
  await build({
    root: fromRoot(`e2e/apps/${name}`),
    configFile: false,
    logLevel: 'silent',
    define: { 'process.env.NODE_ENV': JSON.stringify('production') },
    resolve: { alias: { [`service-checkout/${name}`]: fromRoot(`src/${name}/index.ts`) } },
    build: { outDir, emptyOutDir: true },
  });
  const types: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript' };
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://app').pathname;
    const file = path === '/' ? 'index.html' : path.replace(/^\/+/, '').replace(/\.\./g, '');
    let body: Buffer;
    try {
      body = readFileSync(join(outDir, file));
    } catch {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://localhost:${(server.address() as AddressInfo).port}`,
    close: async () => {
      await new Promise((resolve) => server.close(resolve));
      rmSync(outDir, { recursive: true, force: true });
    },
  };
}

const appEvents = (page: import('playwright/test').Page) => page.evaluate(() => (window as unknown as { appEvents: string[] }).appEvents);

for (const name of ['react', 'vue'] as const) {
  test.describe(`service-checkout/${name}`, () => {
    let app: App;
    test.beforeAll(async () => {
      app = await buildAndServe(name);
    });
    test.afterAll(() => app.close());

    const openApp = async (page: import('playwright/test').Page, apiUrl: string) => {
      await page.goto(`${app.url}/?key=${DEMO_MERCHANT.keys.test.publicKey}&api=${encodeURIComponent(apiUrl)}`);
      await page.getByRole('button', { name: name === 'react' ? 'Pay with React' : 'Pay with Vue' }).click();
      const dialog = modal(page);
      await dialog.getByRole('button', { name: /^USDT / }).click();
      await expect(dialog.locator('[data-amount]')).toHaveText('12.12 USDT');
      return dialog;
    };

    test('pays through the app while it re-renders every 50 ms: onSuccess once, onClose once, last', async ({ page, servers }) => {
      const dialog = await openApp(page, servers.api.url);
      await page.waitForTimeout(300); // several re-renders with the modal open
      await dialog.getByRole('button', { name: 'Full' }).click();
      await expect(dialog.getByRole('heading', { name: 'Payment received' })).toBeVisible();
      await dialog.getByRole('button', { name: 'Done' }).click();
      await expect(modal(page)).toHaveCount(0);
      await page.waitForTimeout(300);
      expect(await appEvents(page)).toEqual(['success confirmed', 'close']);
    });

    test('a component unmounted mid-payment: the customer finishes, and the callbacks still run once', async ({ page, servers }) => {
      const dialog = await openApp(page, servers.api.url);
      await page.evaluate(() => (window as unknown as { hideShop(): void }).hideShop());
      await expect(page.getByText('The shop is gone')).toBeAttached();
      await dialog.getByRole('button', { name: 'Full' }).click();
      await expect(dialog.getByRole('heading', { name: 'Payment received' })).toBeVisible();
      await dialog.getByRole('button', { name: 'Done' }).click();
      await page.waitForTimeout(300);
      expect(await appEvents(page)).toEqual(['success confirmed', 'close']);
    });
  });
}
