// A throwaway PostgreSQL cluster for tests: Debian's server binaries, a temporary data
// directory, 127.0.0.1 on a free port, stopped (and deleted) by whoever started it.
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Cluster {
  /** postgres://postgres@127.0.0.1:<port>/postgres */
  url: string;
  /** The cluster's data directory (its postmaster.pid names the server's process). */
  data: string;
  /** The server binaries' folder (pgbench, psql). */
  bin: string;
  stop(): void;
}

/** The newest installed server's bin directory, or a clear error saying what to install. */
export function findPostgresBin(): string {
  const fromEnv = process.env.PG_BIN;
  if (fromEnv && existsSync(join(fromEnv, 'initdb'))) return fromEnv;
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions.length === 0) {
    throw new Error(
      'No PostgreSQL server found for the storage tests: install it with `sudo apt-get install -y postgresql` (or set PG_BIN to the folder holding initdb and pg_ctl)',
    );
  }
  return join(root, versions[0], 'bin');
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });

/** `settings`: more server settings (name to value), such as the bench's shared_preload_libraries. */
export async function startCluster(settings: Record<string, string> = {}): Promise<Cluster> {
  const bin = findPostgresBin();
  const dir = mkdtempSync(join(tmpdir(), 'service-pg-'));
  const data = join(dir, 'data');
  // PostgreSQL will not run as root: as root (CI), run it as the postgres user Debian made.
  const asRoot = process.getuid?.() === 0;
  if (asRoot) chownSync(dir, Number(execFileSync('id', ['-u', 'postgres']).toString()), Number(execFileSync('id', ['-g', 'postgres']).toString()));
  const run = (tool: string, args: string[]) => {
    const [command, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', join(bin, tool), ...args]] : [join(bin, tool), args];
    const result = spawnSync(command, argv, { encoding: 'utf8', timeout: 60_000 });
    if (result.status !== 0) throw new Error(`${tool} failed (${result.status}): ${result.stderr || result.stdout}`);
  };
  run('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
  let port = 0;
  for (let tries = 0; ; tries++) {
    port = await freePort();
    try {
      run('pg_ctl', [
        '-D',
        data,
        '-l',
        join(dir, 'log'),
        '-w',
        '-t',
        '30',
        '-o',
        `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200${Object.entries(settings)
          .map(([name, value]) => ` -c ${name}=${value}`)
          .join('')}`,
        'start',
      ]);
      break;
    } catch (error) {
      if (tries >= 2) throw error;
    }
  }
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  let stopped = false;
  return {
    url,
    data,
    bin,
    stop() {
      if (stopped) return;
      stopped = true;
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
