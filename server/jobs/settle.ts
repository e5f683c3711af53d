// Accepted partial payments whose quote ran out are settled by the service, not the browser:
// the merchant sees them in verify and in a webhook even when the customer closed the page.
import { verificationView } from '../views/payments.ts';
import type { Job, JobDeps } from './index.ts';
import { JobLoop } from './loop.ts';

export function settleJob(deps: JobDeps): Job {
  const report = { type: 'DEPOSIT_TRANSACTION' as const, data: (p: Parameters<typeof verificationView>[0]) => verificationView(p, deps.now(), true) };
  const loop = new JobLoop(
    async () => {
      while ((await deps.payments.settleExpired(deps.now(), report)) > 0);
    },
    deps.intervalMs,
    (error) => deps.log.error({ err: error }, 'background job failed'),
  );
  return { name: 'settle expired partial payments', start: () => loop.start(), stop: () => loop.stop() };
}
