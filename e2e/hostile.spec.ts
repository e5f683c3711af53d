import { DEMO_MERCHANT } from '../server/seed.ts';
import { expect, modal, startServers, test } from './support/fixtures.ts';

const HOSTILE_NAME = '<img src=x onerror="window.pwned=1"><script>window.pwned=2</script>Evil & "Co"';

test('under a strict CSP, with markup in API text: a payment completes, no violation, nothing runs', async ({ page }) => {
  // The API answers a business name full of markup; it must show as text and run nothing.
  const servers = await startServers({ merchants: [{ ...DEMO_MERCHANT, businessName: HOSTILE_NAME, businessLogo: 'javascript:window.pwned=3' }] });
  try {
    await page.addInitScript(() => {
      const seen: string[] = [];
      (window as unknown as { violations: string[] }).violations = seen;
      document.addEventListener('securitypolicyviolation', (event) => seen.push(`${event.violatedDirective} ${event.blockedURI}`));
    });
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
    await expect(dialog.locator('[data-amount]')).toHaveText('10.978262 USDC') // 10 / 0.92 → 10.869566, + 1% → 0.108696, both rounded up;
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
  } finally {
    await servers.close();
  }
});
