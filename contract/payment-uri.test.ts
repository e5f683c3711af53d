import { describe, expect, it } from 'vitest';
import { baseUnits, paymentUri } from './payment-uri.ts';

const usdc = { contractAddress: '0x00000000000000000000000000000000000005dc', chainId: 11155111, decimals: 6 };
const usdt = { contractAddress: '0x0000000000000000000000000000000000005da7', chainId: 97, decimals: 18 };
const to = '0x3bac2d89ef49958c95e8db81ae904949c6ed8e51';

describe('the EIP-681 payment URI', () => {
  it('names the token, the chain, the recipient and the exact amount in base units', () => {
    expect(paymentUri(usdc, to, 24.745)).toBe(
      `ethereum:${usdc.contractAddress}@11155111/transfer?address=${to}&uint256=24745000`,
    );
    expect(paymentUri(usdt, to, 0.000001)).toBe(
      `ethereum:${usdt.contractAddress}@97/transfer?address=${to}&uint256=1000000000000`,
    );
  });

  it('is exact where floats are not: 0.1 + 0.2 worth of units is refused, 0.3 is exact', () => {
    expect(baseUnits(0.3, usdt)).toBe(300000000000000000n);
    expect(() => baseUnits(0.1 + 0.2, usdc)).toThrow(RangeError);
  });
});
