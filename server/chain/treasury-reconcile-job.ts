// The treasury reconciled against the journal, every TREASURY_RECONCILE_INTERVAL_MS (60 s) per
// chain: deep reorganisations found and reversed, each coin's holdings against what
// the journal owes, a shortfall logged, told to the operator and, above
// TREASURY_HOLD_THRESHOLD, money movements on the chain held (treasury-reconcile.ts). Any
// instance may run it: each write is once (a reversal by the transfer's state, a hold by chain).
import { checkTreasury } from './treasury-reconcile.ts';
import type { Job, JobDeps } from '../jobs/job.ts';
import { loopJob } from '../jobs/loop.ts';

/** The parts of JobDeps this job uses: jobs/index.ts hands it these alone. */
export const treasuryReconcileUses = [
  'treasuryReconcileIntervalMs',
  'treasuryHoldThreshold',
  'networks',
  'journal',
  'treasuryTxs',
  'treasuryHolds',
  'now',
  'log',
] as const;

export function treasuryReconcileJobs(deps: Pick<JobDeps, (typeof treasuryReconcileUses)[number]>): Job[] {
  if (deps.treasuryReconcileIntervalMs <= 0) return [];
  const checkDeps = {
    holds: deps.treasuryHolds,
    journal: deps.journal,
    treasuryTxs: deps.treasuryTxs,
    log: deps.log,
    now: deps.now,
    holdThreshold: deps.treasuryHoldThreshold,
  };
  return deps.networks.map((network) =>
    loopJob(
      `treasury reconcile chain ${network.chainId}`,
      async () => {
        const { reversed, findings } = await checkTreasury(network, checkDeps);
        deps.log.info(
          {
            chainId: network.chainId,
            reversed,
            coins: findings.map((f) => ({ coin: f.symbol, held: String(f.held), owed: String(f.owed), short: String(f.short) })),
          },
          'treasury reconciliation',
        );
      },
      deps.treasuryReconcileIntervalMs,
      (error) => deps.log.warn({ err: error, chainId: network.chainId }, 'treasury reconciliation failed; retrying'),
    ),
  );
}
