// The service's background work. Each job registers itself in JOBS below with what it runs
// and the NOTIFY channel that wakes it; startService starts and stops them together. Jobs
// claim their rows (SKIP LOCKED, leases), so any number of instances may run them all.
import type { Job, JobDeps } from './job.ts';
import { idempotencyJob } from './idempotency.ts';
import { treasuryJobs } from './treasury.ts';
import { payoutJob } from './payouts.ts';
import { reconcileJobs } from './reconcile.ts';
import { settleJob } from './settle.ts';
import { sweepJobs } from './sweep.ts';
import { watchJobs } from './watch.ts';
import { webhookJob } from './webhooks.ts';

export type { Job, JobDeps } from './job.ts';

const JOBS: Array<(deps: JobDeps) => Job | Job[]> = [webhookJob, payoutJob, settleJob, watchJobs, sweepJobs, reconcileJobs, treasuryJobs, idempotencyJob];

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
