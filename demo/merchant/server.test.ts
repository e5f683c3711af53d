// The demo shop's backend as a merchant's server should be: it will not run without its
// webhook secret, and a confirmed payment marks an order paid only at the order's price.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type Service } from '../../server/service/app.ts';
import { DEMO_MERCHANT } from '../../server/service/seed.ts';
import { registerWebhook } from './register.ts';
import { startMerchantSite, WEBHOOK_PATH, type MerchantSite } from './server.ts';

const { publicKey, secretKey } = DEMO_MERCHANT.keys.test;
let api: Service;
let shop: MerchantSite;

beforeAll(async () => {
  api = await startService({ demo: true, webhookRetryMs: 50, jobIntervalMs: 50 });
  shop = await startMerchantSite({ apiUrl: api.url, publicKey, secretKey, webhookSecret: DEMO_MERCHANT.webhookSecrets!.test! });
  await registerWebhook(api.url, secretKey, shop.url + WEBHOOK_PATH);
});
afterAll(async () => {
  await shop.close();
  await api.close();
});

const page = (path: string, body: unknown) =>
  fetch(api.url + path, { method: 'POST', headers: { 'x-api-key': publicKey, 'content-type': 'application/json' }, body: JSON.stringify(body) });

async function settled(reference: string) {
  for (let i = 0; i < 100; i++) {
    const order = shop.orders.get(reference);
    if (order?.events.some((e) => e.endsWith('confirmed'))) return order;
    await new Promise((resolve) => setTimeout(resolve, 30));
  }
  throw new Error(`no confirmed event for ${reference}`);
}

describe('the demo shop backend', () => {
  it('refuses to start without a webhook secret: forged events could mark orders paid', async () => {
    await expect(startMerchantSite({ apiUrl: api.url, publicKey, webhookSecret: '' })).rejects.toThrow(/webhookSecret is required/);
  });

  it('marks a page order paid when the payment is for the catalogue price', async () => {
    await page('/api/v1/transaction/initialize', { reference: 'shop-ok', coin: 'USDT', currency: 'USD', amount: '24.50', metadata: { items: ['beans-1kg'] } });
    await page('/api/v1/sandbox/deposit', { reference: 'shop-ok', kind: 'exact' });
    const order = await settled('shop-ok');
    expect(order).toMatchObject({ paid: true, timesMarkedPaid: 1 });
  });

  it('does not mark it paid when the page paid less, or in another currency', async () => {
    for (const [reference, amount, currency] of [
      ['shop-cheap', '0.01', 'USD'],
      ['shop-naira', '24.50', 'NGN'],
    ]) {
      await page('/api/v1/transaction/initialize', { reference, coin: 'USDT', currency, amount, metadata: { items: ['beans-1kg'] } });
      await page('/api/v1/sandbox/deposit', { reference, kind: 'exact' });
      const order = await settled(reference);
      expect(order.paid).toBe(false);
      expect(order.problem).toBe(`paid ${amount} ${currency}, but the order costs 24.50 USD`);
    }
  });

  it('marks an order partly paid, not paid, when part arrived and the payment was settled with it', async () => {
    await page('/api/v1/transaction/initialize', {
      reference: 'shop-part',
      coin: 'USDT',
      currency: 'USD',
      amount: '24.50',
      accept_partial_payment: true,
      metadata: { items: ['beans-1kg'] },
    });
    await page('/api/v1/sandbox/deposit', { reference: 'shop-part', kind: 'partial' });
    await page('/api/v1/transaction/settle/shop-part', {});
    let order = shop.orders.get('shop-part');
    for (let i = 0; i < 100 && !order?.partlyPaid; i++) {
      await new Promise((resolve) => setTimeout(resolve, 30));
      order = shop.orders.get('shop-part');
    }
    expect(order).toMatchObject({ paid: false, timesMarkedPaid: 0, partlyPaid: { amountPaid: 12.25, actualAmount: 24.5, coin: 'USDT' } });
    const seen = await (await fetch(shop.url + '/orders/shop-part')).json();
    expect(seen.partlyPaid).toEqual({ amountPaid: 12.25, actualAmount: 24.5, coin: 'USDT' });
  });

  it('holds a server-made order to the amount its server set; the page cannot re-price it', async () => {
    const order = await (
      await fetch(shop.url + '/orders', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ amount: '40.00', currency: 'EUR' }),
      })
    ).json();
    expect((await page('/api/v1/transaction/initialize', { reference: order.reference, coin: 'USDT', currency: 'EUR', amount: '0.01' })).status).toBe(409);
    await page('/api/v1/sandbox/deposit', { reference: order.reference, kind: 'exact' });
    expect(await settled(order.reference)).toMatchObject({ paid: true, price: { amount: '40.00', currency: 'EUR' } });
  });
});
