// Fiat to stablecoin, in integers only, at the rate the quote was given (domain/rates.ts:
// units of the currency one coin is worth, from a provider or the operator's fixed table).
import { ceilDiv, formatUnits, toUnits } from '../../contract/money.ts';
import { FIAT_DECIMALS } from '../../contract/fields.ts';
import { FEE_PERCENT } from './defaults.ts';
import { RATE_DECIMALS } from './rates.ts';

/** Amounts are quoted to at most 6 decimals: exact in base units, readable to a person. */
export const QUOTE_DECIMALS = 6;

export interface Quote {
  /** Units at `decimals`: what the customer must send, fee included, rounded up. */
  due: bigint;
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
 */
export function quote(fiatMinor: bigint, fiatPerCoin: string, coinDecimals: number): Quote {
  const decimals = Math.min(QUOTE_DECIMALS, coinDecimals);
  const rate = toUnits(fiatPerCoin, RATE_DECIMALS);
  if (rate === undefined || rate <= 0n) throw new RangeError(`not a rate: ${fiatPerCoin}`);
  // coin = fiat / rate, with both scales carried in integers, rounded up for the customer
  const net = ceilDiv(fiatMinor * 10n ** BigInt(decimals + RATE_DECIMALS), rate * 10n ** BigInt(FIAT_DECIMALS));
  const fee = ceilDiv(net * FEE_PERCENT, 100n);
  return {
    due: net + fee,
    fee,
    decimals,
    fiatRate: fiatPerCoin,
    cryptoRate: formatUnits((10n ** BigInt(8 + RATE_DECIMALS)) / rate, 8),
  };
}
