// When webhook deliveries are tried again, and when they stop: doubling delays from a base,
// capped between attempts, for a window of days (as Stripe does). Numbers in, numbers out.
import { addressKind } from '../domain/addresses.ts';

export interface RetryPolicy {
  /** The first retry's delay; each later one doubles. */
  baseMs: number;
  /** The longest wait between two attempts. */
  capMs: number;
  /** How long after the event a delivery is still tried. */
  windowMs: number;
}

/** The delay after failed attempt number `attempt` (1 for the first). */
export const retryDelay = (policy: RetryPolicy, attempt: number): number => Math.min(policy.capMs, policy.baseMs * 2 ** Math.min(attempt - 1, 40));

/** When to try next, or undefined when the window has passed: the event has failed. */
export function nextAttemptAt(policy: RetryPolicy, createdMs: number, attempt: number, nowMs: number): number | undefined {
  const at = nowMs + retryDelay(policy, attempt);
  return at - createdMs <= policy.windowMs ? at : undefined;
}

/** A 2xx is the merchant's "got it"; anything else, or no answer, is tried again. */
export const delivered = (status: number): boolean => status >= 200 && status < 300;

// Names for this machine and for a cloud's metadata service; addresses go by addresses.ts.
const LOOPBACK_NAME = /^localhost\.?$/;
const METADATA_NAME = /^metadata\.google\.internal\.?$/;

/**
 * Where a merchant may have events sent: https to a public host, or plain http to this
 * machine with test keys (a developer's laptop). Never a private, link-local or metadata
 * address. (Names that resolve to such addresses are refused at delivery time as well.)
 */
export function webhookUrlProblem(raw: string, mode: 'test' | 'live', loopbackAllowed = true): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'expected an absolute URL';
  }
  if (url.username || url.password) return 'expected no user name or password in the URL';
  const host = url.hostname.toLowerCase();
  // The URL parser writes an address one way: IPv4 dotted (0x7f.1 is 127.0.0.1), IPv6 in brackets.
  const kind = addressKind(host);
  if (LOOPBACK_NAME.test(host) || kind === 'loopback') {
    if (mode === 'live') return 'expected a public https URL: loopback addresses are for test keys only';
    return loopbackAllowed
      ? undefined
      : 'expected a public https URL: this service sends no webhooks to its own machine (its operator has not set WEBHOOKS_TO_LOOPBACK=true)';
  }
  if (url.protocol !== 'https:') return mode === 'test' ? 'expected https (plain http only to localhost, with test keys)' : 'expected an https URL';
  if (kind === 'special' || METADATA_NAME.test(host)) return 'expected a public host, not a private, link-local or metadata address';
  return undefined;
}
