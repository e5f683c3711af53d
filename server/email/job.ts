// The e-mail job: turns the events that tell people something into e-mails (rules.ts
// says which, to whom), then sends what the outbox holds that is due, each claimed by one
// instance (store.ts), tried again with backoff when the SMTP server refuses or does not
// answer, given up after three days. Never in a request: a request only writes the outbox.
import type { Job, JobDeps } from '../jobs/job.ts';
import { loopJob } from '../jobs/loop.ts';
import { emailsFor, nextTry, type MailRetry } from './rules.ts';
import { failureOf } from './smtp.ts';

/** An hour at most between attempts, for three days. */
export const MAIL_RETRY_CAP_MS = 3_600_000;
export const MAIL_RETRY_WINDOW_MS = 3 * 86_400_000;
const BATCH = 20;

export const emailUses = ['emails', 'mailSender', 'mailRetryMs', 'origin', 'now', 'log', 'intervalMs'] as const;

export function emailTick(deps: Pick<JobDeps, (typeof emailUses)[number]>): () => Promise<void> {
  const { emails, mailSender: sender, now, log } = deps;
  const retry: MailRetry = { baseMs: deps.mailRetryMs, capMs: MAIL_RETRY_CAP_MS, windowMs: MAIL_RETRY_WINDOW_MS };
  return async () => {
    // Events first: without a sender (e-mail off) their marks are dropped, nothing is sent.
    const plan =
      sender &&
      ((event: Parameters<typeof emailsFor>[0], business: string, people: Parameters<typeof emailsFor>[2]) =>
        emailsFor(event, business, people, `${deps.origin()}/dashboard`));
    while ((await emails.fanOut(BATCH, now(), plan)) === BATCH);
    if (!sender) return;
    for (;;) {
      const due = await emails.claimDue(now(), 60_000, BATCH);
      for (const row of due) {
        try {
          await sender.send(row);
          await emails.recordAttempt(row, { state: 'sent' }, now());
          log.info({ outbox: row.id, kind: row.kind, attempt: row.attempts }, 'e-mail sent');
        } catch (error) {
          const why = failureOf(error);
          const at = nextTry(retry, row.createdMs, row.attempts, now());
          await emails.recordAttempt(row, at === undefined ? { state: 'failed', error: why } : { state: 'pending', atMs: at, error: why }, now());
          log.warn({ outbox: row.id, kind: row.kind, attempt: row.attempts, error: why, retry: at !== undefined }, 'e-mail refused');
        }
      }
      if (due.length < BATCH) return;
    }
  };
}

export function emailJob(deps: Pick<JobDeps, (typeof emailUses)[number]>): Job {
  return loopJob('send e-mails', emailTick(deps), deps.intervalMs, (error) => deps.log.error({ err: error }, 'background job failed'), {
    wakeOn: 'emails_due',
    onStop: () => deps.mailSender?.close(),
  });
}
