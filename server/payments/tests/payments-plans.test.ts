// The payments table's indexes, each justified by the plan of a hot query as the code
// sends it, on a real PostgreSQL with 20,000 payments (ANALYZEd). The SQL is inline in the stores,
// so each statement below is copied with the file it lives in; keep them in step.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../storage/db.ts';
import { openPostgres } from '../../storage/db.ts';
import { migrate } from '../../storage/migrations.ts';
import { freshPostgres } from '../../testing/databases.ts';
import { PAYMENT_COLUMNS } from '../store.ts';

const M = [
  '00000000-0000-4000-8000-000000000001',
  '00000000-0000-4000-8000-000000000002',
  '00000000-0000-4000-8000-000000000003',
  '00000000-0000-4000-8000-000000000004',
];
const NOW = 1_800_000_000_000;

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Conflict Arbiter Indexes'?: string[];
  Plans?: PlanNode[];
}
const nodes = (n: PlanNode): PlanNode[] => [n, ...(n.Plans ?? []).flatMap(nodes)];

let db: Database;
const plan = async (sql: string, params: unknown[]) => {
  const [row] = await db.query(`EXPLAIN (FORMAT JSON) ${sql}`, params);
  const json = row['QUERY PLAN'] as unknown;
  return nodes((typeof json === 'string' ? JSON.parse(json) : json)[0].Plan as PlanNode);
};
/** The index scans on payments the plan does, and that it reads no payments row by a Seq Scan. */
const paymentsIndexes = (all: PlanNode[]) => {
  expect(all.filter((n) => n['Node Type'] === 'Seq Scan' && n['Relation Name'] === 'payments')).toEqual([]);
  return [...new Set(all.filter((n) => n['Relation Name'] === 'payments' && n['Index Name']).map((n) => `${n['Node Type']} ${n['Index Name']}`))];
};

beforeAll(async () => {
  db = await openPostgres(await freshPostgres());
  await migrate(db);
  for (const id of M) await db.query(`INSERT INTO merchants (id, business_name, business_email, created_ms) VALUES ($1, 'Shop', 'shop@example.com', 0)`, [id]);
  // 20,000 payments over four merchants and both modes over ~a month; one in 20 accepts a part,
  // one in 3 is paid, settled ones are settled; each its own address and customer e-mail.
  await db.query(
    `INSERT INTO payments (merchant_id, mode, reference, created_by, coin, chain_id, token, decimals, currency, fiat_minor, due, fee, paid,
       fiat_rate, crypto_rate, address, accept_partial, customer_name, customer_email, expires_ms, created_ms, updated_ms, settled_ms)
     SELECT ($1::uuid[])[1 + i % 4], CASE WHEN i % 10 = 0 THEN 'test' ELSE 'live' END, 'ref-' || i, 'secret', 'USDT', 8453,
       '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913', 6, 'NGN', 1500000, 1000000, 0, CASE WHEN i % 3 = 0 THEN 1000000 WHEN i % 7 = 0 THEN 400000 ELSE 0 END,
       '1500', '1', '0x' || lpad(to_hex(i), 40, '0'), i % 20 = 0, 'Ada', 'customer' || i || '@example.com',
       $2::bigint - 2592000000 + i * 130000 + 1800000, $2::bigint - 2592000000 + i * 130000, $2::bigint,
       CASE WHEN i % 3 = 0 OR (i % 20 = 0 AND i < 19000) THEN $2::bigint - 2592000000 + i * 130000 + 1800000 END
     FROM generate_series(1::bigint, 20000::bigint) AS i`,
    [M, NOW],
  );
  await db.query('ANALYZE payments');
  await db.query('ANALYZE chain_transfers');
}, 120_000);
afterAll(() => db?.close());

describe('payments indexes, each used by a hot query (EXPLAIN on PostgreSQL, 20k rows)', () => {
  it('initialize: INSERT ... ON CONFLICT (merchant_id, mode, reference) arbitrates on the unique index', async () => {
    // server/payments/store.ts INSERT_PAYMENT (abridged to the columns that are NOT NULL without default; same conflict target)
    const all = await plan(
      `INSERT INTO payments (merchant_id, mode, reference, created_by, coin, chain_id, token, decimals, currency, fiat_minor, due, fee, fiat_rate, crypto_rate,
         address, accept_partial, customer_name, customer_email, expires_ms, created_ms, updated_ms)
       VALUES ($1, $2, $3, 'secret', 'USDT', 8453, '0x', 6, 'NGN', 1, 1, 0, '1', '1', '0xab', false, '', '', 0, 0, 0)
       ON CONFLICT (merchant_id, mode, reference) DO NOTHING RETURNING id`,
      [M[0], 'live', 'ref-new'],
    );
    expect(all[0]['Conflict Arbiter Indexes']).toEqual(['payments_merchant_id_mode_reference_key']);
  });

  it('verify: by merchant, mode and reference reads the unique index', async () => {
    // server/payments/store.ts find (payment_find) and lock (payment_lock, with FOR UPDATE)
    for (const tail of ['', ' FOR UPDATE']) {
      const all = await plan(`SELECT * FROM payments WHERE merchant_id = $1 AND mode = $2 AND reference = $3${tail}`, [M[1], 'live', 'ref-4001']);
      expect(paymentsIndexes(all)).toEqual(['Index Scan payments_merchant_id_mode_reference_key']);
    }
  });

  it('the watcher: which payments own these deposit addresses reads payments_address', async () => {
    // server/chain/store.ts (the block's transfers to known addresses)
    const all = await plan(`SELECT id, merchant_id, mode, reference, token, chain_id, address FROM payments WHERE lower(address) = ANY($1)`, [
      ['0x' + (123).toString(16).padStart(40, '0'), '0x' + (9876).toString(16).padStart(40, '0')],
    ]);
    expect(paymentsIndexes(all)).toEqual([expect.stringMatching(/^(Index|Bitmap Index) Scan payments_address$/)]);
    // server/payments/store.ts isDepositAddress (a refund never goes to one of our deposit addresses)
    const one = await plan(`SELECT 1 FROM payments WHERE lower(address) = lower($1) LIMIT 1`, ['0x' + (77).toString(16).padStart(40, '0')]);
    expect(paymentsIndexes(one)).toEqual([expect.stringMatching(/^(Index|Bitmap Index) Scan payments_address$/)]);
  });

  it('the finish job: expired accepted partials read the partial index payments_to_settle', async () => {
    // server/payments/store.ts expiredPartials (the payments still confirming, chain/store.ts's confirmingPayments, left out)
    const all = await plan(
      `SELECT ${PAYMENT_COLUMNS} FROM payments WHERE settled_ms IS NULL AND accept_partial AND paid > 0 AND paid < due AND expires_ms <= $1
          AND NOT (id::text = ANY($3::text[]))
          ORDER BY expires_ms LIMIT $2 FOR UPDATE SKIP LOCKED`,
      [NOW, 50, ['4000', '4020']],
    );
    expect(paymentsIndexes(all)).toEqual([expect.stringMatching(/^(Index|Bitmap Index) Scan payments_to_settle$/)]);
  });

  it('the dashboard list, newest first and its next page, reads payments_list', async () => {
    // server/payments/list-store.ts list: no filter, then with the keyset cursor
    const first = await plan(`SELECT p.* FROM payments p WHERE p.merchant_id = $1 AND p.mode = $2 ORDER BY p.created_ms DESC, p.id DESC LIMIT $3`, [
      M[2],
      'live',
      26,
    ]);
    expect(paymentsIndexes(first)).toEqual(['Index Scan payments_list']);
    const next = await plan(
      `SELECT p.* FROM payments p WHERE p.merchant_id = $1 AND p.mode = $2 AND (p.created_ms, p.id) < ($3, $4) ORDER BY p.created_ms DESC, p.id DESC LIMIT $5`,
      [M[2], 'live', NOW - 1_000_000_000, '12000', 26],
    );
    expect(paymentsIndexes(next)).toEqual(['Index Scan payments_list']);
  });

  it("the dashboard's e-mail search reads payments_email", async () => {
    // server/payments/list-store.ts list with q holding an '@'
    const all = await plan(
      `SELECT p.* FROM payments p WHERE p.merchant_id = $1 AND p.mode = $2 AND lower(p.customer_email) = lower($3) ORDER BY p.created_ms DESC, p.id DESC LIMIT $4`,
      [M[3], 'live', 'Customer4003@example.com', 26],
    );
    expect(paymentsIndexes(all)).toEqual([expect.stringMatching(/^(Index|Bitmap Index) Scan payments_email$/)]);
  });
});
