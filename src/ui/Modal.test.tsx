// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createCheckout } from '../checkout/machine.ts';
import { safeLogo } from './Modal.tsx';
import { mountModal } from './mount.ts';
import { fakeApi, options } from '../testing/fake-api.ts';

const flush = () => vi.advanceTimersByTimeAsync(0);

function open(overrides: Record<string, unknown> = {}, prepare: (fake: ReturnType<typeof fakeApi>) => void = () => {}) {
  const fake = fakeApi();
  prepare(fake);
  let unmount = () => {};
  const checkout = createCheckout(options(overrides), fake.api, () => unmount());
  unmount = mountModal(checkout);
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
    const m = open();
    const dialog = m.$('[role=dialog]')!;
    expect(dialog.getAttribute('aria-modal')).toBe('true');
    expect(m.$('#' + dialog.getAttribute('aria-labelledby'))?.textContent).toBe('Checkout');
    expect(document.body.querySelectorAll('[role=dialog]')).toHaveLength(0); // not in the light DOM
    m.checkout.close();
  });

  it('asks only for the missing e-mail, and shows why a bad one is refused', async () => {
    const m = open({ email: undefined });
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
    expect(m.$$('ul button').map((b) => b.querySelector('b')?.textContent)).toEqual(['USDT', 'USDC', 'BUSD', 'DAI']);
    m.checkout.close();
  });

  it('shows amount, address, network, fee, time left and a QR code of the payment URI', async () => {
    const m = open();
    await flush();
    click(m.$$('ul button')[1]); // USDC
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
    const m = open({ key: 'pk_live_harbour0demo0key' });
    await flush();
    click(m.$$('ul button')[0]);
    await flush();
    expect(m.$('.rb')).toBeNull();
    expect(m.$('.sb')).toBeNull();
    m.checkout.close();
  });

  it('closes on Escape and on the close button, and gives focus back to the opener', async () => {
    const opener = document.body.appendChild(document.createElement('button'));
    opener.focus();
    const m = open();
    await flush();
    m.$('[role=dialog]')!.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }));
    expect(document.querySelector('[data-service-checkout]')).toBeNull();
    expect(document.activeElement).toBe(opener);
    const again = open();
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

  it('renders the API\'s business name as text and its logo only when safe', async () => {
    const name = '<img src=x onerror="window.pwned=1">Evil & Co';
    for (const [logo, count] of [['javascript:alert(1)', 0], ['https://cdn.example/logo.png', 1]] as const) {
      const m = open({}, (fake) => {
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

  it('restores the page scroll it locked', () => {
    document.documentElement.style.overflow = 'scroll';
    const m = open();
    expect(document.documentElement.style.overflow).toBe('hidden');
    m.checkout.close();
    expect(document.documentElement.style.overflow).toBe('scroll');
  });
});
