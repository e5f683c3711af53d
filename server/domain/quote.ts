// Fiat to stablecoin, in integers only, at the rate the quote was given (domain/rates.ts:
// units of the currency one coin is worth, from a provider or the operator's fixed table).
import { ceilDiv, formatUnits, toUnits } from '../../contract/money.ts';
import { FIAT_DECIMALS } from '../../contract/fields.ts';
import { dueFor, type FeeTerms } from './fees.ts';
import { RATE_DECIMALS } from './rates.ts';

/** Amounts are quoted to at most 6 decimals: exact in base units, readable to a person. */
export const QUOTE_DECIMALS = 6;

export interface Quote {
  /** Units at `decimals`: what the customer must send (a fee the customer bears included), rounded up. */
  due: bigint;
  /** Units at `decimals`: what the customer pays on top of the price (0 unless the customer bears a fee). */
  fee: bigint;
  decimals: number;
  /** Price of one coin in the fiat currency. */
  fiatRate: string;
  /** Coins one unit of the fiat currency buys, to 8 decimals. */
  cryptoRate: string;
}

/**
 * `fiatMinor`: the price in the currency's minor units (cents), parsed once where it came in.
 * `fiatPerCoin`: decimal text, units of the currency one coin is worth (at most 8 decimals).
 * `terms`: the operator's fee on the payment (domain/fees.ts); only one the customer bears changes the quote.
 */
export function quote(fiatMinor: bigint, fiatPerCoin: string, coinDecimals: number, terms: FeeTerms): Quote {
  const decimals = Math.min(QUOTE_DECIMALS, coinDecimals);
  const rate = toUnits(fiatPerCoin, RATE_DECIMALS);
  if (rate === undefined || rate <= 0n) throw new RangeError(`not a rate: ${fiatPerCoin}`);
  // coin = fiat / rate, with both scales carried in integers, rounded up for the customer
  const net = ceilDiv(fiatMinor * 10n ** BigInt(decimals + RATE_DECIMALS), rate * 10n ** BigInt(FIAT_DECIMALS));
  const due = dueFor(net, terms);
  return {
    due,
    fee: due - net,
    decimals,
    fiatRate: fiatPerCoin,
    cryptoRate: formatUnits(10n ** BigInt(8 + RATE_DECIMALS) / rate, 8),
  };
}
