// Issue 35's exceptions through the API without a chain (the sandbox's simulated coins, balance
// settlement), on PGlite and PostgreSQL: an overpaid payment shows its excess and needs the
// merchant's attention until its excess is sent back in one step (never more than it can give
// back); an expired partial is accepted (settled with what arrived, told once by
// DEPOSIT_TRANSACTION, journaled once) or sent back whole; two accepts at once on two
// instances (one PostgreSQL) resolve it once; another merchant's payment and the other mode's
// key are refused; the list's needs_attention filter agrees with each payment's attention. A
// send-back that ends failed, or canceled (by the merchant, or its claim link expired), opens
// its case again with the same amount, once, even followed on two instances at once; never a
// case resolved again since, never by another merchant.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type Service } from '../../service/app.ts';
import { DEMO_MERCHANT } from '../../service/seed.ts';
import { databaseOptions, KINDS } from '../../testing/databases.ts';
import { finishWithdrawal } from '../../balances/use-cases.ts';
import { expireClaimLinks } from '../../refunds/use-cases.ts';
import { refundView } from '../../refunds/views.ts';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fromRoot } from '../../service/paths.ts';
import { formatUnits } from '../../../contract/money.ts';

const { publicKey, secretKey } = DEMO_MERCHANT.keys.test;
const customer = '0x' + 'c1'.repeat(20);

describe.each(KINDS)('exceptions resolved in one step, on %s', { timeout: 60_000 }, (kind) => {
  let a: Service;
  let b: Service;
  beforeAll(async () => {
    const options = { demo: true, ...(await databaseOptions(kind)), jobs: false, moneyMovesPerMinute: 1000 };
    a = await startService(options);
    b = kind === 'postgres' ? await startService({ ...options, instance: 'second' }) : a;
  }, 120_000);
  afterAll(async () => {
    if (b !== a) await b?.close();
    await a?.close();
  });

  const call = async (api: Service, method: string, path: string, body?: unknown, key = secretKey) => {
    const response = await fetch(api.url + path, {
      method,
      headers: { ...(key.startsWith('sk_') ? { authorization: `Bearer ${key}` } : { 'x-api-key': key }), 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as any };
  };
  const listed = async (reference: string) => (await call(a, 'GET', `/api/v1/payments?q=${reference}`)).body.data[0];
  const needing = async () =>
    (await call(a, 'GET', '/api/v1/payments?needs_attention=true&limit=100')).body.data.map((p: { reference: string }) => p.reference);
  const units = (text: string) => BigInt(text.replace('.', '').padEnd(text.split('.')[0]!.length + 18, '0'));
  const balanced = async () => {
    for (const s of await a.parts.journal.journalSums()) expect(s.sum, `the journal of ${s.token} sums to zero`).toBe(0n);
  };
  let n = 0;
  /** A 10 USD USDT payment the sandbox paid as `how`, expired when `expire`: its reference. */
  const payment = async (how: 'exact' | 'over' | 'partial', expire = false) => {
    const reference = `x-${kind}-${++n}`;
    expect((await call(a, 'POST', '/api/v1/transaction/initialize', { reference, coin: 'USDT', currency: 'USD', amount: 10 }, publicKey)).status).toBe(201);
    expect((await call(a, 'POST', '/api/v1/sandbox/deposit', { reference, kind: how }, publicKey)).status).toBeLessThan(300);
    // The quote ran out (15 minutes on the chain's clock): its expiry moved into the past.
    if (expire) await a.db.query(`UPDATE payments SET expires_ms = $2 WHERE reference = $1`, [reference, Date.now() - 1000]);
    return reference;
  };

  it('balance settlement first: what is sent back comes from the balance', async () => {
    expect((await call(a, 'PUT', '/api/v1/settlement', { settlement: 'balance' })).status).toBe(200);
  });

  it('an overpaid payment shows its excess and needs attention; its excess goes back in one step, once', async () => {
    const reference = await payment('over');
    const p = await listed(reference);
    const excess = units(p.amountPaidExact) - units(p.actualAmountExact);
    expect(excess).toBeGreaterThan(0n);
    expect(p.status).toBe('confirmed');
    expect(units(p.overpaid)).toBe(excess);
    expect(p.attention).toEqual({ reason: 'overpaid', amount: p.overpaid, coin: 'USDT', chain_id: p.chainId });
    expect(await needing()).toContain(reference);
    expect((await call(a, 'GET', `/api/v1/payments/${reference}`)).body.data.payment.attention).toEqual(p.attention);

    const sent = await call(a, 'POST', `/api/v1/payments/${reference}/send_back`, { reason: 'paid too much', address: customer });
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    // Sent back in the form attention gave it: the same text, one way to write an amount.
    expect(sent.body.data).toMatchObject({ reference, amount: p.attention.amount, amount_base_units: String(excess), coin: 'USDT', status: 'ready' });
    const again = await call(b, 'POST', `/api/v1/payments/${reference}/send_back`, { reason: 'again', address: customer });
    expect([again.status, again.body.code, again.body.errors[0].field]).toEqual([409, 'nothing_to_resolve', 'reference']);
    const after = await listed(reference);
    expect([after.attention, after.overpaid]).toEqual([null, p.overpaid]);
    expect(await needing()).not.toContain(reference);
    // The excess counts with the payment's refunds: what is left to refund is what was due.
    const detail = (await call(a, 'GET', `/api/v1/payments/${reference}`)).body.data;
    expect(detail.refunds).toMatchObject({ status: 'partly_refunded', amount: p.overpaid, amount_base_units: String(excess) });
    await balanced();
  });

  it('never sends back more than the payment can give: refunded most of it first, its excess is refused naming amount', async () => {
    const reference = await payment('over');
    const p = await listed(reference);
    const paid = units(p.amountPaidExact);
    const excess = paid - units(p.actualAmountExact);
    expect(
      (await call(a, 'POST', '/api/v1/refunds', { reference, amount: formatUnits(paid - excess / 2n, 18), reason: 'most of it', address: customer })).status,
    ).toBe(201);
    const over = await call(a, 'POST', `/api/v1/payments/${reference}/send_back`, { reason: 'the excess too', address: customer });
    expect([over.status, over.body.code, over.body.errors[0].field]).toEqual([409, 'refund_exceeds_received', 'amount']);
    // Nothing was resolved by the refusal: it still needs attention; keeping the excess resolves it.
    expect((await listed(reference)).attention.reason).toBe('overpaid');
    const kept = await call(a, 'POST', `/api/v1/payments/${reference}/accept`);
    expect([kept.status, kept.body.data.attention, kept.body.data.status]).toEqual([200, null, 'confirmed']);
  });

  it('an expired partial is accepted once, even by two accepts at once on two instances: settled with what arrived, told once, journaled once', async () => {
    const reference = await payment('partial', true);
    const p = await listed(reference);
    expect([p.status, p.attention]).toEqual(['expired', { reason: 'partial', amount: p.amountPaidExact, coin: 'USDT', chain_id: p.chainId }]);
    expect(await needing()).toContain(reference);
    const told = async () =>
      (await a.db.query<{ body: string }>(`SELECT body FROM events WHERE type = 'DEPOSIT_TRANSACTION' ORDER BY seq`))
        .map((e) => JSON.parse(e.body).data)
        .filter((d: { reference: string }) => d.reference === reference);
    const before = (await told()).length;
    const entries = async () => Number((await a.db.query<{ n: string }>(`SELECT count(*)::text AS n FROM journal_entries`))[0]!.n);
    await call(a, 'GET', '/api/v1/balances'); // the sandbox's credits journaled
    const journaled = await entries();

    const both = await Promise.all([call(a, 'POST', `/api/v1/payments/${reference}/accept`), call(b, 'POST', `/api/v1/payments/${reference}/accept`)]);
    expect(both.map((r) => r.status).sort()).toEqual([200, 409]);
    expect(both.find((r) => r.status === 409)!.body.code).toBe('nothing_to_resolve');
    const accepted = both.find((r) => r.status === 200)!.body.data;
    expect([accepted.status, accepted.amountPaidExact, accepted.attention]).toEqual(['settled', p.amountPaidExact, null]);
    const events = await told();
    expect(events.length - before).toBe(1);
    expect(events.at(-1)).toMatchObject({ status: 'settled', amountPaidExact: p.amountPaidExact });
    await call(a, 'GET', '/api/v1/balances');
    expect(await entries(), 'accepting moves no money: it was journaled when it arrived').toBe(journaled);
    expect(await needing()).not.toContain(reference);
    await balanced();
  });

  it('an expired partial sent back: all it received, in one step', async () => {
    const reference = await payment('partial', true);
    const p = await listed(reference);
    const sent = await call(a, 'POST', `/api/v1/payments/${reference}/send_back`, { reason: 'too little, too late' });
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    expect([sent.body.data.amount, sent.body.data.amount_base_units, sent.body.data.status, typeof sent.body.data.claim_url]).toEqual([
      p.attention.amount,
      String(units(p.amountPaidExact)),
      'waiting_for_address',
      'string',
    ]);
    expect((await listed(reference)).attention).toBeNull();
    expect((await call(a, 'GET', `/api/v1/payments/${reference}`)).body.data.refunds.status).toBe('refunded');
    await balanced();
  });

  it("refuses another merchant's payment, the other mode's key, and a payment with nothing to resolve", async () => {
    const reference = await payment('partial', true);
    const other = await a.parts.merchants.create({ businessName: 'Other', businessEmail: `other-x-${kind}@example.com`, businessLogo: '' }, Date.now());
    for (const path of ['accept', 'send_back']) {
      const theirs = await call(a, 'POST', `/api/v1/payments/${reference}/${path}`, { reason: 'mine now', address: customer }, other.keys.test.secretKey);
      expect([theirs.status, theirs.body.code]).toEqual([404, 'not_found']);
      const live = await call(a, 'POST', `/api/v1/payments/${reference}/${path}`, { reason: 'r', address: customer }, DEMO_MERCHANT.keys.live.secretKey);
      expect([live.status, live.body.code, live.body.errors[0].field]).toEqual([409, 'wrong_mode', 'reference']);
    }
    expect((await listed(reference)).attention.reason).toBe('partial');
    const fine = await payment('exact');
    const nothing = await call(a, 'POST', `/api/v1/payments/${fine}/accept`);
    expect([nothing.status, nothing.body.code]).toEqual([409, 'nothing_to_resolve']);
  });

  it('a send-back that fails opens its case again, once (followed on two instances at once): the same amount owed, listed again; sent back again, the old refund reopens nothing', async () => {
    const reference = await payment('over');
    const p = await listed(reference);
    const sent = await call(a, 'POST', `/api/v1/payments/${reference}/send_back`, { reason: 'to fail', address: customer });
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    const id = sent.body.data.id as string;
    expect((await listed(reference)).attention).toBeNull();
    // The treasury's path decides it (as its job does on a reverted transaction), on two instances
    // at once; the refund moves with it, in its transaction (no job follows it): once.
    await Promise.all([a, b].map((api) => finishWithdrawal(api.parts.balanceTransactions, id, { failure: 'reverted' }, Date.now(), () => ({}))));
    expect((await a.parts.refunds.refund({ merchant: DEMO_MERCHANT, mode: 'test' } as never, id)).state).toBe('failed');
    const told = (await a.db.query<{ body: string }>(`SELECT body FROM events WHERE type = 'REFUND_UPDATED'`))
      .map((e) => JSON.parse(e.body).data)
      .filter((d: { id: string; status: string }) => d.id === id && d.status === 'failed');
    expect(told).toHaveLength(1);
    const reopened = await listed(reference);
    expect([reopened.attention, reopened.overpaid]).toEqual([p.attention, p.overpaid]);
    expect(await needing()).toContain(reference);
    expect((await call(a, 'GET', `/api/v1/payments/${reference}`)).body.data).toMatchObject({
      payment: { attention: p.attention },
      refunds: { status: 'none' },
    });
    const kinds = await a.db.query<{ kind: string }>(`SELECT kind FROM journal_entries WHERE ref = $1 ORDER BY id`, [id]);
    expect(kinds.map((k) => k.kind)).toEqual(['withdrawal_reserved', 'withdrawal_returned']);
    await balanced();
    // Sent back again: the same amount; the failed refund, asked again, reopens nothing of the newer one's.
    const again = await call(b, 'POST', `/api/v1/payments/${reference}/send_back`, { reason: 'again', address: customer });
    expect([again.status, again.body.data.amount]).toEqual([201, sent.body.data.amount]);
    const old = await a.parts.refunds.refund({ merchant: DEMO_MERCHANT, mode: 'test' } as never, id);
    expect(await a.db.transaction((tx) => a.parts.attention.reopen(tx, old))).toBe(false);
    expect((await listed(reference)).attention).toBeNull();
    await balanced();
  });

  it('a send-back canceled by its merchant opens its case again; another merchant can neither cancel it nor claim money twice through it', async () => {
    const reference = await payment('partial', true);
    const p = await listed(reference);
    const sent = await call(a, 'POST', `/api/v1/payments/${reference}/send_back`, { reason: 'too late' });
    expect(sent.body.data.status).toBe('waiting_for_address');
    const id = sent.body.data.id as string;
    const other = await a.parts.merchants.create({ businessName: 'Other', businessEmail: `other-c-${kind}@example.com`, businessLogo: '' }, Date.now());
    expect((await call(a, 'POST', `/api/v1/refunds/${id}/cancel`, undefined, other.keys.test.secretKey)).status).toBe(404);
    expect((await listed(reference)).attention).toBeNull();
    const both = await Promise.all([call(a, 'POST', `/api/v1/refunds/${id}/cancel`), call(b, 'POST', `/api/v1/refunds/${id}/cancel`)]);
    expect(both.map((r) => r.status).sort()).toEqual([200, 409]);
    expect((await listed(reference)).attention).toEqual(p.attention);
    expect(await needing()).toContain(reference);
    // Its link is dead: the customer cannot claim what the case owes again.
    const claim = await fetch(a.url + '/refund/claim', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: new URL(sent.body.data.claim_url).hash.slice(1), address: customer, confirm: true }),
    });
    expect([claim.status, ((await claim.json()) as { code: string }).code]).toEqual([409, 'refund_link_used']);
    const kinds = await a.db.query<{ kind: string }>(`SELECT kind FROM journal_entries WHERE ref = $1 ORDER BY id`, [id]);
    expect(kinds.map((k) => k.kind)).toEqual(['withdrawal_reserved', 'withdrawal_returned']);
    await balanced();
    // Accepted now: resolved, and the canceled refund reopens nothing.
    expect((await call(a, 'POST', `/api/v1/payments/${reference}/accept`)).status).toBe(200);
    const old = await a.parts.refunds.refund({ merchant: DEMO_MERCHANT, mode: 'test' } as never, id);
    expect(await a.db.transaction((tx) => a.parts.attention.reopen(tx, old))).toBe(false);
    expect((await listed(reference)).attention).toBeNull();
  });

  it('a send-back whose claim link expired unclaimed opens its case again, once', async () => {
    const reference = await payment('partial', true);
    const p = await listed(reference);
    const id = (await call(a, 'POST', `/api/v1/payments/${reference}/send_back`, { reason: 'unclaimed' })).body.data.id as string;
    await a.db.query(`UPDATE refunds SET claim_expires_ms = $2 WHERE id = $1`, [id, Date.now() - 1]);
    const moved = (
      await Promise.all([
        expireClaimLinks(a.parts.refundTransactions, Date.now(), refundView),
        expireClaimLinks(b.parts.refundTransactions, Date.now(), refundView),
      ])
    ).flat();
    expect(moved.filter((r) => r.id === id).map((r) => r.state)).toEqual(['canceled']);
    expect((await listed(reference)).attention).toEqual(p.attention);
    await balanced();
  });

  it("USDC credited toward a USDT payment at the rates of its arrival, once by two accepts at once on two instances; never another merchant's, another mode's, or without a rate of its arrival", async () => {
    const reference = `c-${kind}-${++n}`;
    expect((await call(a, 'POST', '/api/v1/transaction/initialize', { reference, coin: 'USDT', currency: 'USD', amount: 10 }, publicKey)).status).toBe(201);
    const [pay] = await a.db.query(`SELECT id, chain_id, decimals FROM payments WHERE reference = $1`, [reference]);
    // The sandbox's catalogue has USDC on another chain than the payment's USDT: wrong_coin and wrong_chain at once (named wrong_chain).
    const usdc = a.parts.catalog.coins('test').find((c) => c.symbol === 'USDC')!;
    const reason = usdc.chainId === Number(pay!.chain_id) ? 'wrong_coin' : 'wrong_chain';
    // What a watcher would record of 12 USDC sent to its address, told to the merchant.
    const arrived = Date.now() - 60_000;
    await a.db.query(
      `INSERT INTO chain_transfers (chain_id, tx_hash, log_index, block_number, block_hash, token, sender, recipient, amount, payment_id, state, seen_ms, told_ms) VALUES ($1, $2, 0, 1, '0xb', $3, '0xs', '0xr', $4, $5, 'unexpected', $6, $6)`,
      [usdc.chainId, '0x' + 'cd'.repeat(32), usdc.contractAddress.toLowerCase(), String(12n * 10n ** BigInt(usdc.decimals)), pay!.id, arrived],
    );
    expect((await listed(reference)).attention).toMatchObject({ reason, amount: '12', coin: 'USDC', chain_id: usdc.chainId });
    const credit = (api: Service, key = secretKey) => call(api, 'POST', `/api/v1/payments/${reference}/accept`, { as: 'credit' }, key);
    // The built-in table has no coin rates: none was kept at its arrival.
    const none = await credit(a);
    expect([none.status, none.body.code, none.body.errors[0].field]).toEqual([409, 'no_rate_at_arrival', 'reference']);
    expect(none.body.message).toMatch(/send_back/);
    // Rates kept after it arrived, or more than the rates' maximum age (15 minutes) before it, are not its rates.
    const keep = (symbol: string, units: bigint, atMs: number) =>
      a.db.query(`INSERT INTO rate_history (symbol, usd_units, fetched_ms, provider, fixed) VALUES ($1, $2, $3, 'test rates', false)`, [
        symbol,
        String(units),
        atMs,
      ]);
    await keep('USDC', 99_000_000n, arrived + 1);
    await keep('USDT', 100_000_000n, arrived + 1);
    await keep('USDC', 99_000_000n, arrived - 900_001);
    await keep('USDT', 100_000_000n, arrived - 900_001);
    expect((await credit(a)).body.code).toBe('no_rate_at_arrival');
    await keep('USDC', 99_000_000n, arrived - 1000);
    await keep('USDT', 100_000_000n, arrived - 1000);
    const other = await a.parts.merchants.create({ businessName: 'Other', businessEmail: `other-c-${kind}@example.com`, businessLogo: '' }, Date.now());
    expect((await credit(a, other.keys.test.secretKey)).body.code).toBe('not_found');
    expect((await credit(a, DEMO_MERCHANT.keys.live.secretKey)).body.code).toBe('wrong_mode');
    expect((await listed(reference)).amountPaidExact).toBe('0');

    const told = async () =>
      (await a.db.query<{ body: string }>(`SELECT body FROM events WHERE type = 'DEPOSIT_TRANSACTION'`)).filter(
        (e) => JSON.parse(e.body).data.reference === reference,
      ).length;
    const both = await Promise.all([credit(a), credit(b)]);
    expect(both.map((r) => r.status).sort(), JSON.stringify(both.map((r) => r.body))).toEqual([200, 409]);
    // The loser finds its next case, the excess, which is no other coin's to credit.
    expect(both.find((r) => r.status === 409)!.body.code).toBe('not_creditable');
    // 12 USDC at 0.99 USD: 11.88 USD, 11.88 USDT at 1 USD; 10 were due.
    expect(both.find((r) => r.status === 200)!.body.data).toMatchObject({
      status: 'confirmed',
      amountPaidExact: '11.88',
      overpaid: '1.88',
      attention: { reason: 'overpaid', amount: '1.88', coin: 'USDT' },
    });
    expect(await told()).toBe(1);
    const detail = (await call(a, 'GET', `/api/v1/payments/${reference}`)).body.data;
    expect(detail.credits).toEqual([
      {
        tx_hash: '0x' + 'cd'.repeat(32),
        chain_id: usdc.chainId,
        coin: 'USDC',
        arrived: '12',
        arrived_at: new Date(arrived).toISOString(),
        usd_per_arrived_coin: '0.99',
        usd_per_payment_coin: '1',
        rate_at: new Date(arrived - 1000).toISOString(),
        rate_source: 'test rates',
        credited: '11.88',
        credited_at: expect.any(String),
      },
    ]);
    // A plain accept now keeps the excess; crediting again finds nothing to credit.
    expect((await call(a, 'POST', `/api/v1/payments/${reference}/accept`)).status).toBe(200);
    expect((await credit(a)).body.code).toBe('nothing_to_resolve');
    expect([(await listed(reference)).amountPaidExact, await told()]).toEqual(['11.88', 1]);
    await balanced();
  });

  it('close enough (issue 49): 10 USDC credited at 0.999 toward a 10 USDT payment settles it, short by one cent, told once; not a cent more short', async () => {
    const usdc = a.parts.catalog.coins('test').find((c) => c.symbol === 'USDC')!;
    const keep = (symbol: string, units: bigint, atMs: number) =>
      a.db.query(`INSERT INTO rate_history (symbol, usd_units, fetched_ms, provider, fixed) VALUES ($1, $2, $3, 'test rates', false)`, [
        symbol,
        String(units),
        atMs,
      ]);
    /** A 10 USD USDT payment and `arrived` USDC recorded at its address five seconds ago, the rates of then kept: USDC at 0.999 USD. */
    const paidInUsdc = async (arrived: bigint, hash: string) => {
      const reference = `close-${kind}-${++n}`;
      expect((await call(a, 'POST', '/api/v1/transaction/initialize', { reference, coin: 'USDT', currency: 'USD', amount: 10 }, publicKey)).status).toBe(201);
      const [pay] = await a.db.query(`SELECT id FROM payments WHERE reference = $1`, [reference]);
      // Seconds ago, not a minute: the test above keeps USDC at 0.99 a minute back, which would be the newest rate before arrival.
      const at = Date.now() - 5_000;
      await a.db.query(
        `INSERT INTO chain_transfers (chain_id, tx_hash, log_index, block_number, block_hash, token, sender, recipient, amount, payment_id, state, seen_ms, told_ms) VALUES ($1, $2, 0, 1, '0xb', $3, '0xs', '0xr', $4, $5, 'unexpected', $6, $6)`,
        [usdc.chainId, hash, usdc.contractAddress.toLowerCase(), String(arrived), pay!.id, at],
      );
      await keep('USDC', 99_900_000n, at - 500);
      await keep('USDT', 100_000_000n, at - 500);
      return reference;
    };
    const cents = (n: bigint) => n * 10n ** BigInt(usdc.decimals - 2);
    const told = async (reference: string) =>
      (await a.db.query<{ body: string }>(`SELECT body FROM events WHERE type = 'DEPOSIT_TRANSACTION'`))
        .map((e) => JSON.parse(e.body).data)
        .filter((d: { reference: string }) => d.reference === reference);
    // 10 USDC at 0.999: 9.99 USDT of 10 due, one cent short: settled with what arrived, told once.
    const close = await paidInUsdc(cents(1000n), '0x' + 'e1'.repeat(32));
    const settled = await call(a, 'POST', `/api/v1/payments/${close}/accept`, { as: 'credit' });
    expect(settled.status, JSON.stringify(settled.body)).toBe(200);
    expect(settled.body.data).toMatchObject({ status: 'settled', amountPaidExact: '9.99', attention: null });
    expect((await told(close)).map((d: { status: string }) => d.status)).toEqual(['settled']);
    // 9.99 USDC at 0.999: 9.98001 USDT, short by more than a cent: incomplete as before.
    const short = await paidInUsdc(cents(999n), '0x' + 'e2'.repeat(32));
    const incomplete = await call(a, 'POST', `/api/v1/payments/${short}/accept`, { as: 'credit' });
    expect(incomplete.status, JSON.stringify(incomplete.body)).toBe(200);
    expect(incomplete.body.data).toMatchObject({ status: 'incomplete', amountPaidExact: '9.98001' });
    await balanced();
  });

  it('a rate is written only by the rates cache: no route, job or other store writes the rate history', () => {
    const sources = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? (e.name === 'tests' ? [] : sources(join(dir, e.name))) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
      );
    const writers = sources(fromRoot('server')).filter((f) => /(INSERT INTO|UPDATE|DELETE FROM)\s+rate_history/.test(readFileSync(f, 'utf8')));
    expect(writers.map((f) => f.slice(fromRoot('').length))).toEqual(['server/rates/history-store.ts']);
    const callers = sources(fromRoot('server')).filter((f) => /history\??\.record\(/.test(readFileSync(f, 'utf8')));
    expect(callers.map((f) => f.slice(fromRoot('').length))).toEqual(['server/rates/cache.ts']);
  });

  it('the needs_attention filter keeps exactly the payments whose attention is not null', async () => {
    const all = (await call(a, 'GET', '/api/v1/payments?limit=100')).body.data;
    expect(all.length).toBeGreaterThan(3);
    expect((await needing()).sort()).toEqual(
      all
        .filter((p: { attention: unknown }) => p.attention !== null)
        .map((p: { reference: string }) => p.reference)
        .sort(),
    );
    expect(all.filter((p: { attention: unknown }) => p.attention !== null).length).toBeGreaterThan(0);
  });

  it("on wallet settlement (the last test: it switches), an excess goes back from the merchant's own wallet: the transfer to make is answered, nothing journaled", async () => {
    expect((await call(a, 'PUT', '/api/v1/settlement', { settlement: 'wallet' })).status).toBe(200);
    const reference = await payment('over');
    const p = await listed(reference);
    const excess = units(p.amountPaidExact) - units(p.actualAmountExact);
    await call(a, 'GET', '/api/v1/balances');
    const entries = async () => Number((await a.db.query<{ n: string }>(`SELECT count(*)::text AS n FROM journal_entries`))[0]!.n);
    const journaled = await entries();
    const sent = await call(a, 'POST', `/api/v1/payments/${reference}/send_back`, { reason: 'paid too much', address: customer });
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    expect(sent.body.data).toMatchObject({
      reference,
      amount: p.overpaid,
      coin: 'USDT',
      status: 'ready',
      transfer: {
        to: expect.stringMatching(new RegExp(`^${customer}$`, 'i')),
        amount: p.overpaid,
        amount_base_units: String(excess),
        chain_id: p.chainId,
        uri: expect.stringMatching(/^ethereum:/),
      },
    });
    expect((await listed(reference)).attention).toBeNull();
    await call(a, 'GET', '/api/v1/balances');
    expect(await entries(), 'the service holds none of it: nothing to journal').toBe(journaled);
  });
});
