// npm run bench:idle: what the chain watcher costs on a chain with nothing for it, its loop with
// quiet turns (QUIET_MS: the node asked for its head and that block's hash, the database only
// when they change, after a failure, or every QUIET_MS) against every turn a full tick
// (quietMs 0, how the loop went before), the same watcher and service in the same run. Two
// chains: one that mines only on demand (anvil's automine: no block at all while idle) and one
// that mines every 0.25 s (the tests' TEST_BLOCK_SECONDS), 40 open payments on each; the loop
// turns every 100 ms, as the tests' services do. The CPU is the process's own (the service and
// its embedded database) and anvil's, over ROUND_SECONDS, in alternating rounds. Reports;
// asserts nothing.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { startService } from '../../server/service/app.ts';
import { startDevChain, TEST_BLOCK_SECONDS, type DevChain } from '../../devchain/anvil.ts';
import { deployDevContracts, devNetwork, type DevContracts } from '../../devchain/deploy.ts';
import { QUIET_MS } from '../../server/chain/watcher.ts';
import { caller, networkWatcher } from '../../server/testing/chain.ts';
import { summarize, table } from './stats.ts';

const ROUNDS = Number(process.env.ROUNDS ?? 3);
const ROUND_SECONDS = Number(process.env.ROUND_SECONDS ?? 6);
const INTERVAL_MS = 100;
const OPEN_PAYMENTS = 40;

const api = await startService({ demo: true, jobs: false, publicInitializesPerMinute: { perClient: 100_000, perKey: 100_000 } });
const call = caller(() => api.url);

/** anvil's CPU seconds so far (user and system, /proc/<pid>/stat at 100 ticks a second): the child of its watchdog shell. */
function anvilCpu(chain: DevChain): number {
  const pid = execFileSync('pgrep', ['-P', String(chain.process.pid)])
    .toString()
    .trim()
    .split('\n')[0];
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime and stime, fields 14 and 15
}

/** One round: a watcher's loop for ROUND_SECONDS; the CPU seconds per second of the service's process and of anvil, and how many of its turns were full ticks. */
async function round(chain: DevChain, contracts: DevContracts, quietMs: number, holder: string) {
  let full = 0;
  let turns = 0;
  const w = networkWatcher(api, devNetwork(chain.url, contracts, 2), { holder, startBlock: 1n, leaseMs: 15_000, quietMs });
  const turn = w.turn.bind(w);
  w.turn = async () => {
    const done = await turn();
    turns++;
    if (!done.quiet) full++;
    return done;
  };
  w.start(INTERVAL_MS);
  await new Promise((resolve) => setTimeout(resolve, 1_000)); // its first ticks catch up
  const [own, anvil, t0, full0, turns0] = [process.cpuUsage(), anvilCpu(chain), performance.now(), full, turns];
  await new Promise((resolve) => setTimeout(resolve, ROUND_SECONDS * 1_000));
  const used = process.cpuUsage(own);
  const wall = (performance.now() - t0) / 1_000;
  const result = { service: (used.user + used.system) / 1e6 / wall, anvil: (anvilCpu(chain) - anvil) / wall, full: full - full0, turns: turns - turns0 };
  await w.stop();
  return result;
}

const rows: string[][] = [['chain, loop', 'service CPU / s (median)', 'anvil CPU / s', 'full ticks / turns', 'service ratio']];
for (const blockTimeSeconds of [undefined, TEST_BLOCK_SECONDS]) {
  const chain = await startDevChain(blockTimeSeconds ? { blockTimeSeconds } : {});
  const contracts = await deployDevContracts(chain, 3);
  for (let i = 0; i < OPEN_PAYMENTS; i++) {
    const reference = `idle-${chain.chainId}-${blockTimeSeconds ?? 0}-${i}`;
    await call('POST', '/api/v1/transaction/initialize', { reference, coin: 'USDT', currency: 'USD', amount: 10 });
    await api.db.query(`UPDATE payments SET chain_id = $1, token = $2 WHERE reference = $3`, [chain.chainId, contracts.tokens.USDT.toLowerCase(), reference]);
  }
  const results: Record<'full' | 'quiet', Array<Awaited<ReturnType<typeof round>>>> = { full: [], quiet: [] };
  for (let r = 0; r < ROUNDS; r++) {
    results.full.push(await round(chain, contracts, 0, `full-${r}`));
    results.quiet.push(await round(chain, contracts, QUIET_MS, `quiet-${r}`));
  }
  const name = blockTimeSeconds ? `a block every ${blockTimeSeconds} s` : 'no new block (automine)';
  const median = (kind: 'full' | 'quiet', key: 'service' | 'anvil') => summarize(results[kind].map((x) => x[key])).median;
  for (const kind of ['full', 'quiet'] as const) {
    const ticks = results[kind].reduce((sum, x) => sum + x.full, 0);
    const turns = results[kind].reduce((sum, x) => sum + x.turns, 0);
    rows.push([
      `${name}, ${kind === 'full' ? 'every turn a full tick (before)' : `quiet turns (QUIET_MS ${QUIET_MS})`}`,
      median(kind, 'service').toFixed(3),
      median(kind, 'anvil').toFixed(3),
      `${ticks} / ${turns}`,
      (median(kind, 'service') / median('full', 'service')).toFixed(2),
    ]);
  }
  await chain.stop();
}
console.log(`The chain watcher's loop, idle, every ${INTERVAL_MS} ms: ${ROUNDS} rounds of ${ROUND_SECONDS} s each way, alternating`);
console.log(table(rows));
await api.close();
process.exit(0);
