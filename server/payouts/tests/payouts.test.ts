// Contract tests for bank payouts: each endpoint, valid and invalid, secret key only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REQUIRED_FIELDS } from '../../../contract/payouts.ts';
import { ErrorBody } from '../../../contract/schemas.ts';
import { DEMO_MERCHANT } from '../../service/seed.ts';
import { startService, type Service } from '../../service/app.ts';
import { holdAnswersToOpenApi } from '../../testing/conformance.ts';
import { FakeRates } from '../../testing/rates.ts';

// Every answer of the API seen here must be one the OpenAPI document allows.
holdAnswersToOpenApi();

const { publicKey, secretKey } = DEMO_MERCHANT.keys.test;
let api: Service;
beforeAll(async () => {
  api = await startService({ demo: true });
  // Payouts draw on money the service holds: the demo merchant's test payments settle to a balance.
  expect((await call('PUT', '/api/v1/settlement', { settlement: 'balance' })).status).toBe(200);
});
afterAll(() => api.close());

async function call(method: string, path: string, body?: unknown, key = secretKey) {
  const headers: Record<string, string> = key.startsWith('sk_') ? { authorization: `Bearer ${key}` } : { 'x-api-key': key };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(api.url + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: response.status, body: await response.json() };
}

const ACCOUNTS = {
  USD: {
    bank_name: 'JPMorgan Chase Bank',
    account_name: 'Harbour Coffee LLC',
    account_number: '000123456789',
    currency: 'USD',
    country: 'united states',
    account_type: 'personal',
    routing_number: '021000021',
    city: 'Brooklyn',
    state: 'NY',
    address: '12 Water St',
    postal_code: '11201',
  },
  NGN: {
    bank_name: 'Access Bank',
    bank_code: '044',
    account_name: 'Harbour Coffee Ltd',
    account_number: '0690000031',
    currency: 'NGN',
    country: 'nigeria',
    state: 'Lagos',
    default: true,
  },
  GHS: {
    bank_name: 'GCB Bank',
    bank_code: 'GH040100',
    account_name: 'Harbour Coffee GH',
    account_number: '1234567890',
    currency: 'GHS',
    country: 'ghana',
    city: 'Accra',
    address: '5 Independence Ave',
    street: 'Independence Ave',
    postal_code: 'GA-123',
  },
} as const;

describe('registering bank accounts', () => {
  it.each(Object.keys(ACCOUNTS) as Array<keyof typeof ACCOUNTS>)('adds a %s account with the fields the spec requires for it', async (currency) => {
    const { status, body } = await call('POST', '/api/v1/bank/payouts', ACCOUNTS[currency]);
    expect(status).toBe(201);
    expect(body.data).toMatchObject({ id: expect.any(String), currency, account_number: ACCOUNTS[currency].account_number });
  });

  const cases = (Object.keys(REQUIRED_FIELDS) as Array<keyof typeof ACCOUNTS>).flatMap((currency) =>
    REQUIRED_FIELDS[currency].map((field) => [currency, field] as const),
  );
  it.each(cases)('refuses a %s account without %s, naming it', async (currency, field) => {
    const body: Record<string, unknown> = { ...ACCOUNTS[currency] };
    delete body[field];
    const response = await call('POST', '/api/v1/bank/payouts', body);
    expect(response.status).toBe(400);
    expect(ErrorBody.safeParse(response.body).success).toBe(true);
    expect(response.body.errors).toContainEqual({ field, message: `expected ${field} for a ${currency} payout, received nothing` });
  });

  it.each([
    ['a field another currency uses', { ...ACCOUNTS.NGN, routing_number: '021000021' }, 'routing_number'],
    ['a country that does not match the currency', { ...ACCOUNTS.NGN, country: 'ghana' }, 'country'],
    ['a country in capitals', { ...ACCOUNTS.NGN, country: 'Nigeria' }, 'country'],
    ['a bank code of no bank there', { ...ACCOUNTS.NGN, bank_code: '999' }, 'bank_code'],
    ['an unsupported currency', { ...ACCOUNTS.NGN, currency: 'EUR' }, 'currency'],
    ['a number for a text field', { ...ACCOUNTS.NGN, account_number: 690000031 }, 'account_number'],
  ])('refuses %s', async (_name, body, field) => {
    const response = await call('POST', '/api/v1/bank/payouts', body);
    expect(response.status).toBe(400);
    expect(response.body.errors.map((e: { field: string }) => e.field)).toContain(field);
  });
});

describe('managing them', () => {
  it('lists ids, reads one, updates it, and deletes by ids all-or-nothing', async () => {
    const a = (await call('POST', '/api/v1/bank/payouts', ACCOUNTS.NGN)).body.data;
    const b = (await call('POST', '/api/v1/bank/payouts', ACCOUNTS.GHS)).body.data;
    const list = await call('GET', '/api/v1/bank/payouts');
    expect(list.body.data).toEqual(expect.arrayContaining([a.id, b.id]));
    expect((await call('GET', `/api/v1/bank/payouts/${a.id}`)).body.data).toMatchObject({ id: a.id, bank_code: '044' });
    const patched = await call('PATCH', `/api/v1/bank/payouts/${b.id}`, { city: 'Kumasi' });
    expect(patched.body.data).toMatchObject({ city: 'Kumasi', currency: 'GHS' });
    expect((await call('PATCH', `/api/v1/bank/payouts/${b.id}`, { country: 'nigeria' })).status).toBe(400);
    expect((await call('DELETE', '/api/v1/bank/payouts', { ids: [a.id, 'no-such-id'] })).status).toBe(404);
    expect((await call('GET', `/api/v1/bank/payouts/${a.id}`)).status).toBe(200); // nothing deleted
    expect((await call('DELETE', '/api/v1/bank/payouts', { ids: [a.id, b.id] })).body.data).toEqual({ deleted: [a.id, b.id] });
    expect((await call('GET', `/api/v1/bank/payouts/${a.id}`)).status).toBe(404);
    expect((await call('DELETE', '/api/v1/bank/payouts', { ids: [] })).status).toBe(400);
  });

  it('answers countries, currencies, banks of a country and the rate', async () => {
    expect((await call('GET', '/api/v1/bank/payouts/countries')).body.data).toContainEqual({ country: 'nigeria', currency: 'NGN' });
    expect((await call('GET', '/api/v1/bank/payouts/currencies')).body.data).toEqual(['USD', 'NGN', 'GHS']);
    expect((await call('GET', '/api/v1/bank?country=nigeria')).body.data).toContainEqual({ name: 'Access Bank', code: '044' });
    expect((await call('GET', '/api/v1/bank?country=atlantis')).status).toBe(400);
    expect((await call('GET', '/api/v1/bank/payouts/rate?coin=USDT&currency=NGN')).body.data).toEqual({ coin: 'USDT', currency: 'NGN', rate: 1550 });
    const bad = await call('GET', '/api/v1/bank/payouts/rate?coin=XRP&currency=JPY');
    expect(bad.body.errors.map((e: { field: string }) => e.field)).toEqual(['coin', 'currency']);
  });

  it('takes secret keys only: a public key gets 401 on every bank endpoint', async () => {
    for (const [method, path] of [
      ['GET', '/api/v1/bank/payouts'],
      ['POST', '/api/v1/bank/payouts'],
      ['GET', '/api/v1/bank?country=ghana'],
      ['POST', '/api/v1/bank/payouts/initiate'],
    ]) {
      expect((await call(method, path, method === 'POST' ? {} : undefined, publicKey)).status).toBe(401);
    }
  });
});

describe('initiating a payout', () => {
  // A merchant on wallet settlement holds its own money; the service has none to pay out.
  it('answers 409 on wallet settlement (the default), saying it needs balance settlement', async () => {
    const other = await api.parts.merchants.create({ businessName: 'Wallet Co', businessEmail: 'w@example.com', businessLogo: '' }, Date.now());
    const key = other.keys.test.secretKey;
    expect((await call('GET', '/api/v1/settlement', undefined, key)).body.data).toEqual({ settlement: 'wallet' });
    const bank = (await call('POST', '/api/v1/bank/payouts', ACCOUNTS.NGN, key)).body.data;
    const refused = await call('POST', '/api/v1/bank/payouts/initiate', { payout_bank_id: bank.id, coin: 'USDT', amount: 1 }, key);
    expect(refused.status).toBe(409);
    expect(refused.body.message).toMatch(/need balance settlement.*PUT \/api\/v1\/settlement/);
    expect((await call('POST', '/api/v1/swaps/quote', { from: 'USDC', to: 'USDT', amount: '1' }, key)).status).toBe(409);
  });

  // Live keys got the sandbox's payout provider, which reports payouts paid.
  it("refuses live payouts while the service has only the sandbox's provider", async () => {
    const liveKey = DEMO_MERCHANT.keys.live.secretKey;
    const bank = (await call('POST', '/api/v1/bank/payouts', ACCOUNTS.NGN, liveKey)).body.data;
    const refused = await call('POST', '/api/v1/bank/payouts/initiate', { payout_bank_id: bank.id, coin: 'USDT', amount: 1 }, liveKey);
    expect(refused.status).toBe(409);
    expect(refused.body.message).toMatch(/no payout provider configured/);
  });

  it('pays out USDT up to the balance that payments built up, keeping reference and metadata', async () => {
    const bank = (await call('POST', '/api/v1/bank/payouts', ACCOUNTS.NGN)).body.data;
    const initiate = (body: Record<string, unknown>) => call('POST', '/api/v1/bank/payouts/initiate', { payout_bank_id: bank.id, coin: 'USDT', ...body });
    const none = await initiate({ amount: 1 });
    expect(none.status).toBe(409);
    expect(none.body.message).toMatch(/more than the balance of 0 USDT/);

    // A customer pays 10 USD in USDT: 10 USDT (no operator's fee by default).
    const pay = (path: string, body: unknown) => call('POST', path, body, publicKey);
    await pay('/api/v1/transaction/initialize', { reference: 'payout-src', coin: 'USDT', currency: 'USD', amount: 10 });
    await pay('/api/v1/sandbox/deposit', { reference: 'payout-src', kind: 'exact' });

    const done = await initiate({ amount: 4.5, reference: 'po-1', metadata: { invoice: 77 } });
    expect(done.status).toBe(201);
    expect(done.body.data).toMatchObject({
      coin: 'USDT',
      amount: 4.5,
      currency: 'NGN',
      fiat_amount: 6975,
      reference: 'po-1',
      metadata: { invoice: 77 },
      status: 'pending',
    });
    expect((await initiate({ amount: 5.51 })).body.message).toMatch(/more than the balance of 5.5 USDT/);
    expect((await initiate({ amount: 5.5, reference: 'po-1' })).status).toBe(409);
    expect((await initiate({ amount: 5.5 })).status).toBe(201);
  });

  // The payout rate is the rate provider's (RATES_FILE), as quotes' are; the table only where no provider prices the currency (GHS).
  it("answers the rate, and pays out at it, from the service's rate provider", async () => {
    const rates = new FakeRates({ NGN: '1612.5' }, { USDT: '0.999' });
    const priced = await startService({ demo: true, rates: { providers: [rates] } });
    try {
      const at = (path: string, body?: unknown) =>
        fetch(priced.url + path, {
          method: body ? 'POST' : 'GET',
          headers: { authorization: `Bearer ${secretKey}`, 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        }).then(async (r) => ({ status: r.status, body: await r.json() }));
      expect((await at('/api/v1/bank/payouts/rate?coin=USDT&currency=NGN')).body.data).toEqual({ coin: 'USDT', currency: 'NGN', rate: 1610.8875 });
      expect((await at('/api/v1/bank/payouts/rate?coin=USDT&currency=GHS')).body.data.rate).toBe(15.4);
      await fetch(priced.url + '/api/v1/settlement', {
        method: 'PUT',
        headers: { authorization: `Bearer ${secretKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ settlement: 'balance' }),
      });
      await fetch(priced.url + '/api/v1/transaction/initialize', {
        method: 'POST',
        headers: { 'x-api-key': publicKey, 'content-type': 'application/json' },
        body: JSON.stringify({ reference: 'rated', coin: 'USDT', currency: 'USD', amount: 10 }),
      });
      await fetch(priced.url + '/api/v1/sandbox/deposit', {
        method: 'POST',
        headers: { 'x-api-key': publicKey, 'content-type': 'application/json' },
        body: JSON.stringify({ reference: 'rated', kind: 'exact' }),
      });
      const bank = (await at('/api/v1/bank/payouts', ACCOUNTS.NGN)).body.data;
      const payout = await at('/api/v1/bank/payouts/initiate', { payout_bank_id: bank.id, coin: 'USDT', amount: 2 });
      expect(payout.body.data.fiat_amount).toBe(3221.77); // 2 × 1,610.8875, rounded down to the kobo
    } finally {
      await priced.close();
    }
  });

  it.each([
    ['another coin', { coin: 'BUSD', amount: 1 }, /only USDT is paid out, so swap your BUSD to USDT first/],
    ['no amount', { coin: 'USDT' }, /amount: expected an amount greater than 0/],
    ['a negative amount', { coin: 'USDT', amount: -1 }, /amount: expected an amount greater than 0/],
    ['too many decimals', { coin: 'USDT', amount: 0.0000001 }, /at most 6 decimal places/],
    ['an unknown bank payout', { coin: 'USDT', amount: 1, payout_bank_id: 'nope' }, /No bank payout nope/],
  ])('refuses %s', async (_name, body, message) => {
    const bank = (await call('POST', '/api/v1/bank/payouts', ACCOUNTS.USD)).body.data;
    const response = await call('POST', '/api/v1/bank/payouts/initiate', { payout_bank_id: bank.id, ...body });
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(response.body.message).toMatch(message);
  });
});
