// A database in memory closed by one test and handed to the next must be one the next cannot
// tell from a new load (storage/pglite-reuse.ts). The test set-up turns reuse on in every worker.
import { chmodSync, mkdtempSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase, pgliteVersion, templateDir, templateFileName, type Database } from '../db.ts';
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
    // The lock the first holder took is gone (PGlite is one session: taking it again would succeed either way).
    expect(await second.query(`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory'`)).toEqual([{ n: 0 }]);
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

  it('hands one out only to an open that would load the same copy: not once the file is changed or others may enter its folder', async () => {
    // A copy of its own (another TMPDIR): the folder made open to others below is no other test's.
    const before0 = process.env.TMPDIR;
    process.env.TMPDIR = mkdtempSync(join(tmpdir(), 'reuse-copy-'));
    try {
      const name = templateFileName(pgliteVersion(), (await schemaTemplate()).key);
      const file = join(templateDir(), name);
      await (await open()).close(); // the copy made, and the database kept
      const before = reuseCounts();
      utimesSync(file, new Date(), new Date()); // the same bytes, but not the same file as far as its identity goes
      const afterTouch = await open();
      expect(reuseCounts().reused).toBe(before.reused);
      await afterTouch.close();
      chmodSync(templateDir(), 0o755);
      try {
        const others = await open();
        expect(reuseCounts().reused).toBe(before.reused);
        await others.close();
      } finally {
        chmodSync(templateDir(), 0o700);
      }
      const again = await open(); // its folder private again, the file unchanged since: handed out
      expect(reuseCounts().reused).toBe(before.reused + 1);
      await again.close();
    } finally {
      rmSync(process.env.TMPDIR!, { recursive: true, force: true });
      if (before0 === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = before0;
    }
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
