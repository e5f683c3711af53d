// npm run screenshots: every screen of the checkout, in every look, as PNG files under
// screenshots/ (not committed), for a person to look at before a change to the widget lands.
// It starts its own service and shop on loopback, and stops them when done.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Locator, type Page } from 'playwright';
import { startService, type Service } from '../../server/service/app.ts';
import { DEMO_MERCHANT } from '../../server/service/seed.ts';
import { startMerchantSite, type MerchantSite } from '../../demo/merchant/server.ts';
import { fromRoot } from '../../server/service/paths.ts';
import { findChromium, LOOPBACK_ONLY_FLAGS, QUIET_FLAGS } from '../support/chromium.ts';

const OUT = fromRoot('screenshots');
const { publicKey, secretKey } = DEMO_MERCHANT.keys.test;

/** The looks: a size (a phone's with touch, as a phone has it), and what the shop passes to the checkout. */
const LOOKS = [
  { name: 'light', width: 1280, height: 800, query: '' },
  { name: 'dark', width: 1280, height: 800, query: '?theme=dark' },
  { name: 'phone', width: 320, height: 640, query: '', touch: true },
  { name: 'phone-375', width: 375, height: 667, query: '', touch: true },
  { name: 'phone-dark', width: 320, height: 640, query: '?theme=dark', touch: true },
  { name: 'phone-french', width: 360, height: 640, query: '?locale=fr', touch: true },
  { name: 'phone-arabic', width: 375, height: 667, query: '?locale=ar', touch: true },
  { name: 'arabic', width: 1280, height: 800, query: '?locale=ar' },
  { name: 'french-accent', width: 1280, height: 800, query: '?locale=fr&accent=%23e8590c' },
];

interface Pair {
  api: Service;
  shop: MerchantSite;
}
async function pair(quoteSeconds?: number): Promise<Pair> {
  const api = await startService({ demo: true, quoteSeconds, webhookTimeoutMs: 1000 });
  const shop = await startMerchantSite({ apiUrl: api.url, publicKey, secretKey, webhookSecret: DEMO_MERCHANT.webhookSecrets!.test! });
  return { api, shop };
}

const dialogOf = (page: Page): Locator => page.locator('[data-service-checkout] [role=dialog]');

async function shoot(page: Page, look: string, screen: string) {
  await page.waitForTimeout(250); // the opening animation
  const file = join(OUT, `${look}-${screen}.png`);
  await page.screenshot({ path: file });
  console.log(file);
}

/** From the shop's pay button to the payment screen, shooting each screen on the way. */
async function toPayment(page: Page, shopUrl: string, look: string, query: string, shots: boolean, acceptPartial = false) {
  await page.goto(shopUrl + '/' + query);
  if (acceptPartial) await page.getByLabel('Accept partial payment').check();
  await page.getByRole('button', { name: 'Pay with stablecoins' }).click();
  const dialog = dialogOf(page);
  await dialog.locator('#sc-name').waitFor();
  await dialog.locator('#sc-title').filter({ hasText: 'Harbour' }).waitFor();
  if (shots) await shoot(page, look, '1-details');
  await dialog.locator('#sc-name').fill('Ada Lovelace');
  await dialog.locator('#sc-email').fill('ada@example.com');
  await dialog.locator('button[type=submit]').click();
  await dialog.locator('ul button').first().waitFor();
  if (shots) await shoot(page, look, '2-coins');
  await dialog.locator('ul button').first().click();
  await dialog.locator('[data-amount]').waitFor();
  return dialog;
}

async function main() {
  mkdirSync(OUT, { recursive: true });
  const browser = await chromium.launch({ executablePath: findChromium(), args: [...QUIET_FLAGS, ...LOOPBACK_ONLY_FLAGS] });
  const normal = await pair();
  const hurried = await pair(100);
  const brief = await pair(4);
  try {
    // npm run screenshots -- phone: only the looks whose names start so.
    const only = process.argv.slice(2);
    for (const look of LOOKS.filter((l) => !only.length || only.some((name) => l.name.startsWith(name)))) {
      const touch = look.touch ? { isMobile: true, hasTouch: true } : {};
      const context = await browser.newContext({ viewport: { width: look.width, height: look.height }, reducedMotion: 'reduce', ...touch });
      const page = await context.newPage();
      let dialog = await toPayment(page, normal.shop.url, look.name, look.query, true);
      await shoot(page, look.name, '3-payment');
      await page.keyboard.press('Escape');
      await dialog.locator('[role=alertdialog]').waitFor();
      await shoot(page, look.name, '4-leave');
      await dialog.locator('[role=alertdialog] button').first().click();
      await dialog.getByRole('button', { name: 'Partial' }).click();
      await dialog.locator('.nt').first().waitFor();
      await shoot(page, look.name, '5-partial');
      // The leave question after part was paid: the reference, and how to come back.
      await page.keyboard.press('Escape');
      await dialog.locator('[role=alertdialog] [data-reference]').waitFor();
      await shoot(page, look.name, '5b-leave-partial');
      await dialog.locator('[role=alertdialog] .pr').first().click();
      await dialog.getByRole('button', { name: 'Over' }).click();
      await dialog.locator('[data-receipt]').waitFor();
      await shoot(page, look.name, '6-success');

      dialog = await toPayment(page, hurried.shop.url, look.name, look.query, false);
      await dialog.locator('[data-hurry]').waitFor();
      await shoot(page, look.name, '7-hurry');

      dialog = await toPayment(page, brief.shop.url, look.name, look.query, false);
      await dialog.getByRole('button', { name: 'Partial' }).click();
      await dialog.locator('[data-reference]').waitFor({ timeout: 15_000 });
      await shoot(page, look.name, '8-expired-partial');

      // The same with partial payments accepted: settled with what arrived, and told as partial.
      dialog = await toPayment(page, normal.shop.url, look.name, look.query, false, true);
      await dialog.getByRole('button', { name: 'Partial' }).click();
      await dialog.locator('.nt').first().waitFor();
      await dialog.locator('.pay .pr').last().click(); // Finish with what I sent
      await dialog.locator('[data-receipt]').waitFor();
      await shoot(page, look.name, '8b-settled');

      // A key the service does not know: told before anything is asked.
      await page.goto(normal.shop.url + '/blank.html');
      await page.addScriptTag({ url: normal.api.url + '/checkout.js' });
      const locale = new URLSearchParams(look.query).get('locale') ?? undefined;
      const theme = new URLSearchParams(look.query).get('theme') ?? undefined;
      await page.evaluate(
        ([locale, theme]) =>
          (window as unknown as { ServiceCheckout: (o: unknown) => void }).ServiceCheckout({
            key: 'pk_test_0000000000000000unknown',
            amount: 24.5,
            currency: 'USD',
            locale,
            theme,
          }),
        [locale, theme],
      );
      await dialogOf(page).locator('.pr').waitFor();
      await shoot(page, look.name, '9-error');
      await context.close();
    }
  } finally {
    await browser.close();
    await Promise.all([normal, hurried, brief].flatMap((p) => [p.api.close(), p.shop.close()]));
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
