// Refunds through the API without a chain (the sandbox's simulated coins, balance
// settlement): the rules each refused naming the field with its code, the list and one refund,
// an Idempotency-Key's retry refunding once, and two refunds at once, on two instances sharing
// one PostgreSQL (two requests to one instance on PGlite, which one process owns), never adding
// up to more than arrived. The customer's claim link (once, before it expires, never to a
// deposit address, its token the only key), the merchant's cancel (and a cancel racing the
// treasury's send: exactly one wins), and a support member's limits. On PGlite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getAddress } from 'viem';
import { startService, type Service } from '../../service/app.ts';
import { cheapPasswords } from '../../testing/passwords.ts';
import { DEMO_MERCHANT } from '../../service/seed.ts';
import { databaseOptions, KINDS } from '../../testing/databases.ts';
import { finishWithdrawal } from '../../balances/use-cases.ts';
import { withdrawalView } from '../../balances/views.ts';
import { expireClaimLinks } from '../use-cases.ts';
import { refundView } from '../views.ts';
import { loadMigrations } from '../../storage/migrations.ts';
import { formatUnits } from '../../../contract/money.ts';

const { publicKey, secretKey } = DEMO_MERCHANT.keys.test;
const customer = '0x' + 'c0'.repeat(20);
/** Base units of the sandbox's USDT (18 decimals) as the API writes an amount: exact decimal text of the coin. */
const coins = (units: bigint) => formatUnits(units, 18);

describe.each(KINDS)('refunds through the API, on %s', { timeout: 60_000 }, (kind) => {
  let a: Service;
  let b: Service;
  beforeAll(async () => {
    // E-mail on (an address nothing listens on, the jobs off): e-mails wait in the outbox, to be read.
    const options = { demo: true, ...(await databaseOptions(kind)), jobs: false, moneyMovesPerMinute: 1000, smtpUrl: 'smtp://127.0.0.1:9', ...cheapPasswords };
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
      headers: {
        ...(key.startsWith('sk_') ? { authorization: `Bearer ${key}` } : { 'x-api-key': key }),
        'content-type': 'application/json',
        ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as any };
  };
  /** The claim page's calls, as its script makes them: no key, the token alone. */
  const customerCall = async (api: Service, path: string, body: unknown) => {
    const response = await fetch(api.url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: response.status, body: (await response.json()) as any };
  };
  const kindsOf = async (id: string) =>
    (await a.db.query<{ kind: string }>(`SELECT kind FROM journal_entries WHERE ref = $1 ORDER BY id`, [id])).map((k) => k.kind);
  const toldOf = async (id: string) =>
    (await a.db.query<{ body: string }>(`SELECT body FROM events WHERE type = 'REFUND_UPDATED' ORDER BY seq`))
      .map((e) => JSON.parse(e.body).data)
      .filter((d: { id: string }) => d.id === id)
      .map((d: { status: string }) => d.status);
  const balanced = async () => {
    for (const s of await a.parts.journal.journalSums()) expect(s.sum, `the journal of ${s.token} sums to zero`).toBe(0n);
  };
  /** A USDT payment of `amount` US dollars, paid by the sandbox as `kind` says: its reference and the amount that arrived, in base units. */
  let n = 0;
  const paid = async (how: 'exact' | 'over' | 'none', amount = 10, customerEmail?: string) => {
    const reference = `r-${kind}-${++n}`;
    expect(
      (
        await call(
          a,
          'POST',
          '/api/v1/transaction/initialize',
          { reference, coin: 'USDT', currency: 'USD', amount, ...(customerEmail ? { customer_email: customerEmail } : {}) },
          publicKey,
        )
      ).status,
    ).toBe(201);
    if (how !== 'none') expect((await call(a, 'POST', '/api/v1/sandbox/deposit', { reference, kind: how }, publicKey)).status).toBeLessThan(300);
    const detail = (await call(a, 'GET', `/api/v1/payments/${reference}`)).body.data;
    const decimals = 18;
    const arrived = BigInt(Math.round(Number(detail.payment.amountPaidExact) * 1e6)) * 10n ** BigInt(decimals - 6);
    return { reference, arrived, address: detail.payment.address as string };
  };

  it('balance settlement first: refunds are sent from the balance', async () => {
    expect((await call(a, 'PUT', '/api/v1/settlement', { settlement: 'balance' })).status).toBe(200);
  });

  it("refuses, naming the field with its code: nothing received, past what arrived, a deposit address, the other mode's payment, another merchant's, bad input", async () => {
    const empty = await paid('none');
    const nothing = await call(a, 'POST', '/api/v1/refunds', { reference: empty.reference, amount: 'rest', reason: 'changed my mind', address: customer });
    expect([nothing.status, nothing.body.code, nothing.body.errors[0].field]).toEqual([409, 'nothing_received', 'reference']);

    const p = await paid('exact');
    const over = await call(a, 'POST', '/api/v1/refunds', { reference: p.reference, amount: coins(p.arrived + 1n), reason: 'too much', address: customer });
    expect([over.status, over.body.code, over.body.errors[0].field]).toEqual([409, 'refund_exceeds_received', 'amount']);
    expect(over.body.errors[0].message).toContain(`at most "${coins(p.arrived)}" (${coins(p.arrived)} USDT)`);

    // Any deposit address of the service (this payment's, another's), in any case.
    for (const address of [p.address, empty.address.toLowerCase()]) {
      const deposit = await call(a, 'POST', '/api/v1/refunds', { reference: p.reference, amount: 'rest', reason: 'r', address });
      expect([deposit.status, deposit.body.code, deposit.body.errors[0].field]).toEqual([400, 'validation_failed', 'address']);
    }
    // The other mode's key: a live key naming a test payment (and so a test key a live one).
    const live = await call(
      a,
      'POST',
      '/api/v1/refunds',
      { reference: p.reference, amount: 'rest', reason: 'r', address: customer },
      DEMO_MERCHANT.keys.live.secretKey,
    );
    expect([live.status, live.body.code, live.body.errors[0].field]).toEqual([409, 'wrong_mode', 'reference']);
    // Another merchant's payment is not found, and says nothing of it.
    const other = await a.parts.merchants.create({ businessName: 'Other', businessEmail: `other-${kind}@example.com`, businessLogo: '' }, Date.now());
    const theirs = await call(
      a,
      'POST',
      '/api/v1/refunds',
      { reference: p.reference, amount: 'rest', reason: 'r', address: customer },
      other.keys.test.secretKey,
    );
    expect([theirs.status, theirs.body.code]).toEqual([404, 'not_found']);
    expect(JSON.stringify(theirs.body)).not.toMatch(/wrong_mode|received/);
    // Bad input, each field named.
    const bad = await call(a, 'POST', '/api/v1/refunds', { reference: p.reference, amount: '-1.5', reason: '', address: '0x12' });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['address', 'amount', 'reason']);
    const checksum = await call(a, 'POST', '/api/v1/refunds', { reference: p.reference, amount: 'rest', reason: 'r', address: '0x' + 'aB'.repeat(20) });
    expect([checksum.status, checksum.body.errors[0].field]).toEqual([400, 'address']);
    // The amount is the coin's exact decimal text: more decimals than the coin has (USDT here has
    // 18) cannot be sent, a 400 naming the field the request used; 0, a number, both forms or
    // neither are refused by the contract, naming amount.
    const fine = await call(a, 'POST', '/api/v1/refunds', { reference: p.reference, amount: '0.' + '0'.repeat(18) + '1', reason: 'r', address: customer });
    expect([fine.status, fine.body.code, fine.body.errors]).toEqual([
      400,
      'validation_failed',
      [{ field: 'amount', message: 'expected at most 18 decimals: USDT here has 18, received "0.0000000000000000001"' }],
    ]);
    for (const amount of ['0', '0.000', 5, '1e3', '', ' 5']) {
      const refused = await call(a, 'POST', '/api/v1/refunds', { reference: p.reference, amount, reason: 'r', address: customer });
      expect([refused.status, refused.body.errors?.map((e: { field: string }) => e.field)], JSON.stringify(amount)).toEqual([400, ['amount']]);
    }
    for (const body of [{ amount: '1', amount_base_units: '1' }, {}]) {
      const refused = await call(a, 'POST', '/api/v1/refunds', { reference: p.reference, ...body, reason: 'r', address: customer });
      expect([refused.status, refused.body.errors?.map((e: { field: string }) => e.field)], JSON.stringify(body)).toEqual([400, ['amount']]);
    }
    const zeroUnits = await call(a, 'POST', '/api/v1/refunds', { reference: p.reference, amount_base_units: '0', reason: 'r', address: customer });
    expect([zeroUnits.status, zeroUnits.body.errors?.[0].field]).toEqual([400, 'amount_base_units']);
    const overUnits = await call(a, 'POST', '/api/v1/refunds', {
      reference: p.reference,
      amount_base_units: String(p.arrived + 1n),
      reason: 'r',
      address: customer,
    });
    expect([overUnits.status, overUnits.body.code, overUnits.body.errors[0].field]).toEqual([409, 'refund_exceeds_received', 'amount_base_units']);
    // Nothing was reserved by any of them.
    expect(await a.db.query(`SELECT id FROM refunds`)).toEqual([]);
  });

  it('a partial refund, then the rest: the payment shows partly refunded, then refunded; the list and one refund answer them; a retried request refunds once', async () => {
    const p = await paid('exact');
    const third = p.arrived / 3n;
    const first = await call(
      a,
      'POST',
      '/api/v1/refunds',
      { reference: p.reference, amount: coins(third), reason: 'one bag was broken', address: customer },
      secretKey,
      `partial-${kind}`,
    );
    expect(first.status).toBe(201);
    expect(first.body.data).toMatchObject({
      reference: p.reference,
      amount: coins(third),
      amount_base_units: String(third),
      status: 'ready',
      settlement: 'balance',
      coin: 'USDT',
      address: getAddress(customer),
      tx_hash: null,
    });
    const again = await call(
      b,
      'POST',
      '/api/v1/refunds',
      { reference: p.reference, amount: coins(third), reason: 'one bag was broken', address: customer },
      secretKey,
      `partial-${kind}`,
    );
    expect(again.body).toEqual(first.body);
    let detail = (await call(a, 'GET', `/api/v1/payments/${p.reference}`)).body.data;
    expect(detail.refunds).toEqual({ status: 'partly_refunded', amount: coins(third), amount_exact: coins(third), amount_base_units: String(third) });
    expect(detail.timeline.filter((s: { eventType?: string }) => s.eventType === 'REFUND_UPDATED')).toHaveLength(1);

    const rest = await call(a, 'POST', '/api/v1/refunds', { reference: p.reference, amount: 'rest', reason: 'all of it', address: customer });
    expect(rest.status).toBe(201);
    expect(rest.body.data.amount).toBe(coins(p.arrived - third));
    detail = (await call(a, 'GET', `/api/v1/payments/${p.reference}`)).body.data;
    expect(detail.refunds.status).toBe('refunded');
    const more = await call(a, 'POST', '/api/v1/refunds', { reference: p.reference, amount: '1', reason: 'more', address: customer });
    expect([more.status, more.body.code]).toEqual([409, 'refund_exceeds_received']);

    // The journal: each refund reserved from the balance, and handed to the treasury.
    const reserved = await a.db.query<{ ref: string }>(`SELECT ref FROM journal_entries WHERE kind = 'withdrawal_reserved' AND ref IN ($1, $2)`, [
      first.body.data.id,
      rest.body.data.id,
    ]);
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
    // The treasury's path decides it (as its job does on a reverted transaction); the refund moves
    // with it, in its transaction (no job follows it): a second decision moves nothing.
    for (let i = 0; i < 2; i++) await finishWithdrawal(a.parts.balanceTransactions, id, { failure: 'reverted' }, Date.now(), () => ({}));
    expect((await call(a, 'GET', `/api/v1/refunds/${id}`)).body.data).toMatchObject({ status: 'failed', failure: 'reverted' });
    const kinds = await a.db.query<{ kind: string }>(`SELECT kind FROM journal_entries WHERE ref = $1 ORDER BY id`, [id]);
    expect(kinds.map((k) => k.kind)).toEqual(['withdrawal_reserved', 'withdrawal_returned']);
    const told = (await a.db.query<{ body: string }>(`SELECT body FROM events WHERE type = 'REFUND_UPDATED' ORDER BY seq`))
      .map((e) => JSON.parse(e.body).data)
      .filter((d: { id: string }) => d.id === id);
    expect(told.map((d: { status: string }) => d.status)).toEqual(['ready', 'failed']);
    expect((await call(a, 'GET', `/api/v1/payments/${p.reference}`)).body.data.refunds.status).toBe('none');
    expect((await call(a, 'POST', '/api/v1/refunds', { reference: p.reference, amount: 'rest', reason: 'again', address: customer })).status).toBe(201);
  });

  it('two refunds of the rest at once, on two instances: one is sent, the other refused; together never more than arrived', async () => {
    const p = await paid('over');
    const body = { reference: p.reference, amount: 'rest', reason: 'race', address: customer };
    const answers = await Promise.all([
      call(a, 'POST', '/api/v1/refunds', body),
      call(b, 'POST', '/api/v1/refunds', body),
      call(a, 'POST', '/api/v1/refunds', body),
      call(b, 'POST', '/api/v1/refunds', body),
    ]);
    expect(answers.map((x) => x.status).sort()).toEqual([201, 409, 409, 409]);
    expect(answers.filter((x) => x.status === 409).map((x) => x.body.code)).toEqual([
      'refund_exceeds_received',
      'refund_exceeds_received',
      'refund_exceeds_received',
    ]);
    const [row] = await a.db.query<{ s: string }>(`SELECT sum(amount)::text AS s FROM refunds WHERE reference = $1`, [p.reference]);
    expect(BigInt(row!.s)).toBe(p.arrived);
  });

  it('the deprecated form, base units under their own name: the same refund, its answer in the one form, with a Deprecation header; the one form has none', async () => {
    const p = await paid('exact');
    const response = await fetch(a.url + '/api/v1/refunds', {
      method: 'POST',
      headers: { authorization: `Bearer ${secretKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ reference: p.reference, amount_base_units: String(p.arrived / 4n), reason: 'an old client', address: customer }),
    });
    const old = (await response.json()) as any;
    expect([response.status, response.headers.get('deprecation')], JSON.stringify(old)).toEqual([201, '@1796515200']);
    expect(old.data).toMatchObject({ amount: coins(p.arrived / 4n), amount_base_units: String(p.arrived / 4n) });
    const current = await fetch(a.url + '/api/v1/refunds', {
      method: 'POST',
      headers: { authorization: `Bearer ${secretKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ reference: p.reference, amount: coins(p.arrived / 4n), reason: 'a new client', address: customer }),
    });
    expect([current.status, current.headers.get('deprecation')]).toEqual([201, null]);
    expect(((await current.json()) as any).data.amount_base_units).toBe(String(p.arrived / 4n));
  });

  it('a claim link: the customer names the address once, checked and confirmed; the link used twice, expired, to a deposit address or with a bad checksum is refused; the token is the only key', async () => {
    const p = await paid('exact');
    const made = await call(a, 'POST', '/api/v1/refunds', { reference: p.reference, amount: coins(p.arrived / 2n), reason: 'customer will say where' });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body.data).toMatchObject({ status: 'waiting_for_address', address: null, claim_expires_at: expect.any(String) });
    const url = new URL(made.body.data.claim_url);
    expect([url.origin, url.pathname, url.search]).toEqual([a.url, '/refund', '']);
    const token = url.hash.slice(1);
    const id = made.body.data.id as string;
    // Shown once: never again, and only its hash is kept.
    expect((await call(a, 'GET', `/api/v1/refunds/${id}`)).body.data.claim_url).toBeUndefined();
    expect(JSON.stringify(await a.db.query(`SELECT * FROM refunds WHERE id = $1`, [id]))).not.toContain(token);
    // Reserved meanwhile, nothing handed to the treasury yet.
    expect(await kindsOf(id)).toEqual(['withdrawal_reserved']);
    expect(await a.db.query(`SELECT id FROM withdrawals WHERE id = $1`, [id])).toEqual([]);

    const details = await customerCall(b, '/refund/details', { token });
    expect(details.body).toMatchObject({
      business: DEMO_MERCHANT.businessName,
      coin: 'USDT',
      amount: expect.any(String),
      network: expect.any(String),
      test: true,
    });
    // The address's checks: a deposit address (any payment's), a broken checksum, not an address.
    for (const [address, words] of [
      [p.address, 'deposit address'],
      ['0x' + 'aB'.repeat(20), 'checksum'],
      ['0x12', '40 hexadecimal'],
    ] as const) {
      const refused = await customerCall(a, '/refund/claim', { token, address, confirm: true });
      expect([refused.status, refused.body.errors[0].field, refused.body.message]).toEqual([400, 'address', expect.stringContaining(words)]);
    }
    // Checked first, shown back checksummed; nothing claimed until confirmed.
    const checked = await customerCall(a, '/refund/claim', { token, address: customer });
    expect(checked.body).toEqual({ address: getAddress(customer), confirmed: false });
    expect((await call(a, 'GET', `/api/v1/refunds/${id}`)).body.data.status).toBe('waiting_for_address');
    // A token changed by one character opens nothing.
    const forged = token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A');
    expect([(await customerCall(a, '/refund/claim', { token: forged, address: customer, confirm: true })).status]).toEqual([404]);

    // Another merchant's waiting refund: its link claims its own refund, never this one.
    const other = await a.parts.merchants.create({ businessName: 'Other 3', businessEmail: `other3-${kind}@example.com`, businessLogo: '' }, Date.now());
    const otherToken = await (async () => {
      await call(a, 'PUT', '/api/v1/settlement', { settlement: 'balance' }, other.keys.test.secretKey);
      const reference = `r-${kind}-other`;
      await call(a, 'POST', '/api/v1/transaction/initialize', { reference, coin: 'USDT', currency: 'USD', amount: 10 }, other.keys.test.publicKey);
      await call(a, 'POST', '/api/v1/sandbox/deposit', { reference, kind: 'exact' }, other.keys.test.publicKey);
      const theirs = await call(a, 'POST', '/api/v1/refunds', { reference, amount: 'rest', reason: 'theirs' }, other.keys.test.secretKey);
      expect(theirs.status, JSON.stringify(theirs.body)).toBe(201);
      return { id: theirs.body.data.id as string, token: new URL(theirs.body.data.claim_url).hash.slice(1) };
    })();
    const claimedTheirs = await customerCall(b, '/refund/claim', { token: otherToken.token, address: customer, confirm: true });
    expect(claimedTheirs.body).toMatchObject({ confirmed: true, status: 'ready' });
    expect((await call(a, 'GET', `/api/v1/refunds/${id}`)).body.data.status).toBe('waiting_for_address');
    expect((await call(a, 'GET', `/api/v1/refunds/${otherToken.id}`, undefined, other.keys.test.secretKey)).body.data.status).toBe('ready');

    // Claimed: ready, the treasury's withdrawal to the customer's address; then never again.
    const claimed = await customerCall(b, '/refund/claim', { token, address: customer, confirm: true });
    expect(claimed.body).toEqual({ address: getAddress(customer), confirmed: true, status: 'ready' });
    const [w] = await a.db.query<{ address: string; amount: string }>(`SELECT address, amount::text AS amount FROM withdrawals WHERE id = $1`, [id]);
    expect(w).toEqual({ address: getAddress(customer), amount: String(p.arrived / 2n) });
    for (const confirm of [true, false]) {
      const twice = await customerCall(a, '/refund/claim', { token, address: '0x' + 'd1'.repeat(20), confirm });
      expect([twice.status, twice.body.code, twice.body.errors[0].field]).toEqual([409, 'refund_link_used', 'token']);
    }
    expect((await customerCall(a, '/refund/details', { token })).body.code).toBe('refund_link_used');
    expect(await toldOf(id)).toEqual(['waiting_for_address', 'ready']);
    // The customer's claimed wallet never waited the new-wallet delay, so its refund's
    // withdrawal must not let a live withdrawal there skip it (as one to a wallet used before).
    const [sent] = await a.db.query<{ chain_id: number }>(`UPDATE withdrawals SET mode = 'live' WHERE id = $1 RETURNING chain_id`, [id]);
    const live = { merchant: { id: DEMO_MERCHANT.id }, mode: 'live' } as Parameters<typeof a.parts.destinations.withdrawalAddress>[0];
    expect((await a.parts.destinations.withdrawalAddress(live, Number(sent!.chain_id), getAddress(customer), Date.now())).ready).toBe(false);
    await a.db.query(`UPDATE withdrawals SET mode = 'test' WHERE id = $1`, [id]);

    // An expired link is refused; the job then cancels its refund, the reservation back.
    const late = await call(a, 'POST', '/api/v1/refunds', { reference: p.reference, amount: 'rest', reason: 'never claimed' });
    const lateToken = new URL(late.body.data.claim_url).hash.slice(1);
    await a.db.query(`UPDATE refunds SET claim_expires_ms = $2 WHERE id = $1`, [late.body.data.id, Date.now() - 1]);
    const expired = await customerCall(a, '/refund/claim', { token: lateToken, address: customer, confirm: true });
    expect([expired.status, expired.body.code]).toEqual([409, 'refund_link_expired']);
    expect((await expireClaimLinks(a.parts.refundTransactions, Date.now(), refundView)).map((r) => [r.id, r.state])).toEqual([[late.body.data.id, 'canceled']]);
    expect(await kindsOf(late.body.data.id)).toEqual(['withdrawal_reserved', 'withdrawal_returned']);
    expect(await toldOf(late.body.data.id)).toEqual(['waiting_for_address', 'canceled']);
    await balanced();
  });

  it("cancel: a refund waiting for its address or not yet signed is canceled, its reservation back in one entry; one already signed is not; a cancel racing the treasury's send ends in exactly one", async () => {
    const p = await paid('over');
    const ask = async (amount: string, address?: string) =>
      (await call(a, 'POST', '/api/v1/refunds', { reference: p.reference, amount, reason: 'to cancel', ...(address ? { address } : {}) })).body.data;
    // Ready, nothing signed: canceled; the treasury's withdrawal failed 'canceled', never sent.
    const ready = await ask('0.000000000000001', customer);
    const canceled = await call(b, 'POST', `/api/v1/refunds/${ready.id}/cancel`);
    expect([canceled.status, canceled.body.data.status]).toEqual([200, 'canceled']);
    expect(await kindsOf(ready.id)).toEqual(['withdrawal_reserved', 'withdrawal_returned']);
    expect(await a.db.query(`SELECT state, failure, tx_hash FROM withdrawals WHERE id = $1`, [ready.id])).toEqual([
      { state: 'failed', failure: 'canceled', tx_hash: null },
    ]);
    const again = await call(a, 'POST', `/api/v1/refunds/${ready.id}/cancel`);
    expect([again.status, again.body.code]).toEqual([409, 'refund_state']);
    expect(await kindsOf(ready.id)).toEqual(['withdrawal_reserved', 'withdrawal_returned']);
    // Waiting for its address: canceled, and its link dead.
    const waiting = await call(a, 'POST', '/api/v1/refunds', { reference: p.reference, amount: '0.000000000000001', reason: 'to cancel' });
    expect((await call(a, 'POST', `/api/v1/refunds/${waiting.body.data.id}/cancel`)).body.data.status).toBe('canceled');
    const dead = await customerCall(a, '/refund/claim', { token: new URL(waiting.body.data.claim_url).hash.slice(1), address: customer, confirm: true });
    expect(dead.body.code).toBe('refund_link_used');
    expect(await toldOf(waiting.body.data.id)).toEqual(['waiting_for_address', 'canceled']);
    // Signed by the treasury: too late.
    const signed = await ask('0.000000000000001', customer);
    await a.parts.withdrawals.withdrawalSigned(signed.id, { hash: '0x' + '5'.repeat(64), raw: '0x01', nonce: 1 }, Date.now());
    const late = await call(a, 'POST', `/api/v1/refunds/${signed.id}/cancel`);
    expect([late.status, late.body.code]).toEqual([409, 'refund_state']);
    expect(await kindsOf(signed.id)).toEqual(['withdrawal_reserved']);
    // Another merchant cannot cancel it.
    const other = await a.parts.merchants.create({ businessName: 'Other 4', businessEmail: `other4-${kind}@example.com`, businessLogo: '' }, Date.now());
    expect((await call(a, 'POST', `/api/v1/refunds/${signed.id}/cancel`, undefined, other.keys.test.secretKey)).status).toBe(404);
    // Races: cancel (instance b) against the treasury recording its transaction (instance a).
    for (let i = 0; i < 4; i++) {
      const r = await ask('0.000000000000001', customer);
      const [cancel, recorded] = await Promise.all([
        call(b, 'POST', `/api/v1/refunds/${r.id}/cancel`),
        a.parts.withdrawals.withdrawalSigned(r.id, { hash: '0x' + String(i + 6).repeat(64), raw: '0x01', nonce: 2 + i }, Date.now()),
      ]);
      const [row] = await a.db.query<{ state: string; tx_hash: string | null }>(`SELECT state, tx_hash FROM withdrawals WHERE id = $1`, [r.id]);
      if (cancel.status === 200) {
        expect([row!.state, row!.tx_hash, recorded.txHash]).toEqual(['failed', null, null]);
        expect(await kindsOf(r.id)).toEqual(['withdrawal_reserved', 'withdrawal_returned']);
      } else {
        expect([cancel.status, cancel.body.code, row!.state, row!.tx_hash]).toEqual([409, 'refund_state', 'pending', '0x' + String(i + 6).repeat(64)]);
        expect(await kindsOf(r.id)).toEqual(['withdrawal_reserved']);
      }
    }
    await balanced();
  });

  it("a refund is not a withdrawal: never listed, answered or told as one; its send's state and its REFUND_UPDATED move in one transaction, told once by two instances", async () => {
    const p = await paid('exact');
    const asked = await call(a, 'POST', '/api/v1/refunds', { reference: p.reference, amount: coins(1000n), reason: 'its own thing', address: customer });
    expect(asked.status, JSON.stringify(asked.body)).toBe(201);
    const id = asked.body.data.id as string;
    const listed = async () => (await call(a, 'GET', '/api/v1/withdrawals?limit=100')).body.data.map((w: { id: string }) => w.id);
    expect(await listed()).not.toContain(id);
    expect((await call(a, 'GET', `/api/v1/withdrawals/${id}`)).status).toBe(404);
    const hash = (c: string) => '0x' + c.repeat(64);
    // Telling it fails: its transaction is not recorded either (the same transaction).
    await a.db.query(
      `CREATE FUNCTION refuse_refund_told() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW.type = 'REFUND_UPDATED' THEN RAISE EXCEPTION 'not told'; END IF; RETURN NEW; END $$`,
    );
    await a.db.query(`CREATE TRIGGER refuse_refund_told BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION refuse_refund_told()`);
    try {
      await expect(a.parts.withdrawals.withdrawalSigned(id, { hash: hash('1'), raw: '0x01', nonce: 100 }, Date.now())).rejects.toThrow();
    } finally {
      await a.db.query(`DROP TRIGGER refuse_refund_told ON events`);
      await a.db.query(`DROP FUNCTION refuse_refund_told()`);
    }
    expect(await a.db.query(`SELECT tx_hash FROM withdrawals WHERE id = $1`, [id])).toEqual([{ tx_hash: null }]);
    expect(await toldOf(id)).toEqual(['ready']);
    // Recorded by two instances at once: one transaction, the refund sent and told once, by no job.
    const [x, y] = await Promise.all([
      a.parts.withdrawals.withdrawalSigned(id, { hash: hash('2'), raw: '0x02', nonce: 101 }, Date.now()),
      b.parts.withdrawals.withdrawalSigned(id, { hash: hash('3'), raw: '0x03', nonce: 102 }, Date.now()),
    ]);
    expect(x.txHash).toBe(y.txHash);
    expect((await call(a, 'GET', `/api/v1/refunds/${id}`)).body.data).toMatchObject({ status: 'sent', tx_hash: x.txHash });
    expect(await toldOf(id)).toEqual(['ready', 'sent']);
    // Counted by two instances at once: confirmed and told once, its money out once.
    await Promise.all([a, b].map((api) => finishWithdrawal(api.parts.balanceTransactions, id, { sent: true }, Date.now(), withdrawalView)));
    expect((await call(a, 'GET', `/api/v1/refunds/${id}`)).body.data).toMatchObject({ status: 'confirmed', tx_hash: x.txHash });
    expect(await toldOf(id)).toEqual(['ready', 'sent', 'confirmed']);
    expect(await kindsOf(id)).toEqual(['withdrawal_reserved', 'withdrawal_sent']);
    // Never a withdrawal: not listed, not answered, never a WITHDRAWAL_UPDATED.
    expect(await listed()).not.toContain(id);
    expect((await call(a, 'GET', `/api/v1/withdrawals/${id}`)).status).toBe(404);
    const asWithdrawal = (await a.db.query<{ body: string }>(`SELECT body FROM events WHERE type = 'WITHDRAWAL_UPDATED'`)).filter(
      (e) => JSON.parse(e.body).data.id === id,
    );
    expect(asWithdrawal).toEqual([]);
    await balanced();
  });

  it("the migration marking refunds' sends: rows a refund borrowed as withdrawals leave the withdrawal list, and a refund its send had left behind catches up", async () => {
    const p = await paid('exact');
    const ask = async () =>
      (await call(a, 'POST', '/api/v1/refunds', { reference: p.reference, amount: coins(1000n), reason: 'before the upgrade', address: customer })).body.data
        .id as string;
    const [done, lost] = [await ask(), await ask()];
    // As the service before it left them: withdrawals rows, one completed and one failed, their refunds not followed yet.
    await a.db.query(`UPDATE withdrawals SET purpose = 'withdrawal' WHERE id IN ($1, $2)`, [done, lost]);
    await a.db.query(`UPDATE withdrawals SET state = 'completed', tx_hash = $2 WHERE id = $1`, [done, '0x' + 'd'.repeat(64)]);
    await a.db.query(`UPDATE withdrawals SET state = 'failed', failure = 'reverted' WHERE id = $1`, [lost]);
    const listed = async () => (await call(a, 'GET', '/api/v1/withdrawals?limit=100')).body.data.map((w: { id: string }) => w.id);
    expect(await listed()).toEqual(expect.arrayContaining([done, lost]));
    const sql = (await loadMigrations()).find((m) => m.name.endsWith('_refund_sends'))!.sql;
    await a.db.exec(sql);
    expect(await listed()).not.toEqual(expect.arrayContaining([done]));
    expect(await listed()).not.toEqual(expect.arrayContaining([lost]));
    expect((await call(a, 'GET', `/api/v1/refunds/${done}`)).body.data).toMatchObject({ status: 'confirmed', tx_hash: '0x' + 'd'.repeat(64) });
    expect((await call(a, 'GET', `/api/v1/refunds/${lost}`)).body.data).toMatchObject({ status: 'failed', failure: 'reverted' });
    expect(await a.db.query(`SELECT purpose FROM withdrawals WHERE id IN ($1, $2)`, [done, lost])).toEqual([{ purpose: 'refund' }, { purpose: 'refund' }]);
  });

  it("a support member refunds only through the claim link, e-mailed to the customer and never answered to support, and up to the business's limit a day", async () => {
    const buyer = `buyer-${kind}@example.com`;
    const p = await paid('exact', 120, buyer);
    const email = `support-${kind}@example.com`;
    const invitation = await a.parts.team.invite(DEMO_MERCHANT.id, email, 'support', Date.now(), 60_000);
    const joined = await fetch(a.url + '/dashboard/api/invitation', {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: a.url },
      body: JSON.stringify({ token: invitation, email, password: 'correct horse battery' }),
    });
    expect(joined.status).toBe(200);
    const support = { cookie: joined.headers.get('set-cookie')!.split(';')[0]!, csrf: ((await joined.json()) as any).data.csrfToken as string };
    const asSupport = async (path: string, body: unknown) => {
      const response = await fetch(a.url + path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: a.url, cookie: support.cookie, 'x-csrf-token': support.csrf },
        body: JSON.stringify(body),
      });
      return { status: response.status, body: (await response.json()) as any };
    };
    const typed = await asSupport('/api/v1/refunds', { reference: p.reference, amount: '0.000000000001', reason: 'to my wallet', address: customer });
    expect([typed.status, typed.body.code, typed.body.errors?.[0].field], JSON.stringify(typed.body)).toEqual([403, 'permission_denied', 'address']);
    // The limit (the operator's default, 100 USD): a 120 USD payment's whole amount passes it.
    const whole = await asSupport('/api/v1/refunds', { reference: p.reference, amount: 'rest', reason: 'all of it' });
    expect([whole.status, whole.body.code, whole.body.errors[0].field]).toEqual([403, 'permission_denied', 'amount']);
    // The owner lowers it to 30 USD: 24 passes, then 12 more does not (counted over the day).
    expect((await call(a, 'PUT', '/api/v1/refunds/support_limit', { daily: '30' })).body.data).toEqual({ daily: '30.00' });
    const fits = await asSupport('/api/v1/refunds', { reference: p.reference, amount: coins(p.arrived / 5n), reason: 'a fifth' });
    expect([fits.status, fits.body.data.status]).toEqual([201, 'waiting_for_address']);
    // Support never sees the claim link (it would claim it with its own wallet): it went to the customer's e-mail only.
    expect(fits.body.data.claim_url).toBeUndefined();
    expect(JSON.stringify(fits.body)).not.toContain('/refund#');
    const links = await a.db.query<{ recipient: string }>(`SELECT recipient FROM emails WHERE kind = 'refund_link' AND text_body LIKE $1`, [
      `%${p.reference}%`,
    ]);
    expect(links.map((l) => l.recipient)).toEqual([buyer]);
    const past = await asSupport('/api/v1/refunds', { reference: p.reference, amount: coins(p.arrived / 10n), reason: 'a tenth' });
    expect([past.status, past.body.errors[0].field]).toEqual([403, 'amount']);
    expect(past.body.message).toMatch(/; 2\d\.\d\d USD refunded by support in the last 24 hours/);
    // A payment without the customer's e-mail: support cannot refund it (the link would have nowhere to go but support), by refund or send-back.
    const anonymous = await paid('over', 5);
    const noMail = await asSupport('/api/v1/refunds', { reference: anonymous.reference, amount: coins(1n), reason: 'to me' });
    expect([noMail.status, noMail.body.code, noMail.body.errors?.[0].field], JSON.stringify(noMail.body)).toEqual([403, 'permission_denied', 'customer_email']);
    const noMailBack = await asSupport(`/api/v1/payments/${anonymous.reference}/send_back`, { reason: 'to me' });
    expect([noMailBack.status, noMailBack.body.code, noMailBack.body.errors?.[0].field], JSON.stringify(noMailBack.body)).toEqual([
      403,
      'permission_denied',
      'customer_email',
    ]);
    // With it, the send-back's link goes to the customer, not into support's answer.
    const over = await paid('over', 5, buyer);
    const back = await asSupport(`/api/v1/payments/${over.reference}/send_back`, { reason: 'the excess' });
    expect(back.status, JSON.stringify(back.body)).toBe(201);
    expect(back.body.data.claim_url).toBeUndefined();
    // The owner's key is not limited and still gets its link; the limit back to the default.
    expect(
      (await call(a, 'POST', '/api/v1/refunds', { reference: p.reference, amount: coins(p.arrived / 2n), reason: 'owner', address: customer })).status,
    ).toBe(201);
    expect((await call(a, 'POST', '/api/v1/refunds', { reference: anonymous.reference, amount: coins(1n), reason: 'owner' })).body.data.claim_url).toContain(
      '/refund#',
    );
    expect((await call(a, 'PUT', '/api/v1/refunds/support_limit', { daily: null })).body.data).toEqual({ daily: '100.00' });
  });

  it("the balance statement's ids and cursors are opaque: they do not count other merchants' postings", async () => {
    // Two payments credited to the balance: lines of its statement whatever ran before.
    await paid('exact');
    await paid('exact');
    const first = await call(a, 'GET', '/api/v1/balances/entries?coin=USDT&limit=1');
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.data.length).toBe(1);
    for (const line of first.body.data) {
      expect(line.id).toEqual(expect.stringMatching(/^[A-Za-z0-9_-]{22}$/));
      expect(line.entry).toEqual(expect.stringMatching(/^[A-Za-z0-9_-]{22}$/));
    }
    expect(Buffer.from(first.body.next, 'base64url').toString()).not.toMatch(/\d{2,}$/);
    // Paged by the opaque cursor: the same lines as one page.
    const second = await call(a, 'GET', `/api/v1/balances/entries?coin=USDT&limit=1&cursor=${first.body.next}`);
    expect(second.body.data).toHaveLength(1);
    const whole = await call(a, 'GET', '/api/v1/balances/entries?coin=USDT&limit=2');
    expect([...first.body.data, ...second.body.data]).toEqual(whole.body.data);
    const forged = await call(a, 'GET', `/api/v1/balances/entries?cursor=${Buffer.from('statement:1').toString('base64url')}`);
    expect([forged.status, forged.body.errors?.[0].field]).toEqual([400, 'cursor']);
    // The CSV names each entry the same way.
    const csv = await (await fetch(`${a.url}/api/v1/balances/statement.csv`, { headers: { authorization: `Bearer ${secretKey}` } })).text();
    expect(csv).toContain(`,${first.body.data[0].entry},`);
  });

  it("the support limit is each mode's own: the test key sets test mode's, never live's", async () => {
    expect((await call(a, 'PUT', '/api/v1/refunds/support_limit', { daily: '1000000' })).body.data).toEqual({ daily: '1000000.00' });
    expect(await a.parts.refunds.supportLimitCents(DEMO_MERCHANT.id, 'test')).toBe(100_000_000n);
    expect(await a.parts.refunds.supportLimitCents(DEMO_MERCHANT.id, 'live')).toBe(10_000n);
    const live = await call(a, 'PUT', '/api/v1/refunds/support_limit', { daily: '40' }, DEMO_MERCHANT.keys.live.secretKey);
    expect(live.body.data).toEqual({ daily: '40.00' });
    expect(await a.parts.refunds.supportLimitCents(DEMO_MERCHANT.id, 'test')).toBe(100_000_000n);
    expect((await call(a, 'PUT', '/api/v1/refunds/support_limit', { daily: null })).body.data).toEqual({ daily: '100.00' });
  });
});
