// Idempotency keys are kept 24 hours: older ones are removed every ten minutes (a key reused
// later is a new request anyway; its claim makes the row anew).
import { IDEMPOTENCY_KEEP_MS } from '../domain/idempotency.ts';
import type { Job, JobDeps } from './job.ts';
import { loopJob } from './loop.ts';

export const IDEMPOTENCY_PURGE_MS = 600_000;

export const idempotencyUses = ['idempotency', 'now', 'log'] as const;

export function idempotencyJob(deps: Pick<JobDeps, (typeof idempotencyUses)[number]>): Job[] {
  const store = deps.idempotency;
  if (!store) return [];
  return [
    loopJob(
      'remove idempotency keys kept over a day',
      async () => void (await store.purge(deps.now() - IDEMPOTENCY_KEEP_MS)),
      IDEMPOTENCY_PURGE_MS,
      (error) => deps.log.error({ err: error }, 'background job failed'),
    ),
  ];
}
