// The payments list with a million payments: a throwaway PostgreSQL cluster, one
// merchant with 1,000,000 stored payments (made in SQL), and GET /api/v1/payments's queries
// as the store runs them: the first page, a deep page (by cursor, half way down), a search by
// reference and by customer e-mail, a filter by status. p50 and p95 of each, in ms.
// Run: tsgo -p tsconfig.build.json && node build/e2e/bench/payments-list.js [count]
import { startCluster } from '../../server/testing/postgres.ts';
import { openDatabase } from '../../server/storage/db.ts';
import { migrate } from '../../server/storage/migrations.ts';
import { MerchantStore } from '../../server/merchants/store.ts';
import { memberRole } from '../../server/team/store.ts';
import { PaymentList, type PaymentFilter } from '../../server/payments/list-store.ts';
import { transferViews } from '../../server/chain/transfer-views-store.ts';

const COUNT = Number(process.argv[2] ?? 1_000_000);
const RUNS = 40;

const cluster = await startCluster();
const db = await openDatabase({ databaseUrl: cluster.url });
try {
  await migrate(db);
  const merchant = await new MerchantStore(db, memberRole).create({ businessName: 'Bench', businessEmail: 'bench@example.com', businessLogo: '' }, Date.now());
  const other = await new MerchantStore(db, memberRole).create({ businessName: 'Other', businessEmail: 'other@example.com', businessLogo: '' }, Date.now());
  const start = Date.now() - COUNT * 1000;
  const made = performance.now();
  // Another merchant's payments too (a tenth as many), so the index is not one merchant's alone.
  for (const [id, count] of [
    [merchant.id, COUNT],
    [other.id, Math.ceil(COUNT / 10)],
  ] as const) {
    await db.query(
      `INSERT INTO payments (merchant_id, mode, reference, created_by, coin, chain_id, token, decimals, currency, fiat_minor, due, fee, paid, fiat_rate, crypto_rate,
                             address, accept_partial, customer_name, customer_email, expires_ms, created_ms, updated_ms)
       SELECT $1, 'test', 'ord-' || i, 'secret', (ARRAY['USDT','USDC','DAI','BUSD'])[1 + i % 4], 97, '0x' || lpad(to_hex(i), 40, '0'), 18, 'USD', 1000 + i % 9000,
              (10 + i % 90)::numeric * 1000000000000000000, 0, CASE WHEN i % 3 = 0 THEN (10 + i % 90)::numeric * 1000000000000000000 ELSE 0 END, '1', '1',
              '0x' || lpad(to_hex(i * 7 + 3), 40, '0'), false, 'Customer ' || (i % 50000), 'customer' || (i % 50000) || '@example.com',
              $2::bigint + i * 1000 + 900000, $2::bigint + i * 1000, $2::bigint + i * 1000
         FROM generate_series(1, $3::integer) AS i`,
      [id, start, count],
    );
  }
  await db.query('ANALYZE payments');
  console.log(
    `${COUNT.toLocaleString('en')} payments of one merchant (and ${Math.ceil(COUNT / 10).toLocaleString('en')} of another) stored in ${((performance.now() - made) / 1000).toFixed(1)} s, PostgreSQL ${(await db.query('SHOW server_version'))[0].server_version}`,
  );

  const list = new PaymentList(db, transferViews);
  const account = { merchant: { id: merchant.id, businessName: '', businessEmail: '', businessLogo: '' }, mode: 'test' as const };
  const now = start + COUNT * 1000;
  const [middle] = await db.query(
    `SELECT id, created_ms FROM payments WHERE merchant_id = $1 AND mode = 'test' ORDER BY created_ms DESC, id DESC OFFSET $2 LIMIT 1`,
    [merchant.id, Math.floor(COUNT / 2)],
  );
  const cases: Array<[string, PaymentFilter]> = [
    ['first page (25)', { limit: 26 }],
    [
      `deep page (cursor at ${Math.floor(COUNT / 2).toLocaleString('en')})`,
      { limit: 26, after: { createdMs: Number(middle.created_ms), id: String(middle.id) } },
    ],
    ['search by reference', { limit: 26, q: `ord-${Math.floor(COUNT / 3)}` }],
    [`search by e-mail (${Math.ceil(COUNT / 50_000)} payments)`, { limit: 26, q: 'customer4242@example.com' }],
    ['search by deposit address', { limit: 26, q: `0x${(Math.floor(COUNT / 4) * 7 + 3).toString(16).padStart(40, '0')}` }],
    ['status=confirmed, first page', { limit: 26, status: 'confirmed' }],
    ['coin=DAI, deep page', { limit: 26, coin: 'DAI', after: { createdMs: Number(middle.created_ms), id: String(middle.id) } }],
  ];
  console.log('| query | rows | p50 ms | p95 ms |\n|---|---|---|---|');
  for (const [name, filter] of cases) {
    const times: number[] = [];
    let rows = 0;
    for (let i = 0; i < RUNS; i++) {
      const t = performance.now();
      rows = (await list.list(account, filter, now)).length;
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    console.log(`| ${name} | ${rows} | ${times[Math.floor(RUNS * 0.5)].toFixed(2)} | ${times[Math.floor(RUNS * 0.95)].toFixed(2)} |`);
  }
} finally {
  await db.close();
  cluster.stop();
}
