// Item 8: one pool of long polls per instance was shared by every merchant's public and
// secret polls, first come first served, so accounts that held it all kept every other merchant's
// customers out. Now the instance's pool is shared fairly: an account under the busiest one's
// share takes a slot from it, whose oldest poll is answered at once (a poll that saw no change).
import { describe, expect, it } from 'vitest';
import { PaymentChanges } from '../changes.ts';

describe('long polls when the instance is full', () => {
  const held = (changes: PaymentChanges, account: string, n: number, key = `k:${account}`) => {
    const ended: number[] = [];
    const controller = new AbortController();
    for (let i = 0; i < n; i++) {
      const pools = changes.pools(account, 'public', `ref-${i}`);
      expect(changes.full(pools), `${account} poll ${i}`).toBeUndefined();
      void changes.wait(key, pools, 60_000, controller.signal).then(() => ended.push(i));
    }
    return { ended, stop: () => controller.abort() };
  };

  it('gives a newcomer a fair share: the busiest account answers its oldest polls early, until both hold as many', async () => {
    const changes = new PaymentChanges({ perKey: 100, perReference: 100, total: 10 });
    const a = held(changes, 'merchant-a/live', 10);
    expect(changes.waiting).toBe(10);
    const b = held(changes, 'merchant-b/live', 5);
    await Promise.resolve();
    // A gave up its five oldest polls, one per newcomer; the instance still holds ten.
    expect(a.ended).toEqual([0, 1, 2, 3, 4]);
    expect(changes.waiting).toBe(10);
    // Five each: a sixth of B's would take back what it gave, so the instance is full for it.
    expect(changes.full(changes.pools('merchant-b/live', 'public', 'ref-9'))?.name).toBe('total');
    // A third account still gets in, from the busiest.
    const c = held(changes, 'merchant-c/live', 1);
    await Promise.resolve();
    expect(a.ended.length + b.ended.length).toBe(6);
    for (const account of [a, b, c]) account.stop();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(changes.waiting).toBe(0);
  });

  it("still refuses past a key's own limit, full instance or not", () => {
    const changes = new PaymentChanges({ perKey: 2, perReference: 100, total: 10 });
    const a = held(changes, 'merchant-a/live', 2);
    expect(changes.full(changes.pools('merchant-a/live', 'public', 'ref-7'))?.name).toBe('public:merchant-a/live');
    a.stop();
  });
});
