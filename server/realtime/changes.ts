// Changes for long polls, across processes: every instance LISTENs on 'changes', and a
// NOTIFY from any instance's transaction wakes the polls held here. Keys name what changed:
// a payment or an account's events feed (keys.ts).
// Each held poll is counted per account, so one key cannot hold the service's sockets.
import type { Database } from '../storage/db.ts';

export interface Wait {
  /** Resolves when the payment changes, at `deadlineMs` from now, or when `signal` aborts. */
  promise: Promise<void>;
}

export class PaymentChanges {
  private readonly waiters = new Map<string, Set<() => void>>();
  private readonly perAccount = new Map<string, number>();
  private stop: (() => Promise<void>) | undefined;

  constructor(readonly maxPerAccount: number) {}

  async start(db: Database): Promise<void> {
    this.stop = await db.listen('changes', (key) => this.wake(key));
  }

  /** Long polls held now, on this instance. */
  get waiting(): number {
    let count = 0;
    this.waiters.forEach((set) => (count += set.size));
    return count;
  }

  /** Whether `account` may hold one more long poll here. */
  hasRoom(account: string): boolean {
    return (this.perAccount.get(account) ?? 0) < this.maxPerAccount;
  }

  wake(key: string): void {
    this.waiters.get(key)?.forEach((done) => done());
  }

  wait(key: string, account: string, waitMs: number, signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const set = this.waiters.get(key) ?? new Set();
      this.waiters.set(key, set);
      this.perAccount.set(account, (this.perAccount.get(account) ?? 0) + 1);
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        if (!set.delete(done)) return;
        if (set.size === 0) this.waiters.delete(key);
        const left = (this.perAccount.get(account) ?? 1) - 1;
        if (left > 0) this.perAccount.set(account, left);
        else this.perAccount.delete(account);
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, waitMs));
      set.add(done);
      signal.addEventListener('abort', done);
    });
  }

  async close(): Promise<void> {
    this.waiters.forEach((set) => set.forEach((done) => done()));
    await this.stop?.();
  }
}
