// The dashboard's own build: its entry (dashboard.js), a chunk per screen and per part screens
// share (chunk-<name>-<hash>.js: the frame's fetched by the entry, each screen's by the router
// as it needs it) and one style sheet (dashboard.css) in dist/dashboard/, which the service
// serves at /dashboard/assets/. Run after the widget's build (npm run build does), which
// empties dist/. The widget's bundle is not touched.
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';
import widget, { precompress } from '../vite.config.ts';

const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * The widget's build cuts from zod what its bundle carries yet never reaches (Standard Schema,
 * the throwing and async parses, encode, catchalls, members' lazies, long errors for mistakes
 * in a schema's own code) and keeps zod's settings off globalThis. All of it holds for the
 * dashboard, which only safeParses stripping objects, so the same plugins run here, on zod's
 * files alone: their cuts of Preact and of signals do not hold (hooks call setState; the
 * signals integration peeks). Missing one fails the build, so this is looked at again.
 */
const ZOD_CUTS = ['private-zod-config', 'short-zod-errors', 'unreachable-library-code'];
const zodCuts: Plugin[] = ((widget.plugins ?? []) as Plugin[])
  .filter((plugin) => ZOD_CUTS.includes(plugin.name))
  .map((plugin) => ({
    ...plugin,
    name: `dashboard-${plugin.name}`,
    transform(code: string, id: string) {
      const transform = plugin.transform as (this: unknown, code: string, id: string) => unknown;
      return id.includes('/node_modules/zod/') ? transform.call(this, code, id) : undefined;
    },
  })) as Plugin[];
if (zodCuts.length !== ZOD_CUTS.length)
  throw new Error(`dashboard/vite.config.ts: the widget's build no longer has the plugins ${ZOD_CUTS.join(', ')}; review this`);

/**
 * Vite wraps each import() in a helper that preloads the imported chunk's own imports (and CSS):
 * 900 bytes of the first load for a preload that modulePreload: false turns off anyway. Here it
 * only imports.
 */
const noPreload: Plugin = {
  name: 'dashboard-no-preload-helper',
  enforce: 'pre',
  load(id) {
    return id === '\0vite/preload-helper.js' ? 'export const __vitePreload = (load) => load();' : undefined;
  },
};

export default defineConfig({
  root,
  plugins: [...zodCuts, noPreload, precompress],
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
    // No preload helper in the entry (its bytes count in the first load): a screen's chunk
    // imports what it shares with others itself.
    modulePreload: false,
    rollupOptions: {
      input: fileURLToPath(new URL('main.tsx', import.meta.url)),
      output: {
        entryFileNames: 'dashboard.js',
        // The name carries the content's hash, so the service caches each chunk for good.
        chunkFileNames: 'chunk-[name]-[hash].js',
        // Vite wraps each import() in its preload helper, which it puts in the entry; a chunk
        // would then import the entry by its plain name, a second copy beside the page's hashed
        // one. In the chunk of what is shared, no chunk imports the entry.
        manualChunks: (id) => (id.includes('vite/preload-helper') ? 'shared' : undefined),
        assetFileNames: (asset) => (asset.names?.some((n) => n.endsWith('.css')) ? 'dashboard.css' : '[name][extname]'),
      },
    },
  },
});
