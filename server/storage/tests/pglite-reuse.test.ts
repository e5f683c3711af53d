// A database in memory closed by one test and handed to the next must be one the next cannot
// tell from a new load (storage/pglite-reuse.ts). The test set-up turns reuse on in every worker.
import { describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../db.ts';
import { schemaTemplate } from '../migrations.ts';
import { reuseCounts, reusing } from '../pglite-reuse.ts';

const open = async () => openDatabase({ schema: await schemaTemplate() });
const count = async (db: Database, table: string) => Number((await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`))[0]!.n);
const event = (db: Database) => db.query<{ id: number }>(`INSERT INTO operator_events (kind, detail, created_ms) VALUES ('test', 'x', 1) RETURNING id`);

describe('in-memory databases handed out again', () => {
  it('is on in the test workers', () => expect(reusing()).toBe(true));

  it('gives the next open the closed database emptied: no row, sequences anew, the session forgotten, the old handle refused', async () => {
    const first = await open();
    await event(first);
    await event(first);
    await first.exec(`SET statement_timeout = '1234ms'`);
    await first.query('SELECT pg_advisory_lock(42)');
    const heard: string[] = [];
    await first.listen('reuse_test', (payload) => heard.push(payload));
    const before = reuseCounts();
    await first.close();

    const second = await open();
    expect(reuseCounts().reused).toBe(before.reused + 1);
    expect(await count(second, 'operator_events')).toBe(0);
    expect(Number((await event(second))[0]!.id)).toBe(1); // a sequence starts again, as in a new load
    expect(await second.query('SHOW statement_timeout')).toEqual([{ statement_timeout: '0' }]);
    // The lock the first holder took is free: another session-level lock on the same key is granted at once.
    expect(await second.query('SELECT pg_try_advisory_lock(42) AS got')).toEqual([{ got: true }]);
    const heardBySecond: string[] = [];
    await second.listen('reuse_test', (payload) => heardBySecond.push(payload));
    await second.exec(`NOTIFY reuse_test, 'for the second'`);
    await expect.poll(() => heardBySecond).toEqual(['for the second']);
    expect(heard).toEqual([]); // the first holder's listener ended with it
    // Whatever the first holder left running gets a closed database, never the second's.
    await expect(first.query('SELECT 1')).rejects.toThrow(/closed/);
    await expect(first.transaction(async (tx) => tx.query('SELECT 1'))).rejects.toThrow(/closed/);
    expect(await count(second, 'schema_migrations')).toBeGreaterThan(50);
    await second.close();
  });

  it('closes instead a database whose schema a test changed, or one left inside a transaction', async () => {
    const planted = await open();
    await planted.exec('CREATE TABLE planted (x int)');
    const before = reuseCounts();
    await planted.close();
    const next = await open();
    expect(await next.query("SELECT to_regclass('public.planted') AS t")).toEqual([{ t: null }]);
    expect(reuseCounts().closed).toBe(before.closed + 1);

    const altered = next;
    await altered.exec('ALTER TABLE operator_events ALTER COLUMN detail DROP NOT NULL');
    await altered.close();
    const third = await open();
    expect(await third.query(`SELECT is_nullable FROM information_schema.columns WHERE table_name = 'operator_events' AND column_name = 'detail'`)).toEqual([
      { is_nullable: 'NO' },
    ]);
    expect(reuseCounts().closed).toBe(before.closed + 2);

    await third.exec("BEGIN; INSERT INTO operator_events (kind, detail, created_ms) VALUES ('left', 'open', 1)");
    await third.close();
    const fourth = await open();
    expect(await count(fourth, 'operator_events')).toBe(0);
    expect(reuseCounts().closed).toBe(before.closed + 3);
    await fourth.close();
  });
});
