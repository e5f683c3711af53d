// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createCheckout } from '../checkout/machine.ts';
import { safeLogo } from './Modal.tsx';
import { mountModal } from './mount.ts';
import { LOCALES } from './locales/index.ts';
import { learn, speak } from './text.ts';
import { fakeApi, options, TEST_COINS } from '../testing/fake-api.ts';

const flush = () => vi.advanceTimersByTimeAsync(0);

/** As ServiceCheckout opens it: the language's words fetched first (here from the locale files the service serves). */
async function open(overrides: Record<string, unknown> = {}, prepare: (fake: ReturnType<typeof fakeApi>) => void = () => {}) {
  const fake = fakeApi();
  prepare(fake);
  let unmount = () => {};
  const checkout = createCheckout(options(overrides), fake.api, () => unmount());
  const look = speak(checkout.options.locale, document.documentElement.lang);
  const served = vi.spyOn(globalThis, 'fetch').mockImplementation(async (url) => Response.json(LOCALES[String(url).match(/(\w+)\.json$/)![1]!]));
  await learn('http://api.test', look);
  served.mockRestore();
  unmount = mountModal(checkout, look);
  checkout.start();
  const host = document.querySelector('[data-service-checkout]')!;
  const root = host.shadowRoot!;
  return { ...fake, checkout, host, root, $: (s: string) => root.querySelector<HTMLElement>(s), $$: (s: string) => [...root.querySelectorAll<HTMLElement>(s)] };
}

function click(element: Element | null) {
  if (!element) throw new Error('nothing to click');
  (element as HTMLElement).click();
}

beforeEach(() => vi.useFakeTimers());
afterEach(() => {
  vi.useRealTimers();
  document.body.innerHTML = '';
});

describe('the modal', () => {
  it('renders into a shadow root, as a labelled modal dialog', async () => {
    const m = await open();
    const dialog = m.$('[role=dialog]')!;
    expect(dialog.getAttribute('aria-modal')).toBe('true');
    expect(m.$('#' + dialog.getAttribute('aria-labelledby'))?.textContent).toBe('Checkout');
    expect(document.body.querySelectorAll('[role=dialog]')).toHaveLength(0); // not in the light DOM
    m.checkout.close();
  });

  it('asks only for the missing e-mail, and shows why a bad one is refused', async () => {
    const m = await open({ email: undefined });
    await flush();
    expect(m.$('#sc-name')).toBeNull();
    const email = m.$('#sc-email') as HTMLInputElement;
    email.value = 'not-an-email';
    click(m.$('button[type=submit]'));
    await flush();
    expect(email.getAttribute('aria-invalid')).toBe('true');
    expect(m.$('#' + email.getAttribute('aria-describedby'))?.textContent).toMatch(/e-mail address/);
    email.value = 'ada@example.com';
    click(m.$('button[type=submit]'));
    await flush();
    // By network, each under its name: BNB Smart Chain Testnet's two, then Ethereum Sepolia's.
    expect(m.$$('h4').map((h) => h.textContent)).toEqual(['BNB Smart Chain Testnet', 'Ethereum Sepolia']);
    expect(m.$$('ul').map((ul) => [...ul.querySelectorAll('button b:first-child')].map((b) => b.textContent))).toEqual([
      ['USDT', 'BUSD'],
      ['USDC', 'DAI'],
    ]);
    m.checkout.close();
  });

  it('lists the coins of one network without a heading for it: each button still names it', async () => {
    const m = await open({}, (fake) => (fake.state.coins = TEST_COINS.filter((c) => c.chainId === 97)));
    await flush();
    expect(m.$$('h4')).toEqual([]);
    expect(m.$$('ul button').map((b) => b.textContent)).toEqual([
      expect.stringMatching(/^USDT.*BNB Smart Chain Testnet$/),
      expect.stringMatching(/^BUSD.*BNB Smart Chain Testnet$/),
    ]);
    m.checkout.close();
  });

  it('shows amount, address, network, fee, time left and a QR code of the payment URI', async () => {
    const m = await open();
    await flush();
    click(m.$$('ul button')[2]); // USDC, first of Ethereum Sepolia's
    await flush();
    expect(m.$('[data-amount]')?.textContent).toBe('25.245 USDC');
    expect(m.$('[data-address]')?.textContent).toBe('0x' + 'ab'.repeat(20));
    expect(m.$('svg')?.getAttribute('data-uri')).toBe(
      'ethereum:0x00000000000000000000000000000000000005dc@11155111/transfer?address=0x' + 'ab'.repeat(20) + '&uint256=25245000',
    );
    expect(m.$('svg path')?.getAttribute('d')).toMatch(/^M\d+ \d+h\d+v1h-\d+z/);
    expect(m.root.textContent).toContain('Ethereum Sepolia');
    expect(m.$('[data-time-left]')?.textContent).toBe('10:00');
    expect(m.$('.rb')?.textContent).toBe('Test mode');
    m.checkout.close();
  });

  it('shows no test ribbon and no sandbox with a live key', async () => {
    const m = await open({ key: 'pk_live_harbour0demo0key' }, (fake) => (fake.state.sandbox = false));
    await flush();
    click(m.$$('ul button')[0]);
    await flush();
    expect(m.$('.rb')).toBeNull();
    expect(m.$('.sb')).toBeNull();
    m.checkout.close();
  });

  it('draws the QR code the service made, and only when it encodes the URI the payment screen computed', async () => {
    const m = await open();
    await flush();
    click(m.$$('ul button')[0]);
    await flush();
    await flush();
    const uri = `ethereum:${m.$('[data-contract]')!.textContent}@97/transfer?address=${m.$('[data-address]')!.textContent}&uint256=25245000000000000000`;
    expect(m.$('svg[role=img]')?.getAttribute('data-uri')).toBe(uri);
    expect(m.$('svg path')?.getAttribute('d')).toBe('M0 0h7v1h-7z');
    m.checkout.close();

    const wrong = await open({}, (fake) => (fake.state.qrUri = 'ethereum:0xdead@97/transfer?address=0xbeef&uint256=1'));
    await flush();
    click(wrong.$$('ul button')[0]);
    await flush();
    await flush();
    expect(wrong.calls.qr).toBe(1);
    expect(wrong.$('svg[role=img]')).toBeNull(); // an empty square: nothing to scan rather than the wrong thing
    expect(wrong.$('svg path')).toBeNull();
    expect(wrong.$('[data-address]')).not.toBeNull();
    wrong.checkout.close();
  });

  it('keeps the payment on screen when the quote runs out while money that arrived in time confirms', async () => {
    const m = await open({}, (fake) => (fake.state.holds = true));
    await flush();
    click(m.$$('ul button')[0]);
    await flush();
    m.state.confirming = { amount: 25.245, confirmations: 1, required: 2 };
    m.state.status = 'expired';
    m.notify();
    await flush();
    expect(m.$('[data-address]')).not.toBeNull();
    expect(m.$$('[role=status]').some((p) => p.textContent?.includes('confirming (1 of 2)'))).toBe(true);
    expect(m.$('h3')?.textContent ?? '').not.toContain('expired');
    m.state.confirming = undefined;
    m.state.status = 'confirmed';
    m.state.paid = 25.245;
    m.notify();
    await flush();
    expect(m.$('h3')?.textContent).toBe('Payment received');
    m.checkout.close();
  });

  it('offers no sandbox buttons with a test key where the service says a press cannot pay (a public testnet)', async () => {
    const m = await open({}, (fake) => (fake.state.sandbox = false));
    await flush();
    click(m.$$('ul button')[0]);
    await flush();
    expect(m.$('[data-address]')).not.toBeNull();
    expect(m.$('.rb')?.textContent).toBe('Test mode');
    expect(m.$('.sb')).toBeNull();
    m.checkout.close();
  });

  it('says a transfer was seen and counts its confirmations, without calling it paid', async () => {
    const m = await open({}, (fake) => (fake.state.holds = true));
    await flush();
    click(m.$$('ul button')[0]);
    await flush();
    const line = () => m.$$('[role=status]').find((p) => p.textContent?.includes('confirming'));
    expect(line()).toBeUndefined();
    m.state.confirming = { amount: 25.245, confirmations: 1, required: 2 };
    m.notify();
    await flush();
    expect(line()?.textContent).toBe('25.245 USDT seen on the network: confirming (1 of 2)…');
    expect(m.$('[data-amount]')?.textContent).toContain('25.245'); // still due: nothing counted yet
    m.state.confirming = { amount: 25.245, confirmations: 2, required: 3 };
    m.notify();
    await flush();
    expect(line()?.textContent).toContain('(2 of 3)');
    m.checkout.close();
  });

  it('closes on Escape and on the close button, and gives focus back to the opener', async () => {
    const opener = document.body.appendChild(document.createElement('button'));
    opener.focus();
    const m = await open();
    await flush();
    m.$('[role=dialog]')!.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }));
    expect(document.querySelector('[data-service-checkout]')).toBeNull();
    expect(document.activeElement).toBe(opener);
    const again = await open();
    click(again.$('button[aria-label="Close checkout"]'));
    expect(document.querySelector('[data-service-checkout]')).toBeNull();
  });

  it.each([
    ['https://cdn.example/logo.png', true],
    ['data:image/png;base64,iVBORw0KGgo=', true],
    ['DATA:IMAGE/SVG+XML;utf8,<svg/>', true],
    ['http://cdn.example/logo.png', false],
    ['javascript:alert(1)', false],
    ['data:text/html,<script>alert(1)</script>', false],
    ['//cdn.example/logo.png', false],
    [' https://cdn.example/logo.png', false],
    ['', false],
  ])('shows the business logo %j: %s', (url, shown) => {
    expect(safeLogo(url)).toBe(shown);
  });

  it("renders the API's business name as text and its logo only when safe", async () => {
    const name = '<img src=x onerror="window.pwned=1">Evil & Co';
    for (const [logo, count] of [
      ['javascript:alert(1)', 0],
      ['https://cdn.example/logo.png', 1],
    ] as const) {
      const m = await open({}, (fake) => {
        fake.state.businessName = name;
        fake.state.businessLogo = logo;
      });
      await flush();
      click(m.$$('ul button')[0]);
      await flush();
      expect(m.$('h2')?.textContent).toBe(name);
      expect(m.$$('img')).toHaveLength(count);
      if (count) expect(m.$('img')?.getAttribute('src')).toBe(logo);
      m.checkout.close();
    }
  });

  it('restores the page scroll it locked', async () => {
    document.documentElement.style.overflow = 'scroll';
    const m = await open();
    expect(document.documentElement.style.overflow).toBe('hidden');
    m.checkout.close();
    expect(document.documentElement.style.overflow).toBe('scroll');
  });

  it('asks before closing on an open payment: Escape and × ask, "Keep paying" stays, "Leave" closes', async () => {
    const m = await open();
    await flush();
    click(m.$$('ul button')[0]);
    await flush();
    const pressEscape = () => m.$('[role=dialog]')!.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }));
    pressEscape();
    const question = m.$('[role=alertdialog]')!;
    expect(m.$('#' + question.getAttribute('aria-labelledby'))?.textContent).toBe('Leave this payment?');
    expect(m.root.activeElement?.textContent).toBe('Keep paying');
    expect(m.$('[data-amount]')).toBeNull();
    pressEscape(); // Escape on the question keeps the payment
    expect(m.$('[role=alertdialog]')).toBeNull();
    expect(m.$('[data-amount]')?.textContent).toBe('25.245 USDT');
    click(m.$('button[aria-label="Close checkout"]'));
    click([...m.$$('[role=alertdialog] button')].find((b) => b.textContent === 'Keep paying')!);
    expect(m.$('[data-amount]')).not.toBeNull();
    click(m.$('button[aria-label="Close checkout"]'));
    click([...m.$$('[role=alertdialog] button')].find((b) => b.textContent === 'Leave')!);
    expect(document.querySelector('[data-service-checkout]')).toBeNull();
  });

  /** The payment screen, after part of the amount arrived; then Escape asks the leave question. */
  async function leavingAfterPart(overrides: Record<string, unknown> = {}) {
    const m = await open({ acceptPartialPayment: true, ...overrides });
    await flush();
    click(m.$$('ul button')[0]);
    await flush();
    m.state.status = 'incomplete';
    m.state.paid = 10;
    m.checkout.simulate('partial');
    await flush();
    m.$('[role=dialog]')!.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }));
    return m;
  }

  it('after part was paid, the leave question says how to come back: the reference, and that reopening resumes', async () => {
    const m = await leavingAfterPart();
    const question = m.$('[role=alertdialog]')!;
    expect(m.$('#' + question.getAttribute('aria-describedby'))?.textContent).toBe(
      'Anything you already sent still reaches the merchant. Reopening this checkout resumes it.',
    );
    expect(question.querySelector('[data-reference]')?.textContent).toBe('order-1');
    expect(question.querySelector('button[aria-label="Copy reference"]')).not.toBeNull();
    expect(m.root.activeElement?.textContent).toBe('Keep paying'); // still first to take focus
    m.checkout.close();
  });

  it('promises no resume when the page did not name the reference (a reopened checkout makes a new one)', async () => {
    const m = await leavingAfterPart({ reference: undefined });
    const question = m.$('[role=alertdialog]')!;
    expect(question.textContent).not.toContain('resumes');
    expect(question.querySelector('[data-reference]')?.textContent).toMatch(/^sc_[0-9a-f]{24}$/);
    m.checkout.close();
  });

  it('asks nothing more before anything was paid', async () => {
    const m = await open();
    await flush();
    click(m.$$('ul button')[0]);
    await flush();
    m.$('[role=dialog]')!.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }));
    expect(m.$('[role=alertdialog] [data-reference]')).toBeNull();
    expect(m.$('[role=alertdialog]')?.textContent).not.toContain('resumes');
    m.checkout.close();
  });

  it('a partial payment finished with what arrived is a receipt that says so, on screen and in the live region', async () => {
    const m = await open({ acceptPartialPayment: true });
    await flush();
    click(m.$$('ul button')[0]);
    await flush();
    m.state.status = 'incomplete';
    m.state.paid = 10;
    m.checkout.simulate('partial');
    await flush();
    click([...m.$$('button')].find((b) => b.textContent === 'Finish with what I sent')!);
    await flush();
    expect(m.$('h3.ok')?.textContent).toBe('Part of the amount paid, and accepted by the merchant');
    expect(m.$('[aria-live=polite]')?.textContent).toBe('Part of the amount paid, and accepted by the merchant');
    expect(m.$('[data-receipt]')?.textContent).toContain('Paid10 USDTDue25.245 USDT');
    m.checkout.close();
  });

  it('announces a detected payment, the last minute and the success in one live region', async () => {
    const m = await open({}, (fake) => {
      fake.state.expiresAt = Date.now() + 90_000;
    });
    await flush();
    click(m.$$('ul button')[0]);
    await flush();
    const region = m.$('[aria-live=polite]')!;
    expect(region.textContent).toBe('');
    m.state.status = 'incomplete';
    m.state.paid = 10;
    m.checkout.simulate('partial');
    await flush();
    expect(region.textContent).toBe('Payment detected: 10 USDT received.');
    await vi.advanceTimersByTimeAsync(31_000);
    expect(region.textContent).toBe('Payment detected: 10 USDT received. Less than a minute left.');
    expect(m.$('[aria-live=polite]')).toBe(region); // the same element throughout
    m.state.status = 'confirmed';
    m.state.paid = 25.245;
    m.checkout.simulate('exact');
    await flush();
    expect(region.textContent).toBe('Payment received');
    m.checkout.close();
  });

  it('counts down to expiresAt by the API clock, not the browser clock', async () => {
    const m = await open({}, (fake) => {
      fake.state.skew = 3_600_000; // the browser is an hour behind the API
      fake.state.expiresAt = Date.now() + 3_600_000 + 125_000;
    });
    await flush();
    click(m.$$('ul button')[0]);
    await flush();
    expect(m.$('[data-time-left]')?.textContent).toBe('2:05');
    // The display turns as each second runs out, not up to a second late.
    await vi.advanceTimersByTimeAsync(5_010);
    expect(m.$('[data-time-left]')?.textContent).toBe('2:00');
    m.checkout.close();
  });

  it.each([
    [{ locale: 'fr' }, '', 'fr', 'ltr', 'Choisissez la monnaie de paiement', 'Prix 25,00\u00a0$US'],
    [{ locale: 'ar-AE' }, '', 'ar', 'rtl', 'اختر العملة التي تدفع بها', 'السعر'],
    [{}, 'fr-CA', 'fr', 'ltr', 'Choisissez la monnaie de paiement', 'Prix 25,00\u00a0$\u00a0US'],
    [{ locale: 'de' }, 'ar', 'ar', 'rtl', 'اختر العملة التي تدفع بها', 'السعر'],
    [{ locale: 'de' }, 'ja', 'en', 'ltr', 'Choose a coin to pay with', 'Price $25.00'],
  ])('speaks %j on a page in %j: %s, %s', async (overrides, pageLang, lang, dir, heading, total) => {
    document.documentElement.lang = pageLang;
    const m = await open({ amount: 25, ...overrides });
    await flush();
    const dialog = m.$('[role=dialog]')!;
    expect(dialog.getAttribute('lang')).toBe(lang);
    expect(dialog.getAttribute('dir')).toBe(dir);
    expect(m.$('h3')?.textContent).toBe(heading);
    expect(m.$('.tot')?.textContent).toContain(total);
    m.checkout.close();
    document.documentElement.lang = '';
  });

  it("writes amounts the customer's way, every decimal kept", async () => {
    const m = await open({ locale: 'fr-FR', amount: 1234.5 }, (fake) => {
      fake.state.due = 1234.567891;
    });
    await flush();
    click(m.$$('ul button')[0]);
    await flush();
    expect(m.$('[data-amount]')?.textContent).toBe('1\u202f234,567891 USDT');
    // The header's amount is the payment's total, the one the customer sends.
    expect(m.$('.tot')?.textContent).toBe('Total 1\u202f234,567891 USDT');
    // The price, and what it is in the coin: the total less the fee, exactly.
    expect(m.$('[data-breakdown]')?.textContent).toContain('25,00\u00a0$US = 1\u202f234,317891 USDT');
    // What the QR code asks for is the exact machine value (USDT has 18 decimals on this chain).
    expect(m.$('svg')?.getAttribute('data-uri')).toMatch(/&uint256=1234567891000000000000$/);
    m.checkout.close();
  });

  /** Pays the first coin in full and answers the receipt screen. */
  async function receipt(explorer = '') {
    const m = await open({}, (fake) => {
      fake.state.explorer = explorer;
    });
    await flush();
    click(m.$$('ul button')[0]);
    await flush();
    m.state.status = 'confirmed';
    m.state.paid = 25.245;
    await vi.advanceTimersByTimeAsync(3_000);
    return m;
  }

  it("ends in a receipt: paid against due, the reference, and the transaction on the network's explorer", async () => {
    const m = await receipt('https://testnet.bscscan.com');
    expect(m.$('[data-receipt]')?.textContent).toContain('Paid25.245 USDTDue25.245 USDT ($25.00)');
    expect(m.$('[data-explorer]')?.getAttribute('href')).toBe('https://testnet.bscscan.com/tx/0x' + 'cd'.repeat(32));
    expect(m.$('[data-explorer]')?.getAttribute('rel')).toContain('noopener');
    expect(m.$('[data-reference]')?.textContent).toBe('order-1');
    m.checkout.close();
  });

  it('shows the transaction hash itself when the network has no explorer', async () => {
    const m = await receipt();
    expect(m.$('[data-explorer]')).toBeNull();
    expect(m.$('[data-receipt] code')?.textContent).toBe('0x' + 'cd'.repeat(32));
    m.checkout.close();
  });

  it('heads a resumed payment with its own total, not the amount this page asked for', async () => {
    const m = await open({ amount: 1 }, (fake) => {
      fake.state.exists = true; // the reference already has a payment, of 25.245 USDT
    });
    await flush();
    expect(m.$('[data-amount]')?.textContent).toBe('25.245 USDT');
    expect(m.$('.tot')?.textContent).toBe('Total 25.245 USDT');
    m.checkout.close();
  });

  it("names the business before any quote, from the coin list's answer", async () => {
    const m = await open({ email: undefined });
    await flush();
    expect(m.$('#sc-email')).not.toBeNull();
    expect(m.$('#sc-title')?.textContent).toBe('Harbour Coffee');
    m.checkout.close();
  });

  it('takes the theme as a class and the accent with a text colour that contrasts', async () => {
    const m = await open({ theme: 'dark', accent: '#ffd33d' });
    const dialog = m.$('[role=dialog]')!;
    expect(dialog.classList.contains('d')).toBe(true);
    expect(dialog.style.getPropertyValue('--ac')).toBe('#ffd33d');
    expect(dialog.style.getPropertyValue('--on')).toBe('#000000');
    m.checkout.close();
    const auto = await open();
    expect(auto.$('[role=dialog]')!.classList.contains('a')).toBe(true);
    expect(auto.$('[role=dialog]')!.getAttribute('style')).toBeNull();
    auto.checkout.close();
  });

  it("offers to open the wallet with the QR code's URI on a touch screen only", async () => {
    for (const coarse of [false, true]) {
      const real = window.matchMedia;
      window.matchMedia = ((query: string) => ({ matches: coarse && query === '(pointer:coarse)' })) as typeof window.matchMedia;
      const m = await open();
      await flush();
      click(m.$$('ul button')[0]);
      await flush();
      const wallet = m.$('a[data-wallet]');
      if (coarse) expect(wallet?.getAttribute('href')).toBe(m.$('svg')?.getAttribute('data-uri'));
      else expect(wallet).toBeNull();
      m.checkout.close();
      window.matchMedia = real;
    }
  });
});
