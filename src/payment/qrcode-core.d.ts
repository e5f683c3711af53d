// The encoder alone, without the package's canvas and terminal renderers.
declare module 'qrcode/lib/core/qrcode.js' {
  export function create(
    data: string | Array<{ data: string; mode: 'byte' | 'alphanumeric' | 'numeric' }>,
    options?: { errorCorrectionLevel?: 'L' | 'M' | 'Q' | 'H' },
  ): { modules: { size: number; data: Uint8Array } };
}
