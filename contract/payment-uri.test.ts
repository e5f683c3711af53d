import { describe, expect, it } from 'vitest';
import { baseUnits, paymentUri, paymentUriOfUnits } from './payment-uri.ts';
import { decimalText, toUnits } from './money.ts';

const usdc = { contractAddress: '0x00000000000000000000000000000000000005dc', chainId: 11155111, decimals: 6 };
const usdt = { contractAddress: '0x0000000000000000000000000000000000005da7', chainId: 97, decimals: 18 };
const to = '0x3bac2d89ef49958c95e8db81ae904949c6ed8e51';

describe('the EIP-681 payment URI', () => {
  it('names the token, the chain, the recipient and the exact amount in base units', () => {
    expect(paymentUri(usdc, to, 24.745)).toBe(`ethereum:${usdc.contractAddress}@11155111/transfer?address=${to}&uint256=24745000`);
    expect(paymentUri(usdt, to, 0.000001)).toBe(`ethereum:${usdt.contractAddress}@97/transfer?address=${to}&uint256=1000000000000`);
  });

  it('is exact where floats are not: 0.1 + 0.2 worth of units is refused, 0.3 is exact', () => {
    expect(baseUnits(0.3, usdt)).toBe(300000000000000000n);
    expect(() => baseUnits(0.1 + 0.2, usdc)).toThrow(RangeError);
  });

  // Review of issue 21: with one base unit still due, the answer's amountRemaining is the JSON
  // number 1e-18; the checkout built its URI from it, refused the exponent form, and showed no QR.
  it('reads a tiny amount written with an exponent (1e-18: one base unit of an 18-decimal token) exactly, as the service built it', () => {
    expect(paymentUri(usdt, to, 1e-18)).toBe(paymentUriOfUnits(usdt, to, 1n));
    expect(paymentUri(usdt, to, 5.5e-7)).toBe(paymentUriOfUnits(usdt, to, 550_000_000_000n));
    expect(paymentUri(usdt, to, Number('0.000000123456789012'))).toBe(paymentUriOfUnits(usdt, to, 123_456_789_012n));
    expect(decimalText(1e-18)).toBe('0.000000000000000001');
    // Not representable at the coin's decimals: refused, never rounded.
    expect(toUnits(1e-7, 6)).toBeUndefined();
    // Zero stays zero at any decimals; a negative, NaN or 1e21 stays refused.
    expect(toUnits(0, 6)).toBe(0n);
    for (const bad of [-1e-7, -5, Number.NaN, 1e21, Number.NEGATIVE_INFINITY]) expect(decimalText(bad), String(bad)).toBeUndefined();
  });
});
