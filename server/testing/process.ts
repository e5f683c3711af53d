// Tests that need a real process: the built service (build/server/main.js) started with an
// environment, its URL read from its first line, and stopped gently or with SIGKILL.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fromRoot } from '../service/paths.ts';

export interface ServiceProcess {
  url: string;
  child: ChildProcess;
  /** How long from spawn to listening, in ms. */
  startMs: number;
  output(): string;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

export const MAIN = fromRoot('build/server/main.js');

/**
 * Node's flags for a process a test starts. A test's process lives seconds, and V8's optimising
 * compiler spent most of its start compiling PGlite's 9 MB of WebAssembly a second time, for
 * code the process is gone before it runs: Liftoff's baseline code alone does the same work.
 * A start took 4.4 CPU-s, 2.7 with the flag (three starts each). What the process does is the
 * same; only how fast its database code runs once warm differs, and no test measures that.
 */
export const TEST_NODE_FLAGS = ['--liftoff-only'];

/** A built command run to its end, as an operator runs it (`node build/server/main.js merchant …`): its exit code, and stdout then stderr. */
export function runCommand(args: string[], env: Record<string, string>): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...TEST_NODE_FLAGS, MAIN, ...args],
      { env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', ...env }, timeout: 60_000 },
      (error, stdout, stderr) => resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, out: stdout + stderr }),
    );
  });
}

// Whatever a test forgets (a test that timed out goes on running after its clean-up), the
// children die with the test process: no service outlives the run that started it.
const alive = new Set<ChildProcess>();
process.once('exit', () => alive.forEach((child) => child.kill('SIGKILL')));

/** Starts the built service, or another built script that prints a line matching `ready`. */
export async function spawnService(
  env: Record<string, string>,
  script = MAIN,
  ready = /listening on (http:\/\/\S+)/,
  timeoutMs = 30_000,
  nodeFlags: string[] = TEST_NODE_FLAGS,
): Promise<ServiceProcess> {
  if (!existsSync(script)) throw new Error(`${script} is missing: run npm run build first (npm test does)`);
  const started = performance.now();
  const child = spawn(process.execPath, [...nodeFlags, script], {
    env: { PATH: process.env.PATH ?? '', PORT: '0', LOG_LEVEL: 'warn', SEED_DEMO_MERCHANT: 'true', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  alive.add(child);
  child.once('exit', () => alive.delete(child));
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the service did not start in ${timeoutMs / 1000} s:\n${output}`));
    }, timeoutMs);
    const look = () => {
      const found = ready.exec(output);
      if (found) {
        clearTimeout(timer);
        resolve(found[1]);
      }
    };
    child.stdout!.on('data', look);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the service exited (${code}) before listening:\n${output}`));
    });
  });
  const startMs = performance.now() - started;
  return {
    url,
    child,
    startMs,
    output: () => output,
    kill: (signal = 'SIGTERM') =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill(signal);
      }),
  };
}
