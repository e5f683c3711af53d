// The rates the service prices with: each provider asked every `refreshMs` (and at once when a
// quote finds its rate stale), each rate kept with its source and time. A quote never uses a
// stale rate; a coin off its peg is offered as inactive (domain/rates.ts decides both).
import type { CoinSymbol, Currency } from '../../contract/fields.ts';
import type { Check } from '../chain/readiness.ts';
import {
  coinOffered,
  RateUnavailable,
  ratesForQuote,
  usdPerCoin,
  type QuotedRates,
  type RateBook,
  type RatePolicy,
  type RateProvider,
} from '../domain/rates.ts';
import type { Logger } from '../service/log.ts';

/** A quote that finds its rate stale asks the providers again at most this often. */
const ON_DEMAND_MS = 5000;

export interface RateCacheOptions extends RatePolicy {
  /** How often fetched rates are refreshed (fixed tables are read once). */
  refreshMs: number;
  /** How long one provider may take to answer. */
  timeoutMs?: number;
  now: () => number;
  log: Logger;
  /** Where each fetch's coin rates are kept (rates/history-store.ts), for crediting money in another coin at the rate of its arrival. */
  history?: { record(rows: Array<{ symbol: string; units: bigint; atMs: number; source: string; fixed: boolean }>, nowMs: number): Promise<void> };
}

export class RateCache {
  private readonly book: RateBook = { fiat: {}, coins: {} };
  private refreshing: Promise<void> | undefined;
  /** The last fetch's write to the rate history, settled (never rejects). */
  historyWritten: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private lastOnDemandMs = -Infinity;
  /** Fetches that failed, per provider, since the service started (for /metrics). */
  readonly failures = new Map<string, number>();
  /** The providers' names, in order: /metrics shows each one's failures from 0. */
  get providerNames(): string[] {
    return this.providers.map((p) => p.name);
  }

  constructor(
    private readonly providers: RateProvider[],
    private readonly options: RateCacheOptions,
  ) {}

  /**
   * Asks every provider once, all at a time (concurrent callers share one round); a failing one
   * keeps its old rates. Answers are applied in the providers' order: a later one's rate wins.
   */
  refresh(): Promise<void> {
    return (this.refreshing ??= (async () => {
      const answers = await Promise.all(
        this.providers.map(async (provider) => {
          try {
            return { provider, snapshot: await provider.fetch(AbortSignal.timeout(this.options.timeoutMs ?? 5000)), atMs: this.options.now() };
          } catch (error) {
            this.failures.set(provider.name, (this.failures.get(provider.name) ?? 0) + 1);
            this.options.log.warn(
              { provider: provider.name, reason: (error as Error).message },
              'exchange rates could not be fetched; the last ones keep ageing',
            );
            return undefined;
          }
        }),
      );
      const kept: Array<{ symbol: string; units: bigint; atMs: number; source: string; fixed: boolean }> = [];
      for (const answer of answers) {
        if (!answer) continue;
        const { provider, snapshot, atMs } = answer;
        for (const [currency, units] of Object.entries(snapshot.fiat))
          this.book.fiat[currency as Currency] = { units: units!, source: provider.name, fixed: provider.fixed, atMs };
        for (const [coin, units] of Object.entries(snapshot.coins)) {
          this.book.coins[coin as CoinSymbol] = { units: units!, source: provider.name, fixed: provider.fixed, atMs };
          kept.push({ symbol: coin, units: units!, atMs, source: provider.name, fixed: provider.fixed });
        }
      }
      // Kept for crediting at the rate of an arrival; a failed write costs the history one row, never a quote.
      // Not awaited: a quote may be asked inside a transaction (a refund's, a block's credit), and on
      // PGlite's one connection a write waiting for that transaction while it waits for the quote
      // would wait for ever. The write queues behind it instead. `historyWritten` is for tests.
      this.historyWritten = (this.options.history?.record(kept, this.options.now()) ?? Promise.resolve()).catch((error: Error) =>
        this.options.log.warn({ reason: error.message }, 'exchange rates could not be kept in the rate history'),
      );
    })().finally(() => (this.refreshing = undefined)));
  }

  /** Refreshes now and then every `refreshMs`, until stop(). */
  async start(): Promise<void> {
    await this.refresh();
    if (this.providers.some((p) => !p.fixed)) {
      this.timer = setInterval(() => void this.refresh(), this.options.refreshMs);
      this.timer.unref();
    }
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** The rates to quote `currency` in `coin` at; a stale one is fetched again first, then refused by name (503). */
  forQuote(currency: Currency, coin: CoinSymbol): Promise<QuotedRates> {
    return this.fresh(() => ratesForQuote(this.book, currency, coin, this.options.now(), this.options));
  }

  /** What one coin is worth in US dollars (units at RATE_DECIMALS), for the daily withdrawal limit; a stale rate is fetched again first, then refused by name (503). */
  usdPerCoin(coin: CoinSymbol): Promise<bigint> {
    return this.fresh(() => usdPerCoin(this.book, coin, this.options.now(), this.options));
  }

  /** Answers `decide()`; where a rate is missing or stale, after asking the providers again. */
  private async fresh<T>(decide: () => T): Promise<T> {
    try {
      return decide();
    } catch (error) {
      // Missing or stale: ask the providers again, at most once every few seconds whatever the
      // number of requests (a down provider is not hammered), then decide again.
      if (!(error instanceof RateUnavailable) || !this.providers.some((p) => !p.fixed)) throw error;
      const now = this.options.now();
      if (now - this.lastOnDemandMs >= ON_DEMAND_MS) {
        this.lastOnDemandMs = now;
        await this.refresh();
      } else if (this.refreshing) {
        await this.refreshing;
      }
      return decide();
    }
  }

  /** Whether a coin may be offered now: not off its peg. */
  offered(coin: CoinSymbol): boolean {
    return coinOffered(this.book, coin, this.options.now(), this.options);
  }

  /** Each rate's age in seconds (fixed ones: 0), for /metrics. */
  ages(): Array<{ kind: 'fiat' | 'coin'; name: string; seconds: number; fixed: boolean }> {
    const now = this.options.now();
    return [
      ...Object.entries(this.book.fiat).map(([name, v]) => ({ kind: 'fiat' as const, name, seconds: v!.fixed ? 0 : (now - v!.atMs) / 1000, fixed: v!.fixed })),
      ...Object.entries(this.book.coins).map(([name, v]) => ({ kind: 'coin' as const, name, seconds: v!.fixed ? 0 : (now - v!.atMs) / 1000, fixed: v!.fixed })),
    ];
  }

  /** GET /readyz: every rate the providers give is fresh (fixed ones always are). */
  readiness(expected: { fiat: Currency[]; coins: CoinSymbol[] }): Check {
    const now = this.options.now();
    const stale: string[] = [];
    for (const currency of expected.fiat) {
      const v = this.book.fiat[currency];
      if (!v || (!v.fixed && now - v.atMs > this.options.maxAgeMs)) stale.push(currency);
    }
    for (const coin of expected.coins) {
      const v = this.book.coins[coin];
      if (v && !v.fixed && now - v.atMs > this.options.maxAgeMs) stale.push(coin);
    }
    return {
      name: 'rates',
      ok: stale.length === 0,
      detail: stale.length
        ? `stale or missing: ${stale.join(', ')} (at most ${Math.round(this.options.maxAgeMs / 1000)} s old)`
        : `fresh (at most ${Math.round(this.options.maxAgeMs / 1000)} s old)`,
    };
  }
}
