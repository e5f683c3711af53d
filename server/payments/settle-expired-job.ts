// Accepted partial payments whose quote ran out are settled by the service, not the browser:
// the merchant sees them in verify and in a webhook even when the customer closed the page.
import { depositReport } from './views.ts';
import type { Job, JobDeps } from '../jobs/job.ts';
import { loopJob } from '../jobs/loop.ts';

export function settleExpiredJob(deps: JobDeps): Job {
  const report = depositReport(deps.now);
  const settle = async () => {
    while ((await deps.payments.settleExpired(deps.now(), report)) > 0);
  };
  return loopJob('settle expired partial payments', settle, deps.intervalMs, (error) => deps.log.error({ err: error }, 'background job failed'));
}
