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
// functions, types, policies, grants, sequences, roles, extensions, settings) and the migrations'
// record (versions, names, checksums: not when each was applied, which differs from copy to copy)
// are the same as a new load's, compared as one digest. A database left in a transaction, changed
// in its schema, or failing any step is closed instead, as it always was. Emptying does not
// VACUUM: the rows deleted stay as dead tuples, which no test's results depend on (plans are
// checked on PostgreSQL, after ANALYZE).
type PGlite = import('@electric-sql/pglite').PGlite;

/** How many emptied databases one process keeps, all schemas together (the least recently kept goes first). */
const KEEP = 2;

let reuse: { pristine: Map<string, string>; idle: Array<{ key: string; db: PGlite }> } | undefined;

/** Turns reuse on for this process (tests only). */
export function reuseInMemoryDatabases() {
  reuse ??= { pristine: new Map(), idle: [] };
}

export const reusing = () => reuse !== undefined;

const counts = { reused: 0, closed: 0 };
/** Databases handed out again, and closed for not being as loaded, in this process. */
export const reuseCounts = () => ({ ...counts });

/** A kept database filed under `key` (the copy it was loaded from), or undefined. */
export function takeKept(key: string): PGlite | undefined {
  let at = reuse ? reuse.idle.length - 1 : -1;
  while (at >= 0 && reuse!.idle[at]!.key !== key) at--;
  if (at < 0) return undefined;
  counts.reused++;
  return reuse!.idle.splice(at, 1)[0]!.db;
}

/**
 * The digest of a newly loaded database, recorded once per copy before any test touches it.
 * A copy whose new database has rows outside the migrations' record (emptying could not
 * bring them back) records none, and its databases are never kept.
 */
export async function recordPristine(key: string, db: PGlite): Promise<void> {
  if (!reuse || reuse.pristine.has(key)) return;
  reuse.pristine.set(key, ''); // until recorded: a database given back meanwhile is closed
  reuse.pristine.set(key, await pristine(db).catch(() => '')); // a schema without the record (no migrations): never kept
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

/** Empties and keeps `db`, or closes it (reuse off, or it is not as loaded); past KEEP, the least recently kept is closed. */
export async function giveBack(key: string | undefined, db: PGlite): Promise<void> {
  const pristine = key && reuse?.pristine.get(key);
  if (!pristine) return db.close();
  try {
    await db.exec('DISCARD ALL'); // refused inside a transaction block: not kept
    await db.exec(EMPTY);
    if ((await digest(db)) === pristine) {
      reuse!.idle.push({ key: key!, db });
      for (const old of reuse!.idle.splice(0, Math.max(0, reuse!.idle.length - KEEP))) await old.db.close().catch(() => {});
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
        c.relrowsecurity::text || c.relforcerowsecurity::text || ' ' || coalesce(c.relacl::text, '') || ' ' || coalesce(c.reloptions::text, '') || ' ' ||
        coalesce((SELECT string_agg(a.attname || ' ' || format_type(a.atttypid, a.atttypmod) || ' ' || a.attnotnull::text || ' ' ||
          coalesce(pg_get_expr(d.adbin, d.adrelid), ''), ', ' ORDER BY a.attnum)
          FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
          WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped), '') ||
        CASE c.relkind WHEN 'i' THEN ' ' || pg_get_indexdef(c.oid) WHEN 'v' THEN ' ' || pg_get_viewdef(c.oid) ELSE '' END AS x
        FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')
      UNION ALL SELECT 'con ' || conrelid::regclass::text || ' ' || conname || ' ' || pg_get_constraintdef(oid) FROM pg_constraint
        WHERE connamespace NOT IN ('pg_catalog'::regnamespace, 'information_schema'::regnamespace)
      UNION ALL SELECT 'trg ' || pg_get_triggerdef(oid) || ' ' || tgenabled::text FROM pg_trigger WHERE NOT tgisinternal
      UNION ALL SELECT 'fn ' || CASE WHEN p.prokind IN ('f', 'p') THEN pg_get_functiondef(p.oid) ELSE p.oid::regprocedure::text END ||
        ' ' || coalesce(p.proacl::text, '') FROM pg_proc p
        WHERE p.pronamespace NOT IN ('pg_catalog'::regnamespace, 'information_schema'::regnamespace)
      UNION ALL SELECT 'type ' || t.typnamespace::regnamespace::text || '.' || t.typname || ' ' || t.typtype::text FROM pg_type t
        WHERE t.typnamespace NOT IN ('pg_catalog'::regnamespace, 'information_schema'::regnamespace, 'pg_toast'::regnamespace)
      UNION ALL SELECT 'enum ' || enumtypid::regtype::text || ' ' || enumlabel FROM pg_enum
      UNION ALL SELECT 'policy ' || polrelid::regclass::text || ' ' || polname || ' ' || coalesce(pg_get_expr(polqual, polrelid), '') FROM pg_policy
      UNION ALL SELECT 'seq ' || schemaname || '.' || sequencename || ' ' || start_value || ' ' || increment_by || ' ' ||
        min_value || ' ' || max_value || ' ' || cycle::text || ' ' || coalesce(last_value::text, 'unused') FROM pg_sequences
      UNION ALL SELECT 'ns ' || nspname FROM pg_namespace
      UNION ALL SELECT 'role ' || rolname || ' ' || rolsuper::text FROM pg_roles
      UNION ALL SELECT 'ext ' || extname || ' ' || extversion FROM pg_extension
      UNION ALL SELECT 'set ' || setdatabase || ' ' || setrole || ' ' || array_to_string(setconfig, ',') FROM pg_db_role_setting
      UNION ALL SELECT 'db ' || datname FROM pg_database
      UNION ALL SELECT 'mig ' || version || ' ' || coalesce(name, '') || ' ' || coalesce(checksum, '') FROM schema_migrations
    ) q`);
  return result.rows[0]!.digest;
}
