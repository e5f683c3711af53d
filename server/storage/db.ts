// One small port over the two databases the service runs on: embedded PGlite (the default,
// a directory on disk, no set-up) and a PostgreSQL server through `pg` (DATABASE_URL). Both
// speak the same SQL; the rest of storage/ sees only this interface.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { privateDir } from './lock.ts';
import { giveBack, recordPristine, reusing, takeKept } from './pglite-reuse.ts';

export type Row = Record<string, unknown>;

export interface Sql {
  /**
   * `name`: a statement whose text never changes, on a hot path (initialize, verify): prepared
   * once per connection on PostgreSQL and then only bound and run, not parsed and planned again.
   * One name, one text (node-pg refuses a name reused with another text). PGlite ignores it.
   */
  query<T extends Row = Row>(text: string, params?: unknown[], name?: string): Promise<T[]>;
  /** Runs a script of statements (no parameters), as the driver's own multi-statement call: migrations. */
  exec(text: string): Promise<void>;
}

/** Whether the database answers (readiness): a trivial statement, true or false, never a throw. */
export const answers = (db: Sql): Promise<boolean> =>
  db.query('SELECT 1').then(
    () => true,
    () => false,
  );

export interface Database extends Sql {
  readonly kind: 'pglite' | 'postgres';
  /** Runs `work` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(work: (tx: Sql) => Promise<T>): Promise<T>;
  /** Calls `onMessage` for each NOTIFY on `channel`, from any process on the same database. */
  listen(channel: string, onMessage: (payload: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

/**
 * A new database starts from a copy of a migrated, empty one made once per machine for each
 * PGlite version and set of migrations (PGlite's initdb and 22 migrations take seconds; loading
 * the copy, well under one), in memory for tests or in a new DATA_DIR. The copy is of a scratch
 * cluster in memory that never held anything but the schema (never of a DATA_DIR, which holds
 * the operator token and the lock), kept in a folder only this user may enter (0700) as a file
 * only this user may read (0600). Before it is loaded it is checked: the folder and the file are
 * this user's, no one else's to read or write, not links, and the archive holds nothing but a
 * cluster's files. Anything else is never loaded: the database is made from nothing instead
 * (slower, as safe). The migrations run again on the loaded copy, so a copy that is not what
 * its name says is still checked against every migration's checksum.
 */
export const templateDir = () => join(tmpdir(), `service-pglite-${process.getuid?.() ?? 'user'}`);

/** This user's own folder or file, that no one else may read or change; false if it is not. */
function ownedPrivately(path: string, kind: 'dir' | 'file'): boolean {
  let stat: ReturnType<typeof lstatSync>;
  try {
    stat = lstatSync(path);
  } catch {
    return false;
  }
  if (kind === 'dir' ? !stat.isDirectory() : !stat.isFile()) return false; // a link is neither
  if (process.platform === 'win32') return true;
  return stat.uid === process.getuid!() && (stat.mode & 0o077) === 0;
}

// An empty cluster's files, as PGlite's dump names them; a template with anything else
// (an operator-token, a service.lock, a link) was not made from a scratch cluster.
const CLUSTER_ENTRY = /^\/(PG_VERSION|postgresql(\.auto)?\.conf|pg_hba\.conf|pg_ident\.conf|postmaster\.pid|(pg_[a-z_]+|global|base)(\/[A-Za-z0-9_.]+)*)$/;

/** What a new database is brought to before its copy is kept: the schema, named by its checksums. */
export interface TemplateSchema {
  /** Changes whenever what `prepare` does changes (the migrations' checksums). */
  key: string;
  prepare(db: Database): Promise<unknown>;
}

/** Changes when what a copy holds besides the schema changes (2: without template0 and template1). */
const TEMPLATE_LAYOUT = 2;

/** The template's file name, for one PGlite version and schema. */
export const templateFileName = (pgliteVersion: string, schemaKey = 'empty') =>
  `schema-${createHash('sha256').update(`${pgliteVersion}\n${schemaKey}\n${TEMPLATE_LAYOUT}`).digest('hex').slice(0, 16)}.tar`;

/** True when the tar holds only directories and regular files of a cluster. */
export function onlyClusterFiles(tar: Buffer): boolean {
  let entries = 0;
  for (let offset = 0; offset + 512 <= tar.length; ) {
    const header = tar.subarray(offset, offset + 512);
    if (header.every((b) => b === 0)) return entries > 0;
    const text = (from: number, to: number) =>
      header
        .subarray(from, to)
        .toString('latin1')
        .replace(/\0[\s\S]*$/, '');
    const name = (text(345, 500) ? `${text(345, 500)}/` : '') + text(0, 100);
    const type = String.fromCharCode(header[156]!);
    const size = parseInt(text(124, 136).trim() || '0', 8);
    if (!['0', '5', '\0'].includes(type) || !CLUSTER_ENTRY.test(name) || !Number.isFinite(size)) return false;
    entries++;
    offset += 512 + Math.ceil(size / 512) * 512;
  }
  return false; // no end of archive: cut short
}

// A copy not loaded for a week is of an older PGlite or schema (each new migration makes a new
// copy): removed when a new one is made, so the folder does not grow release after release.
const STALE_MS = 7 * 24 * 3600_000;
function removeStaleTemplates(dir: string, keep: string) {
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (path === keep || !/^(schema|empty)-[0-9a-f]{16}\.tar$/.test(entry)) continue;
    try {
      if (Date.now() - lstatSync(path).mtimeMs > STALE_MS) unlinkSync(path);
    } catch {
      // another process removed it first
    }
  }
}

// A database in memory (tests, the sandbox) keeps every page in memory already: a page not in
// PostgreSQL's buffer pool is a copy away, so the default 128 MB pool only doubles the memory
// and is allocated and cleared on every start. 16 MB halves the CPU a start takes (1.8 s against
// 1.0 s a load, measured in one process) and about 140 MB of memory. On disk it stays the default.
const inMemory = (PGlite: typeof import('@electric-sql/pglite').PGlite, dataDir: string | undefined) =>
  dataDir ? {} : { startParams: [...PGlite.defaultStartParams, '-c', 'shared_buffers=16MB'] };

async function templatePglite(name: string, schema: TemplateSchema | undefined, dataDir?: string) {
  const { PGlite } = await import('@electric-sql/pglite');
  const dir = templateDir();
  const file = join(dir, name);
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const usable = ownedPrivately(dir, 'dir');
  if (usable && ownedPrivately(file, 'file')) {
    const tar = templateBytes(file);
    if (tar) return PGlite.create(dataDir, { loadDataDir: tarBlob(tar), ...inMemory(PGlite, dataDir) });
  }
  // A scratch cluster in memory: nothing but the schema is ever in it.
  const scratch = await PGlite.create(inMemory(PGlite, undefined));
  if (schema) await schema.prepare(wrapPglite(scratch));
  await dropTemplateDatabases(scratch);
  const dump = Buffer.from(await (await scratch.dumpDataDir('none')).arrayBuffer());
  if (usable) {
    const partial = join(dir, `${name}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
    writeFileSync(partial, dump, { mode: 0o600, flag: 'wx' });
    renameSync(partial, file); // whole or not at all, whichever process gets there first
    removeStaleTemplates(dir, file);
  }
  if (!dataDir) return scratch;
  await scratch.close();
  return PGlite.create(dataDir, { loadDataDir: tarBlob(dump) });
}

/**
 * A cluster holds three databases: the service's own (`postgres`, which PGlite opens) and
 * PostgreSQL's template0 and template1, which only CREATE DATABASE reads, and the service never
 * creates one in PGlite. Each is 7.4 MB of the copy that every new database (each service a
 * test starts, the sandbox, a new DATA_DIR) unpacks into memory: dropped before the copy is kept,
 * the 43 MB copy is 28 MB and a load takes about a quarter less CPU (measured in the note of
 * the commit that made this).
 */
async function dropTemplateDatabases(db: InstanceType<typeof import('@electric-sql/pglite').PGlite>) {
  await db.exec(`UPDATE pg_database SET datistemplate = false WHERE datname IN ('template0', 'template1')`);
  await db.exec('DROP DATABASE template0');
  await db.exec('DROP DATABASE template1');
  await db.exec('CHECKPOINT');
}

/**
 * The template's bytes, checked (`onlyClusterFiles`), or undefined when it holds anything else.
 * A process that starts many databases (a test worker, the sandbox) reads the copy (28 MB) once: the
 * copy read last is kept while the file is the same file, unchanged (device, inode, size, change
 * time: a file written or replaced anew, or its mode changed, is read and checked again). The
 * file is this user's alone (`ownedPrivately`, checked by the caller on every load).
 */
let lastTemplate: { file: string; identity: string; tar: Buffer } | undefined;
/** A file's device, inode, size and change times: another whenever it is written, replaced or its mode changed. */
function fileIdentity(file: string): string {
  const stat = lstatSync(file, { bigint: true });
  return `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`;
}
function templateBytes(file: string): Buffer | undefined {
  // In use: not one of the stale copies removeStaleTemplates takes. Touched at most once an
  // hour, so the file's change time (part of its identity) stays put between loads.
  if (Date.now() - lstatSync(file).mtimeMs > 3600_000) utimesSync(file, new Date(), new Date());
  const identity = fileIdentity(file);
  if (lastTemplate?.file === file && lastTemplate.identity === identity) return lastTemplate.tar;
  const tar = readFileSync(file);
  if (!onlyClusterFiles(tar)) return undefined;
  lastTemplate = { file, identity, tar };
  return tar;
}

// PGlite reads the archive with the Blob's arrayBuffer(), which Node 20 assembles from a
// stream in chunks: about 0.2 s of CPU for the 42 MB template, on every service a test starts
// (1.38 s against 1.17 s a load, five loads each way in one process). The archive is already
// one buffer, so it is handed over as it is, not copied: PGlite only reads it (its untar hands
// each file to the in-memory file system's writeFile, which copies), so one kept template
// serves every load. arrayBuffer() is all PGlite asks of it.
function tarBlob(tar: Buffer): Blob {
  const whole = () =>
    (tar.byteOffset === 0 && tar.length === tar.buffer.byteLength ? tar.buffer : tar.buffer.slice(tar.byteOffset, tar.byteOffset + tar.length)) as ArrayBuffer;
  return { type: 'application/x-tar', size: tar.length, arrayBuffer: async () => whole() } as unknown as Blob;
}

/** PGlite in `dataDir` on disk, or in memory (for tests) when it is undefined. */
export async function openPglite(dataDir: string | undefined, schema?: TemplateSchema): Promise<Database> {
  const { PGlite } = await import('@electric-sql/pglite');
  let db: InstanceType<typeof PGlite>;
  if (dataDir && existsSync(join(dataDir, 'PG_VERSION'))) {
    privateDir(dataDir);
    db = await PGlite.create(dataDir);
  } else {
    if (dataDir) privateDir(dataDir);
    // The copy is of one PGlite version's cluster and one schema: a new version or a new
    // migration makes a new copy.
    const name = templateFileName(pgliteVersion(), schema?.key);
    if (!dataDir && reusing()) {
      const present = keptKey(name);
      const kept = present && takeKept(present);
      if (kept) return leased(present, kept);
      const loaded = await templatePglite(name, schema);
      const key = keptKey(name); // the copy this load made, when there was none
      if (key) await recordPristine(key, loaded);
      return leased(key, loaded);
    }
    db = await templatePglite(name, schema, dataDir);
  }
  return wrapPglite(db);
}

/**
 * What a kept database is filed under: the copy's path and the file's identity (device, inode,
 * size, change times), while its folder and the file are this user's alone. So one is handed out
 * only to an open that would have loaded that very file, unchanged, as it is: an open that would
 * refuse the copy (a folder others may enter, a file replaced or its mode changed) loads as before.
 */
function keptKey(name: string): string | undefined {
  const file = join(templateDir(), name);
  if (!ownedPrivately(templateDir(), 'dir') || !ownedPrivately(file, 'file')) return undefined;
  return `${file}@${fileIdentity(file)}`;
}

/**
 * A database in memory while reuse is on (pglite-reuse.ts): closing it gives it back, and from
 * then on this handle refuses every call, as a closed database does, so nothing a closed service
 * left running reaches the next test's database. Its listeners end with it.
 */
function leased(key: string | undefined, db: InstanceType<typeof import('@electric-sql/pglite').PGlite>): Database {
  const inner = wrapPglite(db);
  const stops = new Set<() => Promise<void>>();
  // Calls under way: closing waits for them, so none reaches the database once it is being emptied.
  const underway = new Set<Promise<unknown>>();
  let closed: Promise<void> | undefined;
  const track = <T>(call: () => Promise<T>): Promise<T> => {
    if (closed) return Promise.reject(new Error('the database is closed'));
    const running = call();
    underway.add(running);
    const settle = () => void underway.delete(running);
    running.then(settle, settle);
    return running;
  };
  // Every call checks first, inside a transaction too: a closed handle never reaches the database.
  const guarded = (sql: Sql): Sql => ({
    query: (text, params) => track(() => sql.query(text, params)),
    exec: (text) => track(() => sql.exec(text)),
  });
  return {
    kind: 'pglite',
    ...guarded(inner),
    transaction: (work) => track(() => inner.transaction((tx) => work(guarded(tx)))),
    listen: (channel, onMessage) =>
      track(async () => {
        const stop = await inner.listen(channel, onMessage);
        stops.add(stop);
        return async () => {
          if (stops.delete(stop)) await stop();
        };
      }),
    close: () =>
      (closed ??= (async () => {
        while (underway.size > 0) await Promise.allSettled([...underway]);
        await Promise.all([...stops].map((stop) => stop().catch(() => {})));
        stops.clear();
        await giveBack(key, db);
      })()),
  };
}

export const pgliteVersion = () => {
  const entry = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  return (JSON.parse(readFileSync(join(entry, '..', '..', 'package.json'), 'utf8')) as { version: string }).version;
};

function wrapPglite(db: import('@electric-sql/pglite').PGlite): Database {
  const run = async <T extends Row>(sql: { query: typeof db.query }, text: string, params?: unknown[]) => (await sql.query<T>(text, params)).rows;
  return {
    kind: 'pglite',
    query: (text, params) => run(db, text, params),
    exec: async (text) => void (await db.exec(text)),
    // PGlite is one connection: a transaction holds it, and other queries wait their turn.
    transaction: (work) => db.transaction((tx) => work({ query: (text, params) => run(tx, text, params), exec: async (text) => void (await tx.exec(text)) })),
    listen: async (channel, onMessage) => {
      const stop = await db.listen(channel, onMessage);
      return async () => stop();
    },
    close: () => db.close(),
  };
}

export async function openPostgres(url: string): Promise<Database> {
  const { default: pg } = await import('pg');
  // int8 and numeric come back as text: money stays exact, and rows look the same as PGlite's.
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  pool.on('error', () => {}); // an idle client lost (the server restarted): the pool replaces it
  const listeners: Array<InstanceType<typeof pg.Client>> = [];
  return {
    kind: 'postgres',
    query: async (text, params, name) => (await pool.query(name ? { name, text, values: params } : { text, values: params })).rows,
    // A query without parameters goes by the simple protocol, which takes several statements.
    exec: async (text) => void (await pool.query(text)),
    transaction: async (work) => {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await work({
          query: async (text, params, name) => (await client.query(name ? { name, text, values: params } : { text, values: params })).rows,
          exec: async (text) => void (await client.query(text)),
        });
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {});
        throw error;
      } finally {
        client.release();
      }
    },
    listen: async (channel, onMessage) => {
      // LISTEN needs a connection of its own, held for as long as we listen.
      const client = new pg.Client({ connectionString: url });
      client.on('error', () => {});
      await client.connect();
      client.on('notification', (message) => {
        if (message.channel === channel) onMessage(message.payload ?? '');
      });
      await client.query(`LISTEN ${quoteIdent(channel)}`);
      listeners.push(client);
      return async () => {
        listeners.splice(listeners.indexOf(client), 1);
        await client.end().catch(() => {});
      };
    },
    close: async () => {
      await Promise.all(listeners.splice(0).map((client) => client.end().catch(() => {})));
      await pool.end();
    },
  };
}

const quoteIdent = (name: string) => {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not a channel name: ${name}`);
  return name;
};

/** DATABASE_URL when given, otherwise PGlite in `dataDir` (in memory when undefined). */
export const openDatabase = (options: { databaseUrl?: string; dataDir?: string; schema?: TemplateSchema }): Promise<Database> =>
  options.databaseUrl ? openPostgres(options.databaseUrl) : openPglite(options.dataDir, options.schema);
