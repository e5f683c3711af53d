// Money never goes through binary floats here: amounts are parsed from their decimal
// text into integer units (fiat minor units, token base units) and formatted back.

const DECIMAL = /^(\d{1,18})(?:\.(\d+))?$/;

/** The canonical decimal text of a wire amount, or undefined when it is not a plain decimal. */
export function decimalText(value: unknown): string | undefined {
  if (typeof value === 'number') {
    // String() of a double gives its shortest round-trip form. One under 1e-6 would print as
    // 1e-7: it is written out to 18 places instead, exact at 18 decimals (one base unit of an
    // 18-decimal token still due). A large one (1e+21), NaN or a negative is refused below.
    value = value && value < 1e-6 ? value.toFixed(18) : String(value);
  }
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  return DECIMAL.test(text) ? text : undefined;
}

/** How many digits stand after the decimal point of a plain decimal text. */
export function fractionDigits(text: string): number {
  const dot = text.indexOf('.');
  return dot < 0 ? 0 : text.length - dot - 1;
}

/** Parses a decimal amount to integer units; undefined when it is not exact at `decimals`. */
export function toUnits(value: unknown, decimals: number): bigint | undefined {
  const text = decimalText(value);
  if (text === undefined || fractionDigits(text) > decimals) return undefined;
  const [whole, fraction = ''] = text.split('.');
  return BigInt(whole + fraction.padEnd(decimals, '0'));
}

/** Formats integer units as a decimal text, trimming trailing zeros past `minFraction`. */
export function formatUnits(units: bigint, decimals: number, minFraction = 0): string {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals);
  let fraction = digits.slice(digits.length - decimals);
  while (fraction.length > minFraction && fraction.endsWith('0')) fraction = fraction.slice(0, -1);
  return (negative ? '-' : '') + whole + (fraction ? '.' + fraction : '');
}

/** The wire form of an amount: a JSON number whose shortest text is exactly the units. */
export function unitsToNumber(units: bigint, decimals: number): number {
  return Number(formatUnits(units, decimals));
}

/** Integer division rounded up, for amounts asked of a customer. */
export function ceilDiv(numerator: bigint, denominator: bigint): bigint {
  return (numerator + denominator - 1n) / denominator;
}
