import type { Locator, Page, Route } from 'playwright/test';
import { DEMO_MERCHANT } from '../server/service/seed.ts';
import { expectNoViolations } from './support/axe.ts';
import { expect, modal, openPayment, shopEvents, startServers, test, type Servers } from './support/fixtures.ts';

/** Every control's box, so a target under 24×24 CSS px is caught where axe's rule is lenient. */
async function smallTargets(dialog: Locator): Promise<string[]> {
  return dialog.evaluate((root) =>
    [...root.querySelectorAll<HTMLElement>('button,a[href],input')]
      .filter((el) => el.getClientRects().length)
      .map((el) => ({ el, box: el.getBoundingClientRect() }))
      .filter(({ box }) => box.width < 24 || box.height < 24)
      .map(({ el, box }) => `${el.textContent || el.getAttribute('aria-label')}: ${box.width}×${box.height}`),
  );
}

/** The shop's pay button with name and e-mail filled (so the modal opens on the coins). */
async function payFromShop(page: Page, shopUrl: string, query = '', form: { amount?: string; currency?: string; partial?: boolean } = {}) {
  await page.goto(shopUrl + '/' + query);
  if (form.partial) await page.getByLabel('Accept partial payment').check();
  if (form.amount) await page.fill('input[name=amount]', form.amount);
  if (form.currency) await page.selectOption('select[name=currency]', form.currency);
  await page.fill('input[name=name]', 'Ada');
  await page.fill('input[name=email]', 'ada@example.com');
  await page.getByRole('button', { name: 'Pay with stablecoins' }).click();
  return modal(page);
}

/** Whatever in the dialog reaches past a 320 px screen's right edge. */
const pastTheEdge = (dialog: Locator) =>
  dialog.evaluate((el) =>
    [...el.querySelectorAll<HTMLElement>('*')].filter((child) => child.getBoundingClientRect().right > 320.5).map((child) => child.outerHTML.slice(0, 60)),
  );

// Reduced motion: axe reads colours, and a dialog fading in would be read half transparent.
for (const scheme of ['light', 'dark'] as const) {
  test.describe(`axe finds nothing, ${scheme} theme`, () => {
    test.use({ colorScheme: scheme, reducedMotion: 'reduce' });
    // Six and two screens, each read whole by axe, first in the run (the worker's servers start
    // with it): 26-32 s beside other work on two cores, where 30 s is the suite's limit.
    test.describe.configure({ timeout: 60_000 });

    test('details (with errors), coins, payment, leaving, partial, success', async ({ page, servers }) => {
      await page.goto(servers.shop.url + '/');
      await page.getByRole('button', { name: 'Pay with stablecoins' }).click();
      const dialog = modal(page);
      await expect(dialog.getByLabel('Full name')).toBeFocused();
      await expectNoViolations(page, 'details');
      await dialog.getByRole('button', { name: 'Continue' }).click();
      await expect(dialog.getByLabel('E-mail')).toHaveAttribute('aria-invalid', 'true');
      await expectNoViolations(page, 'details with errors');
      await dialog.getByLabel('Full name').fill('Ada Lovelace');
      await dialog.getByLabel('E-mail').fill('ada@example.com');
      await dialog.getByRole('button', { name: 'Continue' }).click();
      await expect(dialog.getByRole('button', { name: /^USDT / })).toBeVisible();
      await expectNoViolations(page, 'coins');
      await dialog.getByRole('button', { name: /^USDT / }).click();
      await expect(dialog.locator('[data-amount]')).toBeVisible();
      await expectNoViolations(page, 'payment');
      expect(await smallTargets(dialog)).toEqual([]);
      await page.keyboard.press('Escape');
      await expect(dialog.getByRole('alertdialog')).toBeVisible();
      await expectNoViolations(page, 'leaving');
      await page.keyboard.press('Escape');
      await dialog.getByRole('button', { name: 'Partial' }).click();
      await expect(dialog).toContainText('Received so far');
      await expectNoViolations(page, 'partial');
      await dialog.getByRole('button', { name: 'Full' }).click();
      await expect(dialog.getByRole('heading', { name: 'Payment received' })).toBeVisible();
      await expectNoViolations(page, 'success');
    });

    test('expired and error', async ({ page }) => {
      const servers = await startServers({ quoteSeconds: 2, faults: true });
      try {
        const dialog = await openPayment(page, servers.shop.url);
        await expect(dialog.getByRole('heading', { name: 'This quote has expired' })).toBeVisible({ timeout: 10_000 });
        await expectNoViolations(page, 'expired');
        servers.api.faults!.inject({ call: 'initialize', fault: '5xx', times: Infinity });
        await dialog.getByRole('button', { name: 'Get a new quote' }).click();
        await expect(dialog.getByRole('button', { name: 'Try again' })).toBeVisible({ timeout: 20_000 });
        await expectNoViolations(page, 'error');
      } finally {
        await servers.close();
      }
    });
  });
}

test('a screen reader hears the deposit, the last minute and the confirmation, from one live region', async ({ page }) => {
  // The last minute starts 10 s after the quote: time enough to open the payment and see the
  // deposit said alone on a loaded machine (at 62 s, two seconds, a CI run heard both at once).
  test.setTimeout(60_000); // ten seconds of it are the wait for the last minute
  const servers = await startServers({ quoteSeconds: 70 });
  try {
    const dialog = await openPayment(page, servers.shop.url);
    const region = dialog.locator('[aria-live=polite]');
    await expect(region).toHaveText('');
    await dialog.getByRole('button', { name: 'Partial' }).click();
    await expect(region).toHaveText('Payment detected: 12.3725 USDT received.');
    await expect(region).toHaveText('Payment detected: 12.3725 USDT received. Less than a minute left.', { timeout: 20_000 });
    await dialog.getByRole('button', { name: 'Full' }).click();
    await expect(region).toHaveText('Payment received');
    expect(await region.count()).toBe(1);
  } finally {
    await servers.close();
  }
});

test.describe('themes', () => {
  test.use({ reducedMotion: 'reduce' });

  test('the theme option overrides the system, and the accent keeps its text readable', async ({ page, servers }) => {
    // The question before leaving has a main button ("Keep paying") in the accent.
    const colours = async () => {
      await page.keyboard.press('Escape');
      const keep = modal(page).getByRole('button', { name: 'Keep paying' });
      await expect(keep).toBeFocused();
      return keep.evaluate((button) => {
        const dialog = button.closest('[role=dialog]')!;
        return { background: getComputedStyle(dialog).backgroundColor, button: getComputedStyle(button).backgroundColor, text: getComputedStyle(button).color };
      });
    };
    await page.emulateMedia({ colorScheme: 'light' });
    await openPayment(page, servers.shop.url, 'USDT', '?theme=dark&accent=%23ffd33d');
    expect(await colours()).toEqual({ background: 'rgb(27, 29, 35)', button: 'rgb(255, 211, 61)', text: 'rgb(0, 0, 0)' });
    await expectNoViolations(page, 'dark with a yellow accent');

    await page.emulateMedia({ colorScheme: 'dark' });
    await openPayment(page, servers.shop.url, 'USDT', '?theme=light&accent=%23102a43');
    expect(await colours()).toEqual({ background: 'rgb(255, 255, 255)', button: 'rgb(16, 42, 67)', text: 'rgb(255, 255, 255)' });
    await expectNoViolations(page, 'light with a navy accent');
  });

  test('motion only when the customer allows it', async ({ page, servers }) => {
    const animations = async () => {
      const dialog = await payFromShop(page, servers.shop.url);
      return dialog.evaluate((dialog) => getComputedStyle(dialog).animationName);
    };
    expect(await animations()).toBe('none');
    await page.emulateMedia({ reducedMotion: 'no-preference' });
    expect(await animations()).not.toBe('none');
  });
});

test.describe('keyboard only', () => {
  /** The element focused inside the modal's shadow root, described, and whether its ring shows. */
  const focused = (page: Page) =>
    page.evaluate(() => {
      const host = document.activeElement;
      const el = host?.shadowRoot?.activeElement as HTMLElement | null | undefined;
      if (!el) return { name: `outside: ${host?.tagName} ${host?.textContent?.trim().slice(0, 30)}`, ring: false };
      const style = getComputedStyle(el);
      return {
        name: el.getAttribute('aria-label') || el.textContent?.trim() || el.id,
        ring: style.outlineStyle === 'solid' && parseFloat(style.outlineWidth) >= 2,
      };
    });

  /** Tabs `count` times (Shift+Tab when `back`), noting where focus goes: never out of the dialog. */
  async function cycle(page: Page, count: number, back = false) {
    const seen: string[] = [];
    for (let i = 0; i < count; i++) {
      await page.keyboard.press(back ? 'Shift+Tab' : 'Tab');
      const now = await focused(page);
      expect(now.name, 'focus left the dialog').not.toMatch(/^outside/);
      expect(now.ring, `no visible focus on ${now.name}`).toBe(true);
      seen.push(now.name);
    }
    return seen;
  }

  test('a whole payment: Tab stays inside, Enter and Space work, Escape asks first, focus comes back', async ({ page, servers }) => {
    await page.goto(servers.shop.url + '/');
    const pay = page.getByRole('button', { name: 'Pay with stablecoins' });
    for (let i = 0; i < 20 && !(await pay.evaluate((el) => el === document.activeElement)); i++) await page.keyboard.press('Tab');
    await expect(pay).toBeFocused();
    await page.keyboard.press('Enter');

    const dialog = modal(page);
    await expect(dialog.getByLabel('Full name')).toBeFocused();
    await page.keyboard.type('Ada Lovelace');
    await page.keyboard.press('Tab');
    await page.keyboard.type('ada@example.com');
    await page.keyboard.press('Enter'); // submits the form

    await expect(dialog.getByRole('button', { name: /^USDT / })).toBeFocused();
    // The coins go by network: BUSD is on USDT's, USDC heads the next network's.
    await page.keyboard.press('Tab');
    await expect(dialog.getByRole('button', { name: /^BUSD / })).toBeFocused();
    await page.keyboard.press('Tab');
    await expect(dialog.getByRole('button', { name: /^USDC / })).toBeFocused();
    await page.keyboard.press('Space');
    await expect(dialog.locator('[data-amount]')).toHaveText('24.745 USDC');

    // Round the payment screen both ways: every control once, then back to the start.
    const forward = await cycle(page, 9);
    expect(forward.slice(0, 9)).toEqual([
      'Copy address',
      'Pay with another coin',
      'Full',
      'Partial',
      'Over',
      'Close checkout',
      'Copy amount',
      'Copy address',
      'Pay with another coin',
    ]);
    const backward = await cycle(page, 9, true);
    expect(backward).toEqual([
      'Copy address',
      'Copy amount',
      'Close checkout',
      'Over',
      'Partial',
      'Full',
      'Pay with another coin',
      'Copy address',
      'Copy amount',
    ]);

    // Escape during a payment asks first; Escape again (or Keep paying) stays.
    await page.keyboard.press('Escape');
    await expect(dialog.getByRole('alertdialog')).toBeVisible();
    await expect(dialog.getByRole('button', { name: 'Keep paying' })).toBeFocused();
    expect(await cycle(page, 3)).toEqual(['Leave', 'Close checkout', 'Keep paying']);
    await page.keyboard.press('Enter');
    await expect(dialog.getByRole('alertdialog')).toHaveCount(0);
    await expect(dialog.locator('[data-amount]')).toBeVisible();

    // To the sandbox's Full button, pressed with Space.
    for (let i = 0; i < 10 && (await focused(page)).name !== 'Full'; i++) await page.keyboard.press('Tab');
    await page.keyboard.press('Space');
    await expect(dialog.getByRole('heading', { name: 'Payment received' })).toBeVisible();
    await expect(dialog.getByRole('button', { name: 'Done' })).toBeFocused();
    await page.keyboard.press('Enter');

    await expect(modal(page)).toHaveCount(0);
    await expect(pay).toBeFocused();
    expect((await shopEvents(page)).map((e) => e.name)).toEqual(['success', 'close']);
  });

  test('with a disabled button in the dialog, Tab and Shift+Tab go round inside it from every control, the first and last included', async ({
    page,
    servers,
  }) => {
    // As a live payment shows it, with no sandbox row: the coin list says there is none.
    await page.route('**/api/v1/coins*', async (route) => {
      const response = await route.fetch();
      await route.fulfill({ response, json: { ...(await response.json()), sandbox: false } });
    });
    const reference = `trap-${test.info().workerIndex}-${Date.now()}`;
    const dialog = await payFromShop(page, servers.shop.url, `?reference=${reference}`, { partial: true });
    await dialog.getByRole('button', { name: /^USDT / }).click();
    await expect(dialog.locator('[data-amount]')).toBeVisible();
    await expect(dialog.getByRole('button', { name: 'Partial' })).toHaveCount(0);
    // Part of it arrives (the sandbox, asked with the page's own public key, as its row would).
    const deposit = await fetch(`${servers.api.url}/api/v1/sandbox/deposit`, {
      method: 'POST',
      headers: { 'x-api-key': DEMO_MERCHANT.keys.test.publicKey, 'content-type': 'application/json' },
      body: JSON.stringify({ reference, kind: 'partial' }),
    });
    expect(deposit.status).toBe(200);
    // Finishing with it, the service slow to answer: "Finishing…" stays, disabled, the last button.
    const held: Route[] = [];
    await page.route('**/api/v1/transaction/settle/**', (route) => void held.push(route));
    await dialog.getByRole('button', { name: 'Finish with what I sent' }).click();
    await expect(dialog.locator('button').last()).toHaveText('Finishing…');
    await expect(dialog.locator('button').last()).toBeDisabled();

    // The controls Tab can reach, in order, read from the page: each one's next and previous
    // by Tab and Shift+Tab, round the ends.
    const controls = await dialog.evaluate((el) =>
      [...el.querySelectorAll<HTMLElement>('button:enabled,a[href]')].map((c) => c.getAttribute('aria-label') || c.textContent!.trim()),
    );
    expect(controls).toEqual(['Close checkout', 'Copy amount', 'Copy address']);
    for (const [i, name] of controls.entries()) {
      for (const [key, step] of [
        ['Tab', 1],
        ['Shift+Tab', -1],
      ] as const) {
        await dialog.getByRole('button', { name, exact: true }).focus();
        await page.keyboard.press(key);
        expect((await focused(page)).name, `${key} from ${name}`).toBe(controls.at((i + step) % controls.length));
      }
    }
    await Promise.all(held.map((route) => route.abort()));
  });

  test('leaving a payment from the keyboard: Escape, then Leave; onClose once, focus back', async ({ page, servers }) => {
    const dialog = await openPayment(page, servers.shop.url);
    await page.keyboard.press('Escape');
    await expect(dialog.getByRole('button', { name: 'Keep paying' })).toBeFocused();
    await page.keyboard.press('Tab');
    await expect(dialog.getByRole('button', { name: 'Leave' })).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(modal(page)).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'Pay with stablecoins' })).toBeFocused();
    const events = await shopEvents(page);
    expect(events.map((e) => e.name)).toEqual(['close']);
    expect(events[0]!.detail).toMatchObject({ status: 'pending' });
  });
});

test.describe('right to left, in Arabic', () => {
  test.use({ reducedMotion: 'reduce' });

  test('the modal mirrors, speaks Arabic, writes AED with Intl, and completes a payment', async ({ page, servers }) => {
    const dialog = await payFromShop(page, servers.shop.url, '?locale=ar', { currency: 'AED' });
    await expect(dialog).toHaveAttribute('dir', 'rtl');
    await expect(dialog).toHaveAttribute('lang', 'ar');
    await expect(dialog.getByRole('heading', { name: 'اختر العملة التي تدفع بها' })).toBeVisible();
    const total = await page.evaluate(() => new Intl.NumberFormat('ar', { style: 'currency', currency: 'AED' }).format(24.5));
    await expect(dialog.locator('.tot')).toHaveText(`السعر ${total}`);

    // The close button sits on the left, the start of a line on the right.
    const box = (await dialog.boundingBox())!;
    const close = (await dialog.getByRole('button', { name: 'إغلاق الدفع' }).boundingBox())!;
    expect(close.x + close.width / 2).toBeLessThan(box.x + box.width / 2);
    const coin = dialog.getByRole('button', { name: /^USDT / });
    const label = (await coin.locator('b').first().boundingBox())!;
    const button = (await coin.boundingBox())!;
    expect(label.x + label.width).toBeGreaterThan(button.x + button.width - 30);

    await coin.click();
    await expect(dialog.getByText('أرسل بالضبط')).toBeVisible();
    await expectNoViolations(page, 'payment, Arabic');
    await dialog.getByRole('button', { name: 'Full' }).click();
    await expect(dialog.getByRole('heading', { name: 'تم استلام الدفعة' })).toBeVisible();
    await expectNoViolations(page, 'success, Arabic');
    await dialog.getByRole('button', { name: 'تم' }).click();
    expect((await shopEvents(page)).map((e) => e.name)).toEqual(['success', 'close']);
  });

  test("with no locale option, the page's own language is used; one we do not speak falls back to English", async ({ page, servers }) => {
    await page.goto(servers.shop.url + '/blank.html');
    await page.addScriptTag({ url: servers.api.url + '/checkout.js' });
    const open = (lang: string) =>
      page.evaluate(
        async ([key, lang]) => {
          document.documentElement.lang = lang!;
          const handle = (window as unknown as { ServiceCheckout: (o: unknown) => { close(): void } }).ServiceCheckout({
            key,
            amount: 10,
            currency: 'EUR',
            name: 'Ada',
            email: 'ada@example.com',
          });
          // French and Arabic words come from the service first; English opens at once.
          for (let i = 0; i < 100 && !document.querySelector('[data-service-checkout]'); i++) await new Promise((r) => setTimeout(r, 50));
          const dialog = document.querySelector('[data-service-checkout]')!.shadowRoot!.querySelector('[role=dialog]')!;
          const seen = { lang: dialog.getAttribute('lang'), dir: dialog.getAttribute('dir'), total: dialog.querySelector('.tot')!.textContent };
          handle.close();
          return seen;
        },
        ['pk_test_harbour0demo0key', lang],
      );
    expect(await open('fr-FR')).toEqual({ lang: 'fr', dir: 'ltr', total: 'Prix 10,00\u00a0€' });
    expect(await open('ar-AE')).toMatchObject({ lang: 'ar', dir: 'rtl' });
    expect(await open('ja')).toEqual({ lang: 'en', dir: 'ltr', total: 'Price €10.00' });
  });
});

test.describe('on a 320 px phone', () => {
  test.use({ viewport: { width: 320, height: 640 }, isMobile: true, hasTouch: true, reducedMotion: 'reduce' });

  test("a full-screen sheet where nothing overflows, with a wallet button for the QR code's URI", async ({ page, servers }) => {
    const reference = `phone-${test.info().workerIndex}-${Date.now()}`;
    const dialog = await openPayment(page, servers.shop.url, 'DAI', `?reference=${reference}`);
    expect(await dialog.boundingBox()).toEqual({ x: 0, y: 0, width: 320, height: 640 });
    // Nothing wider than the sheet: the address wraps, the amount and buttons fit.
    expect(await dialog.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
    expect(await pastTheEdge(dialog)).toEqual([]);
    const wallet = dialog.getByRole('link', { name: 'Open in wallet' });
    await expect(wallet).toBeVisible();
    expect(await wallet.getAttribute('href')).toBe(await dialog.locator('svg[role=img]').getAttribute('data-uri'));
    expect(await wallet.getAttribute('href')).toMatch(/^ethereum:0x[0-9a-f]{40}@\d+\/transfer\?address=0x[0-9a-f]{40}&uint256=\d+$/);
    expect(await smallTargets(dialog)).toEqual([]);
    await expectNoViolations(page, 'payment, phone');
    await dialog.getByRole('button', { name: 'Full' }).tap();
    await expect(dialog.getByRole('heading', { name: 'Payment received' })).toBeVisible();
  });

  test('the largest amount, written the French way, still fits', async ({ page, servers }) => {
    const dialog = await payFromShop(page, servers.shop.url, '?locale=fr', { amount: '99999999.99' });
    await dialog.getByRole('button', { name: /^DAI / }).click();
    // 99,999,999.99 + the operator's 1% fee (the fixture's FEE_BPS), every decimal kept, grouped with narrow no-break spaces.
    await expect(dialog.locator('[data-amount]')).toHaveText('100\u202f999\u202f999,9899 DAI');
    expect(await pastTheEdge(dialog)).toEqual([]);
    expect(await dialog.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
  });
});

test.describe('on a desktop', () => {
  test.use({ viewport: { width: 1280, height: 800 } });

  test('no wallet button: the wallet is on another device, and the QR code is for it', async ({ page, servers }) => {
    const dialog = await openPayment(page, servers.shop.url);
    await expect(dialog.locator('svg[role=img]')).toBeVisible();
    await expect(dialog.getByRole('link', { name: 'Open in wallet' })).toHaveCount(0);
    // Wide enough for two columns: the QR code beside the amount, the network and the address.
    expect((await dialog.boundingBox())!.width).toBe(760);
    const qr = (await dialog.locator('svg[role=img]').boundingBox())!;
    const amount = (await dialog.locator('[data-amount]').boundingBox())!;
    expect(qr.x).toBeGreaterThan(amount.x + amount.width);
  });
});

test.describe('the countdown', () => {
  test('follows the API clock: an API an hour ahead of the browser still shows 15 minutes', async ({ page }) => {
    let servers: Servers | undefined;
    try {
      servers = await startServers({ now: () => Date.now() + 3_600_000 });
      const dialog = await openPayment(page, servers.shop.url);
      // Read by the browser's clock alone, the quote would have expired 45 minutes ago.
      await expect(dialog.locator('[data-time-left]')).toHaveText(/^14:5\d$/);
      await expect(dialog.getByRole('heading', { name: 'This quote has expired' })).toHaveCount(0);
    } finally {
      await servers?.close();
    }
  });
});
