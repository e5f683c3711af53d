// Changes for long polls, across processes: every instance LISTENs on 'changes', and a
// NOTIFY from any instance's transaction wakes the polls held here. Keys name what changed:
// a payment or an account's events feed (keys.ts).
// Each held poll is counted in pools (PollLimits): the secret and the public key of an account
// apart, each public reference, and the whole instance, so that a public key (in every page)
// can neither hold the service's sockets nor crowd out the merchant's own server. When the
// instance's pool is full, accounts share it fairly: one holding fewer polls than the busiest
// less one takes a slot from the busiest, whose oldest poll is answered at once (as a poll that
// saw no change, which its client simply asks again).
import type { Database } from '../storage/db.ts';

/** How many long polls may be held at once, on one instance. */
export interface PollLimits {
  /** Per account and kind of key: the public key's polls never crowd out the secret key's. */
  perKey: number;
  /** Per payment, for public keys: a customer's tabs, not an attacker's thousand. */
  perReference: number;
  /** All long polls of this instance. */
  total: number;
}

/** A pool a long poll is counted in: its name, the most held at once, and how a caller is told it is full. */
export interface Pool {
  name: string;
  max: number;
  /** "for this public key", "for this payment", "on this instance"… */
  whose: string;
}
export type Pools = Pool[];

export class PaymentChanges {
  private readonly waiters = new Map<string, Set<() => void>>();
  private readonly held = new Map<string, number>();
  /** Each account's held polls, oldest first: where a slot is taken from when the instance is full. */
  private readonly byAccount = new Map<string, Set<() => void>>();
  private stop: (() => Promise<void>) | undefined;

  constructor(readonly limits: PollLimits) {}

  /** `also`: told every key heard too (the account cache drops a merchant's copies on its key). */
  async start(db: Database, also: (key: string) => void = () => {}): Promise<void> {
    this.stop = await db.listen('changes', (key) => {
      also(key);
      this.wake(key);
    });
  }

  /** The pools of a poll by an account's key, on a payment's reference or (none) the events feed. */
  pools(account: string, via: 'public' | 'secret', reference?: string): Pools {
    const pools: Pools = [
      { name: `${via}:${account}`, max: this.limits.perKey, whose: `for this ${via} key` },
      { name: `account:${account}`, max: Number.POSITIVE_INFINITY, whose: 'for this account' },
      { name: 'total', max: this.limits.total, whose: 'on this instance' },
    ];
    if (via === 'public' && reference !== undefined)
      pools.push({ name: `ref:${account}/${reference}`, max: this.limits.perReference, whose: 'for this payment' });
    return pools;
  }

  /** Long polls held now, on this instance. */
  get waiting(): number {
    let count = 0;
    this.waiters.forEach((set) => (count += set.size));
    return count;
  }

  /** The first pool that is full, or undefined when one more poll fits every pool. */
  full(pools: Pools): Pool | undefined {
    const found = this.firstFull(pools);
    if (found?.name !== 'total') return found;
    // The instance is full: a fair share. The busiest account gives up its oldest poll to an
    // account holding fewer than it less one (so the two never trade a slot back and forth).
    const mine = pools.find((p) => p.name.startsWith('account:'));
    let busiest: Set<() => void> | undefined;
    for (const polls of this.byAccount.values()) if (!busiest || polls.size > busiest.size) busiest = polls;
    if (!mine || !busiest || busiest.size <= (this.held.get(mine.name) ?? 0) + 1) return found;
    busiest.values().next().value!();
    return this.firstFull(pools);
  }

  private firstFull(pools: Pools): Pool | undefined {
    return pools.find(({ name, max }) => (this.held.get(name) ?? 0) >= max);
  }

  wake(key: string): void {
    this.waiters.get(key)?.forEach((done) => done());
  }

  wait(key: string, pools: Pools, waitMs: number, signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const set = this.waiters.get(key) ?? new Set();
      this.waiters.set(key, set);
      for (const { name } of pools) this.held.set(name, (this.held.get(name) ?? 0) + 1);
      const account = pools.find((p) => p.name.startsWith('account:'))?.name;
      const mine = account === undefined ? undefined : (this.byAccount.get(account) ?? new Set<() => void>());
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        if (!set.delete(done)) return;
        if (set.size === 0) this.waiters.delete(key);
        if (mine?.delete(done) && mine.size === 0) this.byAccount.delete(account!);
        for (const { name } of pools) {
          const left = (this.held.get(name) ?? 1) - 1;
          if (left > 0) this.held.set(name, left);
          else this.held.delete(name);
        }
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, waitMs));
      set.add(done);
      if (mine) this.byAccount.set(account!, mine.add(done));
      signal.addEventListener('abort', done);
    });
  }

  async close(): Promise<void> {
    this.waiters.forEach((set) => set.forEach((done) => done()));
    await this.stop?.();
  }
}
