import { describe, expect, it } from 'vitest';
import { quote } from '../server/domain/quote.ts';
import { FIAT_PER_USD } from '../server/domain/defaults.ts';
import { ceilDiv, decimalText, formatUnits, toUnits, unitsToNumber } from './money.ts';

describe('money as integers', () => {
  it.each([
    ['24.50', 2, 2450n],
    [24.5, 2, 2450n],
    ['0.1', 2, 10n],
    [0.1, 18, 100000000000000000n],
    ['100000000', 2, 10000000000n],
    [' 7 ', 2, 700n],
  ])('%j at %i decimals is %s units', (value, decimals, units) => {
    expect(toUnits(value, decimals)).toBe(units);
  });

  it.each([
    ['1.005', 2],
    [0.1 + 0.2, 2],
    ['1e3', 2],
    ['-1', 2],
    ['', 2],
    ['0x10', 2],
    [Number.NaN, 2],
    ['1.', 2],
    ['.5', 2],
  ])('refuses %j at %i decimals rather than rounding it', (value, decimals) => {
    expect(toUnits(value, decimals)).toBeUndefined();
  });

  it('formats units back to the shortest exact decimal', () => {
    expect(formatUnits(2450n, 2)).toBe('24.5');
    expect(formatUnits(2450n, 2, 2)).toBe('24.50');
    expect(formatUnits(5n, 6)).toBe('0.000005');
    expect(formatUnits(0n, 6)).toBe('0');
    expect(formatUnits(123456789012345678901n, 18)).toBe('123.456789012345678901');
  });

  it('round-trips every 6-decimal amount up to the largest quote through a JSON number', () => {
    for (const units of [1n, 999999n, 101000000000000n, 123456789012345n]) {
      const wire = JSON.parse(JSON.stringify(unitsToNumber(units, 6)));
      expect(toUnits(wire, 6)).toBe(units);
    }
  });

  it('rounds division up, never down', () => {
    expect(ceilDiv(10n, 3n)).toBe(4n);
    expect(ceilDiv(9n, 3n)).toBe(3n);
    expect(ceilDiv(0n, 3n)).toBe(0n);
  });

  it('reads numbers and numeric text, and nothing else', () => {
    expect(decimalText(25)).toBe('25');
    expect(decimalText('25.50')).toBe('25.50');
    expect(decimalText(true)).toBeUndefined();
    expect(decimalText(1e21)).toBeUndefined();
  });
});

// At the built-in fixed table's rates (server/domain/defaults.ts), as a quote without RATES_FILE uses them.
describe('the stub quote', () => {
  const none = { bps: 0, bearer: 'customer' } as const;
  it('converts fiat to the coin, rounded up at 6 decimals; no fee unless the operator sets one', () => {
    // 10000.50 NGN / 1550 = 6.451935483… → 6.451936
    const q = quote(toUnits('10000.50', 2)!, FIAT_PER_USD.NGN, 6, none);
    expect(formatUnits(q.due, q.decimals)).toBe('6.451936');
    expect(q.fee).toBe(0n);
    expect(q.fiatRate).toBe('1550');
    expect(q.cryptoRate).toBe('0.00064516');
  });

  it('adds a fee the customer bears, rounded up; a fee the merchant bears leaves the price as it is', () => {
    // 6.451936 * 1.01 = 6.51645536 → 6.516456, of which 0.06452 is the fee on top
    const q = quote(toUnits('10000.50', 2)!, FIAT_PER_USD.NGN, 6, { bps: 100, bearer: 'customer' });
    expect(formatUnits(q.due, q.decimals)).toBe('6.516456');
    expect(formatUnits(q.fee, q.decimals)).toBe('0.06452');
    expect(quote(toUnits(24.5, 2)!, FIAT_PER_USD.USD, 18, { bps: 100, bearer: 'merchant' })).toMatchObject({ due: 24_500_000n, fee: 0n });
  });

  it('quotes a dollar amount one to one, plus a fee the customer bears', () => {
    expect(formatUnits(quote(toUnits(24.5, 2)!, FIAT_PER_USD.USD, 18, none).due, 6)).toBe('24.5');
    const q = quote(toUnits(24.5, 2)!, FIAT_PER_USD.USD, 18, { bps: 100, bearer: 'customer' });
    expect(formatUnits(q.due, q.decimals)).toBe('24.745');
    expect(q.decimals).toBe(6);
  });

  it('never asks less than the amount is worth', () => {
    for (const [amount, currency] of [
      ['0.01', 'AED'],
      ['1', 'GBP'],
      ['99999999.99', 'EUR'],
      ['3.33', 'NGN'],
    ] as const) {
      const q = quote(toUnits(amount, 2)!, FIAT_PER_USD[currency], 6, { bps: 250, bearer: 'customer' });
      const rate = { AED: 3.6725, GBP: 0.79, EUR: 0.92, NGN: 1550 }[currency];
      // Checked with floats on purpose, as an independent, approximate witness.
      expect(Number(formatUnits(q.due - q.fee, 6))).toBeGreaterThanOrEqual(Number(amount) / rate - 1e-9);
    }
  });
});
