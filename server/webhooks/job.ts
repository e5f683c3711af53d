// Delivers the outbox: claims due events (one instance each), POSTs each signed to the
// merchant's URL, records every attempt, and schedules the next by the retry policy.
import { loopbackPolicy } from '../http/outbound-addresses.ts';
import { SIGNATURE_HEADER, signatureHeader, standardHeaders } from '../../contract/webhook-signature.ts';
import { hmacSha256, hmacSha256Base64 } from './signing.ts';
import { delivered, nextAttemptAt, type RetryPolicy } from './rules.ts';
import type { Logger } from '../service/log.ts';
import type { EventStore, StoredEvent } from '../storage/events.ts';
import type { MerchantStore } from '../merchants/store.ts';
import type { Job, JobDeps, JobSignals } from '../jobs/job.ts';
import { loopJob } from '../jobs/loop.ts';
import { post } from './post.ts';

export interface DeliveryDeps {
  events: EventStore;
  merchants: MerchantStore;
  retry: RetryPolicy;
  now: () => number;
  log: Logger;
  /** Names this process in each attempt's record. */
  instance: string;
  /** How long a merchant has to answer one delivery. */
  timeoutMs: number;
  /** Whether test keys' events may go to this machine (WEBHOOKS_TO_LOOPBACK; on with the demo). */
  loopbackWebhooks: boolean;
  signals?: JobSignals;
}

export function webhookDelivery(deps: DeliveryDeps) {
  const inFlight = new Set<AbortController>();
  let closed = false;

  async function deliver(event: StoredEvent): Promise<void> {
    const account = { merchant: { id: event.merchantId } as never, mode: event.mode as 'test' | 'live' };
    const endpoint = await deps.merchants.endpoint(account);
    if (!endpoint.url) return deps.events.park(event);
    if (closed) return; // stopping: the lease runs out and another instance (or the next start) sends it
    const now = deps.now();
    // During a rotation both secrets sign: the merchant's verifier accepts either.
    const secrets = [endpoint.secret];
    if (endpoint.previousSecret && endpoint.previousUntilMs !== null && endpoint.previousUntilMs > now) secrets.push(endpoint.previousSecret);
    const started = Date.now();
    const abort = new AbortController();
    inFlight.add(abort);
    // Signed afresh on each attempt, both ways: ours for today's verifiers, and Standard
    // Webhooks', whose webhook-id is the event's id on every retry (the receiver's idempotency key).
    const timestamp = Math.floor(Date.now() / 1000);
    const { status, error } = await post(
      endpoint.url,
      event.body,
      {
        'content-type': 'application/json',
        'user-agent': 'service-webhooks/1',
        [SIGNATURE_HEADER]: signatureHeader(hmacSha256, secrets, event.body, timestamp),
        ...standardHeaders(hmacSha256Base64, secrets, event.id, event.body, timestamp),
      },
      { loopback: loopbackPolicy(event.mode as 'test' | 'live', deps.loopbackWebhooks), timeoutMs: deps.timeoutMs, signal: abort.signal },
    ).finally(() => inFlight.delete(abort));
    const attempt = { url: endpoint.url, status, error, durationMs: Date.now() - started, atMs: deps.now(), instance: deps.instance };
    deps.signals?.delivery(event.mode, delivered(status) ? 'delivered' : status ? 'status' : 'error', attempt.durationMs / 1000);
    if (delivered(status)) {
      await deps.events.recordAttempt(event, attempt, { state: 'delivered' });
    } else {
      const at = nextAttemptAt(deps.retry, event.retryFromMs, event.attempts, deps.now());
      await deps.events.recordAttempt(event, attempt, at === undefined ? { state: 'failed' } : { state: 'pending', atMs: at });
    }
    deps.log.info({ event: event.id, type: event.type, attempt: event.attempts, status, error, ms: attempt.durationMs }, 'webhook delivery');
  }

  /** Deliveries under way: at most CAPACITY, each account's few at most (claimDue counts an account's leased events). */
  const running = new Set<Promise<void>>();
  const CAPACITY = 20;

  return {
    /**
     * Claims due events while there is room and starts each delivery, without waiting for them
     * to end: one endpoint that never answers holds its own slots for the timeout, never the
     * others' deliveries. Waits only while every slot is taken.
     */
    async tick(): Promise<void> {
      for (;;) {
        if (closed) return;
        if (running.size >= CAPACITY) {
          await Promise.race(running);
          continue;
        }
        // The lease outlives one attempt (its timeout) with room for the writes around it; an
        // instance that dies mid-delivery holds its events no longer than that.
        const due = await deps.events.claimDue(deps.now(), deps.timeoutMs + 5_000, CAPACITY - running.size);
        if (due.length === 0) return;
        for (const event of due) {
          const delivery: Promise<void> = deliver(event)
            .catch((error) => deps.log.error({ err: error, event: event.id }, 'webhook delivery failed'))
            .finally(() => running.delete(delivery));
          running.add(delivery);
        }
      }
    },
    /** Aborts deliveries under way, and waits for them to record it: nothing is sent after this. Their events stay due. */
    async close(): Promise<void> {
      closed = true;
      inFlight.forEach((abort) => abort.abort());
      await Promise.all(running);
    },
  };
}

/** The parts of JobDeps this job uses: jobs/index.ts hands it these alone. */
export const webhookUses = ['events', 'merchants', 'retry', 'now', 'log', 'instance', 'webhookTimeoutMs', 'loopbackWebhooks', 'intervalMs', 'signals'] as const;

export function webhookJob(deps: Pick<JobDeps, (typeof webhookUses)[number]>): Job {
  const { events, merchants, retry, now, log, instance, loopbackWebhooks, signals } = deps;
  const delivery = webhookDelivery({ events, merchants, retry, now, log, instance, loopbackWebhooks, timeoutMs: deps.webhookTimeoutMs, signals });
  return loopJob('deliver webhooks', delivery.tick, deps.intervalMs, (error) => deps.log.error({ err: error }, 'background job failed'), {
    wakeOn: 'events_due',
    onStop: () => delivery.close(),
  });
}
