import { DEMO_MERCHANT } from '../server/service/seed.ts';
import { ServiceClient } from '../sdk/client.ts';
import { expect, modal, test } from './support/fixtures.ts';

const { publicKey, secretKey } = DEMO_MERCHANT.keys.test;
const PNG = new Blob(
  [
    Buffer.from(
      '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000a49444154789c6360000000020001e221bc330000000049454e44ae426082',
      'hex',
    ),
  ],
  { type: 'image/png' },
);

test('a standard cart link: adjust a quantity, pay through the widget, see the success message', async ({ page, servers }) => {
  const client = new ServiceClient({ publicKey, secretKey, baseUrl: servers.api.url });
  const prices = [...(await servers.api.parts.links.prices()).values()].filter((p) => p.currency === 'USD');
  const beans = prices.find((p) => p.product.name.startsWith('Single'))!;
  const mug = prices.find((p) => p.product.name === 'Enamel mug')!;
  const link = await client.paymentLinks.createStandard({
    title: 'Office coffee',
    description: 'Beans and a mug',
    options: { collect_phone: true },
    action: { show_confirmation_page: true, success_message: 'Thanks, your coffee is on its way' },
    cart: [
      { price_id: beans.id, quantity: 2, quantity_adjustable: true },
      { price_id: mug.id, quantity: 1, quantity_adjustable: false },
    ],
  });
  await page.goto(link.url);
  await expect(page.getByRole('heading', { name: 'Office coffee' })).toBeVisible();
  await expect(page.locator('#total')).toHaveText('61.00 USD');
  await page.getByLabel('Quantity of Single-origin beans, 1 kg').fill('3');
  await expect(page.locator('#total')).toHaveText('85.50 USD');
  await page.getByLabel('E-mail').fill('ada@example.com');
  await page.getByLabel('Phone').fill('+234 800 000 0000');
  await page.getByRole('button', { name: 'Pay', exact: true }).click();

  const dialog = modal(page);
  await expect(dialog.locator('[data-amount]')).toHaveText('86.355 USDT'); // 85.50 + 1%, worked out by the server
  await dialog.getByRole('button', { name: 'Full' }).click();
  await dialog.getByRole('button', { name: 'Done' }).click();
  await expect(page.getByRole('heading', { name: 'Thanks, your coffee is on its way' })).toBeVisible();

  // The link shows in the merchant's list, and its payment reached the merchant's webhook.
  expect((await client.paymentLinks.list({ limit: 100 })).data.map((l) => l.id)).toContain(link.id);
  const find = async () => [...(await servers.api.deliveries())].reverse().find((d) => d.body.includes(`link_${link.slug}_`));
  await expect.poll(async () => (await find()) !== undefined, { message: 'a DEPOSIT_TRANSACTION for the link' }).toBe(true);
  const paid = await find();
  expect(JSON.parse(paid!.body).data.metadata).toMatchObject({ payment_link: link.slug, phone: '+234 800 000 0000' });
});

test('a donation link: cover and social links, an amount the donor chooses, then its redirect', async ({ page, servers }) => {
  const client = new ServiceClient({ publicKey, secretKey, baseUrl: servers.api.url });
  const link = await client.paymentLinks.createDonation(
    {
      title: 'Rebuild the school roof',
      description: 'Every bit helps',
      'social_links[twitter]': 'https://x.com/school',
      'action[redirect]': true,
      'action[redirect_url]': servers.shop.url + '/blank.html',
      'action[success_message]': 'Thank you',
      website_url: 'https://school.example',
    },
    PNG,
  );
  await page.goto(link.url);
  await expect(page.locator('img.cover')).toHaveAttribute('src', link.image);
  await expect(page.getByRole('link', { name: 'twitter' })).toHaveAttribute('href', 'https://x.com/school');
  await page.getByLabel('Amount').fill('15');
  await page.getByLabel('Currency').selectOption('EUR');
  await page.getByLabel('E-mail').fill('ada@example.com');
  await page.getByRole('button', { name: 'Pay', exact: true }).click();
  const dialog = modal(page);
  await expect(dialog.locator('[data-amount]')).toHaveText('16.467392 USDT'); // 15 / 0.92 → 16.304348, + 0.163044
  await dialog.getByRole('button', { name: 'Full' }).click();
  await dialog.getByRole('button', { name: 'Done' }).click();
  await expect(page).toHaveURL(servers.shop.url + '/blank.html');
});

test("a donation page on a 320 px phone: no sideways scroll, customer words for a bad amount, the checkout's × in view", async ({ page, servers }) => {
  const client = new ServiceClient({ publicKey, secretKey, baseUrl: servers.api.url });
  const link = await client.paymentLinks.createDonation(
    {
      title: 'A very long appeal title that keeps on going to see that it wraps on a small screen',
      description: 'x'.repeat(300),
      website_url: 'https://school.example/' + 'a'.repeat(80),
    },
    PNG,
  );
  const warnings: string[] = [];
  page.on('console', (message) => message.type() === 'warning' && warnings.push(message.text()));
  for (const width of [320, 360]) {
    await page.setViewportSize({ width, height: 640 });
    await page.goto(link.url);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
  }
  await page.getByLabel('E-mail').fill('ada@example.com');
  await page.getByRole('button', { name: 'Pay', exact: true }).click();
  // The customer reads what to do; the developer's message goes to the console.
  await expect(page.getByRole('alert')).toHaveText('Enter an amount such as 10 or 12.50.');
  await expect.poll(() => warnings.join('\n')).toMatch(/amount: expected/);
  await page.getByLabel('Amount').fill('15');
  await page.getByRole('button', { name: 'Pay', exact: true }).click();
  const dialog = modal(page);
  await expect(dialog.locator('#sc-title')).toHaveText('Harbour Coffee Roasters');
  const close = await dialog.getByRole('button', { name: 'Close checkout' }).boundingBox();
  expect(close!.x).toBeGreaterThanOrEqual(0);
  expect(close!.x + close!.width).toBeLessThanOrEqual(360);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
});

test('a deactivated link shows it cannot take payments, and refuses one if asked', async ({ page, servers }) => {
  const client = new ServiceClient({ publicKey, secretKey, baseUrl: servers.api.url });
  const link = await client.paymentLinks.createStandard({ title: 'Closed sale', charge: { amount: '5.00', currency: 'USD' } });
  await client.paymentLinks.setActive(link.id, false);
  const response = await page.goto(link.url);
  expect(response!.status()).toBe(410);
  await expect(page.getByRole('alert')).toHaveText('This payment link is not active: it cannot take payments.');
  await expect(page.getByRole('button', { name: 'Pay', exact: true })).toHaveCount(0);
  const attempt = await page.request.post(`${servers.api.url}/pay/${link.slug}/checkout`, { data: { email: 'ada@example.com' } });
  expect(attempt.status()).toBe(409);
  expect((await attempt.json()).message).toMatch(/deactivated/);
});

test("the shop's server makes the payment with the SDK; the page opens the widget on it", async ({ page, servers }) => {
  await page.goto(servers.shop.url + '/');
  await page.fill('input[name=amount]', '40.00');
  await page.selectOption('select[name=currency]', 'GBP');
  await page.fill('input[name=email]', 'ada@example.com');
  await page.getByRole('button', { name: 'Pay, with the order made by our server' }).click();
  const dialog = modal(page);
  await expect(dialog.locator('[data-amount]')).toHaveText('51.139242 USDT'); // 40 / 0.79 → 50.632912, + 0.506330, both rounded up
  await dialog.getByRole('button', { name: 'Full' }).click();
  await dialog.getByRole('button', { name: 'Done' }).click();
  const events = await page.evaluate(() => (window as unknown as { shopEvents: Array<{ name: string; detail: { reference: string } }> }).shopEvents);
  expect(events.map((e) => e.name)).toEqual(['success', 'close']);
  expect(events[0].detail.reference).toMatch(/^order_[0-9a-f]{12}$/);
  await expect.poll(() => servers.shop.orders.get(events[0].detail.reference)?.paid).toBe(true);
});

test('a cart link checks the e-mail before sending anything, then, once paid, locks the quantity and shows the reference; the tab has an icon', async ({
  page,
  servers,
}) => {
  const client = new ServiceClient({ publicKey, secretKey, baseUrl: servers.api.url });
  const prices = [...(await servers.api.parts.links.prices()).values()].filter((p) => p.currency === 'USD');
  const beans = prices.find((p) => p.product.name.startsWith('Single'))!;
  const link = await client.paymentLinks.createStandard({
    title: 'Beans to go',
    description: 'Adjustable',
    action: { show_confirmation_page: true, success_message: 'Thanks' },
    cart: [{ price_id: beans.id, quantity: 1, quantity_adjustable: true }],
  });
  const started: string[] = [];
  page.on('request', (request) => request.method() === 'POST' && started.push(new URL(request.url()).pathname));
  await page.goto(link.url);
  const icon = await page.locator('link[rel=icon]').getAttribute('href');
  expect(icon).toMatch(/^data:image\/svg\+xml,/);
  // The browser can draw it (the page's CSP allows data: images).
  expect(
    await page.evaluate(
      (href) => new Promise((resolve) => Object.assign(new Image(), { onload: () => resolve(true), onerror: () => resolve(false), src: href })),
      icon,
    ),
  ).toBe(true);

  const email = page.getByLabel('E-mail');
  await email.fill('ada@example'); // no domain ending: the service would refuse it
  await page.getByRole('button', { name: 'Pay', exact: true }).click();
  await expect(page.getByRole('alert')).toHaveText('Enter an e-mail address such as ada@example.com.');
  await expect(email).toHaveAttribute('aria-invalid', 'true');
  await expect(email).toBeFocused();
  expect(started, 'nothing sent for a bad e-mail').toEqual([]);
  await email.fill('ada@example.com');
  await expect(email).not.toHaveAttribute('aria-invalid', 'true');

  const quantity = page.getByLabel('Quantity of Single-origin beans, 1 kg');
  await quantity.fill('2');
  await page.getByRole('button', { name: 'Pay', exact: true }).click();
  const dialog = modal(page);
  await dialog.getByRole('button', { name: 'Full' }).click();
  await expect(dialog.getByRole('heading', { name: 'Payment received' })).toBeVisible();
  await expect(quantity).toBeDisabled(); // paid: what was bought no longer changes
  const reference = await dialog.locator('[data-reference]').textContent();
  await dialog.getByRole('button', { name: 'Done' }).click();
  await expect(page.getByRole('heading', { name: 'Thanks' })).toBeVisible();
  await expect(page.locator('#reference')).toHaveText(reference!);
  await expect(page.locator('#reference')).toHaveText(new RegExp(`^link_${link.slug}_`));
  await expect(quantity).toBeDisabled();
  await expect(page.locator('#total')).toHaveText('49.00 USD');
});
