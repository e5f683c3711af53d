// The local dev chain for the demo and the tests: anvil, from the pinned npm package
// @foundry-rs/anvil (its binary ships inside a per-platform package). It listens on loopback
// only, and is stopped by whoever started it. Never a public network.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';

/** The standard dev mnemonic: its accounts are funded on every anvil and known to everyone. */
export const DEV_MNEMONIC = 'test test test test test test test test test test test junk';
export const DEV_CHAIN_ID = 31337;

export interface DevChain {
  url: string;
  port: number;
  chainId: number;
  /** The seconds between blocks it mines on a clock; undefined when it mines each transaction at once. */
  blockTimeSeconds?: number;
  process: ChildProcess;
  stop(): Promise<void>;
}

/**
 * The tests' block time: a block every quarter second, so two confirmations take half a second
 * rather than two (anvil takes fractions on its command line; the demo keeps a second a block,
 * which a person can follow).
 */
export const TEST_BLOCK_SECONDS = 0.25;

const PLATFORMS: Record<string, string> = {
  'linux-x64': 'linux-amd64',
  'linux-arm64': 'linux-arm64',
  'darwin-x64': 'darwin-amd64',
  'darwin-arm64': 'darwin-arm64',
  'win32-x64': 'win32-amd64',
};

/** Where this platform's anvil binary is, inside node_modules. */
export function anvilBinary(): string {
  const platform = PLATFORMS[`${process.platform}-${process.arch}`];
  if (!platform) throw new Error(`anvil has no build for ${process.platform}-${process.arch}`);
  const pkg = `@foundry-rs/anvil-${platform}`;
  let dir: string;
  try {
    dir = dirname(createRequire(import.meta.url).resolve(`${pkg}/package.json`));
  } catch {
    throw new Error(`${pkg} is not installed: run npm ci (it comes with @foundry-rs/anvil)`);
  }
  const binary = `${dir}/bin/anvil${process.platform === 'win32' ? '.exe' : ''}`;
  if (!existsSync(binary)) throw new Error(`no anvil binary at ${binary}`);
  return binary;
}

/**
 * Starts anvil on 127.0.0.1. Port 0 picks a free one. With `blockTimeSeconds` it mines on a
 * clock (the demo: a payment confirms in about two blocks); without, every transaction is
 * mined at once and tests mine more blocks with evm_mine.
 */
export async function startDevChain(options: { port?: number; blockTimeSeconds?: number; chainId?: number } = {}): Promise<DevChain> {
  const chainId = options.chainId ?? DEV_CHAIN_ID;
  const args = ['--host', '127.0.0.1', '--port', String(options.port ?? 0), '--chain-id', String(chainId), '--mnemonic', DEV_MNEMONIC, '--accounts', '10'];
  if (options.blockTimeSeconds) args.push('--block-time', String(options.blockTimeSeconds));
  // Through a small shell that holds our end of a pipe: if this process dies, even by SIGKILL,
  // the pipe closes, `read` returns and anvil is stopped; no orphan keeps the port.
  const watchdog = `"$0" "$@" & node=$!; trap 'kill $node 2>/dev/null' TERM INT; read _; kill $node 2>/dev/null; wait $node`;
  const child = spawn('sh', ['-c', watchdog, anvilBinary(), ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const port = await new Promise<number>((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`anvil did not start in 15 s:\n${seen}`)), 15_000);
    const read = (chunk: Buffer) => {
      seen += chunk.toString();
      const listening = /Listening on 127\.0\.0\.1:(\d+)/.exec(seen);
      if (listening) {
        clearTimeout(timer);
        child.stdout!.off('data', read);
        child.stdout!.resume(); // keep draining its log so it never blocks on a full pipe
        resolve(Number(listening[1]));
      }
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', (chunk: Buffer) => (seen += chunk.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`anvil exited (${code}) before listening:\n${seen}`));
    });
  });
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    chainId,
    ...(options.blockTimeSeconds ? { blockTimeSeconds: options.blockTimeSeconds } : {}),
    process: child,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
