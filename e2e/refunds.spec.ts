// A customer claims a refund through its single-use link in a real Chromium: the
// hosted page (the service's origin; the merchant's shop, on another, hands the link out) names
// the business, amount, coin and network, refuses a bad address or one of the service's own,
// shows the address back checksummed, and claims only on confirm; then the link is dead. In
// English, French and Arabic (right to left), axe clean in light and dark at each step.
import { getAddress } from 'viem';
import type { Page } from 'playwright/test';
import { DEMO_MERCHANT } from '../server/service/seed.ts';
import { axeViolations } from './support/axe.ts';
import { expect, test, type Servers } from './support/fixtures.ts';

const { publicKey, secretKey } = DEMO_MERCHANT.keys.test;
const customer = '0x' + 'c0ffee'.repeat(6) + 'c0ff';

async function axeClean(page: Page, step: string) {
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    const violations = await axeViolations(page);
    expect(violations.flatMap((v) => v.nodes.map((n) => `${step} (${colorScheme}): ${v.id} at ${JSON.stringify(n.target)}`))).toEqual([]);
  }
}

const api = async (servers: Servers, method: string, path: string, body?: unknown, key = secretKey) => {
  const response = await fetch(servers.api.url + path, {
    method,
    headers: { ...(key.startsWith('sk_') ? { authorization: `Bearer ${key}` } : { 'x-api-key': key }), 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return (await response.json()) as any;
};

// axe runs twice per step (light, dark) on a loaded machine; a claim is a database transaction.
test.describe.configure({ timeout: 180_000 });
test.use({ actionTimeout: 20_000 });
const slow = { timeout: 20_000 };

let n = 0;
/** A paid payment on balance settlement, and a refund of half of it waiting for the customer: its id, claim link, and the payment's deposit address. */
async function waitingRefund(servers: Servers) {
  await api(servers, 'PUT', '/api/v1/settlement', { settlement: 'balance' });
  const reference = `e2e-refund-${process.pid}-${++n}`;
  const made = await api(servers, 'POST', '/api/v1/transaction/initialize', { reference, coin: 'USDT', currency: 'USD', amount: 20 }, publicKey);
  await api(servers, 'POST', '/api/v1/sandbox/deposit', { reference, kind: 'exact' }, publicKey);
  const refund = await api(servers, 'POST', '/api/v1/refunds', { reference, amount: '5', reason: 'one bag was broken' });
  expect(refund.data?.status, JSON.stringify(refund)).toBe('waiting_for_address');
  return { id: refund.data.id as string, url: refund.data.claim_url as string, deposit: made.data.address as string };
}

test('a customer claims a refund in English: bad and service addresses refused, the address confirmed, the link then dead', async ({ page, servers }) => {
  const refund = await waitingRefund(servers);
  // The merchant's page, on its own origin, hands the link to the customer.
  await page.goto(servers.shop.url + '/blank.html');
  expect(new URL(refund.url).origin).not.toBe(new URL(servers.shop.url).origin);
  await page.goto(refund.url);
  await expect(page.locator('html')).toHaveAttribute('dir', 'ltr');
  await expect(page.getByRole('status')).toContainText(`${DEMO_MERCHANT.businessName} is sending you back 5 USDT on the`);
  await axeClean(page, 'the address form');

  const address = page.getByLabel('Your wallet address');
  await address.fill('0x1234');
  await page.getByRole('button', { name: 'Continue' }).click();
  await expect(page.getByRole('alert').first()).toHaveText('Enter a wallet address: 0x followed by 40 letters and digits.');
  await expect(address).toHaveAttribute('aria-invalid', 'true');
  await axeClean(page, 'a refused address');
  await address.fill(refund.deposit);
  await page.getByRole('button', { name: 'Continue' }).click();
  await expect(page.getByRole('alert').first()).toContainText('belongs to the payment service');

  await address.fill(customer.toLowerCase());
  await page.getByRole('button', { name: 'Continue' }).click();
  await expect(page.getByRole('heading', { name: 'Check before you confirm' })).toBeFocused(slow);
  await expect(page.locator('#checked')).toHaveText(getAddress(customer));
  await expect(page.locator('#send-to')).toContainText('5 USDT on');
  await axeClean(page, 'the confirm step');
  expect((await api(servers, 'GET', `/api/v1/refunds/${refund.id}`)).data.status).toBe('waiting_for_address');
  await page.getByRole('button', { name: 'Confirm and send' }).click();
  await expect(page.getByRole('heading', { name: 'Your refund is on its way' })).toBeFocused(slow);
  await axeClean(page, 'done');
  expect((await api(servers, 'GET', `/api/v1/refunds/${refund.id}`)).data).toMatchObject({ status: 'ready', address: getAddress(customer) });

  // Opened again: used.
  await page.reload();
  await expect(page.getByRole('status')).toHaveText('This refund link was used already, or canceled. Ask the merchant if you did not claim it.');
});

test('in French and in Arabic (right to left), axe clean in light and dark; a changed token opens nothing', async ({ page, servers }) => {
  const fr = await waitingRefund(servers);
  const frUrl = new URL(fr.url);
  await page.goto(`${frUrl.origin}/refund?lang=fr${frUrl.hash}`);
  await expect(page.locator('html')).toHaveAttribute('lang', 'fr');
  await expect(page.getByRole('status')).toContainText('vous rembourse 5 USDT sur le réseau');
  await axeClean(page, 'fr: the address form');
  await page.getByLabel('L’adresse de votre portefeuille').fill(customer);
  await page.getByRole('button', { name: 'Continuer' }).click();
  await expect(page.getByRole('heading', { name: 'Vérifiez avant de confirmer' })).toBeVisible(slow);
  await axeClean(page, 'fr: the confirm step');
  await page.getByRole('button', { name: 'Confirmer et envoyer' }).click();
  await expect(page.getByRole('heading', { name: 'Votre remboursement est en route' })).toBeVisible(slow);

  const ar = await waitingRefund(servers);
  const arUrl = new URL(ar.url);
  await page.goto(`${arUrl.origin}/refund?lang=ar${arUrl.hash}`);
  await expect(page.locator('html')).toHaveAttribute('dir', 'rtl');
  await expect(page.getByRole('status')).toContainText('5 USDT');
  await axeClean(page, 'ar: the address form');
  await page.getByLabel('عنوان محفظتك').fill(customer);
  await page.getByRole('button', { name: 'متابعة' }).click();
  await expect(page.getByRole('heading', { name: 'تحقق قبل التأكيد' })).toBeVisible(slow);
  await axeClean(page, 'ar: the confirm step');
  await page.getByRole('button', { name: 'تأكيد وإرسال' }).click();
  await expect(page.getByRole('heading', { name: 'استردادك في الطريق' })).toBeVisible(slow);
  await axeClean(page, 'ar: done');

  const forged = arUrl.hash.slice(0, -1) + (arUrl.hash.endsWith('A') ? 'B' : 'A');
  await page.goto(`${arUrl.origin}/refund?lang=en${forged}`);
  await expect(page.getByRole('status')).toHaveText('This refund link is not valid. Ask the merchant for a new one.');
});
