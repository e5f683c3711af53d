import { formatUnits, toUnits } from '../wire/money.ts';

export function fiat(amount: string | number, currency: string): string {
  // Number() here only feeds the display formatter; no arithmetic is done on it.
  return new Intl.NumberFormat(undefined, { style: 'currency', currency }).format(Number(amount));
}

export const coinAmount = (amount: number | string, symbol: string) => `${amount} ${symbol}`;

/** How much more than due arrived, exactly; undefined when nothing extra did. */
export function overpaid(paid: number, due: number, decimals: number): string | undefined {
  const extra = (toUnits(paid, decimals) ?? 0n) - (toUnits(due, decimals) ?? 0n);
  return extra > 0n ? formatUnits(extra, decimals) : undefined;
}

export function clock(ms: number): string {
  const seconds = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}
