// The service's background work. Each job registers itself in JOBS below with what it runs
// and the NOTIFY channel that wakes it; startService starts and stops them together. Jobs
// claim their rows (SKIP LOCKED, leases), so any number of instances may run them all.
import type { Job, JobDeps } from './job.ts';
import { treasuryJobs } from '../balances/treasury-job.ts';
import { payoutJob } from '../payouts/job.ts';
import { reconcileJobs } from '../chain/reconcile-job.ts';
import { settleExpiredJob } from '../payments/settle-expired-job.ts';
import { sweepJobs } from '../chain/sweep-job.ts';
import { watchJobs } from '../chain/watch-job.ts';
import { webhookJob } from '../webhooks/job.ts';

export type { Job, JobDeps } from './job.ts';

const JOBS: Array<(deps: JobDeps) => Job | Job[]> = [webhookJob, payoutJob, settleExpiredJob, watchJobs, sweepJobs, reconcileJobs, treasuryJobs];

/** Starts every registered job; the answer stops them all. */
export async function startJobs(deps: JobDeps): Promise<{ stop(): Promise<void> }> {
  const jobs = JOBS.flatMap((register) => register(deps));
  const unlisten = await Promise.all(jobs.flatMap((job) => (job.wakeOn ? [deps.db.listen(job.wakeOn.channel, job.wakeOn.wake)] : [])));
  for (const job of jobs) job.start();
  return {
    async stop() {
      await Promise.all(jobs.map((job) => job.stop()));
      await Promise.all(unlisten.map((stop) => stop()));
    },
  };
}
