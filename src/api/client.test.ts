import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_MERCHANT } from '../../server/service/seed.ts';
import { startService, type Service } from '../../server/service/app.ts';
import { createApi } from './client.ts';
import { ServiceError } from './errors.ts';
import { retryDelay, withRetry } from './retry.ts';

const key = DEMO_MERCHANT.keys.test.publicKey;
const signal = new AbortController().signal;
let stub: Service;

beforeAll(async () => {
  stub = await startService({ demo: true });
});
afterAll(() => stub.close());

async function rejection(promise: Promise<unknown>): Promise<ServiceError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ServiceError);
  return error as ServiceError;
}

/** A server that answers every request with the given status and raw body. */
async function answering(status: number, body: string, headers: Record<string, string> = {}) {
  const server: Server = createServer((_req, res) => res.writeHead(status, headers).end(body));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, close: () => new Promise((resolve) => server.close(resolve)) };
}

describe('the API client against the stub over HTTP', () => {
  it('lists coins, opens a quote, reads its status and simulates a deposit', async () => {
    const api = createApi(stub.url, key);
    const { coins, business } = await api.coins(signal);
    expect(coins.map((c) => c.symbol)).toEqual(['USDT', 'USDC', 'BUSD', 'DAI']);
    expect(business).toMatchObject({ name: 'Harbour Coffee Roasters' });
    const priced = await api.coins(signal, { amount: '9.20', currency: 'EUR' });
    // What each coin costs, fee included: the same figures the quote below gives USDC.
    expect(priced.coins.find((c) => c.symbol === 'USDC')).toMatchObject({ due: 10, fee: 0 });
    // The quote, read as a payment: the state verify would give, from the first answer.
    const quote = await api.initialize({ reference: 'client-1', coin: 'USDC', currency: 'EUR', amount: '9.20' }, signal);
    expect(quote).toMatchObject({
      reference: 'client-1',
      coin: 'USDC',
      status: 'pending',
      actualAmount: 10,
      amountPaid: 0,
      amountRemaining: 10,
      hash: null,
      feeInCrypto: 0,
      network: 'testnet',
    });
    expect((await api.verify('client-1', signal)).status).toBe('pending');
    const after = await api.deposit('client-1', 'exact', signal);
    expect(after).toMatchObject({ status: 'confirmed', amountPaid: 10, amountRemaining: 0 });
  });

  it('sends the public key in x-api-key and nothing else that identifies the merchant', async () => {
    const before = stub.requests.length;
    await createApi(stub.url, key).coins(signal);
    expect(stub.requests.slice(before)).toEqual(['GET /api/v1/coins']);
  });

  it('turns an API refusal into an error carrying the status, the message and the fields', async () => {
    const bad = await rejection(createApi(stub.url, key).initialize({ reference: 'x', coin: 'USDT', currency: 'USD', amount: 'ten' }, signal));
    expect(bad).toMatchObject({ kind: 'http', status: 400 });
    expect(bad.message).toMatch(/^POST http:\/\/127\.0\.0\.1:\d+\/api\/v1\/transaction\/initialize answered 400: Invalid request body/);
    expect(bad.fields).toEqual([{ field: 'amount', message: expect.stringContaining('received "ten"') }]);
    const unknown = await rejection(createApi(stub.url, 'pk_test_nobody000000').coins(signal));
    expect(unknown).toMatchObject({ kind: 'http', status: 401, message: expect.stringContaining('Unknown public key') });
  });

  it('calls a body that is not JSON, or not the contract, a shape error that names the field', async () => {
    const notJson = await answering(200, '<html>oops</html>');
    expect(await rejection(createApi(notJson.url, key).coins(signal))).toMatchObject({ kind: 'shape', message: expect.stringContaining('not JSON') });
    await notJson.close();
    const wrong = await answering(200, JSON.stringify({ status: 'success', statusCode: 200, data: [{ symbol: 'XYZ' }] }));
    const error = await rejection(createApi(wrong.url, key).coins(signal));
    expect(error.kind).toBe('shape');
    // Names the field and what it expected; what came is not repeated (an answer may hold
    // personal data), and is not said to be nothing either.
    expect(error.message).toContain('data.0.symbol: expected one of BUSD, DAI, USDT, USDC; data.0.name: expected text;');
    await wrong.close();
  });

  it('calls an unreachable API a network error', async () => {
    const gone = await answering(200, '');
    await gone.close();
    expect(await rejection(createApi(gone.url, key).coins(signal))).toMatchObject({ kind: 'network' });
  });

  it('reads Retry-After from a 429', async () => {
    const busy = await answering(429, JSON.stringify({ status: 'error', statusCode: 429, message: 'slow down' }), { 'retry-after': '2' });
    const error = await rejection(createApi(busy.url, key).coins(signal));
    expect(error).toMatchObject({ status: 429, retryAfterMs: 2000 });
    await busy.close();
  });
});

describe('the API clock', () => {
  /** A fetch that answers coins with the given Date header after `delay` ms of our clock. */
  function clocked(dates: string[], clock: { now: number }, delay = 0): typeof fetch {
    return async () => {
      clock.now += delay;
      return new Response(JSON.stringify({ status: 'success', statusCode: 200, data: [] }), { headers: { date: dates.shift()! } });
    };
  }

  it('narrows the skew with each Date header, to within the second the headers allow', async () => {
    const clock = { now: Date.parse('2026-11-22T10:00:00.300Z') };
    const realNow = Date.now;
    Date.now = () => clock.now;
    try {
      // The API is 90.7 s ahead. Its Date headers say whole seconds, truncated.
      const api = createApi('http://api.test', key, clocked(['Sun, 22 Nov 2026 10:01:31 GMT', 'Sun, 22 Nov 2026 10:01:33 GMT'], clock, 0));
      expect(api.now() - clock.now).toBe(0); // nothing known yet
      await api.coins(signal); // at 10:00:00.300 ours, 10:01:31.000 on the API: skew in [90.7 s, 91.7 s]
      expect(api.now() - clock.now).toBe(91_200);
      clock.now = Date.parse('2026-11-22T10:00:02.900Z'); // 10:01:33.6 on the API: header 10:01:33
      await api.coins(signal);
      // Bounds now [90.1 s, 91.1 s] ∩ [90.7 s, 91.7 s] = [90.7 s, 91.1 s].
      expect(api.now() - clock.now).toBe(90_900);
    } finally {
      Date.now = realNow;
    }
  });

  it('starts over when the bounds disagree (a clock was set), and ignores answers without a date', async () => {
    const clock = { now: Date.parse('2026-11-22T10:00:00.000Z') };
    const realNow = Date.now;
    Date.now = () => clock.now;
    try {
      const api = createApi('http://api.test', key, clocked(['Sun, 22 Nov 2026 10:00:00 GMT', 'Sun, 22 Nov 2026 11:00:00 GMT', ''], clock));
      await api.coins(signal);
      expect(api.now() - clock.now).toBe(500);
      await api.coins(signal);
      expect(api.now() - clock.now).toBe(3_600_500);
      await api.coins(signal);
      expect(api.now() - clock.now).toBe(3_600_500);
    } finally {
      Date.now = realNow;
    }
  });

  it("reads the stub API's Date header across origins: the stub exposes it", async () => {
    const response = await fetch(stub.url + '/api/v1/coins', { headers: { 'x-api-key': key, origin: 'http://localhost:1' } });
    expect(response.headers.get('access-control-expose-headers')).toMatch(/\bdate\b.*\bretry-after\b/);
    expect(Math.abs(Date.parse(response.headers.get('date')!) - Date.now())).toBeLessThan(2000);
  });
});

describe('the retry policy', () => {
  const http = (status: number, retryAfterMs?: number) => new ServiceError('http', 'x', status, [], retryAfterMs);

  it.each([
    ['a network fault', new ServiceError('network', 'x'), true],
    ['a 500', http(500), true],
    ['a 503', http(503), true],
    ['a 408', http(408), true],
    ['a 429', http(429), true],
    ['a 400', http(400), false],
    ['a 401', http(401), false],
    ['a 409', http(409), false],
    ['a shape error', new ServiceError('shape', 'x'), true],
    ['an unknown error', new TypeError('x'), false],
  ])('retries %s: %s', (_name, error, retried) => {
    expect(retryDelay(error, 0) !== undefined).toBe(retried);
  });

  it('backs off exponentially with equal jitter, capped, and honours Retry-After', () => {
    const network = new ServiceError('network', 'x');
    expect([0, 1, 2, 3, 10].map((attempt) => retryDelay(network, attempt, () => 1))).toEqual([400, 800, 1600, 3200, 8000]);
    expect([0, 1, 2, 3, 10].map((attempt) => retryDelay(network, attempt, () => 0))).toEqual([200, 400, 800, 1600, 4000]);
    expect(retryDelay(http(429, 5000), 0, () => 0)).toBe(5000);
  });

  it('paces the status checks with the same policy: 3 s steps up to 15 s', () => {
    const network = new ServiceError('network', 'x');
    expect([0, 1, 2, 3].map((attempt) => retryDelay(network, attempt, () => 1, 3000, 15000))).toEqual([3000, 6000, 12000, 15000]);
    expect(retryDelay(http(429, 20_000), 0, () => 0, 3000, 15000)).toBe(20_000);
    expect(retryDelay(http(401), 0, () => 0, 3000, 15000)).toBeUndefined();
  });

  it('stops after the attempts it is given', async () => {
    let calls = 0;
    const failing = () => {
      calls++;
      return Promise.reject(http(503, 0));
    };
    await expect(withRetry(failing, signal, 3)).rejects.toMatchObject({ status: 503 });
    expect(calls).toBe(3);
  });

  it('stops waiting the moment its signal aborts, with the abort as the reason, and tries no more', async () => {
    let calls = 0;
    const stop = new AbortController();
    const failing = () => {
      calls++;
      return Promise.reject(http(503, 60_000)); // a minute's Retry-After: only the abort ends the wait
    };
    const started = Date.now();
    const tried = withRetry(failing, stop.signal);
    setTimeout(() => stop.abort(new Error('left the screen')), 20);
    await expect(tried).rejects.toThrow('left the screen');
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(calls).toBe(1);
    const before = new AbortController();
    before.abort(new Error('already gone'));
    await expect(withRetry(failing, before.signal)).rejects.toMatchObject({ status: 503 }); // aborted before: the error itself
  });
});
