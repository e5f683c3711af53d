// The checkout on a phone: most customers pay from a wallet app on the same phone,
// so the first screen of a payment, unscrolled, holds the amount with its copy button, the
// network, "Open in wallet" and the live status with the time left, in every language. The
// address and the QR code (for paying from another device) follow. A desktop keeps its layout.
import type { Locator, Page } from 'playwright/test';
import { LOCALES } from '../src/ui/locales/index.ts';
import { expectNoViolations } from './support/axe.ts';
import { expect, modal, test } from './support/fixtures.ts';

/** The words the tests look for, as each language says them (English is the widget's own). */
const WORDS: Record<string, { wallet: string; qr: string; waiting: string }> = {
  en: { wallet: 'Open in wallet', qr: 'Payment QR code for your wallet', waiting: 'Waiting for your payment…' },
  ...Object.fromEntries(Object.entries(LOCALES).map(([lang, words]) => [lang, words as { wallet: string; qr: string; waiting: string }])),
};

/** The shop's pay button, name and e-mail filled there, then USDT: the payment screen in `lang`. */
async function payIn(page: Page, shopUrl: string, lang: string) {
  await page.goto(`${shopUrl}/?locale=${lang}`);
  await page.fill('input[name=name]', 'Ada');
  await page.fill('input[name=email]', 'ada@example.com');
  await page.getByRole('button', { name: 'Pay with stablecoins' }).tap();
  const dialog = modal(page);
  await expect(dialog).toHaveAttribute('lang', lang);
  await dialog.getByRole('button', { name: /^USDT / }).tap();
  await expect(dialog.locator('[data-amount]')).toBeVisible();
  await expect(dialog.getByRole('img', { name: WORDS[lang]!.qr })).toHaveCount(1); // the service's QR code, drawn
  return dialog;
}

/** The payment's status: the live region the wallet's own note (when there is one) is not. */
const statusOf = (dialog: Locator) => dialog.locator('.pay [role=status]:not([data-wallet-note])');

/** Each of `parts` not wholly inside the viewport, as it stands (nothing scrolled), by name. */
async function outOfView(page: Page, parts: Record<string, Locator>): Promise<string[]> {
  const { width, height } = page.viewportSize()!;
  const out: string[] = [];
  for (const [name, part] of Object.entries(parts)) {
    const box = await part.boundingBox();
    // Within a pixel: scrollIntoView leaves a whole-pixel scroll, so a part at a fractional offset can sit half a pixel past the edge.
    if (!box || box.x < -1 || box.y < -1 || box.x + box.width > width + 1 || box.y + box.height > height + 1) out.push(`${name}: ${JSON.stringify(box)}`);
  }
  return out;
}

/** Whether the QR code lies wholly inside the viewport now. */
async function qrInView(page: Page, dialog: Locator) {
  return (await outOfView(page, { qr: dialog.locator('svg[role=img]') })).length === 0;
}

for (const size of [
  { width: 375, height: 667 },
  { width: 360, height: 640 },
]) {
  test.describe(`on a ${size.width}×${size.height} phone`, () => {
    test.use({ viewport: size, isMobile: true, hasTouch: true, reducedMotion: 'reduce', colorScheme: 'light' });

    for (const lang of ['en', 'fr', 'ar']) {
      test(`${lang}: the amount, the network, "Open in wallet" and the status on the first screen; the address and the QR code after; axe clean light and dark`, async ({
        page,
        servers,
      }) => {
        const dialog = await payIn(page, servers.shop.url, lang);
        const words = WORDS[lang]!;
        const wallet = dialog.getByRole('link', { name: words.wallet });
        const status = statusOf(dialog);
        await expect(status).toHaveText(words.waiting);
        // Nothing scrolled, and each part of the first screen wholly inside the viewport.
        expect(await dialog.evaluate((el) => el.scrollTop)).toBe(0);
        expect(
          await outOfView(page, {
            amount: dialog.locator('[data-amount]'),
            'copy amount': dialog.locator('.row:has([data-amount]) button'),
            network: dialog.locator('[data-network] p').first(),
            'open in wallet': wallet,
            status,
            'time left': dialog.locator('[data-time-left]'),
          }),
        ).toEqual([]);
        // The network's name is one line; its warning is there to read, right below it.
        const line = await dialog
          .locator('[data-network] p')
          .first()
          .evaluate((p) => p.getBoundingClientRect().height / parseFloat(getComputedStyle(p).lineHeight));
        expect(line).toBeLessThan(1.5);
        await expect(dialog.locator('[data-network] .wn')).toBeVisible();
        // The wallet link is the QR code's EIP-681 URI.
        expect(await wallet.getAttribute('href')).toBe(await dialog.locator('svg[role=img]').getAttribute('data-uri'));
        expect(await wallet.getAttribute('href')).toMatch(/^ethereum:0x[0-9a-f]{40}@\d+\/transfer\?address=0x[0-9a-f]{40}&uint256=\d+$/);

        // Then the address with its copy button, then the QR code.
        const top = async (part: Locator) => (await part.boundingBox())!.y;
        const address = await top(dialog.locator('[data-address]'));
        expect(address).toBeGreaterThan(await top(status));
        expect(await top(dialog.locator('svg[role=img]'))).toBeGreaterThan(address);

        // The QR code, for a screen reader: an image with its name. For the keyboard: Tab
        // through the dialog once, and at some stop it is scrolled wholly into view.
        await expect(dialog.getByRole('img', { name: words.qr })).toBeAttached();
        expect(await qrInView(page, dialog)).toBe(false);
        let seen = false;
        const stops = await dialog.locator('button:not(:disabled), a[href]').count();
        for (let i = 0; i < stops && !seen; i++) {
          await page.keyboard.press('Tab');
          seen = await qrInView(page, dialog);
        }
        expect(seen, 'the QR code came into view as Tab went round the dialog').toBe(true);

        await expectNoViolations(page, `payment, phone, ${lang}, light`);
        await page.emulateMedia({ colorScheme: 'dark' });
        await expect(dialog).toHaveCSS('background-color', 'rgb(27, 29, 35)');
        await expectNoViolations(page, `payment, phone, ${lang}, dark`);
      });
    }
  });
}

// Split screen: a phone screen short enough that, scrolled down to the QR code, the status is out of view.
test.describe('on a 375×480 phone, back from the wallet app', () => {
  test.use({ viewport: { width: 375, height: 480 }, isMobile: true, hasTouch: true, reducedMotion: 'reduce' });

  test('the status is in view again, and its live region speaks only when its words change', async ({ page, servers }) => {
    const dialog = await payIn(page, servers.shop.url, 'en');
    const status = statusOf(dialog);
    // Every change under the status (its words, or anything put in it) is counted from here.
    await status.evaluate((el) => {
      const page = window as unknown as { statusChanges: number };
      page.statusChanges = 0;
      new MutationObserver((changes) => (page.statusChanges += changes.length)).observe(el, {
        subtree: true,
        childList: true,
        characterData: true,
        attributes: true,
      });
      (el as unknown as { marked: boolean }).marked = true;
    });
    // The customer scrolls down to the address, then leaves for the wallet app and comes back.
    await dialog.evaluate((el) => (el.scrollTop = el.scrollHeight));
    expect(await outOfView(page, { status })).not.toEqual([]);
    // Headless Chromium keeps every page visible: the page is told it is hidden, as the
    // browser tells it when the wallet app comes to the front, and then shown again.
    const seen = (hidden: boolean) =>
      page.evaluate((hidden) => {
        Object.defineProperty(document, 'hidden', { configurable: true, get: () => hidden });
        Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => (hidden ? 'hidden' : 'visible') });
        document.dispatchEvent(new Event('visibilitychange'));
      }, hidden);
    await seen(true);
    // Meanwhile part of the payment arrives, and the clock ticks (a render each second).
    await dialog.getByRole('button', { name: 'Partial' }).dispatchEvent('click');
    await expect(dialog).toContainText('Received so far');
    await page.waitForTimeout(2_500);
    expect(await outOfView(page, { status })).not.toEqual([]);
    await seen(false);
    expect(await outOfView(page, { status })).toEqual([]);
    // The same region all along (a new one would be read out anew), untouched: "Waiting for
    // your payment…" was said once; the deposit is told once, by the modal's own region.
    expect(await status.evaluate((el) => (el as unknown as { marked?: boolean }).marked)).toBe(true);
    expect(await page.evaluate(() => (window as unknown as { statusChanges: number }).statusChanges)).toBe(0);
    await expect(status).toHaveText('Waiting for your payment…');
    await expect(dialog.locator('.sr[aria-live=polite]')).toHaveText('Payment detected: 12.3725 USDT received.');
  });
});

test.describe('on a desktop', () => {
  test.use({ viewport: { width: 1280, height: 800 } });

  test('the layout stays: the time left beside the amount, the QR code heading its column, the status under it', async ({ page, servers }) => {
    await page.goto(`${servers.shop.url}/`);
    await page.fill('input[name=name]', 'Ada');
    await page.fill('input[name=email]', 'ada@example.com');
    await page.getByRole('button', { name: 'Pay with stablecoins' }).click();
    const dialog = modal(page);
    await dialog.getByRole('button', { name: /^USDT / }).click();
    await expect(dialog.locator('.row:has([data-amount]) [data-time-left]')).toBeVisible();
    await expect(dialog.locator('.pay > div:last-child > svg:first-child')).toBeVisible();
    await expect(dialog.locator('.pay > div:last-child > [role=status]')).toHaveText('Waiting for your payment…');
    await expect(dialog.getByRole('link', { name: 'Open in wallet' })).toHaveCount(0);
  });
});
