// Stands in for the `qrcode` encoder's segments module in the bundle. That module splits
// text into numeric, alphanumeric, kanji and byte runs and picks the shortest mix (with a
// graph search from `dijkstrajs`). qr.ts always passes one byte segment, so all the
// encoder needs is the package's own ByteData for it: ~2 KB gzipped less to download.
// vite.config.ts swaps the module in for the build only; unit tests run the full package,
// and an e2e test holds the bundle's symbol equal to the full encoder's.
// @ts-expect-error: an internal CommonJS module of qrcode, without types
import ByteData from 'qrcode/lib/core/byte-data.js';

export function fromArray(segments: Array<{ data: string; mode: 'byte' }>): unknown[] {
  return segments.map((segment) => {
    if (segment.mode !== 'byte') throw new Error('qrcode: only byte segments are bundled');
    return new ByteData(segment.data);
  });
}

function onlyBytes(): never {
  throw new Error('qrcode: only byte segments are bundled; pass [{ data, mode: "byte" }]');
}
export { onlyBytes as fromString, onlyBytes as rawSplit, onlyBytes as testNumeric, onlyBytes as testAlphanumeric, onlyBytes as testKanji };
