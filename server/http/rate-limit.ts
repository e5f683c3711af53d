// A fixed-window counter per key (a client's address, a payment link): enough to stop one
// client from making unlimited payments through a public page. Hand-written because it is
// a dozen lines and in-process; several instances each count their own share.
export class RateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(
    readonly max: number,
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts one request for `key`; answers the seconds to wait when it is over the limit. */
  hit(key: string): number | undefined {
    const window = this.count(key);
    return window.count > this.max ? Math.max(1, Math.ceil((window.start + this.windowMs - this.now()) / 1000)) : undefined;
  }

  /**
   * Counts one for `key` as a ceiling that is watched, not enforced: true once a window, when
   * this count is the first past the ceiling (the caller alerts; nobody is refused).
   */
  crossed(key: string): boolean {
    return this.count(key).count === this.max + 1;
  }

  private count(key: string): { start: number; count: number } {
    const now = this.now();
    let window = this.windows.get(key);
    if (!window || now - window.start >= this.windowMs) {
      if (this.windows.size >= 10_000) for (const [k, w] of this.windows) if (now - w.start >= this.windowMs) this.windows.delete(k);
      window = { start: now, count: 0 };
      this.windows.set(key, window);
    }
    window.count++;
    return window;
  }
}
