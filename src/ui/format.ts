import { formatUnits, toUnits } from '../../contract/money.ts';
import { locale } from './text.ts';

// Formatters are kept: making one costs far more than using it (the page's first currency
// format loads ICU's tables, ~40 ms on a desktop and several times that on a phone).
const made = new Map<string, Intl.NumberFormat>();

/** A number written for the customer's locale; given as text, it is written exactly. */
const number = (amount: string | number, options: Intl.NumberFormatOptions) => {
  const key = locale + options.currency;
  made.has(key) || made.set(key, new Intl.NumberFormat(locale, options));
  return made.get(key)!.format(amount as number);
};

export const fiat = (amount: string | number, currency: string) => number(amount, { style: 'currency', currency });

/** Token amounts keep every decimal they have: the customer must send exactly this. */
export const coinAmount = (amount: number | string, symbol: string) => `${number(String(amount), { maximumFractionDigits: 18 })} ${symbol}`;

/** a − b, exactly, at the coin's decimals; undefined unless above 0 (what was overpaid, the price without the fee). */
export function minus(a: number, b: number, decimals: number): string | undefined {
  const rest = (toUnits(a, decimals) ?? 0n) - (toUnits(b, decimals) ?? 0n);
  return rest > 0n ? formatUnits(rest, decimals) : undefined;
}

export function clock(ms: number): string {
  const seconds = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}
