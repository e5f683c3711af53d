// The embedded database's folder is this user's alone (issue 34's attack review): PGlite writes
// its files 0666, so its write-ahead log (webhook signing secrets, customers) was readable and
// writable by every local user under a 0755 DATA_DIR. The service makes DATA_DIR 0700, and
// tightens one of its own that others may enter, before the database opens.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startService } from '../../app.ts';
import { onlyClusterFiles } from '../db.ts';

const scratch = mkdtempSync(join(tmpdir(), 'data-dir-test-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const modeOf = (path: string) => statSync(path).mode & 0o777;

describe('DATA_DIR', { timeout: 120_000 }, () => {
  it('is made 0700, and one of ours that others may enter is tightened before the database opens', async () => {
    const made = join(scratch, 'new', 'data');
    const open = join(scratch, 'open');
    mkdirSync(open, { mode: 0o755 });
    expect(modeOf(open)).toBe(0o755);
    for (const dataDir of [made, open]) {
      const api = await startService({ dataDir, jobs: false });
      try {
        expect(modeOf(dataDir), dataDir).toBe(0o700);
        // On disk, PostgreSQL's own buffer pool: the pages are not in memory otherwise.
        expect(await api.db.query('SHOW shared_buffers')).toEqual([{ shared_buffers: '128MB' }]);
      } finally {
        await api.close();
      }
    }
  });
});

describe('a new DATA_DIR, written from the template by the file system itself (db.ts, unpackCluster)', { timeout: 120_000 }, () => {
  it("holds the cluster's files, this user's alone; a start cut short leaves no PG_VERSION, and the next start makes it whole", async () => {
    const dataDir = join(scratch, 'cut');
    // A directory where the template has one of its last files (after PG_VERSION in PGlite's
    // dump): the first start fails near the end of the copy.
    mkdirSync(join(dataDir, 'pg_ident.conf'), { recursive: true, mode: 0o700 });
    await expect(startService({ dataDir, jobs: false })).rejects.toThrow(/EISDIR|illegal operation on a directory/);
    expect(readdirSync(dataDir).length).toBeGreaterThan(1); // some of it was written
    expect(existsSync(join(dataDir, 'PG_VERSION'))).toBe(false); // but not the mark of a cluster
    const walk = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? [join(dir, e.name), ...walk(join(dir, e.name))] : [join(dir, e.name)]));
    const paths = walk(dataDir); // as the copy wrote them (PostgreSQL's own later files are 0644 in the 0700 DATA_DIR)
    expect(paths.filter((path) => (modeOf(path) & 0o077) !== 0).map((path) => [path.slice(dataDir.length), modeOf(path).toString(8)])).toEqual([]);
    rmSync(join(dataDir, 'pg_ident.conf'), { recursive: true });
    expect(paths.length).toBeGreaterThan(1000);
    const api = await startService({ dataDir, jobs: false });
    try {
      await api.db.query('CREATE TABLE kept (x int)');
      await api.db.query('INSERT INTO kept VALUES (7)');
    } finally {
      await api.close();
    }
    const again = await startService({ dataDir, jobs: false });
    try {
      expect(await again.db.query('SELECT x FROM kept')).toEqual([{ x: 7 }]);
    } finally {
      await again.close();
    }
  });
});

describe("the template's check", () => {
  // One file entry of a ustar archive, then the end: what PGlite's dump writes.
  const tarOf = (name: string) => {
    const header = Buffer.alloc(512);
    header.write(name, 0, 'latin1');
    header.write('00000000001\0', 124, 'latin1');
    header.write('0', 156, 'latin1');
    return Buffer.concat([header, Buffer.from('x'.padEnd(512, '\0')), Buffer.alloc(1024)]);
  };
  it('refuses a name with a step out of the data directory, which the copy would write outside it', () => {
    expect(onlyClusterFiles(tarOf('/base/5/1259'))).toBe(true);
    expect(onlyClusterFiles(tarOf('/base/../../../home/escape'))).toBe(false);
    expect(onlyClusterFiles(tarOf('/global/./1213'))).toBe(false);
    expect(onlyClusterFiles(tarOf('/base/5/1259').subarray(0, 700))).toBe(false); // cut short
  });
});

describe('a database in memory', () => {
  it('starts with a small buffer pool: its pages are in memory already (db.ts, inMemory)', async () => {
    const api = await startService({ jobs: false });
    try {
      expect(await api.db.query('SHOW shared_buffers')).toEqual([{ shared_buffers: '16MB' }]);
    } finally {
      await api.close();
    }
  });

  it('is its own: services loaded from the one template a process keeps share no table, before or after one writes', async () => {
    const first = await startService({ jobs: false });
    const second = await startService({ jobs: false });
    try {
      await first.db.exec('CREATE TABLE only_in_first (x int); INSERT INTO only_in_first VALUES (1)');
      await first.db.exec('CHECKPOINT');
      expect(await second.db.query("SELECT to_regclass('public.only_in_first') AS t")).toEqual([{ t: null }]);
      const third = await startService({ jobs: false });
      expect(await third.db.query("SELECT to_regclass('public.only_in_first') AS t")).toEqual([{ t: null }]);
      await third.close();
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });
});
