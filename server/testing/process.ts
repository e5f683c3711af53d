// Tests that need a real process: the built service (build/server/main.js) started with an
// environment, its URL read from its first line, and stopped gently or with SIGKILL.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fromRoot } from '../paths.ts';

export interface ServiceProcess {
  url: string;
  child: ChildProcess;
  /** How long from spawn to listening, in ms. */
  startMs: number;
  output(): string;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

const MAIN = fromRoot('build/server/main.js');

export async function spawnService(env: Record<string, string>): Promise<ServiceProcess> {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run npm run build first (npm test does)`);
  const started = performance.now();
  const child = spawn(process.execPath, [MAIN], {
    env: { PATH: process.env.PATH ?? '', PORT: '0', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the service did not start in 30 s:\n${output}`)), 30_000);
    const look = () => {
      const found = /listening on (http:\/\/\S+)/.exec(output);
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
