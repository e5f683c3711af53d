// Refunds follow their treasury transactions: a refund on `balance` settlement is sent by the
// treasury's job as a withdrawal of the same id (balances/treasury-job.ts: signed, recorded,
// sent, counted once its block has the network's confirmations, gas journaled, failures
// returned); this job moves the refund along with it (ready → sent → confirmed, or failed),
// each change a REFUND_UPDATED event.
import { followSending } from './use-cases.ts';
import { refundView } from './views.ts';
import type { Job, JobDeps } from '../jobs/job.ts';
import { loopJob } from '../jobs/loop.ts';

/** The parts of JobDeps this job uses: jobs/index.ts hands it these alone. */
export const refundUses = ['refunds', 'now', 'log', 'intervalMs'] as const;

export function refundJob(deps: Pick<JobDeps, (typeof refundUses)[number]>): Job {
  const follow = async () => {
    if (!(await deps.refunds.open(deps.now()))) return;
    for (const r of await followSending(deps.refunds, deps.now(), refundView)) deps.log.info({ refund: r.id, status: r.state, tx: r.txHash }, 'refund moved on');
  };
  return loopJob('refunds follow their treasury transactions', follow, deps.intervalMs, (error) => deps.log.warn({ err: error }, 'following refunds failed; retrying'));
}
