// Stands in for the `qrcode` encoder's segments module in the bundle. That module splits
// text into numeric, alphanumeric, kanji and byte runs and picks the shortest mix (with a
// graph search from `dijkstrajs`). qr.ts always passes one byte segment, so all the
// encoder needs is the package's own ByteData for it: ~2 KB gzipped less to download.
// vite.config.ts swaps the module in for the build only; unit tests run the full package,
// and an e2e test holds the bundle's symbol equal to the full encoder's. CommonJS, like the
// module it replaces, so the bundle needs no ESM-in-CommonJS glue for it.
const ByteData = require('qrcode/lib/core/byte-data.js');

exports.fromArray = function fromArray(segments) {
  return segments.map(function (segment) {
    if (segment.mode !== 'byte') throw new Error('qrcode: only byte segments are bundled');
    return new ByteData(segment.data);
  });
};

function onlyBytes() {
  throw new Error('qrcode: only byte segments are bundled; pass [{ data, mode: "byte" }]');
}
exports.fromString = onlyBytes;
exports.rawSplit = onlyBytes;
exports.testNumeric = onlyBytes;
exports.testAlphanumeric = onlyBytes;
exports.testKanji = onlyBytes;
