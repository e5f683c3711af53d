// Accepted partial payments whose quote ran out are settled by the service, not the browser:
// the merchant sees them in verify and in a webhook even when the customer closed the page.
import { depositReport } from './views.ts';
import type { Job, JobDeps } from '../jobs/job.ts';
import { loopJob } from '../jobs/loop.ts';

/** The parts of JobDeps this job uses: jobs/index.ts hands it these alone. */
export const settleUses = ['payments', 'now', 'log', 'intervalMs'] as const;

export function settleExpiredJob(deps: Pick<JobDeps, (typeof settleUses)[number]>): Job {
  const report = depositReport(deps.now);
  const settle = async () => {
    while ((await deps.payments.settleExpired(deps.now(), report)) > 0);
  };
  return loopJob('settle expired partial payments', settle, deps.intervalMs, (error) => deps.log.error({ err: error }, 'background job failed'));
}
