// The operator's fee on a payment: a rate in basis points, set per merchant and mode by
// the operator (FEE_BPS by default, 0 when unset; `npm run service -- merchant fee`), and who
// bears it. Integers only, no I/O.
//
// One formula splits what arrives, on chain (contracts/Deposit.sol: a deposit with a fee sends
// floor(amount * numerator / denominator) to the fee address, the rest to the payout) and in the
// journal (balance settlement), so the fee a payment's answer names is exactly what the
// operator receives:
// - `merchant` bears it: the customer pays the price; fee = floor(due * bps / 10000).
// - `customer` bears it: the customer pays the price plus bps of it, rounded UP at the quote's
//   precision; fee = floor(due * bps / (10000 + bps)), so the merchant receives at least the
//   price and the operator at most bps of it (rounding favours the merchant, never the operator).
export type FeeBearer = 'customer' | 'merchant';
export const FEE_BEARERS = ['customer', 'merchant'] as const;

export interface FeeTerms {
  /** Basis points: 100 is 1%. 0: no fee. */
  bps: number;
  bearer: FeeBearer;
}

/** The highest fee an operator may set: 10% (1000 basis points). */
export const MAX_FEE_BPS = 1000;
const BPS = 10_000n;

export const NO_FEE: FeeTerms = { bps: 0, bearer: 'customer' };

/** The fraction of what arrives that is the fee: numerator / denominator, as the deposit contract holds them (both fit its uint16). */
export function feeFraction(terms: FeeTerms): { numerator: number; denominator: number } {
  return { numerator: terms.bps, denominator: 10_000 + (terms.bearer === 'customer' ? terms.bps : 0) };
}

/** The operator's fee out of `amount` (base units) that arrived: rounded down, as the contract splits it. */
export function feeOf(amount: bigint, terms: FeeTerms): bigint {
  if (terms.bps <= 0 || amount <= 0n) return 0n;
  const { numerator, denominator } = feeFraction(terms);
  return (amount * BigInt(numerator)) / BigInt(denominator);
}

/** What the customer is asked for a price `net` (any unit): the price, or (the customer bears it) the price plus the fee, rounded up. */
export function dueFor(net: bigint, terms: FeeTerms): bigint {
  if (terms.bps <= 0 || terms.bearer === 'merchant') return net;
  return (net * (BPS + BigInt(terms.bps)) + BPS - 1n) / BPS;
}

export const isFeeBps = (v: unknown): v is number => Number.isInteger(v) && (v as number) >= 0 && (v as number) <= MAX_FEE_BPS;
export const isFeeBearer = (v: unknown): v is FeeBearer => (FEE_BEARERS as readonly unknown[]).includes(v);
