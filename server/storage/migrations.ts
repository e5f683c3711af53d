// The schema, as migrations one file each in ./migrations/ (NNNN_name.ts, whose default export
// is the SQL), applied in order, once each, under an advisory lock so that two instances
// starting together on one PostgreSQL do not race. Each applied migration is recorded with the
// SHA-256 of its text: a file changed after it was applied is refused at start (add a new file
// instead). SQL that PostgreSQL 15 (Debian's) and PGlite (18) both accept. Times are epoch
// milliseconds (the service's clock, which tests may move); money is integer base units in
// numeric(78,0), never a float.
import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Database, TemplateSchema } from './db.ts';

export interface Migration {
  version: number;
  /** The file's name without its extension: 0002_partial_settlement. */
  name: string;
  sql: string;
  checksum: string;
}

/** Why a database is not migrated: one line naming the migration and what to do. */
export class MigrationRefused extends Error {
  override name = 'MigrationRefused';
}

// .ts under vitest, .js in the built service (tsc writes each file beside its .d.ts, skipped here).
const FILE = /^(\d{4})_([a-z0-9_]+)\.(?:ts|js)$/;

export const checksumOf = (sql: string) => createHash('sha256').update(sql.replace(/\r\n/g, '\n')).digest('hex');

export const migration = (version: number, label: string, sql: string): Migration => ({
  version,
  name: `${String(version).padStart(4, '0')}_${label}`,
  sql,
  checksum: checksumOf(sql),
});

/** The migrations in `dir`, numbered 1, 2, 3… without a gap or a number used twice. */
export async function loadMigrations(dir: URL = new URL('./migrations/', import.meta.url)): Promise<Migration[]> {
  const files = readdirSync(fileURLToPath(dir))
    .filter((file) => FILE.test(file))
    .sort();
  const found: Migration[] = [];
  for (const file of files) {
    const [, number, label] = FILE.exec(file)!;
    const version = Number(number);
    if (version !== found.length + 1) {
      throw new Error(`migrations: ${file} should be numbered ${String(found.length + 1).padStart(4, '0')} (each number once, none skipped)`);
    }
    const sql: unknown = ((await import(new URL(file, dir).href)) as { default?: unknown }).default;
    if (typeof sql !== 'string' || !sql.trim()) throw new Error(`migrations: ${file} must export its SQL as its default export`);
    found.push(migration(version, label, sql));
  }
  return found;
}

let shipped: Promise<Migration[]> | undefined;

/**
 * Brings `db` up to `migrations` (the service's own by default) and says how many it applied.
 * Refuses (MigrationRefused) a database where an applied migration's text has changed, one
 * migrated by a newer version, or one where a migration was skipped.
 */
export async function migrate(db: Database, migrations?: Migration[]): Promise<number> {
  const list = migrations ?? (await (shipped ??= loadMigrations()));
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock(7240001)');
    // Databases made before migrations had files recorded their versions only (a position in
    // one array, which is the same number as the file's now): their name and checksum are
    // filled in from the files, once.
    await tx.exec(`
      CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, applied_ms bigint NOT NULL);
      ALTER TABLE schema_migrations ADD COLUMN IF NOT EXISTS name text;
      ALTER TABLE schema_migrations ADD COLUMN IF NOT EXISTS checksum text;
    `);
    const rows = await tx.query<{ version: number; name: string | null; checksum: string | null }>(
      'SELECT version, name, checksum FROM schema_migrations ORDER BY version',
    );
    const byVersion = new Map(list.map((m) => [m.version, m]));
    const done = new Set<number>();
    for (const row of rows) {
      const version = Number(row.version);
      const known = byVersion.get(version);
      if (!known) {
        throw new MigrationRefused(
          `the database has migration ${row.name ?? version}, which this version of the service does not have (it was made by a newer one); run that version, or restore a backup made before it`,
        );
      }
      if (row.checksum === null) {
        await tx.query('UPDATE schema_migrations SET name = $2, checksum = $3 WHERE version = $1', [version, known.name, known.checksum]);
      } else if (row.checksum !== known.checksum) {
        throw new MigrationRefused(
          `migration ${known.name} was changed after it was applied to this database (recorded checksum ${row.checksum.slice(0, 12)}…, its file now ${known.checksum.slice(0, 12)}…); restore the file as it was, and make the change a new migration`,
        );
      }
      done.add(version);
    }
    let applied = 0;
    for (const m of list) {
      if (done.has(m.version)) continue;
      const later = [...done].find((version) => version > m.version);
      if (later !== undefined) {
        throw new MigrationRefused(
          `migration ${m.name} is not applied but a later one (${byVersion.get(later)!.name}) is; a new migration must be numbered after every one already released`,
        );
      }
      await tx.exec(m.sql);
      await tx.query('INSERT INTO schema_migrations (version, name, checksum, applied_ms) VALUES ($1, $2, $3, $4)', [
        m.version,
        m.name,
        m.checksum,
        Date.now(),
      ]);
      applied++;
    }
    return applied;
  });
}

/**
 * The service's schema as a new embedded database's template is made with: the migrations,
 * named by their checksums, so a new or changed migration makes a new template.
 */
export async function schemaTemplate(): Promise<TemplateSchema> {
  const list = await (shipped ??= loadMigrations());
  return {
    key: createHash('sha256')
      .update(list.map((m) => `${m.name}:${m.checksum}`).join('\n'))
      .digest('hex'),
    prepare: (db) => migrate(db, list),
  };
}
