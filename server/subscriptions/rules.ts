// Subscriptions' rules, no I/O: when each period starts, which period is due, what a failed
// charge does to a subscription (retried on a schedule, `past_due` past the grace period,
// `canceled` past the cancel period), and the amount the customer approves.
import type { KeyMode } from '../../contract/keys.ts';
import type { Period, SubscriptionState } from '../../contract/subscriptions.ts';

const DAY_MS = 86_400_000;

/** A plan as stored: its price in the coin's base units. */
export interface StoredPlan {
  id: string;
  merchantId: string;
  mode: KeyMode;
  name: string;
  coin: string;
  chainId: number;
  token: string;
  decimals: number;
  price: bigint;
  period: Period;
  periods: number;
  createdMs: number;
}

/** A subscription as stored, with its plan. */
export interface StoredSubscription {
  id: string;
  merchantId: string;
  mode: KeyMode;
  planId: string;
  wallet: string;
  spender: string;
  status: SubscriptionState;
  startMs: number;
  charged: number;
  nextMs: number | null;
  failures: number;
  canceledMs: number | null;
  createdMs: number;
  plan: StoredPlan;
}

/** When a failed charge is tried again, after each failure in turn (the last repeats): an hour, six hours, a day. */
export const RETRY_AFTER_MS = [3_600_000, 6 * 3_600_000, DAY_MS] as const;
/** A period still unpaid this long after its start makes the subscription `past_due` (at its next failure). */
export const GRACE_MS = 3 * DAY_MS;
/** A period still unpaid this long after its start cancels the subscription (at its next failure). */
export const CANCEL_AFTER_MS = 14 * DAY_MS;

/**
 * When period `n` (0 for the first) of a subscription started at `startMs` starts: days and weeks
 * by their length; months and years on the calendar in UTC, a day past the month's end held to
 * its last day (a subscription of 31 January renews on 28 or 29 February, then 31 March).
 */
export function periodStart(startMs: number, period: Period, n: number): number {
  if (period === 'day') return startMs + n * DAY_MS;
  if (period === 'week') return startMs + n * 7 * DAY_MS;
  const start = new Date(startMs);
  const months = period === 'month' ? n : 12 * n;
  const year = start.getUTCFullYear() + Math.floor((start.getUTCMonth() + months) / 12);
  const month = (start.getUTCMonth() + months) % 12;
  const last = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  const time = startMs - Date.UTC(start.getUTCFullYear(), start.getUTCMonth(), start.getUTCDate());
  return Date.UTC(year, month, Math.min(start.getUTCDate(), last)) + time;
}

/** What a subscription's charge needs to know of it. */
export interface Charging {
  status: SubscriptionState;
  startMs: number;
  charged: number;
  nextMs: number | null;
  failures: number;
}

export interface PlanTerms {
  period: Period;
  periods: number;
  price: bigint;
}

/**
 * The period to charge now, or undefined: never for a canceled subscription, never past the
 * plan's last period, never before the period's start (`nowMs`, the chain's clock) nor before a
 * failed charge's retry time.
 */
export function duePeriod(s: Charging, plan: PlanTerms, nowMs: number): number | undefined {
  if (s.status === 'canceled' || s.charged >= plan.periods) return undefined;
  if (nowMs < periodStart(s.startMs, plan.period, s.charged)) return undefined;
  if (s.nextMs !== null && nowMs < s.nextMs) return undefined;
  return s.charged;
}

/** After period `n`'s charge went through: active, the next period's start next (null after the last). */
export function afterCharge(s: Charging, plan: PlanTerms, n: number): Pick<Charging, 'status' | 'charged' | 'nextMs' | 'failures'> {
  const charged = n + 1;
  return { status: 'active', charged, nextMs: charged >= plan.periods ? null : periodStart(s.startMs, plan.period, charged), failures: 0 };
}

/**
 * After period `n`'s charge failed at `nowMs`: tried again on the schedule; `past_due` once the
 * period is unpaid GRACE_MS after its start, `canceled` once CANCEL_AFTER_MS (then never again).
 */
export function afterFailure(s: Charging, plan: PlanTerms, n: number, nowMs: number): Pick<Charging, 'status' | 'nextMs' | 'failures'> {
  const late = nowMs - periodStart(s.startMs, plan.period, n);
  const failures = s.failures + 1;
  if (late >= CANCEL_AFTER_MS) return { status: 'canceled', nextMs: null, failures };
  const retry = nowMs + RETRY_AFTER_MS[Math.min(failures, RETRY_AFTER_MS.length) - 1]!;
  return { status: late >= GRACE_MS ? 'past_due' : s.status, nextMs: retry, failures };
}

/** What the customer approves the charging address for: the price of every period of the plan. */
export const approvalOf = (plan: PlanTerms): bigint => plan.price * BigInt(plan.periods);

/** A charge's payment reference: the subscription's and the period's, so a retry of a period is the same payment. */
export const chargeReference = (subscriptionId: string, n: number): string => `sub_${subscriptionId.replaceAll('-', '')}_${n}`;
