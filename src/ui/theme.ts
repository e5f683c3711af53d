/** WCAG 2 relative luminance of a #rrggbb colour. */
export function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c > 0.04045 ? ((c + 0.055) / 1.055) ** 2.4 : c / 12.92;
  });
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}

/**
 * Text on the merchant's accent: black or white, whichever contrasts more. The worse of the
 * two best cases is 4.58:1, so any accent gets text at WCAG AA.
 */
export const textOn = (accent: string) => ((luminance(accent) + 0.05) ** 2 > 0.0525 ? '#000000' : '#ffffff');
