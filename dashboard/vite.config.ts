// The dashboard's own build: one ES module (dashboard.js) and one style sheet (dashboard.css)
// in dist/dashboard/, which the service serves at /dashboard/assets/. Run after the widget's
// build (npm run build does), which empties dist/. The widget's bundle is not touched.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('..', import.meta.url));

export default defineConfig({
  root,
  // Classic JSX with h imported in each file, as the widget does.
  oxc: { jsx: { runtime: 'classic', pragma: 'h', pragmaFrag: 'Fragment' } },
  define: { 'process.env.NODE_ENV': JSON.stringify('production') },
  publicDir: false,
  build: {
    target: 'es2022',
    outDir: 'dist/dashboard',
    emptyOutDir: true,
    sourcemap: true,
    cssCodeSplit: false,
    rollupOptions: {
      input: fileURLToPath(new URL('main.tsx', import.meta.url)),
      output: {
        entryFileNames: 'dashboard.js',
        assetFileNames: (asset) => (asset.names?.some((n) => n.endsWith('.css')) ? 'dashboard.css' : '[name][extname]'),
      },
    },
  },
});
