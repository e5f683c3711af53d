import { fileURLToPath } from 'node:url';
import type { Plugin } from 'vite';
import { defineConfig } from 'vitest/config';

// The browser bundle: one IIFE that assigns window.ServiceCheckout and does nothing else.
const unusedQrModes = fileURLToPath(new URL('src/payment/qr-unused-modes.ts', import.meta.url));

/** Only for the browser bundle: see src/payment/qr-unused-modes.ts. */
const byteOnlyQr: Plugin = {
  name: 'byte-only-qr',
  enforce: 'pre',
  resolveId(source, importer) {
    const inQrCore = importer?.includes('/qrcode/lib/core/');
    if (source === 'dijkstrajs' || (inQrCore && /^\.\/(kanji-data|numeric-data|alphanumeric-data)$/.test(source))) {
      return unusedQrModes;
    }
    return undefined;
  },
};

export default defineConfig({
  plugins: [byteOnlyQr],
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  define: { 'process.env.NODE_ENV': JSON.stringify('production') },
  publicDir: false,
  build: {
    target: 'es2022',
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: true,
    lib: {
      entry: 'src/global.ts',
      name: 'ServiceCheckout',
      formats: ['iife'],
      fileName: () => 'checkout.js',
    },
    rollupOptions: { output: { exports: 'default' } },
  },
  test: {
    environment: 'node', // DOM tests opt in with a @vitest-environment happy-dom comment
    include: ['test/**/*.test.{ts,tsx}'],
  },
});
