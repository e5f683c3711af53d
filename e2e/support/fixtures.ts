import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { test as base, expect, type Locator, type Page } from 'playwright/test';
import { startService, type Service, type ServiceOptions } from '../../server/service/app.ts';
import { DEMO_MERCHANT } from '../../server/service/seed.ts';
import { registerWebhook } from '../../demo/merchant/register.ts';
import { startMerchantSite, WEBHOOK_PATH, type MerchantSite } from '../../demo/merchant/server.ts';
import { deployDevContracts, devAccount, devNetwork, type DevContracts } from '../../devchain/deploy.ts';
import { startDevChain, TEST_BLOCK_SECONDS, type DevChain } from '../../devchain/anvil.ts';
import { DEV_CHAIN_POWERS } from '../../devchain/sandbox.ts';
import { checkAnswers, conformance } from './conformance.ts';

export interface Servers {
  api: Service;
  shop: MerchantSite;
  /** With `chain`: the dev chain the test keys pay on, and its contracts. */
  chain?: DevChain;
  contracts?: DevContracts;
  close(): Promise<void>;
}

/** The service and the shop; with `chain`, on a fresh dev chain (anvil, a block a second). */
export async function startServers(options: ServiceOptions & { chain?: { confirmations: number } } = {}): Promise<Servers> {
  const { chain: onChain, ...serviceOptions } = options;
  const chain = onChain ? await startDevChain({ blockTimeSeconds: TEST_BLOCK_SECONDS }) : undefined;
  const contracts = chain ? await deployDevContracts(chain, 4) : undefined;
  const api = await startService({
    demo: true,
    webhookRetryMs: 100,
    watchIntervalMs: 200,
    // Every page of a worker's tests presses hosted links from 127.0.0.1: not one client.
    linkCheckoutsPerMinute: { perClient: 10_000 },
    publicInitializesPerMinute: { perClient: 10_000, perKey: 10_000 },
    // The shop's operator charges 1%, borne by the customer (FEE_BPS=100): every checkout shows
    // it as the operator fee (24.50 USD is 24.745 USDT), and on the dev chain the deposit
    // contract sends it to the network's treasury.
    feeBps: 100,
    feeBearer: 'customer',
    ...(chain ? { networks: { test: devNetwork(chain.url, contracts!, onChain!.confirmations) }, devChain: DEV_CHAIN_POWERS } : {}),
    ...serviceOptions,
  });
  await checkAnswers(api);
  if (chain) await api.parts.merchants.setPayoutAddress(DEMO_MERCHANT.id, 'test', chain.chainId, devAccount(9).address);
  const { publicKey, secretKey } = DEMO_MERCHANT.keys.test;
  const shop = await startMerchantSite({ apiUrl: api.url, publicKey, secretKey, webhookSecret: DEMO_MERCHANT.webhookSecrets!.test! });
  await registerWebhook(api.url, secretKey, shop.url + WEBHOOK_PATH);
  return {
    api,
    shop,
    chain,
    contracts,
    close: async () => {
      await Promise.all([api.close(), shop.close()]);
      await chain?.stop();
    },
  };
}

const LOOPBACK = /^(https?|wss?):\/\/(127\.\d+\.\d+\.\d+|localhost|\[::1\])(:\d+)?\//;

// biome-ignore lint/suspicious/noConfusingVoidType: Playwright types a fixture that gives no value as void
export const test = base.extend<{ offLoopback: string[]; conformant: void }, { servers: Servers }>({
  servers: [
    // biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's first parameter as a destructuring pattern
    async ({}, use) => {
      const servers = await startServers();
      await use(servers);
      await servers.close();
    },
    // Its own minute to start (the service, the shop, the document's check) on a loaded machine.
    { scope: 'worker', timeout: 60_000 },
  ],
  // Nothing may leave the machine: the browser cannot reach off loopback (see chromium.ts),
  // and any attempt to is seen here and fails the test.
  offLoopback: [
    async ({ context }, use) => {
      const seen: string[] = [];
      context.on('request', (request) => {
        const url = request.url();
        if (!LOOPBACK.test(url) && !/^(data|blob|about):/.test(url)) seen.push(url);
      });
      await use(seen);
      expect(seen, 'requests that tried to leave loopback').toEqual([]);
    },
    { auto: true },
  ],
  // Every answer the service gave during the test matched the OpenAPI document (conformance.ts).
  conformant: [
    // biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's first parameter as a destructuring pattern
    async ({}, use) => {
      await use();
      mkdirSync('reports', { recursive: true });
      writeFileSync(`reports/e2e-conformance-${process.pid}.json`, JSON.stringify({ checked: conformance.checked }));
      expect(conformance.problems.splice(0), 'answers the OpenAPI document does not allow').toEqual([]);
    },
    { auto: true },
  ],
});

export { expect };

/** The modal, through its open shadow root (Playwright locators pierce it). */
export const modal = (page: Page): Locator => page.locator('[data-service-checkout] [role=dialog]');

/** Callbacks the demo shop recorded, in order. */
export const shopEvents = (page: Page) =>
  page.evaluate(() => (window as unknown as { shopEvents: Array<{ name: string; detail: Record<string, unknown> }> }).shopEvents);

/** Requests the page made to the API's origin, counted in the browser. */
export function apiRequests(page: Page, apiUrl: string): string[] {
  const seen: string[] = [];
  page.on('request', (request) => {
    if (request.url().startsWith(apiUrl)) seen.push(`${request.method()} ${new URL(request.url()).pathname}`);
  });
  return seen;
}

/** The symbol the full qrcode package encodes for `text`, as a string of 0/1 per module. */
export function fullEncoderSymbol(text: string): { size: number; dark: string } {
  const require = createRequire(import.meta.url);
  const { create } = require('qrcode/lib/core/qrcode') as {
    create(data: unknown, options: unknown): { modules: { size: number; data: Uint8Array } };
  };
  const { size, data } = create([{ data: text, mode: 'byte' }], { errorCorrectionLevel: 'M' }).modules;
  return { size, dark: Array.from(data).join('') };
}

/** Reads the dark modules back out of the SVG path the widget drew. */
export function symbolFromPath(d: string, size: number): string {
  const dark = Array(size * size).fill('0');
  for (const [, x, y, run] of d.matchAll(/M(\d+) (\d+)h(\d+)/g)) {
    for (let i = 0; i < Number(run); i++) dark[Number(y) * size + Number(x) + i] = '1';
  }
  return dark.join('');
}

/** From the shop's pay button to the payment screen, filling the details the modal asks for. */
export async function openPayment(page: Page, shopUrl: string, coin = 'USDT', query = '') {
  await page.goto(shopUrl + '/' + query);
  await page.getByRole('button', { name: 'Pay with stablecoins' }).click();
  const dialog = modal(page);
  await dialog.getByLabel('Full name').fill('Ada Lovelace');
  await dialog.getByLabel('E-mail').fill('ada@example.com');
  await dialog.getByRole('button', { name: 'Continue' }).click();
  await dialog.getByRole('button', { name: new RegExp(`^${coin} `) }).click();
  await expect(dialog.locator('[data-amount]')).toBeVisible();
  return dialog;
}
