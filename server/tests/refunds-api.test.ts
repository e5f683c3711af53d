// Issue 35, refunds through the API without a chain (the sandbox's simulated coins, balance
// settlement): the rules each refused naming the field with its code, the list and one refund,
// an Idempotency-Key's retry refunding once, and two refunds at once, on two instances sharing
// one PostgreSQL (two requests to one instance on PGlite, which one process owns), never adding
// up to more than arrived. On PGlite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getAddress } from 'viem';
import { startService, type Service } from '../app.ts';
import { DEMO_MERCHANT } from '../seed.ts';
import { databaseOptions, KINDS } from '../testing/databases.ts';
import { finishWithdrawal } from '../balances/use-cases.ts';
import { followSending } from '../refunds/use-cases.ts';
import { refundView } from '../refunds/views.ts';

const { publicKey, secretKey } = DEMO_MERCHANT.keys.test;
const customer = '0x' + 'c0'.repeat(20);

describe.each(KINDS)('refunds through the API, on %s', { timeout: 60_000 }, (kind) => {
  let a: Service;
  let b: Service;
  beforeAll(async () => {
    const options = { demo: true, ...(await databaseOptions(kind)), jobs: false };
    a = await startService(options);
    b = kind === 'postgres' ? await startService({ ...options, instance: 'second' }) : a;
  }, 60_000);
  afterAll(async () => {
    if (b !== a) await b?.close();
    await a?.close();
  });

  const call = async (api: Service, method: string, path: string, body?: unknown, key = secretKey, idempotencyKey?: string) => {
    const response = await fetch(api.url + path, {
      method,
      headers: { ...(key.startsWith('sk_') ? { authorization: `Bearer ${key}` } : { 'x-api-key': key }), 'content-type': 'application/json', ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as any };
  };
  /** A USDT payment of `amount` US dollars, paid by the sandbox as `kind` says: its reference and the amount that arrived, in base units. */
  let n = 0;
  const paid = async (how: 'exact' | 'over' | 'none', amount = 10) => {
    const reference = `r-${kind}-${++n}`;
    expect((await call(a, 'POST', '/api/v1/transaction/initialize', { reference, coin: 'USDT', currency: 'USD', amount }, publicKey)).status).toBe(201);
    if (how !== 'none') expect((await call(a, 'POST', '/api/v1/sandbox/deposit', { reference, kind: how }, publicKey)).status).toBeLessThan(300);
    const detail = (await call(a, 'GET', `/api/v1/payments/${reference}`)).body.data;
    const decimals = 18;
    const arrived = BigInt(Math.round(Number(detail.payment.amountPaidExact) * 1e6)) * 10n ** BigInt(decimals - 6);
    return { reference, arrived, address: detail.payment.address as string };
  };

  it('balance settlement first: refunds are sent from the balance', async () => {
    expect((await call(a, 'PUT', '/api/v1/settlement', { settlement: 'balance' })).status).toBe(200);
  });

  it('refuses, naming the field with its code: nothing received, past what arrived, a deposit address, the other mode\'s payment, another merchant\'s, bad input', async () => {
    const empty = await paid('none');
    const nothing = await call(a, 'POST', '/api/v1/refunds', { reference: empty.reference, amount: 'rest', reason: 'changed my mind', address: customer });
    expect([nothing.status, nothing.body.code, nothing.body.errors[0].field]).toEqual([409, 'nothing_received', 'reference']);

    const p = await paid('exact');
    const over = await call(a, 'POST', '/api/v1/refunds', { reference: p.reference, amount: String(p.arrived + 1n), reason: 'too much', address: customer });
    expect([over.status, over.body.code, over.body.errors[0].field]).toEqual([409, 'refund_exceeds_received', 'amount']);
    expect(over.body.errors[0].message).toContain(`at most ${p.arrived} base units`);

    // Any deposit address of the service (this payment's, another's), in any case.
    for (const address of [p.address, empty.address.toLowerCase()]) {
      const deposit = await call(a, 'POST', '/api/v1/refunds', { reference: p.reference, amount: 'rest', reason: 'r', address });
      expect([deposit.status, deposit.body.code, deposit.body.errors[0].field]).toEqual([400, 'validation_failed', 'address']);
    }
    // The other mode's key: a live key naming a test payment (and so a test key a live one).
    const live = await call(a, 'POST', '/api/v1/refunds', { reference: p.reference, amount: 'rest', reason: 'r', address: customer }, DEMO_MERCHANT.keys.live.secretKey);
    expect([live.status, live.body.code, live.body.errors[0].field]).toEqual([409, 'wrong_mode', 'reference']);
    // Another merchant's payment is not found, and says nothing of it.
    const other = await a.parts.merchants.create({ businessName: 'Other', businessEmail: `other-${kind}@example.com`, businessLogo: '' }, Date.now());
    const theirs = await call(a, 'POST', '/api/v1/refunds', { reference: p.reference, amount: 'rest', reason: 'r', address: customer }, other.keys.test.secretKey);
    expect([theirs.status, theirs.body.code]).toEqual([404, 'not_found']);
    expect(JSON.stringify(theirs.body)).not.toMatch(/wrong_mode|received/);
    // Bad input, each field named.
    const bad = await call(a, 'POST', '/api/v1/refunds', { reference: p.reference, amount: '1.5', reason: '', address: '0x12' });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['address', 'amount', 'reason']);
    const checksum = await call(a, 'POST', '/api/v1/refunds', { reference: p.reference, amount: 'rest', reason: 'r', address: '0x' + 'aB'.repeat(20) });
    expect([checksum.status, checksum.body.errors[0].field]).toEqual([400, 'address']);
    // Nothing was reserved by any of them.
    expect(await a.db.query(`SELECT id FROM refunds`)).toEqual([]);
  });

  it('a partial refund, then the rest: the payment shows partly refunded, then refunded; the list and one refund answer them; a retried request refunds once', async () => {
    const p = await paid('exact');
    const third = p.arrived / 3n;
    const first = await call(a, 'POST', '/api/v1/refunds', { reference: p.reference, amount: String(third), reason: 'one bag was broken', address: customer }, secretKey, `partial-${kind}`);
    expect(first.status).toBe(201);
    expect(first.body.data).toMatchObject({ reference: p.reference, amount: String(third), status: 'ready', settlement: 'balance', coin: 'USDT', address: getAddress(customer), tx_hash: null });
    const again = await call(b, 'POST', '/api/v1/refunds', { reference: p.reference, amount: String(third), reason: 'one bag was broken', address: customer }, secretKey, `partial-${kind}`);
    expect(again.body).toEqual(first.body);
    let detail = (await call(a, 'GET', `/api/v1/payments/${p.reference}`)).body.data;
    expect(detail.refunds).toEqual({ status: 'partly_refunded', amount: String(third), amount_exact: expect.any(String) });
    expect(detail.timeline.filter((s: { eventType?: string }) => s.eventType === 'REFUND_UPDATED')).toHaveLength(1);

    const rest = await call(a, 'POST', '/api/v1/refunds', { reference: p.reference, amount: 'rest', reason: 'all of it', address: customer });
    expect(rest.status).toBe(201);
    expect(rest.body.data.amount).toBe(String(p.arrived - third));
    detail = (await call(a, 'GET', `/api/v1/payments/${p.reference}`)).body.data;
    expect(detail.refunds.status).toBe('refunded');
    const more = await call(a, 'POST', '/api/v1/refunds', { reference: p.reference, amount: '1', reason: 'more', address: customer });
    expect([more.status, more.body.code]).toEqual([409, 'refund_exceeds_received']);

    // The journal: each refund reserved from the balance, and handed to the treasury.
    const reserved = await a.db.query<{ ref: string }>(`SELECT ref FROM journal_entries WHERE kind = 'withdrawal_reserved' AND ref IN ($1, $2)`, [first.body.data.id, rest.body.data.id]);
    expect(reserved).toHaveLength(2);

    const one = await call(a, 'GET', `/api/v1/refunds/${first.body.data.id}`);
    expect(one.body.data).toEqual(first.body.data);
    const byRef = await call(a, 'GET', `/api/v1/refunds?reference=${p.reference}&limit=1`);
    expect(byRef.body.data.map((r: { id: string }) => r.id)).toEqual([rest.body.data.id]);
    const page2 = await call(a, 'GET', `/api/v1/refunds?reference=${p.reference}&limit=1&cursor=${byRef.body.next}`);
    expect(page2.body.data.map((r: { id: string }) => r.id)).toEqual([first.body.data.id]);
    expect(page2.body.next).toBeNull();
    expect((await call(a, 'GET', `/api/v1/refunds?status=confirmed&reference=${p.reference}`)).body.data).toEqual([]);
    // Another merchant does not see it.
    const other = await a.parts.merchants.create({ businessName: 'Other 2', businessEmail: `other2-${kind}@example.com`, businessLogo: '' }, Date.now());
    expect((await call(a, 'GET', `/api/v1/refunds/${first.body.data.id}`, undefined, other.keys.test.secretKey)).status).toBe(404);
  });

  it('a refund whose transaction failed: failed, told, its amount back in the balance, and refundable again', async () => {
    const p = await paid('exact');
    const asked = await call(a, 'POST', '/api/v1/refunds', { reference: p.reference, amount: 'rest', reason: 'to fail', address: customer });
    expect(asked.status).toBe(201);
    const id = asked.body.data.id as string;
    // The treasury's path decides it (as its job does on a reverted transaction); the refund follows.
    await finishWithdrawal(a.parts.balanceTransactions, id, { failure: 'reverted' }, Date.now(), () => ({}));
    expect((await followSending(a.parts.refunds, Date.now(), refundView)).map((r) => [r.id, r.state])).toEqual([[id, 'failed']]);
    expect(await followSending(a.parts.refunds, Date.now(), refundView)).toEqual([]);
    expect((await call(a, 'GET', `/api/v1/refunds/${id}`)).body.data).toMatchObject({ status: 'failed', failure: 'reverted' });
    const kinds = await a.db.query<{ kind: string }>(`SELECT kind FROM journal_entries WHERE ref = $1 ORDER BY id`, [id]);
    expect(kinds.map((k) => k.kind)).toEqual(['withdrawal_reserved', 'withdrawal_returned']);
    const told = (await a.db.query<{ body: string }>(`SELECT body FROM events WHERE type = 'REFUND_UPDATED' ORDER BY seq`)).map((e) => JSON.parse(e.body).data).filter((d: { id: string }) => d.id === id);
    expect(told.map((d: { status: string }) => d.status)).toEqual(['ready', 'failed']);
    expect((await call(a, 'GET', `/api/v1/payments/${p.reference}`)).body.data.refunds.status).toBe('none');
    expect((await call(a, 'POST', '/api/v1/refunds', { reference: p.reference, amount: 'rest', reason: 'again', address: customer })).status).toBe(201);
  });

  it('two refunds of the rest at once, on two instances: one is sent, the other refused; together never more than arrived', async () => {
    const p = await paid('over');
    const body = { reference: p.reference, amount: 'rest', reason: 'race', address: customer };
    const answers = await Promise.all([call(a, 'POST', '/api/v1/refunds', body), call(b, 'POST', '/api/v1/refunds', body), call(a, 'POST', '/api/v1/refunds', body), call(b, 'POST', '/api/v1/refunds', body)]);
    expect(answers.map((x) => x.status).sort()).toEqual([201, 409, 409, 409]);
    expect(answers.filter((x) => x.status === 409).map((x) => x.body.code)).toEqual(['refund_exceeds_received', 'refund_exceeds_received', 'refund_exceeds_received']);
    const [row] = await a.db.query<{ s: string }>(`SELECT sum(amount)::text AS s FROM refunds WHERE reference = $1`, [p.reference]);
    expect(BigInt(row!.s)).toBe(p.arrived);
  });
});
