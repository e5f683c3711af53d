import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { luminance, textOn } from './theme.ts';

const contrast = (a: string, b: string) => {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi! + 0.05) / (lo! + 0.05);
};

describe('the accent colour', () => {
  it('knows black from white and the primaries from each other', () => {
    expect(luminance('#000000')).toBe(0);
    expect(luminance('#ffffff')).toBeCloseTo(1, 10);
    expect(contrast('#000000', '#FFFFFF')).toBeCloseTo(21, 10);
    expect(luminance('#00ff00')).toBeGreaterThan(luminance('#ff0000'));
  });

  it('gets black or white text at 4.5:1 or better, whatever the colour', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffffff }), (n) => {
        const accent = '#' + n.toString(16).padStart(6, '0');
        expect(contrast(accent, textOn(accent))).toBeGreaterThanOrEqual(4.5);
      }),
      { numRuns: 5000, seed: 4 },
    );
    expect(textOn('#2547d0')).toBe('#ffffff');
    expect(textOn('#ffd33d')).toBe('#000000');
  });
});
