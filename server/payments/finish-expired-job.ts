// Accepted partial payments whose quote ran out are finished by the service, not the browser:
// the merchant sees them in verify and in a webhook even when the customer closed the page.
import { depositReport } from './views.ts';
import type { Job, JobDeps } from '../jobs/job.ts';
import { loopJob } from '../jobs/loop.ts';

/** The parts of JobDeps this job uses: jobs/index.ts hands it these alone. */
export const finishUses = ['crediting', 'now', 'log', 'intervalMs'] as const;

export function finishExpiredJob(deps: Pick<JobDeps, (typeof finishUses)[number]>): Job {
  const report = depositReport(deps.now);
  const finish = async () => {
    while ((await deps.crediting.finishExpired(deps.now(), report)) > 0);
  };
  // Its name is the `job` label of service_job_runs_total and service_job_failures_total: kept as
  // released, so an operator's dashboards and alerts on it keep their data.
  return loopJob('settle expired partial payments', finish, deps.intervalMs, (error) => deps.log.error({ err: error }, 'background job failed'));
}
