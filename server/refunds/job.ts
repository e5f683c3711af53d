// Claim links that expire unclaimed: the refund canceled, its reservation back in the balance,
// each change a REFUND_UPDATED event. A refund's sending needs no job: it moves with its
// treasury send, in the transaction that moves the send (use-cases.ts's sendMoved).
import { expireClaimLinks } from './use-cases.ts';
import { refundView } from './views.ts';
import type { Job, JobDeps } from '../jobs/job.ts';
import { loopJob } from '../jobs/loop.ts';

/** The parts of JobDeps this job uses: jobs/index.ts hands it these alone. */
export const refundUses = ['refunds', 'refundTransactions', 'now', 'log', 'intervalMs'] as const;

export function refundJob(deps: Pick<JobDeps, (typeof refundUses)[number]>): Job {
  const expire = async () => {
    if (!(await deps.refunds.expiring(deps.now()))) return;
    for (const r of await expireClaimLinks(deps.refundTransactions, deps.now(), refundView))
      deps.log.info({ refund: r.id, status: r.state }, "refund's claim link expired unclaimed");
  };
  return loopJob('refund claim links expire', expire, deps.intervalMs, (error) =>
    deps.log.warn({ err: error }, 'expiring refund claim links failed; retrying'),
  );
}
