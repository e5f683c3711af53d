// The merchant's dashboard in a real Chromium, at 320 px and with the keyboard only:
// the merchant's whole day. Open the one-time sign-in link, set a password, sign out and sign
// in; make a product with a price; make a standard link whose cart takes it, copy its URL, see
// its QR code, deactivate and activate it; make a donation link with a cover photo; pay the
// standard link on its hosted page with the sandbox (another tab) and see the payment arrive
// on Payments without reloading; open it and read its timeline, resend its event, and again
// from the events feed; rename the business and upload a logo (one that is HTML refused); roll
// the secret key and see the old one refused; sign out and see the cookie open nothing. And a service with two live networks: the dashboard opens in
// live mode, Home says what blocks live money, and each network's payout address (EIP-55
// checked), in its own form, clears its warning. The events feed pages back 50 at a time; an
// event names its payment and opens its body. The other screens in French and Arabic pass axe.
// axe (WCAG 2.2 A and AA, best practices) finds nothing on any screen, light or dark. Needs
// `npm run build`.
import type { FileChooser, Locator, Page } from 'playwright/test';
import { startService, type Service } from '../server/service/app.ts';
import { cheapPasswords } from '../server/testing/passwords.ts';
import { startDevChain, TEST_BLOCK_SECONDS } from '../devchain/anvil.ts';
import { deployDevContracts, devAccount, devNetwork } from '../devchain/deploy.ts';
import { DEV_CHAIN_POWERS } from '../devchain/sandbox.ts';
import { expect, expect as baseExpect, fullEncoderSymbol, modal, symbolFromPath, test } from './support/fixtures.ts';
import { axeViolations } from './support/axe.ts';
import { checkAnswers } from './support/conformance.ts';

const ADMIN = 'op_dashboard_e2e_token_0123456789abcdef0123456789ab';
const SHOTS = process.env.DASHBOARD_SHOTS;
// A 1×1 PNG: a logo the service keeps.
const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000a49444154789c6360000000020001e221bc330000000049454e44ae426082',
  'hex',
);

let api: Service;
test.beforeAll(async () => {
  api = await startService({ adminToken: ADMIN, ...cheapPasswords });
  await checkAnswers(api);
});
test.afterAll(async () => api?.close());

async function axe(page: Page, screen: string, schemes: ReadonlyArray<'light' | 'dark'> = ['light', 'dark']) {
  for (const scheme of schemes) {
    await page.emulateMedia({ colorScheme: scheme, reducedMotion: 'reduce' });
    const violations = await axeViolations(page);
    expect(violations.flatMap((v) => v.nodes.map((n) => `${screen} (${scheme}): ${v.id} at ${JSON.stringify(n.target)}: ${n.failureSummary}`))).toEqual([]);
    if (SHOTS) await page.screenshot({ path: `${SHOTS}/${screen}-phone-${scheme}.png`, fullPage: true });
  }
  // DASHBOARD_SHOTS=<folder>: each screen on a desktop too (the phone is this test's 320 px).
  if (SHOTS) {
    await page.setViewportSize({ width: 1280, height: 800 });
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.screenshot({ path: `${SHOTS}/${screen}-desktop-${scheme}.png`, fullPage: true });
    }
    await page.setViewportSize({ width: 320, height: 720 });
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

/** A merchant made by the operator on `base` (this file's service unless told another): its one-time sign-in link and keys. */
async function merchant(name = 'Harbour Tea', base = api.url) {
  const email = `owner@${name.toLowerCase().replace(/\W/g, '-')}.example`;
  const response = await fetch(`${base}/operator/v1/merchants`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name, email }),
  });
  return (await response.json()).data as { signInUrl: string; keys: { test: { secretKey: string } } };
}

/** On the sign-in link's screen: sets `password` with the keyboard only, and lands on Home. */
async function setPassword(page: Page, password = 'a long enough password') {
  await tabTo(page, page.getByLabel('New password'));
  await page.keyboard.type(password);
  await tabTo(page, page.getByLabel('The same password again'));
  await page.keyboard.type(password);
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { name: 'Home' })).toBeVisible();
}

const bearer = (key: string) => ({ authorization: `Bearer ${key}`, 'content-type': 'application/json' });

test.use({ viewport: { width: 320, height: 720 } });

test("a merchant's day: sign-in link, password, live payments, timeline, resend, roll the key, sign out", async ({ page }) => {
  test.setTimeout(180_000); // a long day: 91 s on CI before its screens loaded as chunks and each had axe run on it; the limit finds a hang, it is no speed check
  const m = await merchant();
  const password = 'a long enough password';

  // The one-time link: set a password, with the keyboard only.
  await page.goto(m.signInUrl);
  await expect(page.getByRole('heading', { name: 'Set your password' })).toBeVisible();
  await axe(page, 'welcome');
  await setPassword(page, password);
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

  // Products: make one with a price, by the keyboard.
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
  await axe(page, 'products');

  // Links: a standard link whose cart takes that price; its URL copied, its QR code drawn.
  await tabTo(page, page.getByRole('link', { name: 'Links' }));
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { name: 'Payment links' })).toBeFocused();
  await expect(page.getByText('No links yet.')).toBeVisible();
  await axe(page, 'links');
  await tabTo(page, page.getByLabel('Kind'));
  await page.keyboard.press('ArrowDown');
  await expect(page.getByLabel('Kind')).toHaveValue('cart');
  await expect(page.getByLabel('Price', { exact: true }).locator('option:checked')).toHaveText('Oolong, 100 g: $9.50');
  await tabTo(page, page.getByLabel('Title'));
  await page.keyboard.type('Oolong to go');
  await page.keyboard.press('Enter');
  const linkRow = page.getByRole('list', { name: 'Payment links, newest first' }).getByRole('listitem').filter({ hasText: 'Oolong to go' });
  await expect(linkRow).toContainText('Oolong to go');
  await expect(linkRow).toContainText('standard, active');
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: api.url });
  await tabTo(page, page.getByRole('button', { name: 'Copy URL of Oolong to go' }));
  await page.keyboard.press('Enter');
  await expect(page.getByRole('status').filter({ hasText: 'Copied.' })).toBeVisible();
  const linkUrl = await page.evaluate(() => navigator.clipboard.readText());
  expect(linkUrl).toMatch(new RegExp(`^${api.url}/pay/[A-Za-z0-9-]+$`));
  await tabTo(page, page.getByRole('button', { name: 'QR code of Oolong to go' }));
  await page.keyboard.press('Enter');
  const qr = page.getByRole('img', { name: `QR code of ${linkUrl}` });
  await expect(qr).toBeVisible();
  // The symbol drawn is the one the full qrcode package makes for the link's URL.
  const expected = fullEncoderSymbol(linkUrl);
  expect(symbolFromPath((await qr.locator('path').getAttribute('d'))!, expected.size)).toBe(expected.dark);
  await axe(page, 'links-with-one');
  // Deactivated, its page refuses payments; activated again, it takes them.
  await tabTo(page, page.getByRole('button', { name: 'Deactivate Oolong to go' }));
  await page.keyboard.press('Enter');
  await expect(linkRow).toContainText('standard, inactive');
  expect((await fetch(linkUrl)).status).toBe(410);
  await tabTo(page, page.getByRole('button', { name: 'Activate Oolong to go' }));
  await page.keyboard.press('Enter');
  await expect(linkRow).toContainText('standard, active');
  // A donation link with a cover photo chosen by the keyboard: its page shows the photo. The
  // file chooser is listened for well before Space opens it: Playwright turns on its interception
  // without waiting for the browser, so a listener added with the key press (waitForEvent) could
  // miss a chooser that opened first (seen once on a fresh-clone run: 180 s waiting, no event).
  const choosers: FileChooser[] = [];
  page.on('filechooser', (chooser) => choosers.push(chooser));
  await tabTo(page, page.getByLabel('Kind'));
  await page.keyboard.press('ArrowDown');
  await expect(page.getByLabel('Kind')).toHaveValue('donation');
  await tabTo(page, page.getByLabel('Title'));
  await page.keyboard.type('Harbour clean-up');
  await tabTo(page, page.getByLabel('Description'));
  await page.keyboard.type('Every cup pays for a bin bag');
  await tabTo(page, page.getByLabel('Cover photo (PNG, JPEG, GIF or WebP)'));
  await page.keyboard.press('Space');
  await expect.poll(() => choosers.length).toBe(1);
  await choosers[0]!.setFiles({ name: 'cover.png', mimeType: 'image/png', buffer: PNG });
  await tabTo(page, page.getByRole('button', { name: 'Make link' }));
  await page.keyboard.press('Enter');
  const donationRow = page.getByRole('list', { name: 'Payment links, newest first' }).getByRole('listitem').filter({ hasText: 'Harbour clean-up' });
  await expect(donationRow).toContainText('donation, active');
  const donationUrl = (await donationRow.locator('.hash').textContent())!;
  const donationPage = await page.context().newPage();
  await donationPage.goto(donationUrl);
  await expect(donationPage.getByRole('heading', { name: 'Harbour clean-up' })).toBeVisible();
  await expect(donationPage.locator('img.cover')).toHaveJSProperty('naturalWidth', 1);
  await donationPage.close();

  // Payments: empty, then the link is paid on its hosted page (another tab, the sandbox) and
  // the payment arrives here without reloading.
  await tabTo(page, page.getByRole('link', { name: 'Payments' }));
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { name: 'Payments' })).toBeFocused();
  await expect(page.getByText('No payments yet.')).toBeVisible();
  await axe(page, 'payments');
  await page.waitForTimeout(500); // the long poll is held open by now
  const navigations: string[] = [];
  page.on('framenavigated', (frame) => frame === page.mainFrame() && navigations.push(frame.url()));
  const customer = await page.context().newPage();
  await customer.goto(linkUrl);
  await expect(customer.getByRole('heading', { name: 'Oolong to go' })).toBeVisible();
  await customer.getByLabel('E-mail').fill('ada@example.com');
  await customer.getByRole('button', { name: 'Pay', exact: true }).click();
  const dialog = modal(customer);
  await expect(dialog.locator('[data-amount]')).toHaveText('9.5 USDT'); // 9.50: this service's operator charges no fee (FEE_BPS 0)
  await dialog.getByRole('button', { name: 'Full' }).click();
  await dialog.getByRole('button', { name: 'Done' }).click();
  await customer.close();
  const row = page.getByRole('link', { name: /^link_/ });
  await expect(row).toBeVisible({ timeout: 15_000 });
  await expect(row).toContainText('Paid');
  const reference = (await row.locator('.ref').textContent())!;
  expect(navigations).toEqual([]);
  await axe(page, 'payments-with-one');
  // Export CSV: a file with the payment, by the keyboard.
  await tabTo(page, page.getByRole('button', { name: 'Export CSV' }));
  const [file] = await Promise.all([page.waitForEvent('download'), page.keyboard.press('Enter')]);
  expect(file.suggestedFilename()).toBe('payments-test.csv');
  const { readFile } = await import('node:fs/promises');
  expect(await readFile((await file.path())!, 'utf8')).toMatch(new RegExp(`^reference,status,[^\\n]*\\r\\n${reference},confirmed,`));

  // The payment's page: its timeline, and its event sent again.
  await tabTo(page, row);
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { name: `Payment ${reference}` })).toBeFocused();
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

  // Events: the feed, newest first, with resend.
  await tabTo(page, page.getByRole('link', { name: 'Events' }));
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { name: 'Events' })).toBeFocused();
  const event = page.getByRole('list', { name: 'Events, newest first' }).getByRole('listitem').first();
  await expect(event).toContainText('DEPOSIT_TRANSACTION');
  await expect(event).toContainText('No webhook URL');
  await axe(page, 'events');
  await tabTo(page, event.getByRole('button', { name: 'Resend DEPOSIT_TRANSACTION' }));
  await page.keyboard.press('Enter');
  await expect(page.getByRole('status').filter({ hasText: /^Queued DEPOSIT_TRANSACTION / })).toBeVisible();

  // Settings: a new name and a logo (chosen by the keyboard); a "logo" that is HTML is refused.
  await tabTo(page, page.getByRole('link', { name: 'Settings' }));
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { name: 'Settings' })).toBeFocused();
  await expect(page.getByLabel('Business name')).toHaveValue('Harbour Tea');
  await expect(page.getByText('No test network on this service.')).toBeVisible();
  await axe(page, 'settings');
  const chooseLogo = async (name: string, mimeType: string, buffer: Buffer) => {
    await tabTo(page, page.getByLabel('Logo (PNG, JPEG, GIF or WebP)'));
    const before = choosers.length; // the listener added above, for the cover photo
    await page.keyboard.press('Space');
    await expect.poll(() => choosers.length).toBe(before + 1);
    await choosers[before]!.setFiles({ name, mimeType, buffer });
  };
  await chooseLogo('logo.png', 'image/png', Buffer.from('<!doctype html><script>alert(1)</script>'));
  await tabTo(page, page.getByRole('button', { name: 'Save business' }));
  await page.keyboard.press('Enter');
  await expect(page.getByRole('alert')).toContainText('logo: expected a PNG, JPEG, GIF or WebP image');
  await expect(page.getByRole('img', { name: 'Your logo' })).toHaveCount(0);
  await page.getByLabel('Business name').fill('');
  await tabTo(page, page.getByLabel('Business name'));
  await page.keyboard.type('Harbour Tea & Co');
  await chooseLogo('logo.png', 'image/png', PNG);
  await tabTo(page, page.getByRole('button', { name: 'Save business' }));
  await page.keyboard.press('Enter');
  await expect(page.getByRole('status').filter({ hasText: 'Business saved.' })).toBeVisible();
  await expect(page.getByRole('img', { name: 'Your logo' })).toHaveJSProperty('naturalWidth', 1);
  await expect(page.locator('header .business')).toHaveText('Harbour Tea & Co');
  await axe(page, 'settings-saved');

  // Developers: the public key, and a rolled secret key: the old one is refused at once.
  await tabTo(page, page.getByRole('link', { name: 'Developers' }));
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { name: 'Developers' })).toBeFocused();
  await expect(page.locator('#public-key')).toHaveText(/^pk_test_/);
  await axe(page, 'developers');
  const key = m.keys.test.secretKey;
  expect((await fetch(`${api.url}/api/v1/payments`, { headers: bearer(key) })).status).toBe(200);
  await tabTo(page, page.getByRole('button', { name: 'Roll secret key…' }));
  await page.keyboard.press('Enter');
  await expect(page.getByLabel('The old key stops working')).toHaveValue('0');
  await axe(page, 'developers-roll');
  await tabTo(page, page.getByRole('button', { name: 'Roll the test secret key' }));
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

test("with live networks the dashboard opens in live mode; Home says what blocks live money; each network's payout address, set in Settings, clears its warning once in effect", async ({
  page,
}) => {
  test.setTimeout(150_000); // axe on seven screens, on a loaded machine
  // A live network whose chain is never called (jobs off; dev: not checked at start).
  const LIVE = {
    chainId: 56,
    name: 'BNB Smart Chain',
    rpcUrls: ['http://127.0.0.1:9'],
    confirmations: 3,
    factory: '0x00000000000000000000000000000000000000f1' as const,
    tokens: [],
    dev: true,
  };
  const ETHEREUM = { ...LIVE, chainId: 1, name: 'Ethereum', factory: '0x00000000000000000000000000000000000000f2' as const };
  // A live address waits the operator's delay, a chain's first too: three hours here, the service's clock moved on past it.
  let ahead = 0;
  const DELAY = 3 * 3_600_000;
  const live = await startService({
    adminToken: ADMIN,
    ...cheapPasswords,
    networks: { live: [LIVE, ETHEREUM] },
    jobs: false,
    newDestinationDelayMs: DELAY,
    now: () => Date.now() + ahead,
  });
  await checkAnswers(live);
  try {
    await page.goto((await merchant('Quay Books', live.url)).signInUrl);
    await setPassword(page);
    await expect(page.getByRole('button', { name: 'Live data' })).toHaveAttribute('aria-pressed', 'true');
    await expect(page.getByText('Test data: payments made with test keys')).toHaveCount(0);
    const warnings = page.locator('main .warning');
    await expect(warnings).toHaveCount(4);
    await expect(warnings.nth(0)).toContainText('No webhook URL for live payments');
    await expect(warnings.nth(1)).toContainText('No payout address for BNB Smart Chain (chain 56)');
    await expect(warnings.nth(2)).toContainText('The service is not ready');
    await expect(warnings.nth(3)).toContainText('No payout address for Ethereum (chain 1)');
    await axe(page, 'home-live-warnings');
    // In French and Arabic the same warnings, said from the service's codes and params: none in English.
    const english = /No webhook URL|No payout address|not ready|payments|refused|until/;
    for (const [code, label, said] of [
      [
        'fr',
        'Language',
        [
          'Pas d’URL de webhook pour les paiements réels',
          'Pas d’adresse de versement sur BNB Smart Chain (chaîne 56)',
          'Le service n’est pas prêt',
          'Pas d’adresse de versement sur Ethereum (chaîne 1)',
        ],
      ],
      [
        'ar',
        'Langue',
        [
          'لا يوجد عنوان URL للويب هوك للمدفوعات الحقيقية',
          'لا يوجد عنوان دفع على BNB Smart Chain (السلسلة 56)',
          'الخدمة ليست جاهزة',
          'لا يوجد عنوان دفع على Ethereum (السلسلة 1)',
        ],
      ],
    ] as const) {
      await page.getByLabel(label).selectOption(code);
      await expect(page.locator('html')).toHaveAttribute('lang', code);
      for (const [i, words] of said.entries()) await expect(warnings.nth(i)).toContainText(words);
      for (const text of await warnings.allTextContents()) expect(text, `${code}: ${text}`).not.toMatch(english);
    }
    await page.getByLabel('اللغة').selectOption('en');
    await expect(page.locator('html')).toHaveAttribute('lang', 'en');

    // Settings → the payout address: a one-letter typo is refused with the checksummed address; the right one is kept.
    await tabTo(page, warnings.nth(1).getByRole('link', { name: 'Settings' }));
    await page.keyboard.press('Enter');
    await expect(page.getByRole('heading', { name: 'Settings' })).toBeFocused();
    await tabTo(page, page.getByLabel('Payout address on BNB Smart Chain'));
    await page.keyboard.type('0x52908400098527886E0F7030069857D2E4169Ee7');
    await page.keyboard.press('Enter');
    await expect(page.locator('#payout-address-56-error')).toContainText('did you mean 0x52908400098527886E0F7030069857D2E4169EE7');
    await expect(page.locator('#payout-address-1-error')).toHaveCount(0); // the other network's field is not blamed
    await expect(page.getByLabel('Payout address on BNB Smart Chain')).toHaveAttribute('aria-invalid', 'true');
    await axe(page, 'settings-live-typo');
    await page.getByLabel('Payout address on BNB Smart Chain').fill('');
    await tabTo(page, page.getByLabel('Payout address on BNB Smart Chain'));
    await page.keyboard.type('0x52908400098527886E0F7030069857D2E4169EE7');
    await page.keyboard.press('Enter');
    await expect(page.getByRole('status').filter({ hasText: 'New payout address on BNB Smart Chain pending' })).toBeVisible();
    ahead += DELAY;

    // Once in effect, one network's address leaves the other's warning standing.
    await tabTo(page, page.getByRole('link', { name: 'Home' }));
    await page.keyboard.press('Enter');
    await expect(warnings).toHaveCount(3);
    await expect(page.getByText('No payout address for BNB Smart Chain')).toHaveCount(0);
    await expect(warnings.nth(2)).toContainText('No payout address for Ethereum (chain 1)');

    // Ethereum's address, in its own form on the same screen.
    await tabTo(page, warnings.nth(2).getByRole('link', { name: 'Settings' }));
    await page.keyboard.press('Enter');
    await expect(page.getByRole('heading', { name: 'Settings' })).toBeFocused();
    await expect(page.getByLabel('Payout address on BNB Smart Chain')).toHaveValue('0x52908400098527886E0F7030069857D2E4169EE7');
    await tabTo(page, page.getByLabel('Payout address on Ethereum'));
    await page.keyboard.type('0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359');
    await page.keyboard.press('Enter');
    await expect(page.getByRole('status').filter({ hasText: 'New payout address on Ethereum pending' })).toBeVisible();
    await axe(page, 'settings-two-networks');
    ahead += DELAY;
    await page.reload();
    await expect(page.getByLabel('Payout address on Ethereum')).toHaveValue('0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359');

    // A new address replacing one (a live key's, as a thief's would be) waits the delay, is listed, and the owner cancels it.
    await expect(page.getByText('None. A live key')).toBeVisible();
    await page.getByLabel('Payout address on BNB Smart Chain').fill('');
    await tabTo(page, page.getByLabel('Payout address on BNB Smart Chain'));
    await page.keyboard.type('0x8617E340B3D01FA5F11F306F4090FD50E238070D');
    await page.keyboard.press('Enter');
    await expect(page.getByRole('status').filter({ hasText: 'New payout address on BNB Smart Chain pending' })).toBeVisible();
    await expect(page.getByLabel('Payout address on BNB Smart Chain')).toHaveValue('0x52908400098527886E0F7030069857D2E4169EE7');
    const change = page.locator('ul.changes li');
    await expect(change).toHaveCount(1);
    await expect(change).toContainText('New payout address on BNB Smart Chain: 0x8617E340B3D01FA5F11F306F4090FD50E238070D');
    await axe(page, 'settings-waiting-change');
    await tabTo(page, change.getByRole('button', { name: 'Cancel this change' }));
    await page.keyboard.press('Enter');
    await expect(page.getByRole('status').filter({ hasText: 'Change cancelled' })).toBeVisible();
    await expect(change).toHaveCount(0);
    expect(
      (
        await (
          await fetch(`${live.url}/api/v1/payout_address`, {
            headers: { cookie: (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join('; '), 'x-mode': 'live' },
          })
        ).json()
      ).data,
    ).toEqual([
      { chain_id: 1, address: '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359' },
      { chain_id: 56, address: '0x52908400098527886E0F7030069857D2E4169EE7' },
    ]);

    await tabTo(page, page.getByRole('link', { name: 'Home' }));
    await page.keyboard.press('Enter');
    await expect(warnings).toHaveCount(2);
    await expect(page.getByText('No payout address')).toHaveCount(0);
    // The switch: test data, where this service has no network (no payout address wanted).
    await tabTo(page, page.getByRole('button', { name: 'Test data' }));
    await page.keyboard.press('Enter');
    await expect(page.getByText('No webhook URL for test payments')).toBeVisible();
    await expect(page.getByText('No payout address')).toHaveCount(0);
  } finally {
    await live.close();
  }
});

test('the events feed pages back 50 at a time and returns to the newest; an event names its payment and opens its body as sent', async ({ page }) => {
  test.setTimeout(90_000);
  const made = await merchant('Pier Books');
  // 51 paid payments: 51 events, one more than a page.
  for (let i = 0; i < 51; i++) {
    // The last one's metadata is markup: its body must show it as text.
    const body = {
      reference: `page-${i}`,
      coin: 'USDT',
      currency: 'USD',
      amount: 5,
      customer_email: 'ada@example.com',
      ...(i === 50 ? { metadata: { note: '<img src=x alt=injected>' } } : {}),
    };
    expect(
      (await fetch(`${api.url}/api/v1/transaction/initialize`, { method: 'POST', headers: bearer(made.keys.test.secretKey), body: JSON.stringify(body) }))
        .status,
    ).toBe(201);
    expect(
      (
        await fetch(`${api.url}/api/v1/sandbox/deposit`, {
          method: 'POST',
          headers: bearer(made.keys.test.secretKey),
          body: JSON.stringify({ reference: `page-${i}`, kind: 'exact' }),
        })
      ).status,
    ).toBe(200);
  }
  await page.goto(made.signInUrl);
  await setPassword(page);
  await tabTo(page, page.getByRole('link', { name: 'Events' }));
  await page.keyboard.press('Enter');
  const newest = page.getByRole('list', { name: 'Events, newest first' });
  await expect(newest.locator(':scope > li')).toHaveCount(50);
  await expect(page.getByRole('button', { name: 'Newest events' })).toHaveCount(0);
  // The newest names its payment (a link to its page) and opens the body the webhook was sent, pretty-printed, as text.
  const latest = (await (await fetch(`${api.url}/api/v1/events?after=recent&limit=1`, { headers: bearer(made.keys.test.secretKey) })).json()).data[0];
  const top = newest.locator(':scope > li').first();
  await expect(top.getByRole('link', { name: 'Payment page-50' })).toHaveAttribute('href', '/dashboard/payments/page-50');
  await top.getByText(`Body of ${latest.type} as sent`).click();
  await expect(top.locator('pre')).toHaveText(JSON.stringify(latest.payload, null, 2));
  await expect(top.locator('pre')).toContainText('<img src=x alt=injected>');
  await expect(top.locator('pre img')).toHaveCount(0);

  // Three stops an event (its payment, its body, resend): from the last event's resend, the keyboard goes on.
  await newest.locator(':scope > li').last().getByRole('button').focus();
  await tabTo(page, page.getByRole('button', { name: 'Older events' }));
  await page.keyboard.press('Enter');
  const older = page.getByRole('list', { name: 'Older events, newest first' });
  await expect(older.locator(':scope > li')).toHaveCount(1);
  await expect(older).toBeFocused();
  await expect(page.getByRole('button', { name: 'Older events' })).toHaveCount(0);
  // The one left is the first payment's: the newest page's oldest is the second's.
  const first = await (await fetch(`${api.url}/api/v1/events?limit=1`, { headers: bearer(made.keys.test.secretKey) })).json();
  await expect(older.locator(':scope > li')).toContainText(first.data[0].id);
  await axe(page, 'events-older');

  await tabTo(page, page.getByRole('button', { name: 'Newest events' }));
  await page.keyboard.press('Enter');
  await expect(newest.locator(':scope > li')).toHaveCount(50);
  await expect(newest).toBeFocused();
  await expect(newest.getByText(first.data[0].id)).toHaveCount(0);
});

test('the other screens in French and Arabic (right to left): each heading said in the language, axe clean (Arabic in light and dark)', async ({ page }) => {
  test.setTimeout(120_000);
  // One paid payment, so Home, Payments and Events each show a line (an event with its payment and body).
  const made = await merchant('Dock Letters');
  expect(
    (
      await fetch(`${api.url}/api/v1/transaction/initialize`, {
        method: 'POST',
        headers: bearer(made.keys.test.secretKey),
        body: JSON.stringify({ reference: 'words-1', coin: 'USDT', currency: 'USD', amount: 5, customer_email: 'ada@example.com' }),
      })
    ).status,
  ).toBe(201);
  expect(
    (
      await fetch(`${api.url}/api/v1/sandbox/deposit`, {
        method: 'POST',
        headers: bearer(made.keys.test.secretKey),
        body: JSON.stringify({ reference: 'words-1', kind: 'exact' }),
      })
    ).status,
  ).toBe(200);
  await page.goto(made.signInUrl);
  await setPassword(page);
  const started = Date.now();
  for (const [code, headings] of [
    ['fr', ['Accueil', 'Paiements', 'Produits', 'Liens de paiement', 'Développeurs', 'Événements', 'Paramètres']],
    ['ar', ['الرئيسية', 'المدفوعات', 'المنتجات', 'روابط الدفع', 'المطورون', 'الأحداث', 'الإعدادات']],
  ] as const) {
    await page.getByLabel(code === 'fr' ? 'Language' : 'Langue').selectOption(code);
    await expect(page.locator('html')).toHaveAttribute('lang', code);
    await expect(page.locator('html')).toHaveAttribute('dir', code === 'ar' ? 'rtl' : 'ltr');
    for (const [i, screen] of ['', '/payments', '/products', '/links', '/developers', '/events', '/settings'].entries()) {
      // By the menu, as a merchant goes: one page, so axe is put in it once (a new page costs a second of it on a loaded machine).
      await page.locator(`nav a[href="/dashboard${screen}"]`).click();
      await expect(page.getByRole('heading', { level: 1 })).toHaveText(headings[i]!);
      // Dark colours do not change with the words: French in light, Arabic (right to left) in both, as the money screens do.
      await axe(page, `${screen.slice(1) || 'home'}-${code}`, code === 'fr' ? ['light'] : ['light', 'dark']);
    }
  }
  console.log(`the other screens in French and Arabic: ${((Date.now() - started) / 1000).toFixed(1)} s`);
});

test('balance settlement chosen in Settings, said to be custodial; Balances shows what the journal holds, its statement and its CSV', async ({ page }) => {
  test.setTimeout(90_000);
  const made = await merchant('Quay Roasters');
  const key = made.keys.test.secretKey;
  await page.goto(made.signInUrl);
  await setPassword(page);
  await tabTo(page, page.getByRole('link', { name: 'Settings' }));
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { name: 'Settings' })).toBeFocused();
  // What `balance` means is on the screen before it is chosen.
  const balance = page.getByRole('radio', { name: 'To a balance the operator holds (custodial)' });
  await expect(balance).toHaveAccessibleDescription(/operator then holds your money and the key to it/);
  await expect(page.getByRole('radio', { name: 'To my own wallet (now)' })).toBeChecked();
  await tabTo(page, page.getByRole('radio', { name: 'To my own wallet (now)' }));
  await page.keyboard.press('ArrowDown');
  await expect(balance).toBeChecked();
  await tabTo(page, page.getByRole('button', { name: 'Save where payments settle' }));
  await page.keyboard.press('Enter');
  await expect(page.getByRole('status').filter({ hasText: 'settle to a balance the operator holds' })).toBeVisible();
  expect((await (await fetch(`${api.url}/api/v1/settlement`, { headers: bearer(key) })).json()).data.settlement).toBe('balance');
  await axe(page, 'settings-settlement');

  // Two payments, paid in the sandbox: the balance holds them.
  for (const [reference, amount] of [
    ['bal-1', 12.5],
    ['bal-2', 7.25],
  ] as const) {
    expect(
      (
        await fetch(`${api.url}/api/v1/transaction/initialize`, {
          method: 'POST',
          headers: bearer(key),
          body: JSON.stringify({ reference, coin: 'USDT', currency: 'USD', amount, customer_email: 'ada@example.com' }),
        })
      ).status,
    ).toBe(201);
    expect(
      (await fetch(`${api.url}/api/v1/sandbox/deposit`, { method: 'POST', headers: bearer(key), body: JSON.stringify({ reference, kind: 'exact' }) })).status,
    ).toBe(200);
  }
  const held = (await (await fetch(`${api.url}/api/v1/balances`, { headers: bearer(key) })).json()).data as Array<{
    coin: string;
    network: string;
    available: string;
    reserved: string;
    pending: string;
  }>;
  expect(held).toHaveLength(1);
  const line = held[0]!;
  await tabTo(page, page.getByRole('link', { name: 'Balances' }));
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { name: 'Balances' })).toBeFocused();
  // Each figure on screen is the journal's.
  const row = page.getByRole('row', { name: new RegExp(`^${line.coin} on ${line.network}`) });
  await expect(row.getByRole('cell')).toHaveText([line.available, line.reserved, line.pending, `${line.coin} on ${line.network}`]);
  await tabTo(page, row.getByRole('button'));
  await page.keyboard.press('Enter');
  const movements = page.getByRole('region', { name: `Movements of ${line.coin}` }).getByRole('row');
  await expect(movements).toHaveCount(3);
  await expect(movements.nth(1)).toContainText('payment bal-1');
  await expect(movements.nth(2).getByRole('cell').last()).toHaveText(line.available);
  await axe(page, 'balances');
  // The statement as the accountant gets it: its amounts add up to the balance.
  const [file] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download the statement (CSV)' }).click()]);
  expect(file.suggestedFilename()).toBe('statement-test.csv');
  const rows = (await (await import('node:fs/promises')).readFile((await file.path())!, 'utf8')).split('\r\n').filter(Boolean).slice(1);
  expect(rows).toHaveLength(2);
  const cents = rows.reduce((sum, r) => sum + Math.round(Number(r.split(',').at(-2)) * 100), 0);
  expect(cents).toBe(Math.round(Number(line.available) * 100));
});

test("on the dev chain, from the screens: a USDC payment swapped to USDT, an NGN bank account added and paid out to, a withdrawal to a wallet; each figure the journal's; the money screens in French and Arabic pass axe", async ({
  page,
}) => {
  // 240 s ran out on a loaded two-core machine in the languages' axe runs (each analysis 2-5 s there).
  test.setTimeout(360_000);
  // Each screen's first answers wait behind the dev chain's jobs on a loaded machine: 15 s, not 5, before a figure counts as missing.
  const expect = baseExpect.configure({ timeout: 15_000 });
  const chain = await startDevChain({ blockTimeSeconds: TEST_BLOCK_SECONDS });
  const contracts = await deployDevContracts(chain, 3, '1000000', { pools: true });
  const money = await startService({
    adminToken: ADMIN,
    ...cheapPasswords,
    networks: { test: devNetwork(chain.url, contracts, 1) },
    devChain: DEV_CHAIN_POWERS,
    watchIntervalMs: 100,
    sweepIntervalMs: 300,
    jobIntervalMs: 200,
    payoutCheckMs: 100,
  });
  await checkAnswers(money);
  try {
    const made = await merchant('Dhow Traders', money.url);
    const key = made.keys.test.secretKey;
    const api = async (path: string) => (await (await fetch(money.url + path, { headers: bearer(key) })).json()).data;
    const until = async <T>(what: string, probe: () => Promise<T | false | undefined>) => {
      for (const end = Date.now() + 60_000; Date.now() < end; await new Promise((r) => setTimeout(r, 200))) {
        const value = await probe();
        if (value) return value;
      }
      throw new Error(`timed out waiting for ${what}`);
    };
    const line = async (coin: string) =>
      ((await api('/api/v1/balances')) as Array<{ coin: string; available: string; reserved: string; pending: string }>).find((l) => l.coin === coin);
    expect(
      (await fetch(`${money.url}/api/v1/settlement`, { method: 'PUT', headers: bearer(key), body: JSON.stringify({ settlement: 'balance' }) })).status,
    ).toBe(200);
    // A customer pays 20 USD in USDC on the chain; the sweep brings it to the treasury.
    expect(
      (
        await fetch(`${money.url}/api/v1/transaction/initialize`, {
          method: 'POST',
          headers: bearer(key),
          body: JSON.stringify({ reference: 'dhow-1', coin: 'USDC', currency: 'USD', amount: 20, customer_email: 'ada@example.com' }),
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await fetch(`${money.url}/api/v1/sandbox/deposit`, {
          method: 'POST',
          headers: bearer(key),
          body: JSON.stringify({ reference: 'dhow-1', kind: 'exact' }),
        })
      ).status,
    ).toBe(200);
    await until('the USDC available', async () => Number((await line('USDC'))?.available ?? 0) > 0);
    await page.goto(made.signInUrl);
    await setPassword(page);

    // Swaps: a quote with rate, fee, what is received and its least, counted down; then confirm.
    await page.goto(`${money.url}/dashboard/swaps`);
    await page.getByLabel('From', { exact: true }).selectOption('USDC');
    await page.getByLabel('To', { exact: true }).selectOption('USDT');
    await page.getByLabel('Amount of USDC').fill('5');
    await page.getByRole('button', { name: 'Get a quote' }).click();
    const quote = page.getByRole('region', { name: 'Quote' });
    await expect(quote.getByRole('timer')).toHaveText(/The price holds for \d+ s\./);
    await axe(page, 'swaps-quote');
    await page.getByRole('button', { name: 'Swap 5 USDC' }).click();
    await expect(page.getByRole('status').filter({ hasText: /Swap .* pending: 5 USDC reserved/ })).toBeVisible();
    const swap = await until('the swap completed', async () =>
      ((await api('/api/v1/swaps')) as Array<{ status: string; amount: string; amount_received: string; fee: string; minimum_received: string }>).find(
        (s) => s.status === 'completed',
      ),
    );
    await page.reload();
    await expect(page.getByRole('region', { name: 'Swap history' }).getByRole('row').nth(1).getByRole('cell')).toHaveText([
      /./,
      `${swap.amount} USDC`,
      `${swap.amount_received} USDT`,
      'Completed',
    ]);

    // Payouts: an NGN account (a bank code of another country refused, the field named), then a payout with the rate shown.
    await page.goto(`${money.url}/dashboard/payouts`);
    await page.getByLabel('Currency').selectOption('NGN');
    for (const [label, value] of [
      ['Bank name', 'Access Bank'],
      ['Bank code', 'GH040100'],
      ['Account name', 'Dhow Traders Ltd'],
      ['Account number', '0690000031'],
      ['State', 'Lagos'],
    ])
      await page.getByLabel(label, { exact: true }).fill(value);
    await expect(page.getByLabel('Country')).toHaveValue('nigeria');
    await page.getByRole('button', { name: 'Add the bank account' }).click();
    await expect(page.getByLabel('Bank code')).toHaveAttribute('aria-invalid', 'true');
    await expect(page.getByLabel('Bank code')).toHaveAccessibleDescription(/expected a bank code of nigeria/);
    await page.getByLabel('Bank code').fill('044');
    await page.getByRole('button', { name: 'Add the bank account' }).click();
    await expect(page.getByText('NGN · Access Bank · 0690000031').first()).toBeVisible();
    await page.getByLabel('Amount (USDT)').fill('2');
    const rate = (await api('/api/v1/bank/payouts/rate?coin=USDT&currency=NGN')).rate as number;
    await expect(page.locator('#pay-rate')).toContainText(new Intl.NumberFormat('en', { style: 'currency', currency: 'NGN' }).format(rate));
    await page.getByRole('button', { name: 'Pay out', exact: true }).click();
    await expect(page.getByRole('status').filter({ hasText: /Payout .* pending: 2 USDT/ })).toBeVisible();
    const payout = ((await api('/api/v1/bank/payouts/withdrawals')) as Array<{ amount: number; fiat_amount: number }>)[0]!;
    expect(payout.amount).toBe(2);
    await expect(page.getByRole('region', { name: 'Payout history' }).getByRole('row').nth(1).getByRole('cell').nth(2)).toHaveText(
      new Intl.NumberFormat('en', { style: 'currency', currency: 'NGN' }).format(payout.fiat_amount),
    );
    await axe(page, 'payouts');

    // Withdrawals: the limit and what is left (the payout counted), then 1 USDT to a wallet.
    await page.goto(`${money.url}/dashboard/withdrawals`);
    const limit = await api('/api/v1/withdrawals/limit');
    const usd = (v: string) => new Intl.NumberFormat('en', { style: 'currency', currency: 'USD' }).format(Number(v));
    await expect(page.locator('#limit')).toContainText(`Daily limit ${usd(limit.daily)}; ${usd(limit.left)} left`);
    await page.getByLabel('Coin').selectOption(`USDT/${chain.chainId}`);
    await page.getByLabel('Wallet address').fill(devAccount(9).address);
    await page.getByLabel('Amount', { exact: true }).fill('1');
    await page.getByRole('button', { name: 'Withdraw' }).click();
    await expect(page.getByRole('status').filter({ hasText: /Withdrawal .* pending: 1 USDT/ })).toBeVisible();
    const withdrawal = ((await api('/api/v1/withdrawals')) as Array<{ amount: string; coin: string; address: string }>)[0]!;
    await expect(page.getByRole('region', { name: 'Withdrawal history' }).getByRole('row').nth(1).getByRole('cell').nth(1)).toHaveText(
      `${withdrawal.amount} ${withdrawal.coin}`,
    );
    await axe(page, 'withdrawals');

    // A refund from the payment's page (test mode: no step-up): 1 USDC of dhow-1 to the
    // customer's wallet, listed with its state there and on the Refunds screen, once sent.
    const usdcBefore = (await line('USDC'))!.available;
    await page.goto(`${money.url}/dashboard/payments`);
    await page.getByRole('link', { name: /^dhow-1/ }).click();
    // The sweep to the treasury shows when it was mined, as the API's timeline says.
    const sweptAt = ((await api('/api/v1/payments/dhow-1')).timeline as Array<{ kind: string; at: string | null }>).find((e) => e.kind === 'swept')!.at!;
    const sweptStep = page.locator('ol.timeline li').filter({ hasText: 'Swept' });
    await expect(sweptStep.locator('.when')).toHaveText(new Date(sweptAt).toLocaleString('en', { dateStyle: 'medium', timeStyle: 'short' }));
    await page.getByLabel('An amount', { exact: true }).check();
    await page.getByLabel('Amount of USDC').fill('1');
    await page.getByLabel('Reason', { exact: true }).fill('one cup returned');
    // The customer's wallet: dev account 12 (account 8 is the dev chain's gas wallet, which no money may be sent to).
    await page.getByLabel('Wallet address', { exact: true }).fill(devAccount(12).address);
    await page.getByRole('button', { name: 'Refund', exact: true }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Refund of 1 USDC ready: the treasury sends it.' })).toBeVisible();
    const refund = await until('the refund confirmed', async () =>
      ((await api('/api/v1/refunds?reference=dhow-1')) as Array<{ status: string; amount: string }>).find((r) => r.status === 'confirmed'),
    );
    expect(refund.amount).toBe('1');
    await page.reload();
    await expect(page.getByRole('region', { name: 'Refunds' }).getByRole('row').nth(1).getByRole('cell')).toHaveText([
      /./,
      '1 USDC',
      devAccount(12).address,
      'Confirmed',
    ]);
    await page.goto(`${money.url}/dashboard/refunds`);
    await expect(page.getByRole('region', { name: 'Refunds' }).getByRole('row').nth(1).getByRole('cell')).toHaveText([/./, 'dhow-1', '1 USDC', 'Confirmed']);

    // Balances: each figure the journal's, once the treasury has sent what it owes.
    await until(
      'the withdrawal and the payout done',
      async () =>
        ((await api('/api/v1/withdrawals')) as Array<{ status: string }>).every((w) => w.status === 'completed') &&
        ((await api('/api/v1/bank/payouts/withdrawals')) as Array<{ status: string }>)[0]!.status === 'paid',
    );
    await page.goto(`${money.url}/dashboard/balances`);
    for (const held of (await api('/api/v1/balances')) as Array<{ coin: string; network: string; available: string; reserved: string; pending: string }>) {
      await expect(page.getByRole('row', { name: new RegExp(`^${held.coin} on ${held.network}`) }).getByRole('cell')).toHaveText([
        held.available,
        held.reserved,
        held.pending,
        `${held.coin} on ${held.network}`,
      ]);
    }
    // The refund left the balance: USDC on screen (the journal's) is 1 less than before it.
    const usdcNow = (await line('USDC'))!.available;
    expect(Math.round((Number(usdcBefore) - Number(usdcNow)) * 1e6)).toBe(1e6);
    await expect(
      page
        .getByRole('row', { name: /^USDC on / })
        .getByRole('cell')
        .first(),
    ).toHaveText(usdcNow);

    // In French, then Arabic (right to left): the language picker, the same screens, axe clean.
    for (const [code, word] of [
      ['fr', 'Soldes'],
      ['ar', 'الأرصدة'],
    ] as const) {
      await page.getByLabel(code === 'fr' ? 'Language' : 'Langue').selectOption(code);
      await expect(page.getByRole('heading', { level: 1 })).toHaveText(word);
      expect(await page.evaluate(() => [document.documentElement.lang, document.documentElement.dir])).toEqual([code, code === 'ar' ? 'rtl' : 'ltr']);
      for (const screen of ['balances', 'swaps', 'payouts', 'withdrawals']) {
        // By the menu: one page, axe put in it once (the reload below shows the choice kept). The
        // heading is the menu's word for the screen, so the screen left is gone before axe runs.
        const link = page.locator(`nav a[href="/dashboard/${screen}"]`);
        const said = (await link.textContent())!;
        await link.click();
        await expect(page.getByRole('heading', { level: 1 })).toHaveText(said);
        await expect(page.getByRole('heading', { level: 1 })).not.toHaveText(/^(Balances|Swaps|Payouts|Withdrawals)$/);
        await expect(page.getByRole('table').first()).toBeVisible();
        // French in light only: a scheme changes colours, which the English runs check in both; Arabic (right to left) in both.
        await axe(page, `${screen}-${code}`, code === 'fr' ? ['light'] : ['light', 'dark']);
      }
      await page.locator('nav a[href="/dashboard/balances"]').click();
    }
    // The choice outlives a reload (this browser keeps it).
    await page.reload();
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('الأرصدة');
  } finally {
    await money.close();
    await chain.stop();
  }
});
