// withLease, the one "take a lease and keep renewing it" of the sweeper, the watcher and the
// treasury sender, on both databases: renewed while the work runs, the work's signal aborted
// the first time a renewal fails, given back when the work ends and not when it was lost.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../db.ts';
import { LeaseLost, takeLease, withLease, type LeaseTerms } from '../leases.ts';
import { migrate } from '../migrations.ts';
import { databaseOptions, KINDS } from '../../testing/databases.ts';

describe.each(KINDS)('withLease on %s', { timeout: 60_000 }, (kind) => {
  let db: Database;
  beforeAll(async () => {
    db = await openDatabase(await databaseOptions(kind));
    await migrate(db);
  }, 60_000);
  afterAll(() => db.close());

  /** The lease `name` for `holder` on a clock that `skew` moves: `ms` long. */
  const terms = (name: string, holder: string, ms: number, clock = { skew: 0 }): LeaseTerms & { lost: unknown[] } => {
    const lost: unknown[] = [];
    return {
      take: () => takeLease(db, name, holder, Date.now() + clock.skew, ms),
      release: async () => void (await db.query('DELETE FROM leases WHERE name = $1 AND holder = $2', [name, holder])),
      ms,
      onLost: (reason) => lost.push(reason),
      lost,
    };
  };
  const holderOf = async (name: string) => (await db.query<{ holder: string }>('SELECT holder FROM leases WHERE name = $1', [name]))[0]?.holder;
  /** Resolves once `signal` is aborted (or fails the test after 10 s). */
  const aborted = (signal: AbortSignal) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('never aborted')), 10_000);
      signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
    });

  it('runs the work while held, keeps it past its length by renewing, and gives it back', async () => {
    const clock = { skew: 0 };
    const until = async () =>
      Number((await db.query<{ until: string }>('SELECT lease_until_ms::text AS until FROM leases WHERE name = $1', [`a/${kind}`]))[0].until);
    const run = await withLease(terms(`a/${kind}`, 'one', 300, clock), async (lease) => {
      // Time passes, far past the lease: it is renewed meanwhile, and another holder on the
      // same clock still cannot take it.
      const first = await until();
      clock.skew = 60_000;
      while ((await until()) < first + 60_000) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(await takeLease(db, `a/${kind}`, 'two', Date.now() + 30_000, 300)).toBe(false);
      expect(lease.signal.aborted).toBe(false);
      return 42;
    });
    expect(run).toEqual({ held: true, value: 42 });
    expect(await holderOf(`a/${kind}`)).toBeUndefined();
  });

  it('does not run the work while another holder has it', async () => {
    expect(await takeLease(db, `b/${kind}`, 'other', Date.now(), 60_000)).toBe(true);
    let ran = false;
    expect(await withLease(terms(`b/${kind}`, 'one', 60_000), async () => (ran = true))).toEqual({ held: false });
    expect(ran).toBe(false);
    expect(await holderOf(`b/${kind}`)).toBe('other');
  });

  it('aborts the work once a renewal fails, hold() then refuses, and a lost lease is not released', async () => {
    const mine = terms(`c/${kind}`, 'one', 300);
    const sent: string[] = [];
    const work = withLease(mine, async (lease) => {
      await lease.hold();
      sent.push('first');
      // Another instance whose clock is past this lease takes it; the next renewal fails.
      expect(await takeLease(db, `c/${kind}`, 'two', Date.now() + 10_000, 60_000)).toBe(true);
      await aborted(lease.signal);
      expect(lease.signal.reason).toBeInstanceOf(LeaseLost);
      expect(await lease.renew()).toBe(false);
      await lease.hold(); // throws: nothing more is sent
      sent.push('second');
    });
    await expect(work).rejects.toThrow(LeaseLost);
    expect(sent).toEqual(['first']);
    expect(mine.lost).toHaveLength(1);
    expect(await holderOf(`c/${kind}`)).toBe('two');
  });

  it('a renewal that cannot reach the database stops the work too', async () => {
    let calls = 0;
    const base = terms(`d/${kind}`, 'one', 60_000);
    const flaky: LeaseTerms = { ...base, take: async () => (++calls === 1 ? base.take() : Promise.reject(new Error('connection lost'))) };
    await expect(withLease(flaky, (lease) => lease.hold())).rejects.toThrow('lease lost: connection lost');
  });
});
