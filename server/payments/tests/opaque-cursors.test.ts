// Issue 48 review (2): the payments list's cursor held the payment's row number, one sequence
// for every merchant: a rival decoding `next` counted the payments others made in between.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type Service } from '../../service/app.ts';
import { cheapPasswords } from '../../testing/passwords.ts';
import { databaseOptions, KINDS } from '../../testing/databases.ts';
import { callApi, type Call } from '../../testing/api-calls.ts';

const ADMIN = 'op_opaque_cursor_test_token_0123456789abcdef0123';

describe.each(KINDS)('the payments list cursor, on %s', { timeout: 120_000 }, (kind) => {
  let api: Service;
  let merchant: any;
  let rival: any;
  const call = (path: string, c: Call = {}) => callApi(api.url, path, c);

  beforeAll(async () => {
    api = await startService({ adminToken: ADMIN, jobs: false, signInsPerClient: 10_000, ...(await databaseOptions(kind)), ...cheapPasswords });
    merchant = (await call('/operator/v1/merchants', { method: 'POST', bearer: ADMIN, body: { name: 'Victim Goods', email: 'owner@victim.example' } })).body
      .data;
    rival = (await call('/operator/v1/merchants', { method: 'POST', bearer: ADMIN, body: { name: 'Rival', email: 'owner@rival.example' } })).body.data;
  });
  afterAll(async () => {
    await api?.close();
  });

  const start = async (m: any, ref: string) =>
    expect(
      (
        await call('/api/v1/transaction/initialize', {
          method: 'POST',
          pk: m.keys.test.publicKey,
          body: { reference: ref, coin: 'USDT', currency: 'USD', amount: 5 },
        })
      ).status,
    ).toBe(201);

  it("shows no number that counts other merchants' payments, and still pages through all of one's own", async () => {
    await start(rival, 'mine-1');
    await start(rival, 'mine-2');
    const next = async () => (await call('/api/v1/payments?limit=1', { bearer: rival.keys.test.secretKey })).body.next as string;
    const before = await next();
    for (let i = 0; i < 7; i++) await start(merchant, `victim-${i}`);
    await start(rival, 'mine-3');
    await start(rival, 'mine-4');
    const after = await next();
    // Whatever the cursor holds, no part of it is the payments' row number.
    const ids = (await api.db.query<{ id: string }>(`SELECT id::text AS id FROM payments`)).map((r) => r.id);
    for (const cursor of [before, after]) {
      const parts = Buffer.from(cursor, 'base64url').toString().split(':');
      expect(parts[0]).toBe('payments');
      for (const part of parts.slice(1)) expect(ids).not.toContain(part);
    }
    // The cursors still page: one at a time through the rival's four, newest first.
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await call(`/api/v1/payments?limit=1${cursor ? `&cursor=${cursor}` : ''}`, { bearer: rival.keys.test.secretKey });
      expect(page.status).toBe(200);
      seen.push(...page.body.data.map((p: any) => p.reference));
      cursor = page.body.next;
    } while (cursor);
    expect(seen).toEqual(['mine-4', 'mine-3', 'mine-2', 'mine-1']);
    // Another list's cursor, or a made-up number, is the 400 naming cursor.
    const forged = Buffer.from(`payments:${Date.now()}:1`).toString('base64url');
    const refused = await call(`/api/v1/payments?cursor=${forged}`, { bearer: rival.keys.test.secretKey });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain('cursor');
  });
});
