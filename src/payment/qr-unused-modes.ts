// Stands in for the parts of the `qrcode` encoder that only serve text it must split into
// numeric, alphanumeric and kanji segments (and the optimiser that chooses between them).
// qr.ts always passes one byte segment, so none of them runs. vite.config.ts swaps them for
// this module in the bundle build (unit tests run the full package), and an e2e test holds
// the bundle's symbol equal to the full encoder's. Reaching here is a bug, so it says so.
function unused(): never {
  throw new Error('qrcode: only byte segments are bundled');
}
export { unused as default, unused as getBitsLength, unused as find_path };
