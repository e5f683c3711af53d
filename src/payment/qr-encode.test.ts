import { createRequire } from 'node:module';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeQr } from './qr-encode.ts';

// The `qrcode` package is the reference: every symbol ours makes must be the one it makes.
const { create } = createRequire(import.meta.url)('qrcode/lib/core/qrcode') as {
  create(data: Array<{ data: string; mode: 'byte' }>, options: { errorCorrectionLevel: 'M' }): {
    version: number;
    maskPattern: number;
    modules: { size: number; data: Uint8Array };
  };
};
const reference = (text: string) => create([{ data: text, mode: 'byte' }], { errorCorrectionLevel: 'M' });

function expectSame(text: string) {
  const ours = encodeQr(text);
  const theirs = reference(text).modules;
  expect(ours.size).toBe(theirs.size);
  expect(Array.from(ours.data).join('')).toBe(Array.from(theirs.data).join(''));
}

// Byte capacity at level M of each version, from the standard's table.
const CAPACITY_M = [
  14, 26, 42, 62, 84, 106, 122, 152, 180, 213, 251, 287, 331, 362, 412, 450, 504, 560, 624, 666, 711, 779, 857, 911,
  997, 1059, 1125, 1190, 1264, 1370, 1452, 1538, 1628, 1722, 1809, 1911, 1989, 2099, 2213, 2331,
];

describe('encodeQr', () => {
  it('draws the same symbol as the qrcode package for payment URIs of every chain', () => {
    for (const uri of [
      'ethereum:0xdAC17F958D2ee523a2206206994597C13D831ec7@1/transfer?address=0x8ba1f109551bD432803012645Ac136ddd64DBA72&uint256=1.0101e7',
      'tron:TQ4Ge2gkrS4p6D3ZFp1wKsrgbv5hxiAXeR?amount=10.1',
      'solana:7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV?amount=0.000001&spl-token=EPjFWt5h',
      'a',
    ]) {
      expectSame(uri);
    }
  });

  it('picks the smallest version at level M: the largest text each version holds, and one byte more', () => {
    CAPACITY_M.forEach((bytes, i) => {
      const fits = 'x'.repeat(bytes);
      expect(encodeQr(fits).size, `version ${i + 1}`).toBe(17 + 4 * (i + 1));
      if (i < 39) expect(encodeQr(fits + 'x').size, `version ${i + 2}`).toBe(17 + 4 * (i + 2));
    });
    expect(() => encodeQr('x'.repeat(CAPACITY_M[39]! + 1))).toThrow(RangeError);
  });

  it('matches the qrcode package at every version, with every mask chosen at least once', () => {
    const masks = new Set<number>();
    for (let version = 1; version <= 40; version++) {
      for (const fill of ['A', 'z7', 'é€', '\u0000\u00ff']) {
        const text = fill.repeat(Math.ceil(CAPACITY_M[version - 1]! / 3)).slice(0, Math.ceil(CAPACITY_M[version - 1]! / 3) + version);
        expectSame(text);
        masks.add(reference(text).maskPattern);
      }
    }
    expect([...masks].sort()).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });

  it('matches the qrcode package for 600 random texts, UTF-8 included', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 400 }).filter(Boolean), (text) => expectSame(text)),
      { numRuns: 600, seed: 20261122 },
    );
  });
});
