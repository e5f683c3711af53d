// Subscriptions' rules, no I/O: when each period starts (calendar months and years in UTC, a day
// past a month's end held to its last day), which period is due, and what a failure does.
import { describe, expect, it } from 'vitest';
import { afterCharge, afterFailure, approvalOf, CANCEL_AFTER_MS, duePeriod, GRACE_MS, periodStart, RETRY_AFTER_MS } from '../rules.ts';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();

describe('periodStart', () => {
  it('counts days and weeks by their length, months and years on the calendar, the 31st held to a short month’s last day', () => {
    const start = at('2027-01-31T10:30:00.000Z');
    expect(iso(periodStart(start, 'day', 2))).toBe('2027-02-02T10:30:00.000Z');
    expect(iso(periodStart(start, 'week', 1))).toBe('2027-02-07T10:30:00.000Z');
    expect([1, 2, 3, 12, 13].map((n) => iso(periodStart(start, 'month', n)))).toEqual([
      '2027-02-28T10:30:00.000Z',
      '2027-03-31T10:30:00.000Z',
      '2027-04-30T10:30:00.000Z',
      '2028-01-31T10:30:00.000Z',
      '2028-02-29T10:30:00.000Z',
    ]);
    expect(iso(periodStart(at('2028-02-29T00:00:00.000Z'), 'year', 1))).toBe('2029-02-28T00:00:00.000Z');
  });
});

describe('a charge and a failure', () => {
  const plan = { period: 'day' as const, periods: 3, price: 10_000_000n };
  const start = at('2027-01-01T00:00:00.000Z');
  const fresh = { status: 'pending' as const, startMs: start, charged: 0, nextMs: start, failures: 0 };

  it('is due at its start, never before, never once canceled or past the last period', () => {
    expect(duePeriod(fresh, plan, start - 1)).toBeUndefined();
    expect(duePeriod(fresh, plan, start)).toBe(0);
    expect(duePeriod({ ...fresh, status: 'canceled' }, plan, start)).toBeUndefined();
    expect(duePeriod({ ...fresh, charged: 3, nextMs: null }, plan, start + 10 * 86_400_000)).toBeUndefined();
    const charged = { ...fresh, ...afterCharge(fresh, plan, 0) };
    expect(charged).toMatchObject({ status: 'active', charged: 1, nextMs: start + 86_400_000 });
    expect(duePeriod(charged, plan, start + 86_400_000 - 1)).toBeUndefined();
    expect(afterCharge(charged, plan, 2).nextMs).toBeNull();
    expect(approvalOf(plan)).toBe(30_000_000n);
  });

  it('is retried on the schedule, past_due past the grace period, canceled past the cancel period', () => {
    const first = afterFailure(fresh, plan, 0, start);
    expect(first).toEqual({ status: 'pending', nextMs: start + RETRY_AFTER_MS[0], failures: 1 });
    expect(afterFailure({ ...fresh, failures: 5 }, plan, 0, start + GRACE_MS)).toEqual({
      status: 'past_due',
      nextMs: start + GRACE_MS + RETRY_AFTER_MS[2],
      failures: 6,
    });
    expect(afterFailure(fresh, plan, 0, start + CANCEL_AFTER_MS)).toMatchObject({ status: 'canceled', nextMs: null });
  });
});
