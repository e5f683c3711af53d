import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_MERCHANT } from '../server/service/seed.ts';
import { startService, type Service } from '../server/service/app.ts';
import { ServiceClient, ServiceError } from './client.ts';
import { holdAnswersToOpenApi } from '../server/testing/conformance.ts';

// Every answer of the API seen here must be one the OpenAPI document allows.
holdAnswersToOpenApi();

const { publicKey, secretKey } = DEMO_MERCHANT.keys.test;
let api: Service;
let client: ServiceClient;
beforeAll(async () => {
  api = await startService({ demo: true });
  client = new ServiceClient({ publicKey, secretKey, baseUrl: api.url });
});
afterAll(() => api.close());

const deposit = (reference: string) =>
  fetch(api.url + '/api/v1/sandbox/deposit', {
    method: 'POST',
    headers: { 'x-api-key': publicKey, 'content-type': 'application/json' },
    body: JSON.stringify({ reference, kind: 'exact' }),
  });

async function refusal(promise: Promise<unknown>): Promise<ServiceError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ServiceError);
  return error as ServiceError;
}

describe('the server SDK', () => {
  it.each([
    ['a public key as the secret', { publicKey, secretKey: publicKey }],
    ['a secret key as the public', { publicKey: secretKey, secretKey }],
    ['a test key with a live key', { publicKey, secretKey: DEMO_MERCHANT.keys.live.secretKey }],
  ])('refuses to be built with %s', (_name, keys) => {
    expect(() => new ServiceClient({ ...keys, baseUrl: 'http://127.0.0.1:1' })).toThrow(TypeError);
  });

  it('initializes a payment from camelCase inputs with the secret key, and verifies it', async () => {
    const tx = await client.initializePayment({
      reference: 'sdk-1',
      customerName: 'Ada Lovelace',
      customerEmail: 'ada@example.com',
      coin: 'USDC',
      currency: 'GBP',
      amount: '7.90',
      acceptPartialPayment: true,
      metadata: { order: 1 },
    });
    expect(tx).toMatchObject({ reference: 'sdk-1', customerName: 'Ada Lovelace', coin: 'USDC', acceptPartialPayment: true, cryptoAmount: 10 });
    await deposit('sdk-1');
    expect(await client.verifyPayment('sdk-1')).toMatchObject({ status: 'confirmed', metadata: { order: 1 } });
  });

  it('turns a refusal into a ServiceError with the status and the fields', async () => {
    const error = await refusal(client.initializePayment({ coin: 'USDT', currency: 'USD', amount: 'ten', reference: 'sdk-2' }));
    expect(error.status).toBe(400);
    expect(error.fields.map((f) => f.field)).toEqual(['amount']);
    expect(error.message).toMatch(/initialize answered 400/);
  });

  it('names the URL it tried when nothing answers, and never a key', async () => {
    // A port nothing listens on: fetch itself says only "fetch failed".
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const nobody = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise((resolve) => closed.close(resolve));
    const offline = new ServiceClient({ publicKey, secretKey, baseUrl: nobody });
    const error = await refusal(offline.verifyPayment('ord 1'));
    expect(error).toMatchObject({ kind: 'network', status: 0, message: `GET ${nobody}/api/v1/transaction/verify/ord%201: the network failed (ECONNREFUSED)` });
    expect(String((error.cause as Error).message)).toBe('fetch failed');
    // A key fetch refuses to send is quoted in fetch's message; never in ours.
    const broken = new ServiceClient({ secretKey: `${secretKey}\nx`, baseUrl: nobody });
    const refused = await refusal(broken.verifyPayment('ord-1'));
    expect(refused.message).toMatch(
      /^GET http:\/\/127\.0\.0\.1:\d+\/api\/v1\/transaction\/verify\/ord-1: the network failed \(Headers\.append: "Bearer sk_…" is an invalid header value\.\)$/,
    );
    for (const e of [error, refused]) expect(`${e.message} ${e.stack}`).not.toContain(secretKey.slice(8));
    // A base URL with a password would put it in every message: refused at once.
    expect(() => new ServiceClient({ secretKey, baseUrl: 'https://ops:hunter2@pay.example.com' })).toThrow(/must not carry a user name or password/);
  });

  it("sends the chain to pay on, and answers the payment's chain", async () => {
    // The built-in test catalogue takes USDC on Sepolia (11155111) only.
    const tx = await client.initializePayment({ reference: 'sdk-chain', coin: 'USDC', currency: 'USD', amount: 5, chainId: 11155111 });
    expect(tx).toMatchObject({ coin: 'USDC', chainId: 11155111 });
    expect(await client.verifyPayment('sdk-chain')).toMatchObject({ chainId: 11155111 });
    const error = await refusal(client.initializePayment({ reference: 'sdk-chain-2', coin: 'USDC', currency: 'USD', amount: 5, chainId: 56 }));
    expect([error.status, error.fields.map((f) => f.field)]).toEqual([400, ['chain_id']]);
  });

  it('makes, reads, lists and switches off payment links; an inactive link refuses payments', async () => {
    const price = [...(await api.parts.links.prices()).values()].find((p) => p.currency === 'USD')!;
    const link = await client.paymentLinks.createStandard({ title: 'One bag', cart: [{ price_id: price.id, quantity: 1 }] });
    expect((await client.paymentLinks.getBySlug(link.slug)).businessName).toBe(DEMO_MERCHANT.businessName);
    expect((await client.paymentLinks.getById(link.id)).linkType).toBe('standard');
    expect((await client.paymentLinks.list({ limit: 100 })).data.map((l) => l.id)).toContain(link.id);
    await client.paymentLinks.setActive(link.id, false);
    const error = await refusal(client.initializePayment({ coin: 'USDT', currency: 'USD', amount: price.amount, reference: 'sdk-3', paymentLink: link.slug }));
    expect(error.status).toBe(409);
    const donation = await client.paymentLinks.createDonation({ title: 'Roof', 'options[collect_phone]': true });
    expect((await client.paymentLinks.updateDonation({ id: donation.id, description: 'Nearly there' })).description).toBe('Nearly there');
  });

  it('registers a bank account and pays out collected USDT', async () => {
    // Payouts draw on money the service holds: this merchant's payments settle to a balance.
    const settled = await fetch(api.url + '/api/v1/settlement', {
      method: 'PUT',
      headers: { authorization: `Bearer ${DEMO_MERCHANT.keys.test.secretKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ settlement: 'balance' }),
    });
    expect(settled.status).toBe(200);
    await client.initializePayment({ reference: 'sdk-4', coin: 'USDT', currency: 'USD', amount: 20 });
    await deposit('sdk-4');
    const bank = await client.bankPayouts.add({
      bank_name: 'Access Bank',
      bank_code: '044',
      account_name: 'Harbour Coffee Ltd',
      account_number: '0690000031',
      currency: 'NGN',
      country: 'nigeria',
      state: 'Lagos',
    });
    expect((await client.bankPayouts.list()).data).toContain(bank.id);
    expect(await client.bankPayouts.rate('USDT', 'NGN')).toEqual({ coin: 'USDT', currency: 'NGN', rate: 1550 });
    expect(await client.bankPayouts.initiate({ payout_bank_id: bank.id as string, coin: 'USDT', amount: 20 })).toMatchObject({
      fiat_amount: 31000,
      status: 'pending',
    });
    expect((await refusal(client.bankPayouts.initiate({ payout_bank_id: bank.id as string, coin: 'DAI', amount: 1 }))).message).toMatch(
      /swap your DAI to USDT first/,
    );
  });

  it('refunds part of a payment, then the rest, once per idempotency key; reads and lists them; refuses past what arrived', async () => {
    // Balance settlement (the test above): refunds are sent from the balance.
    await client.initializePayment({ reference: 'sdk-5', coin: 'USDT', currency: 'USD', amount: 10 });
    await deposit('sdk-5');
    const paid = await client.verifyPayment('sdk-5');
    const customer = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
    // The amount as the API writes every amount: decimal text of the coin.
    const first = await client.refunds.create(
      { reference: 'sdk-5', amount: '1.5', reason: 'a broken cup', address: customer },
      { idempotencyKey: 'sdk-refund-1' },
    );
    expect(first).toMatchObject({ reference: 'sdk-5', amount: '1.5', amount_base_units: '1500000000000000000', status: 'ready', address: customer });
    expect(
      await client.refunds.create({ reference: 'sdk-5', amount: '1.5', reason: 'a broken cup', address: customer }, { idempotencyKey: 'sdk-refund-1' }),
    ).toEqual(first);
    // The deprecated base units, under their own name: the same amount.
    const old = await client.refunds.create({ reference: 'sdk-5', amountBaseUnits: 500_000_000_000_000_000n, reason: 'an old caller', address: customer });
    expect([old.amount, old.amount_base_units]).toEqual(['0.5', '500000000000000000']);
    const rest = await client.refunds.create({ reference: 'sdk-5', amount: 'rest', reason: 'the rest', address: customer });
    expect(BigInt(first.amount_base_units) + BigInt(old.amount_base_units) + BigInt(rest.amount_base_units)).toBe(
      BigInt(paid.amountPaidExact!.replace('.', '').padEnd(paid.amountPaidExact!.split('.')[0]!.length + 18, '0')),
    );
    expect(await client.refunds.get(first.id)).toEqual(first);
    const page = await client.refunds.list({ reference: 'sdk-5', limit: 1 });
    expect(page.data.map((r) => r.id)).toEqual([rest.id]);
    expect(page.hasMore).toBe(true);
    expect((await client.refunds.list({ reference: 'sdk-5', cursor: page.next! })).data.map((r) => r.id)).toEqual([old.id, first.id]);
    const over = await refusal(client.refunds.create({ reference: 'sdk-5', amount: '1', reason: 'more', address: customer }));
    expect([over.status, over.fields?.[0]?.field]).toEqual([409, 'amount']);
  });

  it('registers its webhook URL', async () => {
    await client.registerWebhook('http://127.0.0.1:9/hook');
    expect((await api.parts.merchants.endpoint({ merchant: DEMO_MERCHANT, mode: 'test' })).url).toBe('http://127.0.0.1:9/hook');
  });
});
