import { DEMO_MERCHANT } from '../server/service/seed.ts';
import { expect, modal, startServers, test } from './support/fixtures.ts';

const HOSTILE_NAME = '<img src=x onerror="window.pwned=1"><script>window.pwned=2</script>Evil & "Co"';

test('under a strict CSP, with markup in API text: a payment completes, no violation, nothing runs', async ({ page }) => {
  // The API answers a business name full of markup; it must show as text and run nothing.
  const servers = await startServers({ merchants: [{ ...DEMO_MERCHANT, businessName: HOSTILE_NAME, businessLogo: 'javascript:window.pwned=3' }] });
  try {
    await page.addInitScript(watchPreparation);
    const console: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) console.push(message.text());
    });
    const response = await page.goto(servers.shop.url + '/csp.html');
    expect(response!.headers()['content-security-policy']).toContain(`script-src ${servers.api.url}`);

    // No script of the page's own may run under this policy, so the test plays the merchant.
    await page.evaluate((key) => {
      const w = window as unknown as { ServiceCheckout(o: unknown): void; events: string[] };
      w.events = [];
      w.ServiceCheckout({
        key,
        amount: 10,
        currency: 'EUR',
        name: 'Ada Lovelace',
        email: 'ada@example.com',
        onSuccess: () => w.events.push('success'),
        onClose: () => w.events.push('close'),
      });
    }, DEMO_MERCHANT.keys.test.publicKey);
    const dialog = modal(page);
    await dialog.getByRole('button', { name: /^USDC / }).click();
    await expect(dialog.locator('[data-amount]')).toHaveText('10.978262 USDC'); // 10 / 0.92 → 10.869566, + 1% → 0.108696, both rounded up;
    await expect(dialog.getByRole('heading', { level: 2 })).toHaveText(HOSTILE_NAME);
    expect(await dialog.locator('img, script').count()).toBe(0);
    // The stylesheet applied: the primary button is blue, not the browser's grey.
    expect(await dialog.getByRole('button', { name: 'Full' }).evaluate((b) => getComputedStyle(b).borderRadius)).toBe('8px');

    await dialog.getByRole('button', { name: 'Full' }).click();
    await expect(dialog.getByRole('heading', { name: 'Payment received' })).toBeVisible();
    await dialog.getByRole('button', { name: 'Done' }).click();
    expect(await page.evaluate(() => (window as unknown as { events: string[] }).events)).toEqual(['success', 'close']);
    expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined();
    expect(await page.evaluate(() => (window as unknown as { violations: string[] }).violations)).toEqual([]);
    expect(console).toEqual([]);
    // The policy allows checkout.js's worker (worker-src data:): ICU's tables were loaded there, not on the page.
    expect(await page.evaluate(() => (window as unknown as Watched).workers)).toEqual(['data:text/javascript,']);
    expect(await page.evaluate(() => (window as unknown as Watched).maximized)).toBe(0);
  } finally {
    await servers.close();
  }
});

test('under a strict CSP without worker-src data:, the refused worker is the one report, and ICU loads on the page in idle pieces', async ({
  page,
  servers,
}) => {
  await page.addInitScript(watchPreparation);
  const console: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) console.push(message.text());
  });
  // The shop's strict policy less the line the README asks for the checkout's worker.
  const response = await page.goto(servers.shop.url + '/csp.html?worker=refused');
  expect(response!.headers()['content-security-policy']).toContain(`script-src ${servers.api.url}`);
  expect(response!.headers()['content-security-policy']).not.toContain('worker-src');
  // The idle preparation: the worker refused, the likely-subtags piece run on the page instead.
  await expect.poll(() => page.evaluate(() => (window as unknown as Watched).maximized)).toBe(1);
  expect(await page.evaluate(() => (window as unknown as Watched).violations)).toEqual(['worker-src data']);
  expect(console).toHaveLength(1);
  expect(console[0]).toMatch(/worker from 'data:text\/javascript,.*Content Security Policy/);

  await page.evaluate((key) => {
    (window as unknown as { ServiceCheckout(o: unknown): void }).ServiceCheckout({
      key,
      amount: 10,
      currency: 'EUR',
      name: 'Ada Lovelace',
      email: 'ada@example.com',
    });
  }, DEMO_MERCHANT.keys.test.publicKey);
  await expect(modal(page)).toContainText('€10.00');
  expect(await page.evaluate(() => (window as unknown as Watched).violations)).toEqual(['worker-src data']);
});

interface Watched {
  violations: string[];
  workers: string[];
  maximized: number;
}

/** Before the page's scripts: its CSP reports, the workers made (their URL's scheme and type), and the calls of Intl.Locale#maximize. */
function watchPreparation() {
  const w = window as unknown as Watched;
  w.violations = [];
  w.workers = [];
  w.maximized = 0;
  document.addEventListener('securitypolicyviolation', (event) => w.violations.push(`${event.violatedDirective} ${event.blockedURI}`));
  const PageWorker = window.Worker;
  window.Worker = class extends PageWorker {
    constructor(url: string | URL, options?: WorkerOptions) {
      super(url, options);
      w.workers.push(String(url).slice(0, 'data:text/javascript,'.length));
    }
  };
  const maximize = Intl.Locale.prototype.maximize;
  Intl.Locale.prototype.maximize = function (this: Intl.Locale) {
    w.maximized++;
    return maximize.call(this);
  };
}
