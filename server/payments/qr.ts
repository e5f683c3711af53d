// A payment's QR code, drawn here rather than in the browser: the `qrcode` package (byte mode,
// level M, as wallets scan) makes the symbol, and it goes to the checkout as one SVG path, so
// the bundle carries no QR encoder (~1.8 KB gzipped of every page view).
import { createRequire } from 'node:module';

const { create } = createRequire(import.meta.url)('qrcode/lib/core/qrcode') as {
  create(data: Array<{ data: string; mode: 'byte' }>, options: { errorCorrectionLevel: 'M' }): { modules: { size: number; data: Uint8Array } };
};

export interface QrView {
  /** The text encoded: the payment's EIP-681 URI, which the checkout checks against its own. */
  uri: string;
  /** Modules per side, without the quiet zone. */
  size: number;
  /** Every dark module as an SVG path: one run of a row per sub-path ("M3 0h2v1h-2z"). */
  path: string;
}

export function qrView(uri: string): QrView {
  const { size, data } = create([{ data: uri, mode: 'byte' }], { errorCorrectionLevel: 'M' }).modules;
  let path = '';
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      if (!data[y * size + x]) continue;
      let run = 1;
      while (x + run < size && data[y * size + x + run]) run++;
      path += `M${x} ${y}h${run}v1h-${run}z`;
      x += run;
    }
  }
  return { uri, size, path };
}
