// A rate provider for tests: rates set as decimal text, answers counted, failure on demand.
import type { CoinSymbol, Currency } from '../../contract/fields.ts';
import { rateUnits, type RateProvider, type RateSnapshot } from '../domain/rates.ts';

export class FakeRates implements RateProvider {
  readonly fixed = false;
  calls = 0;
  /** When set, every fetch fails with it. */
  failing: string | undefined;

  constructor(
    public fiat: Partial<Record<Currency, string>> = { EUR: '0.9', GBP: '0.8', AED: '3.6725', NGN: '1600' },
    public coins: Partial<Record<CoinSymbol, string>> = { USDT: '1', USDC: '1', DAI: '1', BUSD: '1' },
    readonly name = 'fake rates',
  ) {}

  async fetch(): Promise<RateSnapshot> {
    this.calls++;
    if (this.failing) throw new Error(this.failing);
    const convert = <K extends string>(table: Partial<Record<K, string>>) =>
      Object.fromEntries(Object.entries(table).map(([k, v]) => [k, rateUnits(v)!])) as Partial<Record<K, bigint>>;
    return { fiat: convert(this.fiat), coins: convert(this.coins) };
  }
}
