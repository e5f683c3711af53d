// The embedded database's folder is this user's alone (issue 34's attack review): PGlite writes
// its files 0666, so its write-ahead log (webhook signing secrets, customers) was readable and
// writable by every local user under a 0755 DATA_DIR. The service makes DATA_DIR 0700, and
// tightens one of its own that others may enter, before the database opens.
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startService } from '../../service/app.ts';

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
