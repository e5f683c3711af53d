// Test helpers: a fresh database of either kind, so storage tests run on both.
import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { openDatabase, type Database } from '../storage/db.ts';
import { migrate, schemaTemplate } from '../storage/migrations.ts';

export type DatabaseKind = 'pglite' | 'postgres';
export const KINDS: DatabaseKind[] = ['pglite', 'postgres'];
/**
 * PGlite alone, for files that test business or chain logic that merely stores rows: their SQL is the same
 * PostgreSQL on either engine, and a second run on a server would redo the whole file (a database, migrations,
 * the service, the chain work) to test nothing more. Storage and concurrency (locks, two instances or two
 * connections racing on one database, migrations, paging, restarts, numeric round trips) keep KINDS.
 */
export const ONLY_PGLITE: DatabaseKind[] = ['pglite'];

/** A new, empty PostgreSQL database on the run's cluster. */
export async function freshPostgres(): Promise<string> {
  const admin = inject('postgresUrl');
  const name = `t_${randomBytes(6).toString('hex')}`;
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  return admin.replace(/\/postgres$/, `/${name}`);
}

/** startService options for a fresh database of `kind`. */
export const databaseOptions = async (kind: DatabaseKind) => (kind === 'postgres' ? { databaseUrl: await freshPostgres() } : {});

/** A migrated database of `kind`, without the service: for a store's SQL alone. */
export async function migratedDatabase(kind: DatabaseKind): Promise<Database> {
  const db = await openDatabase({ ...(await databaseOptions(kind)), schema: await schemaTemplate() });
  await migrate(db);
  return db;
}
