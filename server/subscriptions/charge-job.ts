// The charge job: every interval, on each chain of each mode with a gas wallet, the subscriptions
// whose period has started by the chain's clock are charged (use-cases.ts chargeDue), under that
// chain's charge lease, so one instance charges there at a time; the charge's key, claimed before
// anything is sent, holds a period to one charge whatever else runs.
import type { Job, JobDeps } from '../jobs/job.ts';
import { loopJob } from '../jobs/loop.ts';

/** The parts of JobDeps this job uses: jobs/index.ts hands it these alone. */
export const chargeUses = ['subscriptions', 'networks', 'instance', 'intervalMs', 'log'] as const;

export function chargeJob(deps: Pick<JobDeps, (typeof chargeUses)[number]>): Job {
  const holder = `${deps.instance}/subscriptions`;
  const tick = async () => {
    if (!deps.subscriptions) return;
    for (const mode of ['test', 'live'] as const) {
      for (const network of deps.networks) await deps.subscriptions.chargeDue(mode, network.chainId, holder);
    }
  };
  return loopJob('charge subscriptions', tick, deps.intervalMs, (error) => deps.log.error({ err: error }, 'background job failed'));
}
