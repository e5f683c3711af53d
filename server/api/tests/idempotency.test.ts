// Issue 38 (first bullet) and issue 33 item 4: a retried request never does its work twice.
// Every write of an account takes an Idempotency-Key (Stripe's semantics): the same key and
// body answer the first answer with its status; another body or endpoint is 409; keys are per
// merchant, mode and credential; kept 24 hours; 5xx are not kept, except where money moved
// may have moved; secrets shown once are never kept. On PGlite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type Service } from '../../service/app.ts';
import { coinOf } from '../../domain/defaults.ts';
import { EXTERNAL, merchantAccount, move } from '../../balances/ledger-rules.ts';
import { DEMO_MERCHANT } from '../../service/seed.ts';
import { databaseOptions, KINDS } from '../../testing/databases.ts';
import { keyedRequest } from '../idempotency.ts';
import { holdAnswersToOpenApi } from '../../testing/conformance.ts';

// Every answer of the API seen here must be one the OpenAPI document allows.
holdAnswersToOpenApi();

const { test: testKeys, live: liveKeys } = DEMO_MERCHANT.keys;
const bank = {
  currency: 'NGN',
  bank_name: 'Access Bank',
  bank_code: '044',
  account_name: 'Ada',
  account_number: '0123456789',
  country: 'nigeria',
  state: 'Lagos',
};

describe.each(KINDS)('Idempotency-Key, on %s', (kind) => {
  let api: Service;
  let clock = Date.parse('2026-11-27T12:00:00Z');
  let n = 0;
  const fresh = () => `key-${kind}-${++n}-${Math.random().toString(36).slice(2)}`;
  beforeAll(async () => {
    api = await startService({ demo: true, ...(await databaseOptions(kind)), jobs: false, now: () => clock, moneyMovesPerMinute: 4 });
  }, 60_000);
  afterAll(() => api?.close());

  async function call(method: string, path: string, body: unknown, key: string | undefined, secret: string = testKeys.secretKey) {
    const response = await fetch(api.url + path, {
      method,
      headers: {
        ...(secret.startsWith('pk_') ? { 'x-api-key': secret } : { authorization: `Bearer ${secret}` }),
        'content-type': 'application/json',
        ...(key === undefined ? {} : { 'idempotency-key': key }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return {
      status: response.status,
      replayed: response.headers.get('idempotent-replayed'),
      retryAfter: response.headers.get('retry-after'),
      body: (await response.json()) as any,
    };
  }
  const banks = async (secret = testKeys.secretKey) => (await call('GET', '/api/v1/bank/payouts', undefined, undefined, secret)).body.data as string[];

  it('answers the first answer again, with its status, for the same key and body; one thing is made', async () => {
    const key = fresh();
    const before = (await banks()).length;
    const first = await call('POST', '/api/v1/bank/payouts', bank, key);
    expect(first.status).toBe(201);
    expect(first.replayed).toBeNull();
    // The same body written another way (keys in another order) is the same request.
    const { currency, ...rest } = bank;
    const again = await call('POST', '/api/v1/bank/payouts', { ...rest, currency }, key);
    expect(again.status).toBe(201);
    expect(again.replayed).toBe('true');
    expect(again.body).toEqual(first.body);
    expect((await banks()).length).toBe(before + 1);
  });

  it('refuses the same key with another body or another endpoint: 409 naming the header', async () => {
    const key = fresh();
    expect((await call('POST', '/api/v1/bank/payouts', bank, key)).status).toBe(201);
    const other = await call('POST', '/api/v1/bank/payouts', { ...bank, account_name: 'Mallory' }, key);
    expect(other.status).toBe(409);
    expect(other.body.message).toMatch(/^Idempotency-Key: .*another body/);
    expect(other.body.errors[0].field).toBe('Idempotency-Key');
    const elsewhere = await call('PUT', '/api/v1/webhook', { url: 'https://shop.example/hooks' }, key);
    expect(elsewhere.status).toBe(409);
    expect(elsewhere.body.message).toMatch(/used .* for POST \/api\/v1\/bank\/payouts, not PUT \/api\/v1\/webhook/);
  });

  it("keeps keys per merchant and mode: the same key elsewhere is another request, never the first one's answer", async () => {
    const key = fresh();
    const test = await call('POST', '/api/v1/bank/payouts', bank, key);
    const liveBefore = (await banks(liveKeys.secretKey)).length;
    const live = await call('POST', '/api/v1/bank/payouts', bank, key, liveKeys.secretKey);
    expect(live.status).toBe(201);
    expect(live.replayed).toBeNull();
    expect(live.body.data.id).not.toBe(test.body.data.id);
    expect((await banks(liveKeys.secretKey)).length).toBe(liveBefore + 1);
    // Another merchant sending the same key and body gets its own bank account, not ours.
    const other = await api.parts.merchants.create({ businessName: `other ${kind}`, businessEmail: `other-${kind}@example.com`, businessLogo: '' }, clock);
    const theirs = await call('POST', '/api/v1/bank/payouts', bank, key, other.keys.test.secretKey);
    expect(theirs.status).toBe(201);
    expect(theirs.replayed).toBeNull();
    expect(theirs.body.data.id).not.toBe(test.body.data.id);
  });

  it('refuses a key too long, not printable, or sent with the public key: 400 naming the header', async () => {
    for (const bad of ['k'.repeat(256), 'a\tb']) {
      const refused = await call('POST', '/api/v1/bank/payouts', bank, bad);
      expect(refused.status).toBe(400);
      expect(refused.body.errors[0].field).toBe('Idempotency-Key');
    }
    expect((await call('POST', '/api/v1/bank/payouts', bank, 'k'.repeat(255))).status).toBe(201);
    const page = await call(
      'POST',
      '/api/v1/transaction/initialize',
      { reference: `pk-${kind}`, coin: 'USDT', currency: 'USD', amount: 5 },
      fresh(),
      testKeys.publicKey,
    );
    expect(page.status).toBe(400);
    expect(page.body.message).toMatch(/^Idempotency-Key: the public key/);
  });

  it('runs one of several requests sent at once with one key; the others wait for it and answer the same', async () => {
    const key = fresh();
    const before = (await banks()).length;
    const answers = await Promise.all([0, 1, 2, 3, 4].map(() => call('POST', '/api/v1/bank/payouts', bank, key)));
    expect(answers.map((a) => a.status)).toEqual([201, 201, 201, 201, 201]);
    expect(answers.filter((a) => a.replayed === null)).toHaveLength(1);
    for (const a of answers) expect(a.body).toEqual(answers[0]!.body);
    expect((await banks()).length).toBe(before + 1);
  });

  it("never keeps a refusal of bad input, the contract's or the handler's: the same key with a bad body, then the good one, runs the good one", async () => {
    clock += 61_000; // a new minute for this merchant's count of money moves
    const reference = `idem-bad-${kind}`;
    expect(
      (await call('POST', '/api/v1/transaction/initialize', { reference, coin: 'USDT', currency: 'USD', amount: 10 }, undefined, testKeys.publicKey)).status,
    ).toBe(201);
    expect((await call('POST', '/api/v1/sandbox/deposit', { reference, kind: 'exact' }, undefined, testKeys.publicKey)).status).toBeLessThan(300);
    const key = fresh();
    const refund = (amount: string) =>
      call('POST', '/api/v1/refunds', { reference, amount, reason: 'a broken cup', address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8' }, key);
    // Refused by the contract, before the handler runs.
    const contract = await refund('-1');
    expect([contract.status, contract.body.errors[0].field, contract.replayed]).toEqual([400, 'amount', null]);
    // Refused by the handler: the coin's decimals are known once the payment is found (USDT here has 18).
    const handler = await refund('0.' + '0'.repeat(18) + '1');
    expect([handler.status, handler.body.errors[0].field, handler.replayed]).toEqual([400, 'amount', null]);
    // The good body with the same key runs: it is not told the key was used for another body.
    const good = await refund('1');
    expect([good.status, good.replayed, good.body.data?.amount], JSON.stringify(good.body)).toEqual([201, null, '1']);
    const again = await refund('1');
    expect([again.status, again.replayed, again.body]).toEqual([201, 'true', good.body]);
    clock += 61_000; // the next test's money moves counted in a minute of their own
  });

  it('does not keep a 5xx of a request that moves no money: a retry runs again', async () => {
    const key = fresh();
    const real = api.parts.bankAccounts.add.bind(api.parts.bankAccounts);
    api.parts.bankAccounts.add = async () => {
      throw new Error('the database went away');
    };
    try {
      expect((await call('POST', '/api/v1/bank/payouts', bank, key)).status).toBe(500);
    } finally {
      api.parts.bankAccounts.add = real;
    }
    const retry = await call('POST', '/api/v1/bank/payouts', bank, key);
    expect(retry.status).toBe(201);
    expect(retry.replayed).toBeNull();
  });

  describe('bank payouts (money)', () => {
    let bankId: string;
    const usdt = coinOf('test', 'USDT')!;
    beforeAll(async () => {
      const owner = { merchant: DEMO_MERCHANT, mode: 'test' as const };
      expect((await call('PUT', '/api/v1/settlement', { settlement: 'balance' }, undefined)).status).toBe(200);
      await api.parts.journal.post(
        api.db,
        { kind: 'sandbox_deposit', ref: `fund-idem-${kind}`, owner, memo: 'a test' },
        move(
          EXTERNAL.sandbox,
          merchantAccount(DEMO_MERCHANT.id, 'test', 'available'),
          usdt.chainId,
          usdt.contractAddress,
          1000n * 10n ** BigInt(usdt.decimals),
        ),
        clock,
      );
      bankId = (await call('POST', '/api/v1/bank/payouts', bank, undefined)).body.data.id;
    });
    const reserved = async () =>
      (await api.parts.journal.balances({ merchant: DEMO_MERCHANT, mode: 'test', via: 'secret' } as never, clock)).find(
        (b) => b.token === usdt.contractAddress.toLowerCase(),
      )!.reserved;
    const payouts = async () =>
      Number((await api.db.query(`SELECT count(*) AS n FROM payouts WHERE merchant_id = $1 AND mode = 'test'`, [DEMO_MERCHANT.id]))[0]!.n);

    // A retried payout answered 409 ("reference exists") without the payout: with its key it answers the payout.
    it('answers a retried payout with the payout, reserving once; without a key its reference is a 409 naming the payout', async () => {
      const key = fresh();
      const body = { payout_bank_id: bankId, coin: 'USDT', amount: 5, reference: `po-${kind}-1` };
      const [before, count] = [await reserved(), await payouts()];
      const first = await call('POST', '/api/v1/bank/payouts/initiate', body, key);
      expect(first.status).toBe(201);
      const again = await call('POST', '/api/v1/bank/payouts/initiate', body, key);
      expect(again).toMatchObject({ status: 201, replayed: 'true' });
      expect(again.body).toEqual(first.body);
      expect(await payouts()).toBe(count + 1);
      expect(await reserved()).toBe(before + 5n * 10n ** BigInt(usdt.decimals));
      const keyless = await call('POST', '/api/v1/bank/payouts/initiate', body, undefined);
      expect(keyless.status).toBe(409);
      expect(keyless.body.message).toContain(first.body.data.id);
    });

    it('keeps an unexpected 500 of a request that moves money: the retry answers it, and never moves the money again', async () => {
      const key = fresh();
      const count = await payouts();
      const real = api.parts.payoutMoves.initiate.bind(api.parts.payoutMoves);
      // The payout is made, then something fails before the answer: whether money moved is not known to the client.
      api.parts.payoutMoves.initiate = async (...args: Parameters<typeof real>) => {
        await real(...args);
        throw new Error('lost after the payout');
      };
      const body = { payout_bank_id: bankId, coin: 'USDT', amount: 2 };
      try {
        expect((await call('POST', '/api/v1/bank/payouts/initiate', body, key)).status).toBe(500);
      } finally {
        api.parts.payoutMoves.initiate = real;
      }
      const retry = await call('POST', '/api/v1/bank/payouts/initiate', body, key);
      expect(retry).toMatchObject({ status: 500, replayed: 'true' });
      expect(await payouts()).toBe(count + 1);
    });

    // A holder that stopped answering (its instance died) holds its key only until its lease runs out.
    it('after a first request cut off: a write that moves no money runs again; one that moves money is refused (409), never run twice', async () => {
      const scope = `${DEMO_MERCHANT.id}/test/key`;
      const [k1, k2] = [fresh(), fresh()];
      const payout = { payout_bank_id: bankId, coin: 'USDT', amount: 1 };
      await api.parts.idempotency.claim(scope, k1, keyedRequest('POST', '/api/v1/bank/payouts', {}, bank, new Map()), 'gone', clock, 15_000, 86_400_000);
      await api.parts.idempotency.claim(
        scope,
        k2,
        keyedRequest('POST', '/api/v1/bank/payouts/initiate', {}, payout, new Map()),
        'gone',
        clock,
        15_000,
        86_400_000,
      );
      clock += 16_000;
      const count = await payouts();
      expect((await call('POST', '/api/v1/bank/payouts', bank, k1)).status).toBe(201);
      const money = await call('POST', '/api/v1/bank/payouts/initiate', payout, k2);
      expect(money.status).toBe(409);
      expect(money.body.message).toMatch(/cut off before it answered, and whether it moved money is not known/);
      expect(await payouts()).toBe(count);
    });

    it("limits a merchant's money-moving requests a minute (429 with Retry-After); a replay is not counted", async () => {
      clock += 120_000; // a new minute for this merchant's count
      const keys = [fresh(), fresh(), fresh(), fresh(), fresh()];
      const body = (i: number) => ({ payout_bank_id: bankId, coin: 'USDT', amount: 1, reference: `rate-${kind}-${i}` });
      for (let i = 0; i < 4; i++) expect((await call('POST', '/api/v1/bank/payouts/initiate', body(i), keys[i])).status).toBe(201);
      // A replay of one of them answers it, not a 429.
      expect(await call('POST', '/api/v1/bank/payouts/initiate', body(0), keys[0])).toMatchObject({ status: 201, replayed: 'true' });
      const fifth = await call('POST', '/api/v1/bank/payouts/initiate', body(4), keys[4]);
      expect(fifth.status).toBe(429);
      expect(Number(fifth.retryAfter)).toBeGreaterThan(0);
      expect(fifth.body.message).toMatch(/withdrawals, swaps, refunds and bank payouts by you/);
      // The refusal is not the request's answer: its key is free, and runs once the minute has passed.
      clock += 61_000;
      expect((await call('POST', '/api/v1/bank/payouts/initiate', body(4), keys[4])).status).toBe(201);
    });
  });

  // Decided: a new secret key is shown once and stored only hashed; keeping it in the clear for
  // 24 hours to answer a replay would undo that. A replay says the roll was done (409).
  it('never keeps a rolled secret key: a replay answers 409 saying the roll was done, and no key is stored', async () => {
    const other = await api.parts.merchants.create({ businessName: `roll ${kind}`, businessEmail: `roll-${kind}@example.com`, businessLogo: '' }, clock);
    const key = fresh();
    const rolled = await call('POST', '/api/v1/keys/roll', { revoke_old_after: 600 }, key, other.keys.test.secretKey);
    expect(rolled.status).toBe(201);
    expect(rolled.body.data.secretKey).toMatch(/^sk_test_/);
    const replay = await call('POST', '/api/v1/keys/roll', { revoke_old_after: 600 }, key, other.keys.test.secretKey);
    expect(replay.status).toBe(409);
    expect(replay.body.message).toMatch(/done at .* secret shown once/);
    const rows = await api.db.query(`SELECT body FROM idempotency_keys`);
    expect(JSON.stringify(rows)).not.toContain(rolled.body.data.secretKey);
    expect(JSON.stringify(rows)).not.toMatch(/sk_(test|live)_/);
  });

  it('keeps a key 24 hours: later, the same key is a new request; the purge removes what is older', async () => {
    const key = fresh();
    const first = await call('POST', '/api/v1/bank/payouts', bank, key);
    clock += 24 * 3_600_000 + 1;
    const later = await call('POST', '/api/v1/bank/payouts', bank, key);
    expect(later.status).toBe(201);
    expect(later.replayed).toBeNull();
    expect(later.body.data.id).not.toBe(first.body.data.id);
    clock += 24 * 3_600_000 + 1;
    expect(await api.parts.idempotency.purge(clock - 24 * 3_600_000)).toBeGreaterThan(0);
    expect(await api.db.query(`SELECT 1 FROM idempotency_keys WHERE created_ms <= $1`, [clock - 24 * 3_600_000])).toEqual([]);
  });
});
