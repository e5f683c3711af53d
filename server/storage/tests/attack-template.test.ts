// A local user on the service's machine (item 1): the embedded database's template
// (the copy of an empty cluster a new DATA_DIR starts from) never carries an instance's
// operator token or lock to anyone else. Two instances started in turn on one machine each
// keep their own token, their own lock and the merchants made while they run; the template
// is this user's only (0700 folder, 0600 file); a planted or stale one is never loaded.
// The first test needs `npm run build` (npm test does).
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startService } from '../../service/app.ts';
import { fromRoot } from '../../service/paths.ts';
import { heldLock } from '../lock.ts';
import { onlyClusterFiles, templateDir, templateFileName } from '../db.ts';
import { schemaTemplate } from '../migrations.ts';
import { runCommand as command, spawnService, type ServiceProcess } from '../../testing/process.ts';

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const clean of cleanups.splice(0).reverse()) await clean();
});

function tempDir(name: string): string {
  const dir = mkdtempSync(join(tmpdir(), `service-template-${name}-`));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function service(env: Record<string, string>): Promise<ServiceProcess> {
  // A first start on a new TMPDIR makes the template (an initdb): slow on a loaded machine.
  const started = await spawnService({ SEED_DEMO_MERCHANT: 'false', ...env }, undefined, undefined, 120_000);
  cleanups.push(() => started.kill('SIGKILL'));
  return started;
}

const merchantsOf = (url: string, token: string) =>
  fetch(`${url}/operator/v1/merchants`, { headers: { authorization: `Bearer ${token}` } }).then(async (r) => ({
    status: r.status,
    body: (await r.json()) as { data?: Array<{ id: string }> },
  }));

const tokenIn = (dataDir: string) => readFileSync(join(dataDir, 'operator-token'), 'utf8').trim();

describe('two instances on one machine, one after the other', { timeout: 240_000 }, () => {
  it("each has its own token, its own lock and the merchant made while it runs; the template holds neither token and is the user's only", async () => {
    const machineTmp = tempDir('tmp'); // the machine's TMPDIR, where the template is kept, new for this test
    const first = { DATA_DIR: tempDir('a'), TMPDIR: machineTmp };
    const second = { DATA_DIR: tempDir('b'), TMPDIR: machineTmp };

    const a = await service(first);
    const tokenA = tokenIn(first.DATA_DIR);
    expect(heldLock(first.DATA_DIR)?.pid).toBe(a.child.pid);
    const madeA = await command(['merchant', 'create', '--name', 'First Shop', '--email', 'a@first.example', '--json'], first);
    expect(madeA.code, madeA.out).toBe(0);
    const merchantA = JSON.parse(madeA.out.trim().split('\n').at(-1)!) as { id: string };
    expect((await merchantsOf(a.url, tokenA)).body.data!.map((m) => m.id)).toEqual([merchantA.id]);
    await a.kill('SIGTERM');

    // The second instance's new DATA_DIR starts from the template the first one left.
    const b = await service(second);
    const tokenB = tokenIn(second.DATA_DIR);
    expect(tokenB).not.toBe(tokenA);
    expect(heldLock(second.DATA_DIR)?.pid).toBe(b.child.pid); // its own lock, not the first one's dead process
    expect((await merchantsOf(b.url, tokenB)).status).toBe(200);
    expect((await merchantsOf(b.url, tokenA)).status).toBe(401); // the first one's token opens nothing here
    const madeB = await command(['merchant', 'create', '--name', 'Second Shop', '--email', 'b@second.example', '--json'], second);
    expect(madeB.code, madeB.out).toBe(0);
    const merchantB = JSON.parse(madeB.out.trim().split('\n').at(-1)!) as { id: string };
    // Made through the running service (not beside it, on a database it then overwrites): listed at once.
    expect((await merchantsOf(b.url, tokenB)).body.data!.map((m) => m.id)).toEqual([merchantB.id]);
    await b.kill('SIGTERM');

    // Both survive their restarts, each with its own merchant.
    const again = await service(first);
    expect((await merchantsOf(again.url, tokenA)).body.data!.map((m) => m.id)).toEqual([merchantA.id]);
    await again.kill('SIGTERM');

    // The template: a 0700 folder of this user's, 0600 files, neither token nor lock in them.
    const folder = readdirSync(machineTmp).filter((name) => name.startsWith('service-pglite'));
    expect(folder).toHaveLength(1);
    const dir = join(machineTmp, folder[0]!);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const files = readdirSync(dir);
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      expect(statSync(join(dir, file)).mode & 0o777).toBe(0o600);
      const bytes = readFileSync(join(dir, file));
      expect(bytes.includes(tokenA)).toBe(false);
      expect(bytes.includes(tokenB)).toBe(false);
      expect(bytes.includes('service.lock')).toBe(false);
      expect(onlyClusterFiles(bytes)).toBe(true);
    }
  });
});

describe('a planted or stale template', { timeout: 240_000 }, () => {
  const withTmp = async <T>(dir: string, work: () => Promise<T>): Promise<T> => {
    const before = process.env.TMPDIR;
    process.env.TMPDIR = dir;
    try {
      return await work();
    } finally {
      if (before === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = before;
    }
  };

  it('is never loaded: one made from a DATA_DIR holding a token, one others may write, one in a folder others may enter', async () => {
    const machineTmp = tempDir('planted');
    // How the old code made its template: a dump of a DATA_DIR that already held a token and a lock.
    const { PGlite } = await import('@electric-sql/pglite');
    const victim = tempDir('victim');
    const planted = 'op_planted-token-planted-token-planted-token-0000';
    writeFileSync(join(victim, 'operator-token'), planted + '\n', { mode: 0o600 });
    writeFileSync(join(victim, 'service.lock'), JSON.stringify({ pid: 1, role: 'service', startedMs: 0 }), { mode: 0o600 });
    const old = await PGlite.create(victim);
    const stale = Buffer.from(await (await old.dumpDataDir('none')).arrayBuffer());
    await old.close();
    expect(stale.includes(planted)).toBe(true); // the hole as it was: the token inside the archive
    expect(onlyClusterFiles(stale)).toBe(false);

    await withTmp(machineTmp, async () => {
      const dir = templateDir();
      mkdirSync(dir, { mode: 0o700 });
      // Under every name a template of this PGlite could have: one such file is the one loaded.
      const { version } = JSON.parse(readFileSync(fromRoot('node_modules/@electric-sql/pglite/package.json'), 'utf8')) as { version: string };
      const name = templateFileName(version, (await schemaTemplate()).key);
      writeFileSync(join(dir, name), stale, { mode: 0o600 });

      const dataDir = tempDir('fresh');
      const api = await startService({ dataDir, jobs: false });
      cleanups.push(() => api.close());
      const token = tokenIn(dataDir);
      expect(token).not.toBe(planted);
      expect(heldLock(dataDir)?.pid).toBe(process.pid);
      await api.close();
      // The refused template was replaced by a clean one, and is 0600 again.
      const clean = readFileSync(join(dir, name));
      expect(clean.includes(planted)).toBe(false);
      expect(onlyClusterFiles(clean)).toBe(true);

      // A cluster's files only, but with a table someone put there: loaded, it would be in the
      // new database. Not loaded when others may write the file (0666) or enter its folder (0755).
      // Made from the clean copy (a load, not a second initdb), a table added.
      const other = await PGlite.create(undefined, { loadDataDir: new Blob([clean]) });
      await other.query('CREATE TABLE planted (x int)');
      const foreign = Buffer.from(await (await other.dumpDataDir('none')).arrayBuffer());
      await other.close();
      expect(onlyClusterFiles(foreign)).toBe(true);
      for (const [fileMode, dirMode] of [
        [0o666, 0o700],
        [0o600, 0o755],
      ] as const) {
        writeFileSync(join(dir, name), foreign);
        chmodSync(join(dir, name), fileMode);
        chmodSync(dir, dirMode);
        // In memory: the same check of the copy as for a new DATA_DIR, without writing a refused
        // start's database to disk.
        const started = await startService({ jobs: false });
        expect(await started.db.query("SELECT to_regclass('public.planted') AS t")).toEqual([{ t: null }]);
        await started.close();
        chmodSync(dir, 0o700);
      }
    });
  });
});

describe('the template is the migrated schema, and old copies go', { timeout: 240_000 }, () => {
  it('holds every migration and no row of an instance; a week-old copy is removed when a new one is made, a recent one kept', async () => {
    const machineTmp = tempDir('schema');
    const before = process.env.TMPDIR;
    process.env.TMPDIR = machineTmp;
    try {
      const dir = templateDir();
      mkdirSync(dir, { mode: 0o700 });
      const stale = join(dir, 'empty-0123456789abcdef.tar');
      const recent = join(dir, 'schema-fedcba9876543210.tar');
      for (const file of [stale, recent]) writeFileSync(file, 'x', { mode: 0o600 });
      const { utimesSync } = await import('node:fs');
      const eightDays = new Date(Date.now() - 8 * 24 * 3600_000);
      utimesSync(stale, eightDays, eightDays);
      const oneDay = new Date(Date.now() - 24 * 3600_000);
      utimesSync(recent, oneDay, oneDay);

      const api = await startService({ jobs: false });
      await api.close();
      const { version } = JSON.parse(readFileSync(fromRoot('node_modules/@electric-sql/pglite/package.json'), 'utf8')) as { version: string };
      const schema = await schemaTemplate();
      const name = templateFileName(version, schema.key);
      expect(
        readdirSync(dir)
          .filter((f) => f.endsWith('.tar'))
          .sort(),
      ).toEqual([name, 'schema-fedcba9876543210.tar'].sort());

      // The copy, opened on its own: every migration applied, not one merchant or event.
      const { PGlite } = await import('@electric-sql/pglite');
      const copy = await PGlite.create(undefined, { loadDataDir: new Blob([readFileSync(join(dir, name))]) });
      const applied = await copy.query<{ n: number }>('SELECT count(*)::int AS n FROM schema_migrations');
      const { loadMigrations } = await import('../migrations.ts');
      expect(applied.rows[0]!.n).toBe((await loadMigrations()).length);
      expect((await copy.query<{ n: number }>('SELECT count(*)::int AS n FROM merchants')).rows[0]!.n).toBe(0);
      // Only the service's own database: template0 and template1 (CREATE DATABASE's sources, never
      // used in PGlite) are not unpacked again on every load.
      expect((await copy.query<{ datname: string }>('SELECT datname FROM pg_database ORDER BY datname')).rows.map((r) => r.datname)).toEqual(['postgres']);
      await copy.close();
    } finally {
      if (before === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = before;
    }
  });
});
