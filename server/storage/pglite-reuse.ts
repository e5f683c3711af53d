// A test run opens hundreds of in-memory PGlite databases, one for every service a test starts:
// each a load of the 28 MB migrated copy and a PostgreSQL start, about 0.5 CPU-s, when emptying
// one that a test has closed takes about 0.05. Turned on (`reuseInMemoryDatabases`, the test
// set-up does), a database closed in memory is emptied and kept, and the next open of the same
// schema in this process gets it instead of a new load. Nothing else turns it on: a service on
// disk or on PostgreSQL never comes here, and the service itself never calls it.
//
// A kept database must be one a new open cannot tell from a new load. Emptying it: the session
// forgets everything (DISCARD ALL: settings, prepared statements, LISTENs, advisory locks,
// temporary tables), every table but the migrations' record loses its rows, and every sequence
// starts again. Then it is checked: its schema (tables, columns, indexes, constraints, triggers,
// functions, sequences, roles, extensions, settings) and the migrations' record are the same as a
// new load's, compared as one digest. A database left in a transaction, changed in its schema,
// or failing any step is closed instead, as it always was.
type PGlite = import('@electric-sql/pglite').PGlite;

/** How many emptied databases one process keeps for each schema. */
const KEEP = 2;

let reuse: Map<string, { idle: PGlite[]; pristine?: string }> | undefined;

/** Turns reuse on for this process (tests only). */
export function reuseInMemoryDatabases() {
  reuse ??= new Map();
}

export const reusing = () => reuse !== undefined;

const counts = { loaded: 0, reused: 0, closed: 0 };
/** Databases loaded anew, handed out again, and closed for not being as loaded, in this process. */
export const reuseCounts = () => ({ ...counts });

/** A kept database of this schema, or undefined (none kept, or reuse off). */
export function takeKept(name: string): PGlite | undefined {
  const kept = reuse?.get(name)?.idle.pop();
  if (kept) counts.reused++;
  return kept;
}

/**
 * The digest of a newly loaded database, recorded once per schema before any test touches it.
 * A schema whose new database has rows outside the migrations' record (emptying could not
 * bring them back) records none, and its databases are never kept.
 */
export async function recordPristine(name: string, db: PGlite): Promise<void> {
  counts.loaded++;
  const entry = reuse?.get(name) ?? { idle: [] };
  if (!reuse || entry.pristine !== undefined) return;
  reuse.set(name, entry);
  entry.pristine = await pristine(db).catch(() => ''); // a schema without the record (no migrations): never kept
}

async function pristine(db: PGlite): Promise<string> {
  const tables = await db.query<{ name: string }>(
    `SELECT format('%I.%I', schemaname, tablename) AS name FROM pg_tables
      WHERE schemaname NOT IN ('pg_catalog', 'information_schema') AND tablename <> 'schema_migrations'`,
  );
  const filled = tables.rows.length
    ? (await db.query<{ any: boolean }>(`SELECT ${tables.rows.map((t) => `EXISTS (SELECT FROM ${t.name})`).join(' OR ')} AS any`)).rows[0]!.any
    : false;
  return filled ? '' : digest(db);
}

/** Empties and keeps `db`, or closes it (reuse off, too many kept, or it is not as loaded). */
export async function giveBack(name: string, db: PGlite): Promise<void> {
  const entry = reuse?.get(name);
  if (!entry?.pristine || entry.idle.length >= KEEP) return db.close();
  try {
    await db.exec('DISCARD ALL'); // refused inside a transaction block: not kept
    await db.exec(EMPTY);
    if ((await digest(db)) === entry.pristine && entry.idle.length < KEEP) {
      entry.idle.push(db);
      return;
    }
  } catch {
    // not as loaded: closed below
  }
  counts.closed++;
  await db.close().catch(() => {});
}

// Each table's rows go (without firing triggers or checking foreign keys: every table is emptied,
// so nothing is left pointing anywhere), and each sequence starts again at its start.
const EMPTY = `
  BEGIN;
  SET LOCAL session_replication_role = replica;
  DO $$
  DECLARE t record;
  BEGIN
    FOR t IN SELECT schemaname, tablename FROM pg_tables
      WHERE schemaname NOT IN ('pg_catalog', 'information_schema') AND tablename <> 'schema_migrations' LOOP
      EXECUTE format('DELETE FROM %I.%I', t.schemaname, t.tablename);
    END LOOP;
    FOR t IN SELECT schemaname, sequencename, start_value FROM pg_sequences
      WHERE schemaname NOT IN ('pg_catalog', 'information_schema') LOOP
      PERFORM setval(format('%I.%I', t.schemaname, t.sequencename), t.start_value, false);
    END LOOP;
  END $$;
  COMMIT;`;

/** One digest of everything a test could change besides rows, and of the migrations' record. */
async function digest(db: PGlite): Promise<string> {
  const result = await db.query<{ digest: string }>(`
    SELECT md5(string_agg(x, E'\\n' ORDER BY x)) AS digest FROM (
      SELECT 'rel ' || n.nspname || '.' || c.relname || ' ' || c.relkind::text || c.relpersistence::text || ' ' ||
        coalesce((SELECT string_agg(a.attname || ' ' || format_type(a.atttypid, a.atttypmod) || ' ' || a.attnotnull::text || ' ' ||
          coalesce(pg_get_expr(d.adbin, d.adrelid), ''), ', ' ORDER BY a.attnum)
          FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
          WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped), '') ||
        CASE c.relkind WHEN 'i' THEN ' ' || pg_get_indexdef(c.oid) WHEN 'v' THEN ' ' || pg_get_viewdef(c.oid) ELSE '' END AS x
        FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')
      UNION ALL SELECT 'con ' || conrelid::regclass::text || ' ' || conname || ' ' || pg_get_constraintdef(oid) FROM pg_constraint
        WHERE connamespace NOT IN ('pg_catalog'::regnamespace, 'information_schema'::regnamespace)
      UNION ALL SELECT 'trg ' || tgrelid::regclass::text || ' ' || tgname || ' ' || tgenabled::text FROM pg_trigger WHERE NOT tgisinternal
      UNION ALL SELECT 'fn ' || p.oid::regprocedure::text || ' ' || md5(p.prosrc) FROM pg_proc p
        WHERE p.pronamespace NOT IN ('pg_catalog'::regnamespace, 'information_schema'::regnamespace)
      UNION ALL SELECT 'seq ' || schemaname || '.' || sequencename || ' ' || start_value || ' ' || increment_by || ' ' ||
        coalesce(last_value::text, 'unused') FROM pg_sequences
      UNION ALL SELECT 'ns ' || nspname FROM pg_namespace
      UNION ALL SELECT 'role ' || rolname || ' ' || rolsuper::text FROM pg_roles
      UNION ALL SELECT 'ext ' || extname || ' ' || extversion FROM pg_extension
      UNION ALL SELECT 'set ' || setdatabase || ' ' || setrole || ' ' || array_to_string(setconfig, ',') FROM pg_db_role_setting
      UNION ALL SELECT 'db ' || datname FROM pg_database
      UNION ALL SELECT 'mig ' || version || ' ' || coalesce(name, '') || ' ' || coalesce(checksum, '') || ' ' || applied_ms
        FROM schema_migrations
    ) q`);
  return result.rows[0]!.digest;
}
