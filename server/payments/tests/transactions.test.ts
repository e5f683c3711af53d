import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_MERCHANT } from '../../service/seed.ts';
import { MAX_BODY_BYTES } from '../../http/body.ts';
import { startService, type Service } from '../../service/app.ts';
import { ErrorBody, paymentVersion, TransactionResponse, VerificationResponse } from '../../../contract/schemas.ts';
import { holdAnswersToOpenApi } from '../../testing/conformance.ts';

// Every answer of the API seen here must be one the OpenAPI document allows.
holdAnswersToOpenApi();

const { test: testKeys, live: liveKeys } = DEMO_MERCHANT.keys;
let clock = Date.parse('2026-11-22T12:00:00Z');
let stub: Service;

beforeAll(async () => {
  stub = await startService({ demo: true, quoteSeconds: 60, now: () => clock });
});
afterAll(() => stub.close());

/** The payment's version, as a long poll's `since` names it: what a status check answers now. */
/** Polls `probe` until it is true; fails after 5 s. */
async function until(probe: () => boolean): Promise<void> {
  const end = Date.now() + 5_000;
  while (!probe()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function versionOf(base: string, reference: string) {
  const response = await fetch(`${base}/api/v1/transaction/verify/${reference}`, { headers: { 'x-api-key': testKeys.publicKey } });
  return encodeURIComponent(paymentVersion((await response.json()).data));
}

async function call(method: string, path: string, body?: unknown, key: string | null = testKeys.publicKey, headers: Record<string, string> = {}) {
  const response = await fetch(stub.url + path, {
    method,
    headers: { ...(key ? { 'x-api-key': key } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, body: await response.json().catch(() => undefined) };
}

const init = (reference: string, extra: Record<string, unknown> = {}) =>
  call('POST', '/api/v1/transaction/initialize', { reference, coin: 'USDT', currency: 'USD', amount: 10, ...extra });

describe('the stub API', () => {
  it('answers CORS preflights from any merchant origin, for the headers the widget sends', async () => {
    const response = await fetch(stub.url + '/api/v1/transaction/initialize', {
      method: 'OPTIONS',
      headers: { origin: 'http://shop.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-api-key' },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('access-control-allow-headers')).toContain('x-api-key');
  });

  it("initializes with the spec's body and answers the payment transaction shape", async () => {
    const { status, body } = await init('stub-1', { customer_name: 'Ada', customer_email: 'ada@example.com', metadata: '{"order":7}' });
    expect(status).toBe(201);
    expect(TransactionResponse.safeParse(body).success).toBe(true);
    expect(body.data).toMatchObject({ cryptoAmount: 10, feeInCrypto: 0, fiatAmount: 10, customerName: 'Ada', acceptPartialPayment: false });
    // Beside the spec's shape, the payment's state as verify gives a page (ours): the checkout
    // reads the quote as a payment. Metadata and the customer object stay with the secret key.
    expect(VerificationResponse.safeParse(body).success).toBe(true);
    expect(body.data).toMatchObject({ status: 'pending', actualAmount: 10, amountPaid: 0, amountRemaining: 10, hash: null });
    // The operator's fee terms and split are the merchant's: not on a page's answer.
    expect(body.data).not.toHaveProperty('fee');
    expect(body.data).not.toHaveProperty('metadata');
    expect(body.data).not.toHaveProperty('customer');
    const server = await call('GET', '/api/v1/transaction/verify/stub-1', undefined, null, { authorization: `Bearer ${testKeys.secretKey}` });
    expect(server.body.data).toMatchObject({ metadata: { order: 7 }, customer: { name: 'Ada', email: 'ada@example.com' } });
  });

  it('answers a page (public key) only what the checkout needs: no name, e-mail or metadata', async () => {
    await init('stub-pii', { customer_name: 'Ada', customer_email: 'ada@example.com', metadata: { order: 8 } });
    const page = await call('GET', '/api/v1/transaction/verify/stub-pii');
    expect(VerificationResponse.safeParse(page.body).success).toBe(true);
    expect(JSON.stringify(page.body)).not.toMatch(/Ada|ada@example|order/);
  });

  it("answers a page's initialize with only the customer that page sent: the one the merchant's server named stays with the secret key", async () => {
    const server = { authorization: `Bearer ${testKeys.secretKey}` };
    const made = await call(
      'POST',
      '/api/v1/transaction/initialize',
      { reference: 'order-pii', coin: 'USDT', currency: 'USD', amount: 50, customer_name: 'Carol', customer_email: 'carol@example.com' },
      null,
      server,
    );
    expect(made.body.data).toMatchObject({ customerName: 'Carol', customerEmail: 'carol@example.com' });
    // Anyone holds the public key and may guess an order number: the same price again, or another coin.
    for (const extra of [{ amount: 50 }, { amount: 50, coin: 'USDC' }]) {
      const page = await init('order-pii', extra);
      expect(page.status).toBeLessThan(300);
      expect(TransactionResponse.safeParse(page.body).success).toBe(true);
      expect(JSON.stringify(page.body)).not.toMatch(/Carol|carol@example/);
    }
  });

  it("never lets a page re-price a payment the merchant's server priced; the coin may change", async () => {
    const server = { authorization: `Bearer ${testKeys.secretKey}` };
    expect(
      (await call('POST', '/api/v1/transaction/initialize', { reference: 'priced-1', coin: 'USDT', currency: 'USD', amount: 250 }, null, server)).status,
    ).toBe(201);
    const cheaper = await init('priced-1', { amount: '0.01' });
    expect(cheaper.status).toBe(409);
    expect(cheaper.body.errors).toEqual([{ field: 'amount', message: expect.stringContaining('250.00 USD') }]);
    expect((await init('priced-1', { amount: 250, currency: 'NGN' })).status).toBe(409);
    const otherCoin = await init('priced-1', { amount: 250, coin: 'USDC' });
    expect(otherCoin.status).toBe(201);
    expect(otherCoin.body.data).toMatchObject({ coin: 'USDC', fiatAmount: 250, cryptoAmount: 250 });
    // Still the server's price after the page's re-quote.
    expect((await init('priced-1', { amount: '0.01', coin: 'USDC' })).status).toBe(409);
  });

  it('lets a page change only the coin of a payment the merchant made, never its customer or metadata', async () => {
    const server = { authorization: `Bearer ${testKeys.secretKey}` };
    const made = {
      reference: 'priced-2',
      coin: 'USDT',
      currency: 'USD',
      amount: 40,
      customer_name: 'Ada',
      customer_email: 'ada@example.com',
      metadata: { order: 41 },
    };
    expect((await call('POST', '/api/v1/transaction/initialize', made, null, server)).status).toBe(201);
    const requoted = await init('priced-2', {
      amount: 40,
      coin: 'USDC',
      customer_name: 'Mallory',
      customer_email: 'mallory@evil.example',
      metadata: { order: 1 },
    });
    expect(requoted.status).toBe(201);
    const seen = await call('GET', '/api/v1/transaction/verify/priced-2', undefined, null, server);
    expect(seen.body.data).toMatchObject({ coin: 'USDC', customer: { name: 'Ada', email: 'ada@example.com' }, metadata: { order: 41 } });
  });

  // Amounts were JSON numbers only, inexact for 18-decimal tokens.
  it("gives the merchant every amount as exact decimal text beside the spec's numbers", async () => {
    const server = { authorization: `Bearer ${testKeys.secretKey}` };
    await call('POST', '/api/v1/transaction/initialize', { reference: 'exact-1', coin: 'USDT', currency: 'USD', amount: '24.50' }, null, server);
    const account = { merchant: (await stub.parts.merchants.byId(DEMO_MERCHANT.id))!, mode: 'test' as const, via: 'secret' as const };
    const payment = await stub.parts.payments.get(account, 'exact-1');
    const report = { type: 'DEPOSIT_TRANSACTION' as const, data: () => ({}) };
    await stub.parts.crediting.credit(
      account,
      'exact-1',
      { chainId: payment.chainId, token: payment.token, txHash: '0x' + '22'.repeat(32), logIndex: 0, amount: (p) => p.due - 1n },
      clock,
      report,
    );
    const merchant = (await call('GET', '/api/v1/transaction/verify/exact-1', undefined, null, server)).body.data;
    expect(merchant).toMatchObject({
      actualAmountExact: '24.5',
      amountPaidExact: '24.499999999999999999',
      amountRemainingExact: '0.000000000000000001',
      feeInCryptoExact: '0',
      fiatAmountExact: '24.50',
      amountPaid: 24.5,
      // No operator's fee unless it sets one (FEE_BPS 0): the merchant receives all of it.
      fee: { bps: 0, bearer: 'customer', amount: '0', merchantAmount: '24.5' },
    });
    const page = (await call('GET', '/api/v1/transaction/verify/exact-1')).body.data;
    expect(Object.keys(page).filter((k) => k.endsWith('Exact'))).toEqual([]);
  });

  it('is idempotent per reference: the same request answers the same transaction', async () => {
    const first = await init('stub-2');
    const again = await init('stub-2');
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual(first.body.data);
  });

  it('re-quotes a reference that has received nothing, at the same address', async () => {
    const first = await init('stub-3');
    const other = await init('stub-3', { coin: 'USDC' });
    expect(other.status).toBe(201);
    expect(other.body.data).toMatchObject({ coin: 'USDC', cryptoAmount: 10, address: first.body.data.address });
  });

  // The same reference at another amount answered 201 and silently re-quoted it.
  it('refuses the same reference at another price, naming the field: a reference is one payment', async () => {
    const server = { authorization: `Bearer ${testKeys.secretKey}` };
    const made = { reference: 'one-price', coin: 'USDT', currency: 'USD', amount: 10 };
    expect((await call('POST', '/api/v1/transaction/initialize', made, null, server)).status).toBe(201);
    for (const [change, field] of [
      [{ amount: 11 }, 'amount'],
      [{ currency: 'EUR' }, 'currency'],
      [{ accept_partial_payment: true }, 'accept_partial_payment'],
    ] as const) {
      const refused = await call('POST', '/api/v1/transaction/initialize', { ...made, ...change }, null, server);
      expect(refused.status).toBe(409);
      expect(refused.body.errors).toEqual([{ field, message: expect.stringContaining('one-price') }]);
    }
    // The same body again stays idempotent (200, the same payment); another coin is still a re-quote.
    expect((await call('POST', '/api/v1/transaction/initialize', made, null, server)).status).toBe(200);
    expect((await call('POST', '/api/v1/transaction/initialize', { ...made, coin: 'USDC' }, null, server)).status).toBe(201);
    expect((await call('GET', '/api/v1/transaction/verify/one-price', undefined, null, server)).body.data).toMatchObject({ coin: 'USDC', fiatAmount: 10 });
  });

  it('never re-quotes a reference that received funds: 409', async () => {
    await init('stub-4');
    await call('POST', '/api/v1/sandbox/deposit', { reference: 'stub-4', kind: 'partial' });
    const again = await init('stub-4', { coin: 'DAI' });
    expect(again.status).toBe(409);
    expect(ErrorBody.safeParse(again.body).success).toBe(true);
    expect(again.body.message).toMatch(/already received 5 USDT/);
  });

  it('tracks deposits: partial, then the rest, then an overpayment is kept, not lost', async () => {
    await init('stub-5');
    const partial = await call('POST', '/api/v1/sandbox/deposit', { reference: 'stub-5', kind: 'partial' });
    expect(partial.body.data).toMatchObject({ status: 'incomplete', amountPaid: 5, amountRemaining: 5 });
    const rest = await call('POST', '/api/v1/sandbox/deposit', { reference: 'stub-5', kind: 'exact' });
    expect(VerificationResponse.safeParse(rest.body).success).toBe(true);
    expect(rest.body.data).toMatchObject({ status: 'confirmed', amountPaid: 10, amountRemaining: 0, hash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    await init('stub-6');
    const over = await call('POST', '/api/v1/sandbox/deposit', { reference: 'stub-6', kind: 'over' });
    expect(over.body.data).toMatchObject({ status: 'confirmed', amountPaid: 11, actualAmount: 10 });
    expect((await call('POST', '/api/v1/sandbox/deposit', { reference: 'stub-6', kind: 'exact' })).status).toBe(409);
  });

  it('settles an accepted partial payment the customer finishes: status settled, told once; nothing else settles', async () => {
    const deposit = (reference: string, kind = 'partial') => call('POST', '/api/v1/sandbox/deposit', { reference, kind });
    const settleIt = (reference: string) => call('POST', `/api/v1/transaction/settle/${reference}`);
    await init('settle-1', { accept_partial_payment: true });
    await deposit('settle-1');
    const first = await settleIt('settle-1');
    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({ status: 'settled', amountPaid: 5, actualAmount: 10 });
    expect((await settleIt('settle-1')).body.data.status).toBe('settled'); // again: answered as it is
    expect((await call('GET', '/api/v1/transaction/verify/settle-1')).body.data.status).toBe('settled');
    const [{ n }] = await stub.db.query<{ n: string }>(
      `SELECT count(*)::text AS n FROM events WHERE body LIKE '%"reference":"settle-1"%' AND body LIKE '%"status":"settled"%'`,
    );
    expect(n).toBe('1');
    expect((await deposit('settle-1', 'exact')).status).toBe(409); // settled takes no more deposits
    await init('settle-2');
    await deposit('settle-2');
    expect((await settleIt('settle-2')).body.message).toMatch(/does not accept partial payments/);
    await init('settle-3', { accept_partial_payment: true });
    expect((await settleIt('settle-3')).status).toBe(409); // nothing received
    expect((await settleIt('never-made')).status).toBe(404);
  });

  it('settles by itself an accepted partial payment whose quote ran out', async () => {
    await init('settle-4', { accept_partial_payment: true });
    await call('POST', '/api/v1/sandbox/deposit', { reference: 'settle-4', kind: 'partial' });
    clock += 61_000;
    const end = Date.now() + 5000;
    let status = '';
    while (Date.now() < end && status !== 'settled') {
      status = (await call('GET', '/api/v1/transaction/verify/settle-4')).body.data.status;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(status).toBe('settled');
  });

  it('expires quotes after the window, and re-quotes them when nothing arrived', async () => {
    await init('stub-7');
    clock += 61_000;
    expect((await call('GET', '/api/v1/transaction/verify/stub-7')).body.data.status).toBe('expired');
    expect((await call('POST', '/api/v1/sandbox/deposit', { reference: 'stub-7', kind: 'exact' })).status).toBe(409);
    const fresh = await init('stub-7');
    expect(fresh.status).toBe(201);
    expect(Date.parse(fresh.body.data.expiresAt)).toBe(clock + 60_000);
  });

  it.each([
    ['no key', null, 401, /Missing x-api-key/],
    ['a secret key', testKeys.secretKey, 401, /secret key was sent to a public endpoint/],
    ['an unknown key', 'pk_test_unknown0000000', 401, /Unknown public key/],
  ])('refuses %s with %i', async (_name, key, status, message) => {
    const response = await call('GET', '/api/v1/coins', undefined, key);
    expect(response.status).toBe(status);
    expect(response.body.message).toMatch(message);
  });

  it('refuses the sandbox to live keys', async () => {
    await call('POST', '/api/v1/transaction/initialize', { reference: 'live-1', coin: 'USDT', currency: 'USD', amount: 1 }, liveKeys.publicKey);
    const response = await call('POST', '/api/v1/sandbox/deposit', { reference: 'live-1', kind: 'exact' }, liveKeys.publicKey);
    expect(response.status).toBe(403);
  });

  it('refuses a coin that is inactive on the network', async () => {
    const response = await call(
      'POST',
      '/api/v1/transaction/initialize',
      { reference: 'live-2', coin: 'BUSD', currency: 'USD', amount: 1 },
      liveKeys.publicKey,
    );
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual([{ field: 'coin', message: expect.stringContaining('BUSD') }]);
  });

  it('validates every body field and names each', async () => {
    const response = await call('POST', '/api/v1/transaction/initialize', {
      reference: 'a b',
      coin: 'XRP',
      currency: 'JPY',
      amount: '1.234',
      accept_partial_payment: 'no',
    });
    expect(response.status).toBe(400);
    expect(response.body.errors.map((e: { field: string }) => e.field)).toEqual(['reference', 'coin', 'currency', 'amount', 'accept_partial_payment']);
  });

  it('refuses bodies that are not JSON (400) or too large (413)', async () => {
    expect((await call('POST', '/api/v1/transaction/initialize', '{nope')).status).toBe(400);
    const big = JSON.stringify({ reference: 'big', coin: 'USDT', currency: 'USD', amount: 1, metadata: { x: 'y'.repeat(MAX_BODY_BYTES) } });
    expect((await call('POST', '/api/v1/transaction/initialize', big)).status).toBe(413);
  });

  it('long poll: answers at once when the status already differs from what the client knows', async () => {
    await init('lp-1');
    const started = Date.now();
    const response = await call('GET', '/api/v1/transaction/verify/lp-1?wait=20&since=incomplete:1:USDT:2026-11-22T12:00:00.000Z');
    expect(Date.now() - started).toBeLessThan(1000);
    expect(response.body.data.status).toBe('pending');
  });

  it('long poll: holds the request until a deposit arrives, then answers with it', async () => {
    await init('lp-2');
    const started = Date.now();
    const held = call('GET', `/api/v1/transaction/verify/lp-2?wait=20&since=${await versionOf(stub.url, 'lp-2')}`);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(stub.parts.changes.waiting).toBe(1);
    await call('POST', '/api/v1/sandbox/deposit', { reference: 'lp-2', kind: 'exact' });
    const response = await held;
    expect(response.body.data.status).toBe('confirmed');
    expect(Date.now() - started).toBeLessThan(5000);
    expect(stub.parts.changes.waiting).toBe(0);
  });

  it('long poll: answers unchanged at the deadline', async () => {
    await init('lp-3');
    const started = Date.now();
    const response = await call('GET', `/api/v1/transaction/verify/lp-3?wait=1&since=${await versionOf(stub.url, 'lp-3')}`);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(response.body.data.status).toBe('pending');
  });

  it('long poll: a re-quote wakes it with the current quote, not the old one', async () => {
    await init('lp-requote');
    const held = call('GET', `/api/v1/transaction/verify/lp-requote?wait=20&since=${await versionOf(stub.url, 'lp-requote')}`);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await init('lp-requote', { coin: 'USDC' });
    const answer = await held;
    expect(answer.body.data).toMatchObject({ coin: 'USDC', status: 'pending' });
  });

  // Anyone with the public key could fill the 20 long polls the merchant's secret key
  // also drew on, so the merchant's own server and other customers got 429.
  it('long poll: a public key holds at most 4 on one payment and 20 in all; the secret key keeps its own; 429 with Retry-After', async () => {
    const gone = new AbortController();
    const hold = async (reference: string, key: Record<string, string> = { 'x-api-key': testKeys.publicKey }) =>
      fetch(stub.url + `/api/v1/transaction/verify/${reference}?wait=20&since=${await versionOf(stub.url, reference)}`, {
        headers: key,
        signal: gone.signal,
      }).catch(() => 'aborted');
    const refs = Array.from({ length: 6 }, (_, i) => `lp-cap-${i}`);
    for (const reference of refs) await init(reference);
    const held = [];
    for (let i = 0; i < 4; i++) held.push(hold(refs[0]));
    await until(() => stub.parts.changes.waiting === 4);
    const samePayment = await call('GET', `/api/v1/transaction/verify/${refs[0]}?wait=20&since=${await versionOf(stub.url, refs[0])}`);
    expect(samePayment.status).toBe(429);
    expect(samePayment.body.message).toMatch(/for this payment \(at most 4\)/);
    expect(Number(samePayment.headers.get('retry-after'))).toBeGreaterThan(0);
    for (const reference of refs.slice(1, 5)) for (let i = 0; i < 4; i++) held.push(hold(reference));
    await until(() => stub.parts.changes.waiting === 20);
    const sameKey = await call('GET', `/api/v1/transaction/verify/${refs[5]}?wait=20&since=${await versionOf(stub.url, refs[5])}`);
    expect(sameKey.status).toBe(429);
    expect(sameKey.body.message).toMatch(/for this public key \(at most 20\)/);
    // The merchant's server, with its secret key, still long-polls, and a plain check answers.
    held.push(hold(refs[5], { authorization: `Bearer ${testKeys.secretKey}` }));
    await until(() => stub.parts.changes.waiting === 21);
    expect((await call('GET', `/api/v1/transaction/verify/${refs[5]}`)).status).toBe(200);
    gone.abort();
    await Promise.all(held);
  });

  it('long poll: the instance holds at most its total, whoever asks', async () => {
    const small = await startService({ demo: true, maxLongPolls: 2, quoteSeconds: 60 });
    try {
      const gone = new AbortController();
      const ask = async (reference: string) => {
        await fetch(small.url + '/api/v1/transaction/initialize', {
          method: 'POST',
          headers: { 'x-api-key': testKeys.publicKey, 'content-type': 'application/json' },
          body: JSON.stringify({ reference, coin: 'USDT', currency: 'USD', amount: 5 }),
        });
        return fetch(small.url + `/api/v1/transaction/verify/${reference}?wait=20&since=${await versionOf(small.url, reference)}`, {
          headers: { 'x-api-key': testKeys.publicKey },
          signal: gone.signal,
        }).catch(() => 'aborted' as const);
      };
      const held = [ask('tot-1'), ask('tot-2')];
      await until(() => small.parts.changes.waiting === 2);
      const third = await ask('tot-3');
      expect(third !== 'aborted' && third.status).toBe(429);
      expect(third !== 'aborted' && (await third.json()).message).toMatch(/on this instance \(at most 2\)/);
      gone.abort();
      await Promise.all(held);
    } finally {
      await small.close();
    }
  });

  it('long poll: lets go of a request whose client went away', async () => {
    await init('lp-4');
    const gone = new AbortController();
    const held = fetch(stub.url + `/api/v1/transaction/verify/lp-4?wait=20&since=${await versionOf(stub.url, 'lp-4')}`, {
      headers: { 'x-api-key': testKeys.publicKey },
      signal: gone.signal,
    }).catch(() => 'aborted');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(stub.parts.changes.waiting).toBe(1);
    gone.abort();
    expect(await held).toBe('aborted');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(stub.parts.changes.waiting).toBe(0);
  });

  it.each([
    ['wait=0&since=pending:0', /wait: expected whole seconds from 1 to 30/],
    ['wait=31&since=pending:0', /wait: expected/],
    ['wait=5', /since: expected a status, amount paid, coin and expiry/],
    ['wait=5&since=pending:0', /since: expected/],
    ['wait=5&since=<script>', /since: expected/],
  ])('long poll: refuses %s', async (query, message) => {
    await init('lp-5');
    const response = await call('GET', `/api/v1/transaction/verify/lp-5?${query}`);
    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(message);
  });

  it('answers a long poll at once when long polling is switched off', async () => {
    const plain = await startService({ demo: true, longPoll: false });
    try {
      const headers = { 'x-api-key': testKeys.publicKey, 'content-type': 'application/json' };
      await fetch(plain.url + '/api/v1/transaction/initialize', {
        method: 'POST',
        headers,
        body: JSON.stringify({ reference: 'p', coin: 'USDT', currency: 'USD', amount: 1 }),
      });
      const started = Date.now();
      const response = await fetch(plain.url + `/api/v1/transaction/verify/p?wait=20&since=${await versionOf(plain.url, 'p')}`, { headers });
      expect(response.status).toBe(200);
      expect(Date.now() - started).toBeLessThan(1000);
    } finally {
      await plain.close();
    }
  });

  it('answers 404 for unknown references and paths, in the error shape', async () => {
    const unknown = await call('GET', '/api/v1/transaction/verify/never-made');
    expect(unknown.status).toBe(404);
    expect(ErrorBody.safeParse(unknown.body).success).toBe(true);
    expect((await call('GET', '/api/v1/nothing')).status).toBe(404);
  });
});
