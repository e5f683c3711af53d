// A start on a machine set up wrong says so in one line naming the setting and what to do,
// exits with 1, and prints no stack trace: the built service, spawned as `npm start` runs it.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openPglite } from '../storage/db.ts';
import { migrate } from '../storage/migrations.ts';
import { MAIN, TEST_NODE_FLAGS } from '../testing/process.ts';

const scratch = mkdtempSync(join(tmpdir(), 'service-startup-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Runs the built service to its end (at most 30 s) and keeps what it printed. */
function start(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run npm run build first (npm test does)`);
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...TEST_NODE_FLAGS, MAIN], {
      env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

const listening = (server: Server) =>
  new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)));
/** A port that nothing listens on: taken, then given back. */
async function freePort(): Promise<number> {
  const server = createServer();
  const port = await listening(server);
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function oneLine(run: { code: number | null; stdout: string; stderr: string }): string {
  expect(run.code).toBe(1);
  expect(run.stdout + run.stderr).not.toMatch(/\n\s+at |Unhandled|node:internal/);
  const lines = run.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  return lines[0];
}

describe('a start that cannot work', { timeout: 60_000 }, () => {
  it('a port in use: names PORT and what to do', async () => {
    const busy = createServer();
    const port = await listening(busy);
    try {
      const line = oneLine(await start({ PORT: String(port), DATA_DIR: join(scratch, 'busy') }));
      expect(line).toBe(
        `service: cannot start: PORT=${port}: 127.0.0.1:${port} is already in use by another process; stop that process, or set PORT to a free port (PORT=0 picks one)`,
      );
    } finally {
      busy.close();
    }
  });

  it('a DATA_DIR that cannot be used: names DATA_DIR and what to do', async () => {
    const file = join(scratch, 'a-file');
    writeFileSync(file, 'not a folder');
    const line = oneLine(await start({ PORT: '0', DATA_DIR: file }));
    expect(line).toMatch(
      new RegExp(
        `^service: cannot start: DATA_DIR=${file}: the embedded database cannot be kept there: .*\\((EEXIST|ENOTDIR).*\\); give this user a folder it may write, or set DATA_DIR to one$`,
      ),
    );
  });

  it('a DATABASE_URL that refuses: names DATABASE_URL, without its password, and what to do', async () => {
    const port = await freePort();
    const line = oneLine(await start({ PORT: '0', DATABASE_URL: `postgres://shop:hunter2secret@127.0.0.1:${port}/shop` }));
    expect(line).toBe(
      `service: cannot start: DATABASE_URL=postgres://shop:***@127.0.0.1:${port}/shop: the database could not be used: nothing accepts connections there (ECONNREFUSED); start PostgreSQL there, or set DATABASE_URL to one that answers`,
    );
    expect(line).not.toContain('hunter2secret');
  });

  it('a setting written wrong: its own message, on one line', async () => {
    const line = oneLine(await start({ PORT: 'eighty', DATA_DIR: join(scratch, 'wrong') }));
    expect(line).toMatch(/^service: cannot start: PORT: /);
  });
});

describe('a database this version cannot take', { timeout: 60_000 }, () => {
  it('a migration changed after it was applied: names it and what to do', async () => {
    const dataDir = join(scratch, 'changed');
    const db = await openPglite(dataDir);
    await migrate(db);
    await db.query(`UPDATE schema_migrations SET checksum = $1 WHERE version = 2`, ['0'.repeat(64)]);
    await db.close();
    const line = oneLine(await start({ PORT: '0', DATA_DIR: dataDir }));
    expect(line).toMatch(
      /^service: cannot start: database: migration 0002_partial_settlement was changed after it was applied to this database \(recorded checksum 000000000000…, its file now [0-9a-f]{12}…\); restore the file as it was, and make the change a new migration$/,
    );
  });
});
