// Exchange rates: from a provider (an HTTP JSON service, the operator's fixed table,
// a fake), cached with a maximum age; a quote never uses a stale rate (503 naming the
// currency); a coin off its peg is offered as inactive; every payment keeps the rates it was
// quoted at, their source and time, on both databases.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startService, type Service, type ServiceOptions } from '../../service/app.ts';
import { ratesForQuote, rateUnits, RateUnavailable, snapshotFromJson, type RateBook } from '../../domain/rates.ts';
import { Conflict } from '../../domain/errors.ts';
import { quote } from '../../domain/quote.ts';
import { ratesFromJson } from '../config.ts';
import { fixedTable, httpJsonProvider } from '../providers.ts';
import { DEMO_MERCHANT } from '../../service/seed.ts';
import { databaseOptions, KINDS } from '../../testing/databases.ts';
import { FakeRates } from '../../testing/rates.ts';

const { publicKey, secretKey } = DEMO_MERCHANT.keys.test;
const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const clean of cleanups.splice(0).reverse()) await clean();
});

const MINUTE = 60_000;
const policy = { maxAgeMs: 10 * MINUTE, maxDeviationBps: 100 };

describe('the rules of rates', () => {
  const book = (atMs: number): RateBook => ({
    fiat: { NGN: { units: rateUnits('1600')!, source: 'feed', fixed: false, atMs }, EUR: { units: rateUnits('0.9')!, source: 'table', fixed: true, atMs: 0 } },
    coins: {
      USDT: { units: rateUnits('1.005')!, source: 'feed', fixed: false, atMs },
      DAI: { units: rateUnits('0.985')!, source: 'feed', fixed: false, atMs },
    },
  });

  it('prices with fresh rates, the coin at its own dollar price, and names the source and the oldest time', () => {
    const rates = ratesForQuote(book(1000), 'NGN', 'USDT', 1000 + 10 * MINUTE, policy);
    expect(rates).toEqual({ fiatPerCoin: '1608', fiatPerUsd: '1600', usdPerCoin: '1.005', source: 'feed', fixed: false, atMs: 1000 });
    // 1608 NGN is one USDT; with no fee that is all, with a 1% fee the customer bears 1% on top, in integers.
    expect(quote(160_800n, rates.fiatPerCoin, 18, { bps: 0, bearer: 'customer' })).toMatchObject({ due: 1_000_000n, fee: 0n, decimals: 6 });
    expect(quote(160_800n, rates.fiatPerCoin, 18, { bps: 100, bearer: 'customer' })).toMatchObject({ due: 1_010_000n, fee: 10_000n, decimals: 6 });
    // USD needs no fiat rate; a coin with no price source is taken at its peg, and says so.
    expect(ratesForQuote(book(1000), 'USD', 'USDC', 5000, policy)).toMatchObject({ fiatPerCoin: '1', source: 'peg (USDC)', fixed: true });
  });

  it('refuses a stale rate by name; a fixed one never ages', () => {
    const late = 1000 + 10 * MINUTE + 1;
    expect(() => ratesForQuote(book(1000), 'NGN', 'USDC', late, policy)).toThrow(RateUnavailable);
    expect(() => ratesForQuote(book(1000), 'NGN', 'USDC', late, policy)).toThrow(
      /exchange rate for NGN is stale \(fetched 600 s ago from feed; at most 600 s\)/,
    );
    expect(() => ratesForQuote(book(1000), 'USD', 'USDT', late, policy)).toThrow(/exchange rate for USDT is stale/);
    expect(() => ratesForQuote(book(1000), 'GBP', 'USDC', 0, policy)).toThrow(/No exchange rate for GBP/);
    expect(ratesForQuote(book(1000), 'EUR', 'USDC', 10 ** 12, policy)).toMatchObject({ fiatPerCoin: '0.9', fixed: true, source: 'table (EUR) + peg (USDC)' });
  });

  it('refuses a coin more than the allowed deviation off its peg', () => {
    expect(() => ratesForQuote(book(0), 'USD', 'DAI', 0, policy)).toThrow(Conflict);
    expect(() => ratesForQuote(book(0), 'USD', 'DAI', 0, policy)).toThrow(/DAI is off its dollar peg \(0.985 USD from feed; at most 1% away\)/);
    expect(ratesForQuote(book(0), 'USD', 'DAI', 0, { ...policy, maxDeviationBps: 150 }).usdPerCoin).toBe('0.985');
  });

  it('reads rates exactly: decimal text or JSON numbers, rounded half up to 8 decimals, mapped by path', () => {
    expect(rateUnits('1550.123456785')).toBe(155012345679n);
    expect(rateUnits(0.92)).toBe(92_000_000n);
    for (const bad of ['0', '-1', '1e3', 'abc', null, Infinity, {}]) expect(rateUnits(bad)).toBeUndefined();
    const { snapshot, problems } = snapshotFromJson(
      { rates: { EUR: 0.92, NGN: '1600' }, usd: { tether: 1.001 } },
      { fiat: { EUR: 'rates.EUR', NGN: 'rates.NGN', GBP: 'rates.GBP' }, coins: { USDT: 'usd.tether' } },
    );
    expect(snapshot).toEqual({ fiat: { EUR: 92_000_000n, NGN: 160_000_000_000n }, coins: { USDT: 100_100_000n } });
    expect(problems).toEqual(['GBP: no positive number at rates.GBP']);
    // Dollars per unit (1 EUR = 1.25 USD), inverted to units per dollar.
    expect(snapshotFromJson({ EUR: '1.25' }, { fiat: { EUR: 'EUR' }, invertFiat: true }).snapshot.fiat.EUR).toBe(80_000_000n);
  });

  it('RATES_FILE: each wrong field named; the fixed table is explicit', () => {
    expect(() => ratesFromJson({ providers: [] })).toThrow(/RATES_FILE: providers: expected at least one provider/);
    expect(() => ratesFromJson({ maxAgeSeconds: 1, providers: [{ fixed: { fiat: { EUR: '0.9' } } }] })).toThrow(
      /maxAgeSeconds: expected whole seconds from 10 to 604800/,
    );
    expect(() => ratesFromJson({ providers: [{ url: 'https://rates.example/latest' }] })).toThrow(/providers.0: expected "fiat" or "coins"/);
    expect(() => ratesFromJson({ providers: [{ fixed: { fiat: { EUR: 'cheap' } } }] })).toThrow(/RATES_FILE: providers.0/);
    const config = ratesFromJson({
      maxAgeSeconds: 300,
      maxDeviationPercent: 0.5,
      providers: [{ url: 'https://rates.example/latest?key=secret', fiat: { EUR: 'rates.EUR' } }, { fixed: { fiat: { AED: '3.6725' } } }],
    });
    expect(config).toMatchObject({ maxAgeMs: 300_000, maxDeviationBps: 50 });
    expect(config.providers.map((p) => [p.name, p.fixed])).toEqual([
      ['https://rates.example/latest', false],
      ['fixed table (RATES_FILE providers.1)', true],
    ]);
  });
});

async function service(options: ServiceOptions): Promise<Service> {
  const api = await startService({ demo: true, jobs: false, ...options });
  cleanups.push(() => api.close());
  return api;
}

async function call(api: Service, method: string, path: string, body?: unknown, headers: Record<string, string> = { 'x-api-key': publicKey }) {
  const response = await fetch(api.url + path, {
    method,
    headers: { ...headers, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

describe('quotes and the rates they use', { timeout: 30_000 }, () => {
  it('a stale rate asked inside a transaction is fetched again without waiting for its own write to the rate history (PGlite has one connection)', async () => {
    let clock = Date.UTC(2026, 0, 1);
    const fake = new FakeRates(undefined, { USDT: '1', USDC: '0.99', DAI: '1', BUSD: '1' });
    const api = await service({ now: () => clock, rates: { providers: [fake], maxAgeMs: 10 * MINUTE } });
    clock += 10 * MINUTE + 1000;
    fake.coins.USDC = '0.98';
    // A refund reads a coin's dollar rate inside its transaction, as this does.
    const hung = new Promise<never>((_, reject) => setTimeout(() => reject(new Error('the quote waited for its own history write')), 5000));
    const usd = await api.db.transaction(async (tx) => {
      await tx.query('SELECT 1');
      return Promise.race([api.parts.rates.usdPerCoin('USDC'), hung]);
    });
    expect(usd).toBe(rateUnits('0.98'));
    await api.parts.rates.historyWritten;
    const kept = await api.db.query<{ usd_units: string }>(`SELECT usd_units::text FROM rate_history WHERE symbol = 'USDC' ORDER BY fetched_ms`);
    expect(kept.map((r) => r.usd_units)).toEqual([String(rateUnits('0.99')), String(rateUnits('0.98'))]);
  });

  it('a stale rate refuses quotes in its currency with 503 naming it, until the provider answers again; readiness says so', async () => {
    let clock = Date.UTC(2026, 0, 1);
    const fake = new FakeRates();
    const api = await service({ now: () => clock, rates: { providers: [fake], maxAgeMs: 10 * MINUTE } });
    const ngn = await call(api, 'POST', '/api/v1/transaction/initialize', { reference: 'ngn-1', coin: 'USDT', currency: 'NGN', amount: '16000' });
    expect(ngn.status).toBe(201);
    expect(ngn.body.data.actualAmount).toBe(10);
    expect(ngn.body.data.rate).toEqual({ fiatPerCoin: '1600', source: 'fake rates', fixed: false, at: new Date(clock).toISOString() });
    expect((await call(api, 'GET', '/readyz')).status).toBe(200);

    fake.failing = 'provider down';
    fake.fiat.NGN = '1700';
    clock += 10 * MINUTE + 1000;
    const stale = await call(api, 'POST', '/api/v1/transaction/initialize', { reference: 'ngn-2', coin: 'USDT', currency: 'NGN', amount: '16000' });
    expect(stale.status).toBe(503);
    expect(stale.body.message).toMatch(/exchange rate for NGN is stale \(fetched 601 s ago from fake rates; at most 600 s\)/);
    expect((await call(api, 'GET', '/api/v1/coins?amount=100&currency=NGN')).status).toBe(503);
    expect((await call(api, 'GET', '/api/v1/transaction/verify/ngn-2')).status).toBe(404); // nothing was made
    const ready = await call(api, 'GET', '/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body.message).toMatch(/rates: stale or missing: GBP, EUR, AED, NGN/);
    // USD needs no rate, and the coins are still at their (stale) peg: a quote in USD is refused by the coin's price too.
    expect(
      (await call(api, 'POST', '/api/v1/transaction/initialize', { reference: 'usd-1', coin: 'USDT', currency: 'USD', amount: '5' })).body.message,
    ).toMatch(/exchange rate for USDT is stale/);

    fake.failing = undefined;
    clock += 5000; // a stale quote asks the provider again at most every 5 s
    const fresh = await call(api, 'POST', '/api/v1/transaction/initialize', { reference: 'ngn-2', coin: 'USDT', currency: 'NGN', amount: '17000' });
    expect(fresh.status).toBe(201);
    expect(fresh.body.data.rate.fiatPerCoin).toBe('1700');
    expect((await call(api, 'GET', '/readyz')).status).toBe(200);
  });

  it('a coin off its peg is listed inactive and refused; the others are offered and priced at their own price', async () => {
    const fake = new FakeRates(undefined, { USDT: '0.97', USDC: '1.005', DAI: '1', BUSD: '1' });
    const api = await service({ rates: { providers: [fake], maxDeviationBps: 100 } });
    const coins = await call(api, 'GET', '/api/v1/coins?amount=90.45&currency=EUR');
    expect(coins.status).toBe(200);
    const bySymbol = Object.fromEntries(coins.body.data.map((c: { symbol: string }) => [c.symbol, c]));
    expect(bySymbol.USDT.status).toBe('inactive');
    expect(bySymbol.USDT.due).toBeUndefined();
    expect(bySymbol.USDC).toMatchObject({ status: 'active', due: 100, fee: 0 }); // 90.45 EUR / (0.9 × 1.005) = 100 USDC, no fee by default
    expect(coins.body.rate).toMatchObject({ source: 'fake rates', fixed: false });
    const refused = await call(api, 'POST', '/api/v1/transaction/initialize', { reference: 'depeg-1', coin: 'USDT', currency: 'USD', amount: '5' });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toMatch(/coin: expected an active coin, received USDT/);
    fake.coins.USDT = '0.995';
    await api.parts.rates.refresh();
    expect((await call(api, 'POST', '/api/v1/transaction/initialize', { reference: 'depeg-1', coin: 'USDT', currency: 'USD', amount: '5' })).status).toBe(201);
  });

  it("a later provider's rate replaces an earlier one's, whichever answers first", async () => {
    const slow = new FakeRates({ EUR: '0.95', GBP: '0.8' }, {}, 'slow feed');
    const fetchSlowly = slow.fetch.bind(slow);
    slow.fetch = async () => (await new Promise((resolve) => setTimeout(resolve, 200)), fetchSlowly());
    const api = await service({
      rates: { providers: [fixedTable({ fiat: { EUR: '0.9' } }, 'first table'), slow, fixedTable({ fiat: { GBP: '0.7' } }, 'last table')] },
    });
    const eur = await api.parts.rates.forQuote('EUR', 'USDT');
    expect([eur.fiatPerUsd, eur.source]).toEqual(['0.95', 'slow feed (EUR) + peg (USDT)']);
    expect((await api.parts.rates.forQuote('GBP', 'USDT')).fiatPerUsd).toBe('0.7');
  });

  it('the built-in table is marked fixed in every quote', async () => {
    const api = await service({});
    const made = await call(api, 'POST', '/api/v1/transaction/initialize', { reference: 'fixed-1', coin: 'USDT', currency: 'EUR', amount: '9.20' });
    expect(made.status).toBe(201);
    expect(made.body.data.rate).toMatchObject({ fiatPerCoin: '0.92', fixed: true, source: 'built-in fixed table (EUR) + peg (USDT)' });
    expect(made.body.data.actualAmount).toBe(10);
  });
});

describe('an HTTP JSON provider', { timeout: 30_000 }, () => {
  async function feed(): Promise<{ url: string; answer: { status: number; body: string }; hits: string[] }> {
    const state = {
      answer: { status: 200, body: JSON.stringify({ base: 'USD', rates: { EUR: 0.9, GBP: 0.8, AED: 3.6725, NGN: 1600.5 } }) },
      hits: [] as string[],
    };
    const server: Server = createServer((req, res) => {
      state.hits.push(req.url ?? '');
      res.writeHead(state.answer.status, { 'content-type': 'application/json' }).end(state.answer.body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => server.close(resolve)));
    return Object.assign(state, { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/latest?app_id=secret-app-id` });
  }

  it('prices with what the service answers, read through the mapping; a failing or malformed answer leaves the rates to age', async () => {
    const rates = await feed();
    let clock = Date.UTC(2026, 0, 1);
    const provider = httpJsonProvider(rates.url, { fiat: { EUR: 'rates.EUR', GBP: 'rates.GBP', AED: 'rates.AED', NGN: 'rates.NGN' } });
    expect(provider.name).not.toContain('secret-app-id');
    const api = await service({
      now: () => clock,
      rates: { providers: [provider, fixedTable({ coins: { USDT: '1' } }, 'operator coins')], maxAgeMs: 5 * MINUTE },
    });
    expect(rates.hits).toEqual(['/latest?app_id=secret-app-id']);
    const made = await call(
      api,
      'POST',
      '/api/v1/transaction/initialize',
      { reference: 'http-1', coin: 'USDT', currency: 'NGN', amount: '1600.50' },
      { authorization: `Bearer ${secretKey}` },
    );
    expect(made.status).toBe(201);
    expect(made.body.data.rate).toMatchObject({ fiatPerCoin: '1600.5', fixed: false, source: `${rates.url.split('?')[0]} (NGN) + operator coins (USDT)` });
    expect(made.body.data.actualAmount).toBe(1);

    for (const answer of [
      { status: 500, body: '{}' },
      { status: 200, body: '<html>' },
      { status: 200, body: JSON.stringify({ rates: { EUR: 0.9 } }) },
    ]) {
      rates.answer = answer;
      clock += 6 * MINUTE;
      const refused = await call(api, 'POST', '/api/v1/transaction/initialize', { reference: 'http-2', coin: 'USDT', currency: 'NGN', amount: '10' });
      expect(refused.status, answer.body).toBe(503);
      expect(refused.body.message).toMatch(/exchange rate for NGN is stale/);
    }
    expect(api.parts.rates.failures.get(provider.name)).toBe(3);
  });
});

describe.each(KINDS)('rates kept with each payment, on %s', (kind) => {
  it('stores the rates, their source, whether fixed, and when; a re-quote replaces them', { timeout: 60_000 }, async () => {
    let clock = Date.UTC(2026, 0, 1, 12);
    const fake = new FakeRates({ EUR: '0.9' }, { USDC: '1.002' });
    const api = await service({ ...(await databaseOptions(kind)), now: () => clock, rates: { providers: [fake] } });
    await call(api, 'POST', '/api/v1/transaction/initialize', { reference: 'kept-1', coin: 'USDC', currency: 'EUR', amount: '9.00' });
    const account = { merchant: DEMO_MERCHANT, mode: 'test' as const };
    expect((await api.parts.payments.get(account, 'kept-1')).rates).toEqual({
      fiatPerCoin: '0.9018',
      fiatPerUsd: '0.9',
      usdPerCoin: '1.002',
      source: 'fake rates',
      fixed: false,
      atMs: clock,
    });
    const [row] = await api.db.query('SELECT fiat_rate, rates, rate_source, rate_fixed, rates_ms FROM payments WHERE reference = $1', ['kept-1']);
    expect({ ...row, rates_ms: String(row.rates_ms) }).toEqual({
      fiat_rate: '0.9018',
      rates: { fiatPerUsd: '0.9', usdPerCoin: '1.002' },
      rate_source: 'fake rates',
      rate_fixed: false,
      rates_ms: String(clock),
    });

    fake.fiat.EUR = '0.95';
    clock += MINUTE;
    await api.parts.rates.refresh();
    await call(api, 'POST', '/api/v1/transaction/initialize', { reference: 'kept-1', coin: 'USDT', currency: 'EUR', amount: '9.00' });
    expect((await api.parts.payments.get(account, 'kept-1')).rates).toMatchObject({
      fiatPerUsd: '0.95',
      usdPerCoin: '1',
      source: 'fake rates (EUR) + peg (USDT)',
      atMs: clock,
    });
  });
});
