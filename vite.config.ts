import { fileURLToPath } from 'node:url';
import type { Plugin } from 'vite';
import { defineConfig } from 'vitest/config';

// The browser bundle: one IIFE that assigns window.ServiceCheckout and does nothing else.
const byteSegments = fileURLToPath(new URL('src/payment/qr-byte-segments.cjs', import.meta.url));

/**
 * The QR encoder with byte segments only (see src/payment/qr-byte-segments.cjs): its
 * segments module is replaced, and the mode regexes that only it used go with it.
 */
const byteOnlyQr: Plugin = {
  name: 'byte-only-qr',
  enforce: 'pre',
  resolveId(source, importer) {
    if (importer?.includes('/qrcode/lib/core/') && (source === './segments' || source === './regex')) return byteSegments;
    return undefined;
  },
};

/**
 * zod keeps its settings on globalThis.__zod_globalConfig, shared by every zod on the page.
 * In the bundle it gets a private object instead: the checkout adds no global beyond
 * ServiceCheckout, and a merchant's own zod settings (a locale, say) cannot reach ours.
 */
const privateZodConfig: Plugin = {
  name: 'private-zod-config',
  transform(code, id) {
    if (!id.includes('/zod/v4/core/core.js')) return undefined;
    const scoped = code.replaceAll('globalThis', 'zodScope');
    if (scoped === code) throw new Error('private-zod-config: zod no longer uses globalThis here; review this plugin');
    return { code: 'const zodScope = {};\n' + scoped, map: null };
  },
};

export default defineConfig({
  plugins: [byteOnlyQr, privateZodConfig],
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
    include: ['src/**/*.test.{ts,tsx}', 'demo/**/*.test.ts'],
    reporters: ['default', 'json'],
    outputFile: { json: 'reports/unit.json' },
  },
});
