// Fiat to stablecoin, in integers only. Every stablecoin here is pegged 1:1 to the dollar.
import { ceilDiv, formatUnits, toUnits } from '../../contract/money.ts';
import { FIAT_DECIMALS, type Currency } from '../../contract/fields.ts';
import { FEE_PERCENT, FIAT_PER_USD } from './defaults.ts';

/** Amounts are quoted to at most 6 decimals: exact in base units, readable to a person. */
export const QUOTE_DECIMALS = 6;
const RATE_DECIMALS = 6;

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

/** `fiatMinor`: the price in the currency's minor units (cents), parsed once where it came in. */
export function quote(fiatMinor: bigint, currency: Currency, coinDecimals: number): Quote {
  const decimals = Math.min(QUOTE_DECIMALS, coinDecimals);
  const rate = toUnits(FIAT_PER_USD[currency], RATE_DECIMALS);
  if (rate === undefined) throw new RangeError(`no rate for ${currency}`);
  // coin = fiat / rate, with both scales carried in integers, rounded up for the customer
  const net = ceilDiv(fiatMinor * 10n ** BigInt(decimals + RATE_DECIMALS), rate * 10n ** BigInt(FIAT_DECIMALS));
  const fee = ceilDiv(net * FEE_PERCENT, 100n);
  return {
    due: net + fee,
    fee,
    decimals,
    fiatRate: FIAT_PER_USD[currency],
    cryptoRate: formatUnits((10n ** BigInt(8 + RATE_DECIMALS)) / rate, 8),
  };
}
