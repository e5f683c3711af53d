// Exchange rates, as rules: what a quote may use and what makes a coin unsafe to offer. No I/O:
// rates come in from providers (server/rates/), are kept with where and when they came from,
// and every rule here takes the clock as an argument.
//
// A rate is integer units at RATE_DECIMALS: `fiat` is units of a currency one US dollar buys,
// `coins` is US dollars one stablecoin is worth (its peg is 1). Parsed once from decimal text,
// never multiplied as a float.
import { decimalText } from '../../contract/money.ts';
import type { CoinSymbol, Currency } from '../../contract/fields.ts';
import { CoinUnavailable, Unavailable } from './errors.ts';

export const RATE_DECIMALS = 8;
export const RATE_ONE = 10n ** BigInt(RATE_DECIMALS);

/** A rate and its provenance. `fixed`: the operator's table, never fetched; never stale. */
export interface RateValue {
  units: bigint;
  source: string;
  fixed: boolean;
  /** When it was fetched (for a fixed rate: when it was read). */
  atMs: number;
}

export interface RateBook {
  fiat: Partial<Record<Currency, RateValue>>;
  coins: Partial<Record<CoinSymbol, RateValue>>;
}

/** What one source of rates answers: units at RATE_DECIMALS per currency and per coin. */
export interface RateSnapshot {
  fiat: Partial<Record<Currency, bigint>>;
  coins: Partial<Record<CoinSymbol, bigint>>;
}

/**
 * A source of rates: an HTTP JSON service, the operator's fixed table, or a test's fake.
 * `fixed` rates are marked so in every quote made with them.
 */
export interface RateProvider {
  readonly name: string;
  readonly fixed: boolean;
  fetch(signal: AbortSignal): Promise<RateSnapshot>;
}

/** The rates a payment was quoted at, as it stores them: exact decimal text, source and time. */
export interface QuotedRates {
  /** Units of the currency one coin is worth: fiatPerUsd × usdPerCoin, rounded to RATE_DECIMALS. */
  fiatPerCoin: string;
  fiatPerUsd: string;
  usdPerCoin: string;
  /** Each provider's name that gave a part, e.g. "https://rates.example/latest (fiat) + fixed (coins)". */
  source: string;
  fixed: boolean;
  /** The oldest of the parts' times. */
  atMs: number;
}

/** No usable rate: the service cannot price in this currency or coin right now (503). */
export class RateUnavailable extends Unavailable {}

export interface RatePolicy {
  /** How old a fetched rate may be and still price a quote. */
  maxAgeMs: number;
  /** How far (basis points) a coin's dollar price may stray from 1 before it is offered as inactive. */
  maxDeviationBps: number;
}

/** Decimal text or a JSON number to units at RATE_DECIMALS, rounded half up; undefined unless positive and plain. */
export function rateUnits(raw: unknown): bigint | undefined {
  const text = decimalText(raw);
  if (text === undefined) return undefined;
  const [whole, fraction = ''] = text.split('.');
  const kept = BigInt(whole + fraction.slice(0, RATE_DECIMALS).padEnd(RATE_DECIMALS, '0'));
  const units = fraction.length > RATE_DECIMALS && fraction[RATE_DECIMALS] >= '5' ? kept + 1n : kept;
  return units > 0n ? units : undefined;
}

export const formatRate = (units: bigint): string => {
  const digits = units.toString().padStart(RATE_DECIMALS + 1, '0');
  const fraction = digits.slice(-RATE_DECIMALS).replace(/0+$/, '');
  return digits.slice(0, -RATE_DECIMALS) + (fraction ? '.' + fraction : '');
};

/** A value read out of a JSON answer by a dotted path ("rates.EUR", "tether.usd"). */
export function readPath(json: unknown, path: string): unknown {
  let at: unknown = json;
  for (const part of path.split('.')) {
    if (at === null || typeof at !== 'object' || !Object.hasOwn(at, part)) return undefined;
    at = (at as Record<string, unknown>)[part];
  }
  return at;
}

/** Where in a provider's JSON each rate is, and whether the answer is per-dollar (`fiat`) or per-unit (inverted). */
export interface ResponseMapping {
  fiat?: Partial<Record<Currency, string>>;
  coins?: Partial<Record<CoinSymbol, string>>;
  /** The answer gives dollars per unit of the currency (USD per EUR): inverted to units per dollar. */
  invertFiat?: boolean;
}

/** A provider's JSON, read through its mapping; each missing or unusable value named. */
export function snapshotFromJson(json: unknown, mapping: ResponseMapping): { snapshot: RateSnapshot; problems: string[] } {
  const snapshot: RateSnapshot = { fiat: {}, coins: {} };
  const problems: string[] = [];
  for (const [currency, path] of Object.entries(mapping.fiat ?? {}) as Array<[Currency, string]>) {
    const units = rateUnits(readPath(json, path));
    if (units === undefined) problems.push(`${currency}: no positive number at ${path}`);
    else snapshot.fiat[currency] = mapping.invertFiat ? (RATE_ONE * RATE_ONE + units / 2n) / units : units;
  }
  for (const [coin, path] of Object.entries(mapping.coins ?? {}) as Array<[CoinSymbol, string]>) {
    const units = rateUnits(readPath(json, path));
    if (units === undefined) problems.push(`${coin}: no positive number at ${path}`);
    else snapshot.coins[coin] = units;
  }
  return { snapshot, problems };
}

const USD: RateValue = { units: RATE_ONE, source: 'USD', fixed: true, atMs: 0 };

/** A rate fit to price a quote now, or why not (named). Fixed rates never age; USD is 1. */
function usable(value: RateValue | undefined, name: string, nowMs: number, policy: RatePolicy): RateValue {
  if (!value) throw new RateUnavailable(`No exchange rate for ${name}: the service cannot price in ${name} now. Try again later, or in another currency`);
  if (!value.fixed && nowMs - value.atMs > policy.maxAgeMs) {
    throw new RateUnavailable(
      `The exchange rate for ${name} is stale (fetched ${Math.round((nowMs - value.atMs) / 1000)} s ago from ${value.source}; at most ${Math.round(policy.maxAgeMs / 1000)} s): the service cannot price in ${name} now. Try again later`,
    );
  }
  return value;
}

/** How far a coin's price is from its peg, in basis points. */
export const deviationBps = (usdPerCoin: bigint): bigint => ((usdPerCoin > RATE_ONE ? usdPerCoin - RATE_ONE : RATE_ONE - usdPerCoin) * 10_000n) / RATE_ONE;

/**
 * Whether a coin may be offered: its price is known and fresh, and within the allowed deviation
 * from one dollar. A coin with no price source at all is taken at its peg (the rate says so).
 */
export function coinOffered(book: RateBook, coin: CoinSymbol, nowMs: number, policy: RatePolicy): boolean {
  const price = book.coins[coin];
  if (!price) return true;
  if (!price.fixed && nowMs - price.atMs > policy.maxAgeMs) return true; // unknown now: a quote refuses it by name
  return deviationBps(price.units) <= BigInt(policy.maxDeviationBps);
}

/**
 * What one `coin` is worth in US dollars (units at RATE_DECIMALS), to value money leaving a
 * balance against the daily withdrawal limit: its fresh or fixed rate, off its peg or not
 * (a coin that fell is worth less, one that rose more); a coin with no price source at its peg;
 * a stale rate refused by name, as a quote refuses it.
 */
export function usdPerCoin(book: RateBook, coin: CoinSymbol, nowMs: number, policy: RatePolicy): bigint {
  return book.coins[coin] ? usable(book.coins[coin], coin, nowMs, policy).units : RATE_ONE;
}

/**
 * The rates a quote in `currency` for `coin` uses, or a refusal naming what is missing, stale or
 * off its peg. A coin with no price source is taken at its peg, and its source says so.
 */
export function ratesForQuote(book: RateBook, currency: Currency, coin: CoinSymbol, nowMs: number, policy: RatePolicy): QuotedRates {
  const fiat = currency === 'USD' ? { ...USD, atMs: nowMs } : usable(book.fiat[currency], currency, nowMs, policy);
  const price = book.coins[coin] ? usable(book.coins[coin], coin, nowMs, policy) : { units: RATE_ONE, source: 'peg', fixed: true, atMs: nowMs };
  if (deviationBps(price.units) > BigInt(policy.maxDeviationBps)) {
    throw new CoinUnavailable(
      `${coin} is off its dollar peg (${formatRate(price.units)} USD from ${price.source}; at most ${policy.maxDeviationBps / 100}% away): it is not offered now. Pay with another coin`,
    );
  }
  const product = fiat.units * price.units;
  const fiatPerCoin = (product + RATE_ONE / 2n) / RATE_ONE;
  const sources =
    currency === 'USD' ? `${price.source} (${coin})` : fiat.source === price.source ? fiat.source : `${fiat.source} (${currency}) + ${price.source} (${coin})`;
  return {
    fiatPerCoin: formatRate(fiatPerCoin),
    fiatPerUsd: formatRate(fiat.units),
    usdPerCoin: formatRate(price.units),
    source: sources,
    fixed: fiat.fixed && price.fixed,
    atMs: Math.min(fiat.atMs, price.atMs),
  };
}
