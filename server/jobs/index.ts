// The service's background work. Each job registers itself in JOBS below with what it runs
// and the parts of JobDeps it uses (it is handed those alone); a job says the NOTIFY channel
// that wakes it; startService starts and stops them together. Jobs claim their rows (SKIP
// LOCKED, leases), so any number of instances may run them all.
import type { Job, JobDeps } from './job.ts';
import { idempotencyJob, idempotencyUses } from './idempotency.ts';
import { treasuryJobs, treasuryUses } from '../balances/treasury-job.ts';
import { payoutJob, payoutUses } from '../payouts/job.ts';
import { refundJob, refundUses } from '../refunds/job.ts';
import { walletRefundJob, walletRefundUses } from '../refunds/wallet-job.ts';
import { reconcileJobs, reconcileUses } from '../chain/reconcile-job.ts';
import { treasuryReconcileJobs, treasuryReconcileUses } from '../chain/treasury-reconcile-job.ts';
import { finishExpiredJob, finishUses } from '../payments/finish-expired-job.ts';
import { sweepJobs, sweepUses } from '../chain/sweep-job.ts';
import { relayJobs, relayUses } from '../chain/relay-job.ts';
import { watchJobs, watchUses } from '../chain/watch-job.ts';
import { webhookJob, webhookUses } from '../webhooks/job.ts';
import { emailJob, emailUses } from '../email/job.ts';
import { chargeJob, chargeUses } from '../subscriptions/charge-job.ts';

export type { Job, JobDeps } from './job.ts';

/** A job built from the parts it declares, and only those: a part it does not name is not there. */
export const uses =
  <K extends keyof JobDeps>(parts: readonly K[], build: (deps: Pick<JobDeps, K>) => Job | Job[]) =>
  (deps: JobDeps): Job | Job[] =>
    build(Object.fromEntries(parts.map((part) => [part, deps[part]])) as Pick<JobDeps, K>);

export const JOBS: Array<(deps: JobDeps) => Job | Job[]> = [
  uses(webhookUses, webhookJob),
  uses(payoutUses, payoutJob),
  uses(finishUses, finishExpiredJob),
  uses(watchUses, watchJobs),
  uses(sweepUses, sweepJobs),
  uses(relayUses, relayJobs),
  uses(reconcileUses, reconcileJobs),
  uses(treasuryReconcileUses, treasuryReconcileJobs),
  uses(treasuryUses, treasuryJobs),
  uses(refundUses, refundJob),
  uses(walletRefundUses, walletRefundJob),
  uses(idempotencyUses, idempotencyJob),
  uses(emailUses, emailJob),
  uses(chargeUses, chargeJob),
];

/** Starts every registered job; the answer stops them all. */
export async function startJobs(deps: JobDeps): Promise<{ jobs: Job[]; stop(): Promise<void> }> {
  const jobs = JOBS.flatMap((register) => register(deps));
  const unlisten = await Promise.all(jobs.flatMap((job) => (job.wakeOn ? [deps.db.listen(job.wakeOn.channel, job.wakeOn.wake)] : [])));
  for (const job of jobs) job.start();
  return {
    jobs,
    async stop() {
      await Promise.all(jobs.map((job) => job.stop()));
      await Promise.all(unlisten.map((stop) => stop()));
    },
  };
}
