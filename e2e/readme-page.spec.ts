// The README, exactly as written: its "Use it on a page" snippet, taken from README.md by its
// fenced block, served from a merchant origin (localhost) other than the service's (127.0.0.1),
// opened in Chromium, paid with the sandbox on a dev chain. The only changes made to the text
// are its two placeholders: `https://<service origin>` and the public key `pk_test_…`.
import { createServer, type Server } from 'node:http';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { DEMO_MERCHANT } from '../server/service/seed.ts';
import { fromRoot } from '../server/service/paths.ts';
import { expect, modal, startServers, test, type Servers } from './support/fixtures.ts';

const README = readFileSync(fromRoot('README.md'), 'utf8');

/** The fenced block of `lang` that follows `after` in the README (as server/tests/readme-snippets.test.ts reads it). */
function block(after: string, lang: string): string {
  const at = README.indexOf(after);
  expect(at, `the README has "${after}"`).toBeGreaterThan(-1);
  const open = README.indexOf('```' + lang + '\n', at);
  expect(open, `a \`\`\`${lang} block after "${after}"`).toBeGreaterThan(-1);
  return README.slice(open + lang.length + 4, README.indexOf('\n```', open));
}

let servers: Servers;
let shop: Server;
let shopUrl: string;
let snippet: string;
test.beforeAll(async () => {
  servers = await startServers({ chain: { confirmations: 1 } });
  const original = block('## Use it on a page', 'html');
  // The two placeholders, each exactly once, and nothing else changed.
  expect(original.split('https://<service origin>').length - 1).toBe(1);
  expect(original.split("'pk_test_…'").length - 1).toBe(1);
  snippet = original.replace('https://<service origin>', servers.api.url).replace("'pk_test_…'", `'${DEMO_MERCHANT.keys.test.publicKey}'`);
  // The merchant's page: the snippet as the whole body of an HTML page, on its own origin.
  const page = `<!doctype html>\n<html lang="en">\n<head><meta charset="utf-8"><title>A shop</title></head>\n<body>\n${snippet}\n</body>\n</html>\n`;
  shop = createServer((req, res) => {
    if (new URL(req.url ?? '/', 'http://shop').pathname !== '/') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
  });
  await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', resolve));
  shopUrl = `http://localhost:${(shop.address() as AddressInfo).port}/`;
});
test.afterAll(async () => {
  await new Promise((resolve) => shop?.close(resolve));
  await servers?.close();
});

test("the README's page snippet, as written: its Pay button opens the modal, the sandbox pays on the dev chain, its onSuccess runs once", async ({ page }) => {
  expect(new URL(shopUrl).origin).not.toBe(new URL(servers.api.url).origin);
  // The snippet's callbacks are its own (onSuccess's body is a comment); to see them run, the
  // page's ServiceCheckout is wrapped as the script tag defines it, and each callback the
  // snippet passed is called through a recorder. The snippet's text is not touched.
  await page.addInitScript(() => {
    const calls: Array<{ name: string; arg: unknown }> = [];
    const seen: Array<Record<string, unknown>> = [];
    Object.assign(window, { readmeCalls: calls, readmeOptions: seen });
    let wrapped: unknown;
    Object.defineProperty(window, 'ServiceCheckout', {
      configurable: true,
      get: () => wrapped,
      set: (real: (options: Record<string, unknown>) => unknown) => {
        wrapped = (options: Record<string, unknown>) => {
          seen.push({ ...options, onSuccess: typeof options.onSuccess, onError: typeof options.onError, onClose: typeof options.onClose });
          const recorded = { ...options };
          for (const name of ['onSuccess', 'onError', 'onClose'] as const) {
            const own = options[name];
            if (typeof own !== 'function') continue;
            recorded[name] = (arg: unknown) => {
              calls.push({ name, arg: JSON.parse(JSON.stringify(arg ?? null)) });
              return own(arg);
            };
          }
          return real(recorded);
        };
      },
    });
  });
  const warnings: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'warning' || message.type() === 'error') warnings.push(message.text());
  });
  page.on('pageerror', (error) => warnings.push(String(error)));
  const failed: string[] = [];
  page.on('response', (response) => {
    if (response.status() >= 400) failed.push(`${response.status()} ${response.url()}`);
  });
  await page.goto(shopUrl);
  expect(await page.evaluate(() => typeof (window as unknown as { ServiceCheckout: unknown }).ServiceCheckout)).toBe('function');

  await page.getByRole('button', { name: 'Pay' }).click();
  const dialog = modal(page);
  await expect(dialog).toBeVisible();
  // The page still loaded (the form's submit was prevented) and passed what the snippet says.
  expect(page.url()).toBe(shopUrl);
  const [options] = await page.evaluate(() => (window as unknown as { readmeOptions: Array<Record<string, unknown>> }).readmeOptions);
  expect(options).toMatchObject({
    key: DEMO_MERCHANT.keys.test.publicKey,
    amount: '24.50',
    currency: 'USD',
    email: 'ada@example.com',
    reference: 'order-1042',
    onSuccess: 'function',
    onError: 'function',
    onClose: 'function',
  });
  // The e-mail is given, so only the name is asked for.
  await dialog.getByLabel('Full name').fill('Ada Lovelace');
  await dialog.getByRole('button', { name: 'Continue' }).click();
  await dialog.getByRole('button', { name: /^USDT / }).click();
  await expect(dialog.locator('[data-amount]')).toBeVisible();
  await expect(dialog.locator('[data-network]')).toContainText('Local dev chain');
  await dialog.getByRole('button', { name: 'Full' }).click();
  await expect(dialog.getByRole('heading', { name: 'Payment received' })).toBeVisible({ timeout: 20_000 });
  await dialog.getByRole('button', { name: 'Done' }).click();
  await expect(modal(page)).toHaveCount(0);

  const calls = await page.evaluate(() => (window as unknown as { readmeCalls: Array<{ name: string; arg: Record<string, unknown> }> }).readmeCalls);
  expect(calls.map((call) => call.name)).toEqual(['onSuccess', 'onClose']);
  expect(calls[0]!.arg).toMatchObject({ reference: 'order-1042', status: 'confirmed', currency: 'USD' });
  expect(calls[1]!.arg).toMatchObject({ reference: 'order-1042', status: 'confirmed' });
  // The service agrees: order-1042 is paid, on the demo merchant's test key.
  const verified = await fetch(`${servers.api.url}/api/v1/transaction/verify/order-1042`, {
    headers: { authorization: `Bearer ${DEMO_MERCHANT.keys.test.secretKey}` },
  });
  expect(verified.status).toBe(200);
  expect(((await verified.json()) as { data: { status: string } }).data.status).toBe('confirmed');
  // Nothing went to the snippet's onError (console.warn) and nothing threw.
  // The one refused request is the checkout asking whether the merchant's reference already has
  // a payment to resume (it had none yet); Chromium logs it as a failed resource.
  expect(failed).toEqual([`404 ${servers.api.url}/api/v1/transaction/verify/order-1042`]);
  expect(warnings.filter((text) => !text.startsWith('Failed to load resource: the server responded with a status of 404'))).toEqual([]);
});
