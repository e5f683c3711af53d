import { apiRequests, expect, fullEncoderSymbol, modal, openPayment, shopEvents, startServers, symbolFromPath, test } from './support/fixtures.ts';

test.describe('a payment from a merchant page on another origin', () => {
  test('details → coin → address and QR → sandbox deposit → onSuccess once → onClose once, last', async ({ page, servers }) => {
    const requests = apiRequests(page, servers.api.url);
    const origins = new Set<string>();
    page.on('request', (request) => origins.add(new URL(request.url()).origin));
    const served = servers.api.requests.length;
    const dialog = await openPayment(page, servers.shop.url, 'USDC');

    // Two origins: the shop and the API differ in host and port; every call crossed CORS.
    expect(new URL(page.url()).origin).not.toBe(new URL(servers.api.url).origin);
    await expect(dialog.locator('[data-amount]')).toHaveText('24.745 USDC');
    await expect(dialog).toContainText('Ethereum Sepolia');
    await expect(dialog).toContainText('Harbour Coffee Roasters');
    const address = await dialog.locator('[data-address]').textContent();
    expect(address).toMatch(/^0x[0-9a-f]{40}$/);

    // The QR code is the EIP-681 request, drawn by the bundle's own encoder exactly as the
    // qrcode package would draw it.
    const svg = dialog.locator('svg[role=img]');
    const uri = await svg.getAttribute('data-uri');
    expect(uri).toBe(`ethereum:0x00000000000000000000000000000000000005dc@11155111/transfer?address=${address}&uint256=24745000`);
    const full = fullEncoderSymbol(uri!);
    expect(await svg.getAttribute('viewBox')).toBe(`-4 -4 ${full.size + 8} ${full.size + 8}`);
    expect(symbolFromPath((await svg.locator('path').getAttribute('d'))!, full.size)).toBe(full.dark);

    await dialog.getByRole('button', { name: 'Full' }).click();
    await expect(dialog.getByRole('heading', { name: 'Payment received' })).toBeVisible();
    await expect(dialog.locator('[data-paid]')).toHaveText('24.745 USDC');
    await dialog.getByRole('button', { name: 'Done' }).click();
    await expect(modal(page)).toHaveCount(0);

    const events = await shopEvents(page);
    expect(events.map((e) => e.name)).toEqual(['success', 'close']);
    expect(events[0].detail).toMatchObject({ status: 'confirmed', amountPaid: 24.745 });
    expect(events[1].detail).toMatchObject({ reference: events[0].detail.reference, status: 'confirmed' });
    expect(requests).toContain('POST /api/v1/transaction/initialize');
    // Nothing from a CDN or anywhere else: the merchant's own page, and the service.
    expect([...origins].sort()).toEqual([new URL(servers.api.url).origin, new URL(servers.shop.url).origin].sort());
    // A real CORS preflight reached the API (the browser does not show preflights to the page).
    expect(servers.api.requests.slice(served)).toContain('OPTIONS /api/v1/transaction/initialize');
  });

  test('a partial payment, then the remainder', async ({ page, servers }) => {
    const dialog = await openPayment(page, servers.shop.url, 'USDT');
    await dialog.getByRole('button', { name: 'Partial' }).click();
    await expect(dialog).toContainText('Received so far: 12.3725 USDT');
    await expect(dialog.locator('[data-amount]')).toHaveText('12.3725 USDT');
    await expect(dialog.locator('svg[role=img]')).toHaveAttribute('data-uri', /uint256=12372500000000000000$/);
    await expect(dialog.getByRole('button', { name: 'Finish with what I sent' })).toHaveCount(0);
    expect(await shopEvents(page)).toEqual([]);

    await dialog.getByRole('button', { name: 'Full' }).click();
    await expect(dialog.getByRole('heading', { name: 'Payment received' })).toBeVisible();
    await dialog.getByRole('button', { name: 'Done' }).click();
    const events = await shopEvents(page);
    expect(events.map((e) => e.name)).toEqual(['success', 'close']);
    expect(events[0].detail).toMatchObject({ status: 'confirmed', amountPaid: 24.745 });
  });

  test('a partial payment finished with what arrived: the receipt says so, onSuccess says settled, the shop shows the order partly paid', async ({
    page,
    servers,
  }) => {
    await page.goto(servers.shop.url + '/');
    await page.getByLabel('Accept partial payment').check();
    await page.getByRole('button', { name: 'Pay with stablecoins' }).click();
    const dialog = modal(page);
    await dialog.getByLabel('Full name').fill('Ada Lovelace');
    await dialog.getByLabel('E-mail').fill('ada@example.com');
    await dialog.getByRole('button', { name: 'Continue' }).click();
    await dialog.getByRole('button', { name: /^USDT / }).click();
    await dialog.getByRole('button', { name: 'Partial' }).click();
    await dialog.getByRole('button', { name: 'Finish with what I sent' }).click();

    await expect(dialog.getByRole('heading', { name: 'Part of the amount paid, and accepted by the merchant' })).toBeVisible();
    await expect(dialog.locator('[data-receipt]')).toContainText('Paid12.3725 USDTDue24.745 USDT ($24.50)');
    const events = await shopEvents(page);
    expect(events.map((e) => e.name)).toEqual(['success']);
    expect(events[0].detail).toMatchObject({ status: 'settled', amountPaid: 12.3725 });
    // The merchant's server heard it from the webhook, and the shop says so.
    const order = page.locator('#order');
    await expect(order).toHaveAttribute('data-state', 'partly paid');
    await expect(order).toHaveText(`Order ${events[0].detail.reference}: partly paid, 12.3725 of 24.745 USDT, accepted.`);
  });

  test('an overpayment is a success that says how much extra arrived', async ({ page, servers }) => {
    const dialog = await openPayment(page, servers.shop.url, 'DAI');
    await dialog.getByRole('button', { name: 'Over' }).click();
    await expect(dialog).toContainText('You sent 2.4745 DAI more than due');
    await dialog.getByRole('button', { name: 'Done' }).click();
    expect((await shopEvents(page)).map((e) => e.name)).toEqual(['success', 'close']);
  });

  test('closing mid-payment stops every request and reports onClose once, with the status', async ({ page, servers }) => {
    const requests = apiRequests(page, servers.api.url);
    const dialog = await openPayment(page, servers.shop.url);
    await dialog.getByRole('button', { name: 'Close checkout' }).click();
    await dialog.getByRole('button', { name: 'Leave' }).click(); // asked first: a payment is open
    await expect(modal(page)).toHaveCount(0);
    const after = requests.length;
    await page.waitForTimeout(4000); // longer than one poll interval
    expect(requests.length).toBe(after);
    const events = await shopEvents(page);
    expect(events.map((e) => e.name)).toEqual(['close']);
    expect(events[0].detail).toMatchObject({ status: 'pending' });
  });

  test('a double-clicked pay button opens one checkout and one payment', async ({ page, servers }) => {
    const requests = apiRequests(page, servers.api.url);
    await page.goto(servers.shop.url + '/');
    await page.fill('input[name=name]', 'Ada Lovelace');
    await page.fill('input[name=email]', 'ada@example.com');
    await page.getByRole('button', { name: 'Pay with stablecoins' }).dblclick();
    await modal(page)
      .getByRole('button', { name: /^USDT / })
      .dblclick();
    await expect(modal(page).locator('[data-amount]')).toBeVisible();
    await expect(page.locator('[data-service-checkout]')).toHaveCount(1);
    expect(requests.filter((r) => r === 'POST /api/v1/transaction/initialize')).toHaveLength(1);
  });
});

test.describe('a checkout customers can trust', () => {
  test('names the business from the first screen, and lists what each coin costs, fee included', async ({ page, servers }) => {
    await page.goto(servers.shop.url + '/');
    await page.getByRole('button', { name: 'Pay with stablecoins' }).click();
    const dialog = modal(page);
    await expect(dialog.getByLabel('Full name')).toBeVisible();
    await expect(dialog.locator('#sc-title')).toHaveText('Harbour Coffee Roasters');
    await expect(dialog.locator('.tot')).toHaveText('Price $24.50');
    await dialog.getByLabel('Full name').fill('Ada Lovelace');
    await dialog.getByLabel('E-mail').fill('ada@example.com');
    await dialog.getByRole('button', { name: 'Continue' }).click();
    await expect(dialog.getByRole('button', { name: /^USDT / })).toContainText('24.745 USDT');
    await expect(dialog.getByRole('button', { name: /^USDC / })).toContainText('24.745 USDC');
    await expect(dialog).toContainText('Amounts include the operator fee.');
  });

  test('the payment screen fits 1280×800 with no inner scroll; the network, contract and a warning sit by the amount; one total', async ({ page, servers }) => {
    await page.setViewportSize({ width: 1280, height: 800 });
    const dialog = await openPayment(page, servers.shop.url);
    const fit = await dialog.evaluate((d) => ({ scroll: d.scrollHeight, client: d.clientHeight, bottom: d.getBoundingClientRect().bottom }));
    expect(fit.scroll).toBeLessThanOrEqual(fit.client);
    expect(fit.bottom).toBeLessThanOrEqual(800);
    // The sandbox buttons stay on one line.
    const tops = await dialog.locator('.sb button').evaluateAll((buttons) => buttons.map((b) => Math.round(b.getBoundingClientRect().top)));
    expect(new Set(tops).size).toBe(1);

    const network = dialog.locator('[data-network]');
    await expect(network).toContainText('Network: BNB Smart Chain Testnet');
    await expect(network).toContainText('Send only USDT on BNB Smart Chain Testnet.');
    await expect(dialog.locator('[data-contract]')).toHaveText(/^0x[0-9a-fA-F]{40}$/);
    // Right under the amount, not below the fold.
    const amount = (await dialog.locator('[data-amount]').boundingBox())!;
    const box = (await network.boundingBox())!;
    expect(box.y - (amount.y + amount.height)).toBeLessThan(40);

    // One total everywhere: the header, the amount to send and the breakdown.
    await expect(dialog.locator('.tot')).toHaveText('Total 24.745 USDT');
    await expect(dialog.locator('[data-amount]')).toHaveText('24.745 USDT');
    await expect(dialog.locator('[data-breakdown]')).toHaveText('Price$24.50 = 24.5 USDTOperator fee0.245 USDTTotal24.745 USDT');
  });

  test('success is a receipt: a mark, paid against due, the network, and the reference with a copy button', async ({ page, servers }) => {
    const dialog = await openPayment(page, servers.shop.url);
    await dialog.getByRole('button', { name: 'Over' }).click();
    await expect(dialog.getByRole('heading', { name: 'Payment received' })).toBeVisible();
    await expect(dialog.locator('.mk')).toBeVisible();
    const receipt = dialog.locator('[data-receipt]');
    await expect(receipt).toContainText(/Paid\d/);
    await expect(receipt).toContainText('Due24.745 USDT ($24.50)');
    await expect(receipt).toContainText('NetworkBNB Smart Chain Testnet');
    await expect(dialog.locator('[data-reference]')).toHaveText(/^sc_[0-9a-f]{24}$/);
    await expect(dialog.getByRole('button', { name: 'Copy reference' })).toBeVisible();
  });

  for (const [width, height] of [
    [375, 740],
    [320, 640],
  ]) {
    test(`on a ${width}×${height} phone the time left sits beside the amount, in view with the amount and the address; the sandbox buttons keep to one line`, async ({
      page,
      servers,
    }) => {
      await page.setViewportSize({ width, height });
      const dialog = await openPayment(page, servers.shop.url);
      const box = async (selector: string) => (await dialog.locator(selector).boundingBox())!;
      const amount = await box('[data-amount]');
      const time = await box('.tm');
      const address = await box('[data-address]');
      for (const [name, b] of Object.entries({ amount, time, address })) {
        expect(b.x, name).toBeGreaterThanOrEqual(0);
        expect(b.y, name).toBeGreaterThanOrEqual(0);
        expect(b.x + b.width, name).toBeLessThanOrEqual(width);
        expect(b.y + b.height, name).toBeLessThanOrEqual(height);
      }
      // Beside the amount: on its line, or the one right under it.
      expect(time.y).toBeLessThan(amount.y + amount.height + 16);
      expect(time.y + time.height).toBeGreaterThan(amount.y);
      const tops = await dialog.locator('.sb button').evaluateAll((buttons) => buttons.map((b) => Math.round(b.getBoundingClientRect().top)));
      expect(new Set(tops).size).toBe(1);
      const sandbox = await box('.sb');
      expect(sandbox.x + sandbox.width).toBeLessThanOrEqual(width);
    });
  }

  test('the hurry state shows beside the amount on a phone too', async ({ page }) => {
    const servers = await startServers({ quoteSeconds: 100 });
    try {
      await page.setViewportSize({ width: 375, height: 740 });
      const dialog = await openPayment(page, servers.shop.url);
      const time = dialog.locator('.tm');
      await expect(time).toHaveAttribute('data-hurry', 'true');
      const box = (await time.boundingBox())!;
      expect(box.y + box.height).toBeLessThanOrEqual(740);
      expect(box.x + box.width).toBeLessThanOrEqual(375);
    } finally {
      await servers.close();
    }
  });

  test('the last two minutes say so in words and change shape, not colour alone', async ({ page }) => {
    const servers = await startServers({ quoteSeconds: 100 });
    try {
      const dialog = await openPayment(page, servers.shop.url);
      const time = dialog.locator('.tm');
      await expect(time).toHaveAttribute('data-hurry', 'true');
      await expect(time).toContainText('Hurry: less than 2 minutes left.');
      expect(await time.evaluate((t) => getComputedStyle(t).borderTopStyle)).toBe('solid');
    } finally {
      await servers.close();
    }
  });

  test('with time to spare, no hurry', async ({ page, servers }) => {
    const dialog = await openPayment(page, servers.shop.url);
    await expect(dialog.locator('[data-time-left]')).toBeVisible();
    await expect(dialog.locator('[data-hurry]')).toHaveCount(0);
  });
});

test.describe('focus', () => {
  test('lands on the first control of each new screen, even one that loaded late', async ({ page, servers }) => {
    await page.goto(servers.shop.url + '/');
    await page.fill('input[name=email]', 'ada@example.com');
    await page.getByRole('button', { name: 'Pay with stablecoins' }).click();
    const dialog = modal(page);
    await expect(dialog.getByLabel('Full name')).toBeFocused();
    await dialog.getByRole('button', { name: 'Continue' }).click();
    await expect(dialog.getByLabel('Full name')).toBeFocused(); // still wrong: back to it
    await page.keyboard.type('Ada Lovelace');
    await page.keyboard.press('Enter');
    await expect(dialog.getByRole('button', { name: /^USDT / })).toBeFocused();
    await page.keyboard.press('Escape');
    await expect(modal(page)).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'Pay with stablecoins' })).toBeFocused();
  });
});

test.describe('nothing lost: resuming a reference', () => {
  test('closed mid-payment, reopened, then reloaded: the same payment each time, never a second quote', async ({ page, servers }) => {
    const requests = apiRequests(page, servers.api.url);
    const reference = `resume-${test.info().workerIndex}-${Date.now()}`;
    let dialog = await openPayment(page, servers.shop.url, 'USDT', `?reference=${reference}`);
    const address = await dialog.locator('[data-address]').textContent();
    await dialog.getByRole('button', { name: 'Partial' }).click();
    await expect(dialog).toContainText('Received so far: 12.3725 USDT');
    await dialog.getByRole('button', { name: 'Close checkout' }).click();
    await dialog.getByRole('button', { name: 'Leave' }).click(); // asked first: a payment is open

    await page.getByRole('button', { name: 'Pay with stablecoins' }).click();
    dialog = modal(page);
    await expect(dialog.locator('[data-address]')).toHaveText(address!);
    await expect(dialog.locator('[data-amount]')).toHaveText('12.3725 USDT');
    await expect(dialog.locator('[data-time-left]')).toHaveText(/^14:/);

    await page.reload();
    await page.getByRole('button', { name: 'Pay with stablecoins' }).click();
    await expect(modal(page).locator('[data-address]')).toHaveText(address!);
    expect(requests.filter((r) => r === 'POST /api/v1/transaction/initialize')).toHaveLength(1);
  });

  test('a payment that arrived while the modal was closed is reported on reopen', async ({ page, servers }) => {
    const reference = `arrived-${test.info().workerIndex}-${Date.now()}`;
    const dialog = await openPayment(page, servers.shop.url, 'USDT', `?reference=${reference}`);
    await dialog.getByRole('button', { name: 'Close checkout' }).click();
    await dialog.getByRole('button', { name: 'Leave' }).click(); // asked first: a payment is open
    // The customer's wallet pays after the modal closed.
    const response = await page.request.post(servers.api.url + '/api/v1/sandbox/deposit', {
      headers: { 'x-api-key': 'pk_test_harbour0demo0key' },
      data: { reference, kind: 'exact' },
    });
    expect(response.status()).toBe(200);
    await page.getByRole('button', { name: 'Pay with stablecoins' }).click();
    await expect(modal(page).getByRole('heading', { name: 'Payment received' })).toBeVisible();
    const events = await shopEvents(page);
    expect(events.map((e) => e.name)).toEqual(['close', 'success']);
    expect(events[1].detail).toMatchObject({ reference, status: 'confirmed' });
  });
});

test.describe('expiry', () => {
  // Each starts servers of its own (a short quote), which the worker's fixture is given a minute
  // for: inside a test's 30 s, on a loaded machine, they left too little to pay (two CI failures).
  test.describe.configure({ timeout: 60_000 });
  test('an expired quote with nothing received gets a fresh one for the same reference', async ({ page }) => {
    const servers = await startServers({ quoteSeconds: 3 });
    try {
      const requests = apiRequests(page, servers.api.url);
      const dialog = await openPayment(page, servers.shop.url);
      await expect(dialog.getByRole('heading', { name: 'This quote has expired' })).toBeVisible({ timeout: 10_000 });
      await dialog.getByRole('button', { name: 'Get a new quote' }).click();
      await expect(dialog.locator('[data-time-left]')).toHaveText(/^0:0[1-3]$/);
      await dialog.getByRole('button', { name: 'Full' }).click();
      await expect(dialog.getByRole('heading', { name: 'Payment received' })).toBeVisible();
      await dialog.getByRole('button', { name: 'Done' }).click();
      const events = await shopEvents(page);
      expect(events.map((e) => e.name)).toEqual(['success', 'close']);
      expect(requests.filter((r) => r === 'POST /api/v1/transaction/initialize')).toHaveLength(2);
    } finally {
      await servers.close();
    }
  });

  test('a quote that expires after part of it arrived reports payment_expired, once', async ({ page }) => {
    const servers = await startServers({ quoteSeconds: 4 });
    try {
      const dialog = await openPayment(page, servers.shop.url);
      await dialog.getByRole('button', { name: 'Partial' }).click();
      await expect(dialog).toContainText('Received so far');
      await expect(dialog.getByRole('heading', { name: 'This quote has expired' })).toBeVisible({ timeout: 10_000 });
      // What arrived against what was due, the reference to quote, and who can finish it.
      await expect(dialog).toContainText('12.3725 USDT of 24.745 USDT arrived before the time ran out');
      await expect(dialog.locator('[data-reference]')).toHaveText(/^sc_[0-9a-f]{24}$/);
      await expect(dialog.getByRole('button', { name: 'Copy reference' })).toBeVisible();
      await expect(dialog.locator('[data-contact]')).toHaveAttribute('href', /^mailto:.+@.+\?subject=sc_[0-9a-f]{24}$/);
      await expect(dialog.getByRole('button', { name: 'Get a new quote' })).toHaveCount(0);
      await dialog.getByRole('button', { name: 'Done' }).click();
      const events = await shopEvents(page);
      expect(events.map((e) => e.name)).toEqual(['error', 'close']);
      expect(events[0].detail).toMatchObject({ code: 'payment_expired' });
    } finally {
      await servers.close();
    }
  });
});

test.describe('refusals that send nothing', () => {
  test('a secret key is refused: onError secret_key, no modal, zero API requests', async ({ page, servers }) => {
    const requests = apiRequests(page, servers.api.url);
    await page.goto(servers.shop.url + '/?key=sk_test_harbour0demo0secret');
    await page.getByRole('button', { name: 'Pay with stablecoins' }).click();
    await expect.poll(async () => (await shopEvents(page)).map((e) => e.name)).toEqual(['error']);
    expect((await shopEvents(page))[0].detail).toMatchObject({ code: 'secret_key' });
    await expect(page.locator('[data-service-checkout]')).toHaveCount(0);
    expect(requests).toEqual(['GET /checkout.js']);
    expect(servers.api.requests.filter((r) => r.includes('sk_'))).toEqual([]);
  });

  test('an invalid amount names the field, with zero API requests', async ({ page, servers }) => {
    const requests = apiRequests(page, servers.api.url);
    await page.goto(servers.shop.url + '/');
    await page.fill('input[name=amount]', '12.345');
    await page.getByRole('button', { name: 'Pay with stablecoins' }).click();
    await expect.poll(async () => (await shopEvents(page)).length).toBe(1);
    const [event] = await shopEvents(page);
    expect(event.detail).toMatchObject({ code: 'invalid_options', message: expect.stringContaining('amount: expected at most 2 decimal places') });
    expect(requests).toEqual(['GET /checkout.js']);
  });
});

test.describe('the script tag', () => {
  test('registers window.ServiceCheckout and does nothing else on load', async ({ page, servers }) => {
    const requests = apiRequests(page, servers.api.url);
    await page.goto(servers.shop.url + '/blank.html');
    const before = await page.evaluate(() => ({ globals: Object.keys(window), nodes: document.querySelectorAll('*').length }));
    await page.addScriptTag({ url: servers.api.url + '/checkout.js' });
    const after = await page.evaluate(() => ({ globals: Object.keys(window), nodes: document.querySelectorAll('*').length }));
    expect(after.globals.filter((g) => !before.globals.includes(g))).toEqual(['ServiceCheckout']);
    expect(after.nodes).toBe(before.nodes + 1); // the <script> element itself
    expect(await page.evaluate(() => typeof (window as unknown as { ServiceCheckout: unknown }).ServiceCheckout)).toBe('function');
    await page.waitForTimeout(300);
    expect(requests).toEqual(['GET /checkout.js']);
  });

  test('defaults the API to the origin the script came from', async ({ page, servers }) => {
    await page.goto(servers.shop.url + '/blank.html');
    await page.addScriptTag({ url: servers.api.url + '/checkout.js' });
    const requests = apiRequests(page, servers.api.url);
    await page.evaluate((key) => {
      (window as unknown as { ServiceCheckout: (o: unknown) => void }).ServiceCheckout({
        key,
        amount: 5,
        currency: 'GBP',
        name: 'Ada',
        email: 'ada@example.com',
      });
    }, 'pk_test_harbour0demo0key');
    await expect(modal(page).getByRole('button', { name: /^USDT / })).toBeVisible();
    expect(requests).toContain('GET /api/v1/coins');
  });
});

test.describe('a network that drops', () => {
  test('offline mid-payment: reconnecting, the address stays, and it catches up when back online', async ({ page, context, servers }) => {
    const reference = `offline-${test.info().workerIndex}-${Date.now()}`;
    const dialog = await openPayment(page, servers.shop.url, 'USDT', `?reference=${reference}`);
    const address = await dialog.locator('[data-address]').textContent();
    await context.setOffline(true);
    await expect(dialog).toContainText('Reconnecting…', { timeout: 15_000 });
    await expect(dialog.locator('[data-address]')).toHaveText(address!);
    // The wallet pays while the customer's browser is offline.
    await page.request.post(servers.api.url + '/api/v1/sandbox/deposit', {
      headers: { 'x-api-key': 'pk_test_harbour0demo0key' },
      data: { reference, kind: 'exact' },
    });
    await context.setOffline(false);
    await expect(dialog.getByRole('heading', { name: 'Payment received' })).toBeVisible({ timeout: 20_000 });
    const events = await shopEvents(page);
    expect(events.map((e) => e.name)).toEqual(['success']);
  });
});

// A live key on a service with no live network is refused. The customer reads plain
// words; the operator's instructions (which file, which fields) go to the merchant's onError only.
test('a live key on a service with no live network: plain words for the customer, the reason for the merchant', async ({ page, servers }) => {
  await page.goto(`${servers.shop.url}/?key=pk_live_harbour0demo0key`);
  await page.getByRole('button', { name: 'Pay with stablecoins' }).click();
  const dialog = modal(page);
  await expect(dialog.getByRole('heading', { level: 3 })).toHaveText('The payment service refused this payment. Please tell the merchant.');
  await expect(dialog).not.toContainText('NETWORKS_FILE');
  await expect(dialog.getByText(/USDT|USDC|BNB|0x[0-9a-f]{40}/i)).toHaveCount(0); // no coin, network or address it is not waiting on
  const [error] = await shopEvents(page);
  expect(error).toMatchObject({ name: 'error', detail: { code: 'api_error' } });
  expect(error!.detail.message).toMatch(/no live network configured.*NETWORKS_FILE/);
});

test('a key the service does not know is told before the customer types anything', async ({ page, servers }) => {
  await page.goto(`${servers.shop.url}/?key=pk_test_nobody0knows0this0key`);
  await page.getByRole('button', { name: 'Pay with stablecoins' }).click();
  const dialog = modal(page);
  await expect(dialog.getByRole('heading', { level: 3 })).toHaveText(/refused this payment/); // in customer words
  await expect(dialog.getByLabel('Full name')).toHaveCount(0);
  expect((await shopEvents(page)).map((e) => [e.name, e.detail.code])).toEqual([['error', 'api_error']]);
});
