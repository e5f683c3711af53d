// Migrations one file each, on both databases: applied in order with a checksum, a changed
// applied one refused with its name, and a database made when migrations were one array
// (recorded by position, without checksums) carried over without applying anything again.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeEach, afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../db.ts';
import { loadMigrations, migrate, migration, MigrationRefused } from '../migrations.ts';
import { databaseOptions, KINDS } from '../../testing/databases.ts';

const shipped = await loadMigrations();

describe('the migration files', () => {
  it('are found, numbered from 1, each named and checksummed', () => {
    expect(shipped.length).toBeGreaterThanOrEqual(19);
    expect(shipped.map((m) => m.version)).toEqual(shipped.map((_, i) => i + 1));
    expect(shipped[0].name).toBe('0001_initial');
    expect(shipped[18].name).toBe('0019_treasury_nonces');
    for (const m of shipped) expect(m.checksum).toMatch(/^[0-9a-f]{64}$/);
  });

  const scratch = mkdtempSync(join(tmpdir(), 'service-migrations-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));
  const folder = (files: Record<string, string>) => {
    const dir = mkdtempSync(join(scratch, 'dir-'));
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    return pathToFileURL(`${dir}/`);
  };

  it('a folder with a number skipped or used twice is refused, naming the file', async () => {
    const sql = 'export default "SELECT 1";\n';
    await expect(loadMigrations(folder({ '0001_a.js': sql, '0003_c.js': sql }))).rejects.toThrow('0003_c.js should be numbered 0002');
    await expect(loadMigrations(folder({ '0001_a.js': sql, '0001_b.js': sql }))).rejects.toThrow('0001_b.js should be numbered 0002');
    await expect(loadMigrations(folder({ '0001_a.js': 'export default 42;\n' }))).rejects.toThrow('0001_a.js must export its SQL');
    // Declarations and other files beside them are not migrations.
    expect((await loadMigrations(folder({ '0001_a.js': sql, '0001_a.d.ts': 'declare const s: string;', 'notes.md': '' }))).map((m) => m.name)).toEqual([
      '0001_a',
    ]);
  });
});

describe.each(KINDS)('migrations on %s', { timeout: 60_000 }, (kind) => {
  let db: Database;
  beforeEach(async () => {
    db = await openDatabase(await databaseOptions(kind));
  }, 60_000);
  afterEach(() => db.close());

  const recorded = (d: Database) =>
    d.query<{ version: number; name: string | null; checksum: string | null }>('SELECT version, name, checksum FROM schema_migrations ORDER BY version');
  const tables = async (d: Database) =>
    (await d.query<{ name: string }>(`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY 1`)).map(
      (r) => r.name,
    );

  it('applies every file once, in order, recording its name and checksum; again, nothing', async () => {
    expect(await migrate(db)).toBe(shipped.length);
    expect(await recorded(db)).toEqual(shipped.map((m) => ({ version: m.version, name: m.name, checksum: m.checksum })));
    expect(await tables(db)).toEqual(expect.arrayContaining(['merchants', 'payments', 'leases', 'partner_transfers', 'sign_in_failures']));
    expect(await migrate(db)).toBe(0);
  });

  it('runs a file of many statements, comments and semicolons in strings included, as one script', async () => {
    const script = migration(
      1,
      'script',
      `
      -- a comment; with a semicolon
      CREATE TABLE notes (body text NOT NULL DEFAULT 'a; b');
      INSERT INTO notes DEFAULT VALUES; INSERT INTO notes (body) VALUES ($$x;
      y$$);
    `,
    );
    expect(await migrate(db, [script])).toBe(1);
    expect((await db.query<{ body: string }>('SELECT body FROM notes ORDER BY body')).map((r) => r.body)).toEqual(['a; b', 'x;\n      y']);
  });

  it('refuses at start a migration whose file changed after it was applied, naming it, and applies nothing', async () => {
    const first = [migration(1, 'one', 'CREATE TABLE one (id integer)'), migration(2, 'two', 'CREATE TABLE two (id integer)')];
    await migrate(db, first);
    const changed = [first[0], migration(2, 'two', 'CREATE TABLE two (id bigint)'), migration(3, 'three', 'CREATE TABLE three (id integer)')];
    const refusal = await migrate(db, changed).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(MigrationRefused);
    expect((refusal as Error).message).toMatch(
      /^migration 0002_two was changed after it was applied to this database \(recorded checksum [0-9a-f]{12}…, its file now [0-9a-f]{12}…\); restore the file/,
    );
    expect(await tables(db)).not.toContain('three');
    expect(await migrate(db, [...first, changed[2]])).toBe(1);
  });

  it('refuses a database migrated by a newer version, or with a migration skipped', async () => {
    const all = [migration(1, 'one', 'CREATE TABLE one (id integer)'), migration(2, 'two', 'CREATE TABLE two (id integer)')];
    await migrate(db, all);
    await expect(migrate(db, all.slice(0, 1))).rejects.toThrow('the database has migration 0002_two, which this version of the service does not have');
    await db.query('DELETE FROM schema_migrations WHERE version = 1');
    await expect(migrate(db, all)).rejects.toThrow('migration 0001_one is not applied but a later one (0002_two) is');
  });

  /** A database as the service made it when migrations were one array: versions by position, no checksums. */
  async function legacy(d: Database, upTo: number) {
    await d.query('CREATE TABLE schema_migrations (version integer PRIMARY KEY, applied_ms bigint NOT NULL)');
    for (const m of shipped.slice(0, upTo)) {
      for (const statement of m.sql
        .split(/;\s*$/m)
        .map((s) => s.trim())
        .filter(Boolean))
        await d.query(statement);
      await d.query('INSERT INTO schema_migrations (version, applied_ms) VALUES ($1, $2)', [m.version, 1]);
    }
  }

  it('carries over a database of the array days: fills in names and checksums, applies only what it lacked', async () => {
    await legacy(db, 12);
    expect(await migrate(db)).toBe(shipped.length - 12);
    expect(await recorded(db)).toEqual(shipped.map((m) => ({ version: m.version, name: m.name, checksum: m.checksum })));
    const [{ applied }] = await db.query<{ applied: string }>('SELECT applied_ms::text AS applied FROM schema_migrations WHERE version = 12');
    expect(applied).toBe('1'); // kept as it was, not applied again
    expect(await migrate(db)).toBe(0);
  });
});
