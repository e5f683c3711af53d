import { ServiceError } from './errors.ts';

export const RETRY_BASE_MS = 400;
export const RETRY_CAP_MS = 8_000;

/**
 * Whether a failure is temporary: the network failed, or the service answered 408, 429 or
 * 5xx. One that outlasts the retries is the service out of reach, not a refusal.
 */
export const temporary = (error: ServiceError): boolean => error.kind === 'network' || error.status === 408 || error.status === 429 || error.status >= 500;

/**
 * The one retry policy: after which delay to try again, or undefined to stop. Temporary
 * failures and answers that are not the contract (a proxy's HTML page, say) are passing;
 * every call it guards is idempotent. Any other 4xx, and anything unknown, is final.
 */
export function retryDelay(error: unknown, attempt: number, random = Math.random, base = RETRY_BASE_MS, cap = RETRY_CAP_MS): number | undefined {
  if (!(error instanceof ServiceError) || !(error.kind === 'shape' || temporary(error))) return undefined;
  if (error.retryAfterMs !== undefined) return Math.min(error.retryAfterMs, cap * 4);
  // Half fixed, half random: customers who lost the network together do not come back
  // together, and no retry comes sooner than half its step.
  const step = Math.min(cap, base * 2 ** attempt);
  return Math.round(step / 2 + (random() * step) / 2);
}

/** Resolves after `ms`; rejects with the signal's reason the moment it aborts (the timer cleared). */
export const delay = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    const stop = () => (clearTimeout(timer), reject(signal.reason));
    if (signal.aborted) stop();
    else signal.addEventListener('abort', stop, { once: true });
  });

/** Runs `call` until it succeeds, the policy says stop, `attempts` are spent, or the signal aborts. */
export async function withRetry<T>(call: () => Promise<T>, signal: AbortSignal, attempts = 4): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      const wait = attempt + 1 < attempts ? retryDelay(error, attempt) : undefined;
      if (wait === undefined || signal.aborted) throw error;
      await delay(wait, signal);
    }
  }
}
