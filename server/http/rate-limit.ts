// A fixed-window counter per key (a client's address, a payment link): enough to stop one
// client from making unlimited payments through a public page. Counted in this process (PGlite
// has one instance), or, where instances share a PostgreSQL, in it (storage/rate-limits.ts), so
// that N instances allow the limit once, not N times.

/** Where windows are counted when instances share them: one row per limit and key. */
export interface SharedWindows {
  /** Counts one for `key` of limit `name`; a window of `windowMs` starts at the first count after the last ended. */
  count(name: string, key: string, windowMs: number, nowMs: number): Promise<Window>;
}

export interface Window {
  count: number;
  /** When it ends, epoch ms. */
  untilMs: number;
}

export interface LimiterOptions {
  /** Names the limit in the shared table and in /metrics' refusals: sign_in, link_checkout… */
  name?: string;
  /** Counted there instead of in this process. */
  shared?: SharedWindows;
  /** Told of each request refused (a 429), by the limit's name. */
  refused?: (name: string) => void;
}

/** Where a limit writes its headers: the answer (node's ServerResponse has these). */
export interface HeaderSink {
  getHeader(name: string): unknown;
  setHeader(name: string, value: string): unknown;
}

/** Adds one list member to a structured-field list header, after those another limit wrote. */
const append = (sink: HeaderSink, name: string, member: string) => {
  const before = sink.getHeader(name);
  sink.setHeader(name, before ? `${String(before)}, ${member}` : member);
};

export class RateLimiter {
  private readonly windows = new Map<string, Window>();
  readonly name: string;

  constructor(
    readonly max: number,
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
    private readonly options: LimiterOptions = {},
  ) {
    this.name = options.name ?? 'unnamed';
  }

  /**
   * Counts one request for `key`; answers the seconds to wait when it is over the limit. Given
   * the answer (`sink`), writes the IETF draft's headers on it (draft-ietf-httpapi-ratelimit-
   * headers): `RateLimit-Policy: "<name>";q=<requests>;w=<window seconds>` and `RateLimit:
   * "<name>";r=<requests left>;t=<seconds until the window ends>`, one list member per limit.
   */
  async hit(key: string, sink?: HeaderSink): Promise<number | undefined> {
    const window = await this.count(key);
    if (sink) {
      const seconds = Math.max(0, Math.ceil((window.untilMs - this.now()) / 1000));
      append(sink, 'ratelimit-policy', `"${this.name}";q=${this.max};w=${Math.ceil(this.windowMs / 1000)}`);
      append(sink, 'ratelimit', `"${this.name}";r=${Math.max(0, this.max - window.count)};t=${seconds}`);
    }
    if (window.count <= this.max) return undefined;
    this.options.refused?.(this.name);
    return Math.max(1, Math.ceil((window.untilMs - this.now()) / 1000));
  }

  /**
   * Counts one for `key` as a ceiling that is watched, not enforced: true once a window, when
   * this count is the first past the ceiling (the caller alerts; nobody is refused).
   */
  async crossed(key: string): Promise<boolean> {
    return (await this.count(key)).count === this.max + 1;
  }

  private async count(key: string): Promise<Window> {
    const now = this.now();
    if (this.options.shared) return this.options.shared.count(this.name, key, this.windowMs, now);
    let window = this.windows.get(key);
    if (!window || now >= window.untilMs) {
      if (this.windows.size >= 10_000) for (const [k, w] of this.windows) if (now >= w.untilMs) this.windows.delete(k);
      window = { count: 0, untilMs: now + this.windowMs };
      this.windows.set(key, window);
    }
    window.count++;
    return window;
  }
}
