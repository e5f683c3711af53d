import { encodeQr } from './qr-encode.ts';

export interface QrPath {
  /** Modules per side, without the quiet zone. */
  size: number;
  /** An SVG path drawing every dark module, one run of a row per sub-path. */
  d: string;
}

let last: { text: string; path: QrPath } | undefined;

/**
 * Encodes text as a QR symbol and draws it as one SVG path: no canvas, no image. The last
 * answer is kept, since the payment screen re-renders each second for its countdown.
 */
export function qrPath(text: string): QrPath {
  if (last?.text === text) return last.path;
  const { size, data } = encodeQr(text);
  let d = '';
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      if (!data[y * size + x]) continue;
      let run = 1;
      while (x + run < size && data[y * size + x + run]) run++;
      d += `M${x} ${y}h${run}v1h-${run}z`;
      x += run;
    }
  }
  last = { text, path: { size, d } };
  return last.path;
}
