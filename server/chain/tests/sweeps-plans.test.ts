// The sweeper looks at final sweeps again while they are above the chain's finalized block
// (sweep-recheck.ts), every tick: on a chain with 40,000 swept transfers (ANALYZEd), on PGlite and
// PostgreSQL, the query finalSweeps sends (captured as the store sends it, not copied) reads
// migration 0048's index chain_transfers_sweep_final, a range of the recent blocks, and no
// chain_transfers row by a Seq Scan. Before 0048 (and with the query's old `sweep_final = $2`
// and `COALESCE(swept_block, 0) > $3`, which no partial index can serve) it scanned them all.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database, Row } from '../../storage/db.ts';
import { openDatabase } from '../../storage/db.ts';
import { migrate } from '../../storage/migrations.ts';
import { databaseOptions, KINDS } from '../../testing/databases.ts';
import { SweepStore } from '../sweep-store.ts';
import { depositViews } from '../../payments/deposit-views-store.ts';

const MERCHANT = '00000000-0000-4000-8000-000000000049';

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}
const nodes = (n: PlanNode): PlanNode[] => [n, ...(n.Plans ?? []).flatMap(nodes)];

describe.each(KINDS)('final sweeps looked at again, on %s', { timeout: 120_000 }, (kind) => {
  let db: Database;
  beforeAll(async () => {
    db = await openDatabase(await databaseOptions(kind));
    await migrate(db);
    await db.query(`INSERT INTO merchants (id, business_name, business_email, created_ms) VALUES ($1, 'Shop', 'shop@example.com', 0)`, [MERCHANT]);
    await db.query(
      `INSERT INTO payments (merchant_id, mode, reference, created_by, coin, chain_id, token, decimals, currency, fiat_minor, due, fee, paid,
         fiat_rate, crypto_rate, address, accept_partial, customer_name, customer_email, expires_ms, created_ms, updated_ms)
       SELECT $1, 'live', 'ref-' || i, 'secret', 'USDT', 8453, '0xtoken', 6, 'USD', 100, 1000000, 0, 1000000,
         '1', '1', '0x' || lpad(to_hex(i), 40, '0'), false, '', '', 0, i, i
       FROM generate_series(1::bigint, 4000::bigint) AS i`,
      [MERCHANT],
    );
    // 40,000 transfers on two chains, each swept in block i / 2 and final; one in 50 orphaned, one in 100 not swept yet.
    await db.query(
      `INSERT INTO chain_transfers (chain_id, tx_hash, log_index, block_number, block_hash, token, sender, recipient, amount, payment_id, state, seen_ms,
         swept_hash, swept_block, swept_block_hash, sweep_final)
       SELECT CASE WHEN i % 2 = 0 THEN 8453 ELSE 1 END, '0x' || lpad(to_hex(i), 64, '0'), 0, i, '0xb' || i, '0xtoken', '0xsender',
         '0x' || lpad(to_hex(1 + i % 4000), 40, '0'), 1000000, (SELECT min(id) FROM payments) + i % 4000,
         CASE WHEN i % 50 = 0 THEN 'orphaned' ELSE 'credited' END, i,
         CASE WHEN i % 100 = 1 THEN NULL ELSE '0xs' || (i / 2) END, CASE WHEN i % 100 = 1 THEN NULL ELSE i / 2 END,
         CASE WHEN i % 100 = 1 THEN NULL ELSE '0xsb' || (i / 2) END, i % 100 <> 1
       FROM generate_series(1, 40000) AS i`,
    );
    await db.query('ANALYZE payments');
    await db.query('ANALYZE chain_transfers');
  }, 120_000);
  afterAll(() => db?.close());

  it('reads chain_transfers_sweep_final by chain and block, no chain_transfers row by a Seq Scan', async () => {
    // The query as the store sends it: its SQL and parameters caught on the way.
    const sent: Array<{ sql: string; params: unknown[] }> = [];
    const catching = new Proxy(db, {
      get: (target, key) =>
        key === 'query' ? (sql: string, params: unknown[] = []) => (sent.push({ sql, params }), target.query(sql, params)) : Reflect.get(target, key),
    });
    const found = await new SweepStore(catching, depositViews).finalSweeps(8453, 19_900n);
    // Blocks 19,901 to 20,000 of the chain's transfers: 100 sweeps, the 4 orphaned left out.
    expect(found.length).toBe(96);
    expect(found.every((s) => s.blockNumber > 19_900n)).toBe(true);
    expect(sent).toHaveLength(1);
    const [row] = await db.query<Row>(`EXPLAIN (FORMAT JSON) ${sent[0]!.sql}`, sent[0]!.params);
    const json = row!['QUERY PLAN'] as unknown;
    const all = nodes((typeof json === 'string' ? JSON.parse(json) : json)[0].Plan as PlanNode);
    expect(all.filter((n) => n['Node Type'] === 'Seq Scan' && n['Relation Name'] === 'chain_transfers')).toEqual([]);
    // (A Bitmap Index Scan names its index only, its heap scan the table.)
    expect([...new Set(all.filter((n) => n['Index Name']?.startsWith('chain_transfers')).map((n) => `${n['Node Type']} ${n['Index Name']}`))]).toEqual([
      expect.stringMatching(/^(Index|Bitmap Index) Scan chain_transfers_sweep_final$/),
    ]);
  });
});
