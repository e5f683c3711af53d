// The merchant's dashboard in a real Chromium (issue 23), at 320 px and with the keyboard only:
// open the one-time sign-in link, set a password, sign out and sign in, see a payment arrive on
// Payments without reloading, open it and read its timeline, resend its event, make a product
// with a price that a link's cart takes, roll the secret
// key and see the old one refused, sign out and see the cookie open nothing. axe (WCAG 2.2 A
// and AA, best practices) finds nothing on any screen, light or dark. Needs `npm run build`.
import AxeBuilder from '@axe-core/playwright';
import type { Locator, Page } from 'playwright/test';
import { startService, type Service } from '../server/app.ts';
import { expect, test } from './support/fixtures.ts';

const RULES = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'];
const ADMIN = 'op_dashboard_e2e_token_0123456789abcdef0123456789ab';
const SHOTS = process.env.DASHBOARD_SHOTS;

let api: Service;
test.beforeAll(async () => {
  api = await startService({ adminToken: ADMIN });
});
test.afterAll(async () => api?.close());

async function axe(page: Page, screen: string) {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme, reducedMotion: 'reduce' });
    const { violations } = await new AxeBuilder({ page }).withTags(RULES).analyze();
    expect(violations.flatMap((v) => v.nodes.map((n) => `${screen} (${scheme}): ${v.id} at ${JSON.stringify(n.target)}: ${n.failureSummary}`))).toEqual([]);
    if (SHOTS) await page.screenshot({ path: `${SHOTS}/${screen}-${scheme}.png`, fullPage: true });
  }
  await page.emulateMedia({ colorScheme: 'light' });
  // 320 px: nothing runs off the side.
  expect(await page.evaluate(() => document.documentElement.scrollWidth), `${screen} is wider than 320 px`).toBeLessThanOrEqual(320);
}

/** The keyboard only: Tab (forwards) until `target` has the focus. */
async function tabTo(page: Page, target: Locator) {
  for (let i = 0; i < 60; i++) {
    if (await target.evaluate((el) => el === document.activeElement).catch(() => false)) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`Tab never reached ${target}`);
}

async function merchant() {
  const response = await fetch(`${api.url}/operator/v1/merchants`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Harbour Tea', email: 'owner@harbour-tea.example' }),
  });
  return (await response.json()).data as { signInUrl: string; keys: { test: { secretKey: string } } };
}

const bearer = (key: string) => ({ authorization: `Bearer ${key}`, 'content-type': 'application/json' });

test.use({ viewport: { width: 320, height: 720 } });

test('a merchant\'s day: sign-in link, password, live payments, timeline, resend, roll the key, sign out', async ({ page }) => {
  test.setTimeout(120_000);
  const m = await merchant();
  const password = 'a long enough password';

  // The one-time link: set a password, with the keyboard only.
  await page.goto(m.signInUrl);
  await expect(page.getByRole('heading', { name: 'Set your password' })).toBeVisible();
  await axe(page, 'welcome');
  await tabTo(page, page.getByLabel('New password'));
  await page.keyboard.type(password);
  await tabTo(page, page.getByLabel('The same password again'));
  await page.keyboard.type(password);
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { name: 'Home' })).toBeVisible();
  // The token left the address bar and history.
  expect(page.url()).not.toContain('token');
  await expect(page.getByText('No webhook URL for test payments')).toBeVisible();
  await axe(page, 'home');

  // Sign out, then sign in with the e-mail and the password.
  await tabTo(page, page.getByRole('button', { name: 'Sign out' }));
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
  await axe(page, 'sign-in');
  await tabTo(page, page.getByLabel('E-mail'));
  await page.keyboard.type('owner@harbour-tea.example');
  await tabTo(page, page.getByLabel('Password'));
  await page.keyboard.type('not the password');
  await page.keyboard.press('Enter');
  await expect(page.getByRole('alert')).toHaveText('Wrong e-mail or password');
  await page.getByLabel('Password').fill('');
  await tabTo(page, page.getByLabel('Password'));
  await page.keyboard.type(password);
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { name: 'Home' })).toBeVisible();

  // Payments: empty, then a payment arrives without reloading.
  await tabTo(page, page.getByRole('link', { name: 'Payments' }));
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { name: 'Payments' })).toBeFocused();
  await expect(page.getByText('No payments yet.')).toBeVisible();
  await axe(page, 'payments');
  const key = m.keys.test.secretKey;
  const made = await fetch(`${api.url}/api/v1/transaction/initialize`, { method: 'POST', headers: bearer(key), body: JSON.stringify({ reference: 'tea-1001', coin: 'USDT', currency: 'USD', amount: 18, customer_email: 'ada@example.com' }) });
  expect(made.status).toBe(201);
  await page.waitForTimeout(500); // the long poll is held open by now
  const navigations: string[] = [];
  page.on('framenavigated', (frame) => frame === page.mainFrame() && navigations.push(frame.url()));
  expect((await fetch(`${api.url}/api/v1/sandbox/deposit`, { method: 'POST', headers: bearer(key), body: JSON.stringify({ reference: 'tea-1001', kind: 'exact' }) })).status).toBe(200);
  const row = page.getByRole('link', { name: /tea-1001/ });
  await expect(row).toBeVisible({ timeout: 15_000 });
  await expect(row).toContainText('Paid');
  expect(navigations).toEqual([]);
  await axe(page, 'payments-with-one');
  // Export CSV: a file with the payment, by the keyboard.
  await tabTo(page, page.getByRole('button', { name: 'Export CSV' }));
  const [file] = await Promise.all([page.waitForEvent('download'), page.keyboard.press('Enter')]);
  expect(file.suggestedFilename()).toBe('payments-test.csv');
  const { readFile } = await import('node:fs/promises');
  expect(await readFile((await file.path())!, 'utf8')).toMatch(/^reference,status,[^\n]*\r\ntea-1001,confirmed,/);

  // The payment's page: its timeline, and its event sent again.
  await tabTo(page, row);
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { name: 'Payment tea-1001' })).toBeFocused();
  const timeline = page.getByRole('list').filter({ hasText: 'Created' });
  await expect(timeline.getByRole('listitem')).toHaveCount(4);
  await expect(timeline.getByRole('listitem').nth(0)).toContainText('Created');
  await expect(timeline.getByRole('listitem').nth(1)).toContainText('received and counted');
  await expect(timeline).toContainText('Paid in full');
  await expect(timeline).toContainText('Event DEPOSIT_TRANSACTION told to the webhook (no webhook URL yet)');
  await axe(page, 'payment');
  await tabTo(page, page.getByRole('button', { name: 'Resend DEPOSIT_TRANSACTION' }));
  await page.keyboard.press('Enter');
  await expect(page.getByRole('status').filter({ hasText: 'Queued' })).toBeVisible();

  // Products: make one with a price; a standard link's cart takes that price.
  await tabTo(page, page.getByRole('link', { name: 'Products' }));
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { name: 'Products', exact: true })).toBeFocused();
  await expect(page.getByText('No products yet.')).toBeVisible();
  await tabTo(page, page.getByLabel('Name'));
  await page.keyboard.type('Oolong, 100 g');
  await tabTo(page, page.getByLabel('Price', { exact: true }));
  await page.keyboard.type('9.50');
  await page.keyboard.press('Enter');
  const listed = page.getByRole('list', { name: 'Products, newest first' }).getByRole('listitem').first();
  await expect(listed).toContainText('Oolong, 100 g');
  const priceId = (await listed.locator('.hash').first().textContent())!.replace('price id ', '').trim();
  await axe(page, 'products');
  const link = await fetch(`${api.url}/api/v1/payment_links/standard`, { method: 'POST', headers: bearer(key), body: JSON.stringify({ title: 'Tea', cart: [{ price_id: priceId, quantity: 1 }] }) });
  expect(link.status).toBe(201);

  // Developers: the public key, and a rolled secret key: the old one is refused at once.
  await tabTo(page, page.getByRole('link', { name: 'Developers' }));
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { name: 'Developers' })).toBeFocused();
  await expect(page.locator('#public-key')).toHaveText(/^pk_test_/);
  await axe(page, 'developers');
  await tabTo(page, page.getByRole('button', { name: 'Roll secret key…' }));
  await page.keyboard.press('Enter');
  await tabTo(page, page.getByRole('button', { name: 'Roll the test secret key now' }));
  await page.keyboard.press('Enter');
  const rolled = (await page.locator('#rolled-key').textContent())!.trim();
  expect(rolled).toMatch(/^sk_test_/);
  expect((await fetch(`${api.url}/api/v1/payments`, { headers: bearer(key) })).status).toBe(401);
  expect((await fetch(`${api.url}/api/v1/payments`, { headers: bearer(rolled) })).status).toBe(200);
  await axe(page, 'developers-rolled');

  // The places kept for balances and payouts.
  await tabTo(page, page.getByRole('link', { name: 'Balances' }));
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { name: 'Balances' })).toBeFocused();

  // Sign out: the cookie this browser held opens nothing any more.
  const cookie = (await page.context().cookies()).find((c) => c.name === 'dashboard_session')!;
  expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
  await tabTo(page, page.getByRole('button', { name: 'Sign out' }));
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
  expect((await fetch(`${api.url}/api/v1/payments`, { headers: { cookie: `dashboard_session=${cookie.value}` } })).status).toBe(401);
  await page.goto(`${api.url}/dashboard/payments`);
  await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
});
