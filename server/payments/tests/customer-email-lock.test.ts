// Issue 48 review (1): the customer's e-mail is where a refund's claim link goes. A page (the
// public key) replaced it on re-initialize, so support could point a wrong-coin payment's claim
// link at its own address and send it back to itself.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type Service } from '../../service/app.ts';
import { cheapPasswords } from '../../testing/passwords.ts';
import { DEMO_MERCHANT } from '../../service/seed.ts';
import { databaseOptions, KINDS } from '../../testing/databases.ts';

const { publicKey, secretKey } = DEMO_MERCHANT.keys.test;

describe.each(KINDS)('the customer e-mail of a payment, on %s', { timeout: 120_000 }, (kind) => {
  let a: Service;
  beforeAll(async () => {
    a = await startService({
      demo: true,
      ...(await databaseOptions(kind)),
      jobs: false,
      moneyMovesPerMinute: 1000,
      smtpUrl: 'smtp://127.0.0.1:9',
      ...cheapPasswords,
    });
  }, 120_000);
  afterAll(async () => {
    await a?.close();
  });

  const call = async (method: string, path: string, body?: unknown, key = secretKey) => {
    const r = await fetch(a.url + path, {
      method,
      headers: { ...(key.startsWith('sk_') ? { authorization: `Bearer ${key}` } : { 'x-api-key': key }), 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: r.status, body: (await r.json()) as any };
  };
  const init = (reference: string, extra: Record<string, unknown>, key = publicKey) =>
    call('POST', '/api/v1/transaction/initialize', { reference, coin: 'USDT', currency: 'USD', amount: 10, ...extra }, key);
  const emailOf = async (reference: string) =>
    (await a.db.query<{ customer_email: string | null }>(`SELECT customer_email FROM payments WHERE reference = $1`, [reference]))[0]!.customer_email;
  /** A transfer in another coin to the payment's address (an attention case), the payment expired. */
  const wrongCoin = async (reference: string, hash: string) => {
    const [pay] = await a.db.query<{ id: string }>(`SELECT id FROM payments WHERE reference = $1`, [reference]);
    const usdc = a.parts.catalog.coins('test').find((c) => c.symbol === 'USDC')!;
    await a.db.query(
      `INSERT INTO chain_transfers (chain_id, tx_hash, log_index, block_number, block_hash, token, sender, recipient, amount, payment_id, state, seen_ms, told_ms) VALUES ($1, $2, 0, 1, '0xb', $3, '0xs', '0xr', $4, $5, 'unexpected', $6, $6)`,
      [usdc.chainId, '0x' + hash.repeat(32), usdc.contractAddress.toLowerCase(), String(12n * 10n ** BigInt(usdc.decimals)), pay!.id, Date.now() - 60_000],
    );
    await a.db.query(`UPDATE payments SET expires_ms = $2 WHERE reference = $1`, [reference, Date.now() - 1000]);
  };

  it("support cannot steer a wrong-coin payment's claim link to itself by re-initializing with its own address", async () => {
    const buyer = 'buyer@example.com';
    const reference = 'lock-wrongcoin-1';
    expect((await init(reference, { customer_email: buyer })).status).toBe(201);
    await wrongCoin(reference, 'ab');
    const email = 'evil-support@example.com';
    const invitation = await a.parts.team.invite(DEMO_MERCHANT.id, email, 'support', Date.now(), 60_000);
    const joined = await fetch(a.url + '/dashboard/api/invitation', {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: a.url },
      body: JSON.stringify({ token: invitation, email, password: 'correct horse battery' }),
    });
    expect(joined.status).toBe(200);
    const cookie = joined.headers.get('set-cookie')!.split(';')[0]!;
    const csrf = ((await joined.json()) as any).data.csrfToken as string;
    // The page's key never replaces an e-mail already set.
    const re = await init(reference, { customer_email: email });
    expect(re.status).toBe(201);
    expect(await emailOf(reference)).toBe(buyer);
    // Nor does the merchant's own key, once a transfer is recorded: refused naming the field.
    const server = await init(reference, { coin: 'USDC', customer_email: 'other@example.com' }, secretKey);
    expect(server.status).toBe(409);
    expect(JSON.stringify(server.body)).toContain('customer_email');
    expect(await emailOf(reference)).toBe(buyer);
    const back = await fetch(a.url + `/api/v1/payments/${reference}/send_back`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: a.url, cookie, 'x-csrf-token': csrf },
      body: JSON.stringify({ reason: 'wrong coin' }),
    });
    expect(back.status).toBe(201);
    const links = await a.db.query<{ recipient: string }>(`SELECT recipient FROM emails WHERE kind = 'refund_link'`);
    expect(links.map((l) => l.recipient)).toEqual([buyer]);
  });

  it('a page adds an e-mail where none was, until a transfer is recorded; it never replaces one', async () => {
    expect((await init('lock-none-1', {})).status).toBe(201);
    expect((await init('lock-none-1', { coin: 'USDC', customer_email: 'first@example.com' })).status).toBe(201);
    expect(await emailOf('lock-none-1')).toBe('first@example.com');
    expect((await init('lock-none-1', { coin: 'USDT', customer_email: 'second@example.com' })).status).toBe(201);
    expect(await emailOf('lock-none-1')).toBe('first@example.com');
    // None set, then a wrong coin arrives: adding one now is refused (409 naming customer_email).
    expect((await init('lock-none-2', { coin: 'USDC' })).status).toBe(201);
    await wrongCoin('lock-none-2', 'cd');
    const late = await init('lock-none-2', { customer_email: 'evil@example.com' });
    expect(late.status).toBe(409);
    expect(JSON.stringify(late.body)).toContain('customer_email');
    expect(await emailOf('lock-none-2')).toBeFalsy();
    // The same e-mail again (a page re-quoting as it did) still re-quotes.
    expect((await init('lock-none-2', { coin: 'USDC' })).status).toBe(201);
  });

  // A refund recorded against the payment, with no transfer (one made outside it, as an
  // exception's): asked of the refunds' store in initialize's transaction.
  it('a refund recorded without any transfer locks the e-mail as a transfer does', async () => {
    expect((await init('lock-refund-1', { customer_email: 'first@example.com' })).status).toBe(201);
    const [pay] = await a.db.query<{ id: string; merchant_id: string; chain_id: number; token: string }>(
      `SELECT id, merchant_id, chain_id, token FROM payments WHERE reference = $1`,
      ['lock-refund-1'],
    );
    await a.db.query(
      `INSERT INTO refunds (id, merchant_id, mode, payment_id, reference, coin, chain_id, token, decimals, amount, reason, settlement, state, outside_payment, created_ms, updated_ms)
       VALUES ($1, $2, 'test', $3, 'lock-refund-1', 'USDT', $4, $5, 6, 1, 'sent back', 'wallet', 'waiting_for_address', true, $6, $6)`,
      [randomUUID(), pay!.merchant_id, pay!.id, pay!.chain_id, pay!.token, Date.now()],
    );
    const changed = await init('lock-refund-1', { coin: 'USDC', customer_email: 'second@example.com' }, secretKey);
    expect(changed.status).toBe(409);
    expect(JSON.stringify(changed.body)).toContain('customer_email');
    expect(await emailOf('lock-refund-1')).toBe('first@example.com');
  });
});
