// A route's checks run in the order listed, each at its moment; a route that moves money is
// counted against the merchant's allowance after the listed refusals of once the body reads, and
// before a check that may answer the request itself (an injected fault), so a faulted request is
// counted too.
import { describe, expect, it } from 'vitest';
import { checksOf, faultable, fromOurPages, rateLimited, testOnly, type RateLimit } from '../checks.ts';

const limit = (afterBody: boolean): RateLimit => ({ limiter: () => undefined as never, key: () => 'k', afterBody, message: () => 'slow down' });

describe("a route's checks", () => {
  it('run as listed before the body; after it, the refusals, then the money-moves allowance, then a fault', () => {
    const before = rateLimited(limit(false));
    const after = rateLimited(limit(true));
    const fault = faultable('initialize');
    const live = testOnly('not live');
    const route = { checks: [fault, fromOurPages, before, after, live], movesMoney: true as const };
    expect(checksOf(route, 'before body')).toEqual([fromOurPages, before, live]);
    const later = checksOf(route, 'after body');
    expect(later).toHaveLength(3);
    expect(later[0]).toBe(after);
    expect(later[1]!.refuses).toEqual(['rate_limited']);
    expect(later[2]).toBe(fault);
    expect(checksOf({ checks: [fault, after] }, 'after body')).toEqual([after, fault]);
  });
});
