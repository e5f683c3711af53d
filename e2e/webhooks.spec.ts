import { WEBHOOK_PATH } from '../demo/merchant/server.ts';
import { DEMO_MERCHANT } from '../server/service/seed.ts';
import { SIGNATURE_HEADER, signWebhook } from '../sdk/webhook.ts';
import { expect, openPayment, test } from './support/fixtures.ts';

const webhookSecret = DEMO_MERCHANT.webhookSecrets!.test!;

test('a paid order is marked paid once by a verified webhook; forged, replayed and stale ones change nothing', async ({ page, servers }) => {
  const reference = `webhook-${test.info().workerIndex}-${Date.now()}`;
  const dialog = await openPayment(page, servers.shop.url, 'USDT', `?reference=${reference}`);
  await dialog.getByRole('button', { name: 'Partial' }).click();
  await dialog.getByRole('button', { name: 'Full' }).click();
  await expect(dialog.getByRole('heading', { name: 'Payment received' })).toBeVisible();

  // The merchant backend heard of both deposits and marked the order paid, once.
  await expect.poll(() => servers.shop.orders.get(reference)?.paid).toBe(true);
  const order = servers.shop.orders.get(reference)!;
  expect(order.timesMarkedPaid).toBe(1);
  expect(order.events.map((e) => e.split(' ')[1])).toEqual(['incomplete', 'confirmed']);

  // The stub records a delivery once the merchant's answer is in, a moment after the order changed.
  const confirmed = async () => (await servers.api.deliveries()).find((d) => d.status === 200 && d.body.includes(reference) && d.body.includes('"confirmed"'));
  await expect.poll(async () => (await confirmed())?.status).toBe(200);
  const delivered = { ...(await confirmed())!, signature: signWebhook(webhookSecret, (await confirmed())!.body) };
  const hook = servers.shop.url + WEBHOOK_PATH;
  const post = (body: string, signature: string) =>
    page.request.post(hook, { headers: { 'content-type': 'application/json', [SIGNATURE_HEADER]: signature }, data: body });

  // The same delivery again (a retry, or a replay within the tolerance): acknowledged, not applied twice.
  const replay = await post(delivered.body, delivered.signature);
  expect(replay.status()).toBe(200);
  expect(await replay.json()).toEqual({ duplicate: true });

  // Forged: another order's reference under the captured signature.
  const forged = await post(delivered.body.replaceAll(reference, reference + '-forged'), delivered.signature);
  expect(forged.status()).toBe(400);
  expect(await forged.json()).toEqual({ refused: 'bad_signature' });

  // Stale: a genuine delivery captured ten minutes ago, replayed now.
  const old = signWebhook(webhookSecret, delivered.body, Math.floor(Date.now() / 1000) - 600);
  const stale = await post(delivered.body, old);
  expect(stale.status()).toBe(400);
  expect(await stale.json()).toEqual({ refused: 'stale' });

  // Unsigned.
  expect((await page.request.post(hook, { data: delivered.body })).status()).toBe(400);

  expect(servers.shop.orders.get(reference)!.timesMarkedPaid).toBe(1);
  expect(servers.shop.orders.has(reference + '-forged')).toBe(false);
});
