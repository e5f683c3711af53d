import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { Plugin } from 'vite';
import { defineConfig } from 'vitest/config';
import { LongestFirst } from './.ci/longest-first.ts';
import { LOCALES } from './src/ui/locales/index.ts';

// The browser bundle: one IIFE that assigns window.ServiceCheckout and does nothing else.

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

/**
 * zod's errors for mistakes in a schema's own code (an async check in a sync parse, a shape
 * key that is no schema, a schema used before it is made, a schema given both a message and
 * an error) never reach a customer: our schemas have none of them, and the tests parse every
 * one. In the bundle they say the same in fewer words (bytes every customer downloads; issue
 * 26 needed them). A zod that words them otherwise fails the build, so this is looked at again.
 */
const shortZodErrors: Plugin = {
  name: 'short-zod-errors',
  transform(code, id) {
    const words: Record<string, [string, string]> = {
      '/zod/v4/core/core.js': ['`Encountered Promise during synchronous parse. Use .parseAsync() instead.`', '"zod: async in parse"'],
      '/zod/v4/core/schemas.js': ['`Invalid element at key "${String(k)}": expected a Zod schema`', '"zod: not a schema: " + String(k)'],
      '/zod/v4/mini/schemas.js': ['"Uninitialized schema in ZodMiniType."', '"zod: uninitialized"'],
      '/zod/v4/core/util.js': ['"Cannot specify both `message` and `error` params"', '"zod: message and error"'],
    };
    const file = Object.keys(words).find((end) => id.endsWith(end));
    if (!file) return undefined;
    const [long, short] = words[file]!;
    if (!code.includes(long)) throw new Error(`short-zod-errors: ${file} no longer has ${long}; review this plugin`);
    return { code: code.replace(long, short), map: null };
  },
};

/**
 * Code in a library that the bundle carries yet no bundled code can reach: methods on
 * prototypes and branches for features the checkout never uses, which no minifier can prove
 * unused. None of these objects leaves the bundle (it exports ServiceCheckout alone, whose
 * handle is a plain object), so cutting them changes nothing a page can see. Each cut is
 * exact text: a library that writes it otherwise fails the build, so this is looked at again.
 */
const unreachableLibraryCode: Plugin = {
  name: 'unreachable-library-code',
  apply: 'build',
  transform(code, id) {
    // A cut is a pattern, or exact text (a string), and what it becomes (nothing, unless given).
    const cuts: Record<string, (RegExp | string | [RegExp | string, string])[]> = {
      // The checkout's zod schemas are only safeParsed, checked and cloned.
      '/zod/v4/core/schemas.js': [
        // Standard Schema's ~standard, with its async validate.
        /\n {4}\/\/ Wrappers extend this[^\n]*\n {4}get "~standard"\(\) \{\n[^\n]*\n {4}\},\n {4}set "~standard"\(value\) \{\n[^\n]*\n {4}\},/,
        // What a discriminated union, an enum or a template literal reads of its members:
        // the bundle has none, so nothing asks an object its propValues or an optional its values or pattern.
        /\n {4}util\.defineLazyInternal\(inst, "propValues", \(zod\) => \{\n {8}const shape = zod\.def\.shape;\n[\s\S]*?\n {8}return propValues;\n {4}\}\);/,
        /\n {4}util\.defineLazyInternal\(inst, "values", \(zod\) => \{\n {8}const values = zod\.def\.innerType\._zod\.values;\n {8}return values \? new Set\(\[\.\.\.values, undefined\]\) : undefined;\n {4}\}\);\n {4}util\.defineLazyInternal\(inst, "pattern", \(zod\) => \{\n {8}const pattern = zod\.def\.innerType\._zod\.pattern;\n[^\n]*\n {4}\}\);/,
        // A codec's backward direction (z.encode) and the skipChecks pass it makes: the bundle only decodes.
        [
          /\n {12}if \(ctx\.skipChecks\) \{\n {16}return inst\._zod\.parse\(payload, ctx\);\n {12}\}\n {12}if \(ctx\.direction === "backward"\) \{\n[\s\S]*?\n {12}\}\n(?= {12}\/\/ forward\n)/,
          '\n',
        ],
        // Unknown keys against a catchall (z.strictObject, z.looseObject): the bundle's objects
        // all strip, so the catchall walk goes; one that had a catchall would throw, not pass.
        [
          /return handleCatchall\(proms, input, payload, ctx, _normalized\.value, inst, abortEarly === true\);/,
          'throw new Error("zod: no catchall in the bundle");',
        ],
      ],
      // Read by the throwing parses alone, now cut; marked pure so the minifier drops the
      // read of Error.captureStackTrace that it must otherwise keep.
      '/zod/v4/core/util.js': [
        [
          /export const captureStackTrace = \("captureStackTrace" in Error \? Error\.captureStackTrace : \(\.\.\._args\) => \{ \}\);/,
          'export const captureStackTrace = /* @__PURE__ */ (() => "captureStackTrace" in Error ? Error.captureStackTrace : (..._args) => { })();',
        ],
      ],
      // A ZodError's own toString: the bundle reads a failed parse's issues, never prints the error.
      '/zod/v4/core/errors.js': [
        /\n {4}\/\* `toString` lives as a non-enumerable lazy getter[\s\S]*?\n {4}if \(!_installedToString\.has\(proto\)\) \{\n[\s\S]*?\n {8}\}\);\n {4}\}\n(?=\};\n)/,
      ],
      // The throwing and the async parses, with, brand, register, apply.
      '/zod/v4/mini/schemas.js': [
        /\n {4}\/\/ `with` is an alias[^\n]*\n {4}get with\(\) \{\n[^\n]*\n {4}\},\n {4}set with\(value\) \{\n[^\n]*\n {4}\},/,
        /\n {4}parse\(data, params\) \{\n[^\n]*\n {4}\},/,
        /\n {4}parseAsync\(data, params\) \{\n[^\n]*\n {4}\},/,
        /\n {4}safeParseAsync\(data, params\) \{\n[^\n]*\n {4}\},/,
        /\n {4}brand\(\) \{\n {8}return this;\n {4}\},\n {4}register\(reg, meta\) \{\n[^\n]*\n[^\n]*\n {4}\},\n {4}apply\(fn, \.\.\.args\) \{\n[^\n]*\n {4}\},/,
      ],
      // The checkout's signals are read (.value) and written, never subscribed, peeked or
      // serialized. valueOf and toString stay: a template string could call them unseen.
      '/@preact/signals-core/dist/signals-core.module.js': [
        /l\.prototype\.subscribe=function\(i\)\{var t=this;return x\(function\(\)\{var r=t\.value;f\(function\(\)\{return i\(r\)\}\)\},\{name:"sub"\}\)\};/,
        /l\.prototype\.toJSON=function\(\)\{return this\.value\};/,
        /l\.prototype\.peek=function\(\)\{var i=this;return f\(function\(\)\{return i\.value\}\)\};/,
      ],
      // The checkout has function components only and re-renders by render() from an effect:
      // nothing calls a component's setState or forceUpdate (a class with
      // getDerivedStateFromError would, and there is none).
      '/preact/dist/preact.module.js': [
        /C\.prototype\.setState=function\(n,l\)\{[^;]*;[^;]*A\(this\)\)\},C\.prototype\.forceUpdate=function\(n\)\{this\.__v&&\(this\.__e=!0,n&&this\.__h\.push\(n\),A\(this\)\)\},/,
        // So a component is never a class (M, "has a render method", is false) and no
        // component has lifecycle methods, a child context or an error boundary: the diff's
        // branches for them go (issue 40 needed the bytes), and an error thrown while
        // rendering is thrown on, as it was when no boundary caught it.
        'M&&null==p.__s&&(p.__s=p.state),M&&null!=F.getDerivedStateFromProps&&(p.__s==p.state&&(p.__s=m({},p.__s)),m(p.__s,F.getDerivedStateFromProps(x,p.__s))),',
        'M&&null==F.getDerivedStateFromProps&&null!=p.componentWillMount&&p.componentWillMount(),M&&null!=p.componentDidMount&&p.__h.push(p.componentDidMount)',
        'M&&null==F.getDerivedStateFromProps&&x!==y&&null!=p.componentWillReceiveProps&&p.componentWillReceiveProps(x,P),',
        '||!p.__e&&null!=p.shouldComponentUpdate&&!1===p.shouldComponentUpdate(x,p.__s,P)',
        'null!=p.componentWillUpdate&&p.componentWillUpdate(x,p.__s,P),M&&null!=p.componentDidUpdate&&p.__h.push(function(){p.componentDidUpdate(y,d,_)})',
        'p.state=p.__s,p.__d=!1,A&&A(u),s=p.render(p.props,p.state,p.context),w.push.apply(p.__h,p._sb),p._sb=[]',
        'null!=p.getChildContext&&(i=m(m({},i),p.getChildContext())),M&&!v&&null!=p.getSnapshotBeforeUpdate&&(_=p.getSnapshotBeforeUpdate(y,d)),',
        'if(i.componentWillUnmount)try{i.componentWillUnmount()}catch(n){l.__e(n,u)}',
        [
          '__e:function(n,l,u,t){for(var i,r,o;l=l.__;)if((i=l.__c)&&!i.__)try{if((r=i.constructor)&&null!=r.getDerivedStateFromError&&(i.setState(r.getDerivedStateFromError(n)),o=i.__d),null!=i.componentDidCatch&&(i.componentDidCatch(n,t||{}),o=i.__d),o)return i.__E=i}catch(l){n=l}throw n}',
          '__e:function(n){throw n}',
        ],
      ],
    };
    const file = Object.keys(cuts).find((end) => id.endsWith(end));
    if (!file) return undefined;
    let cut = code;
    for (const part of cuts[file]!) {
      const [pattern, instead] = Array.isArray(part) ? part : [part, ''];
      if (typeof pattern === 'string' ? !cut.includes(pattern) : !pattern.test(cut)) {
        throw new Error(`unreachable-library-code: ${file} no longer matches ${pattern}; review this plugin`);
      }
      cut = cut.replace(pattern, instead);
    }
    return { code: cut, map: null };
  },
};

/**
 * Types for the script-tag build, beside it as dist/checkout.d.ts: `import
 * 'service-checkout/checkout.js'` gets the one global it adds, typed from the package.
 */
const scriptTagTypes: Plugin = {
  name: 'script-tag-types',
  generateBundle() {
    this.emitFile({
      type: 'asset',
      fileName: 'checkout.d.ts',
      source: [
        '// Types for the script-tag build (service-checkout/checkout.js): it adds one global.',
        "import type { ServiceCheckout as ServiceCheckoutFunction } from '../build/src/index.js';",
        '',
        'declare global {',
        '  var ServiceCheckout: typeof ServiceCheckoutFunction;',
        '}',
        '',
        'export {};',
        '',
      ].join('\n'),
    });
  },
};

/**
 * The checkout's words in each language beside English, as dist/locales/<lang>.json: the
 * service serves them as built files (like checkout.js), so it never imports the widget.
 */
const localeFiles: Plugin = {
  name: 'locale-files',
  generateBundle() {
    for (const [lang, words] of Object.entries(LOCALES)) {
      this.emitFile({ type: 'asset', fileName: `locales/${lang}.json`, source: JSON.stringify(words) });
    }
  },
};

/**
 * Each built script, style and locale also as .br (quality 11) and .gz (level 9, the budget's
 * measure) beside it: the service sends the one the browser takes and never compresses per
 * request (issue 39: checkout.js went over the wire at 59,725 bytes instead of ~21,000).
 */
export const precompress: Plugin = {
  name: 'precompress',
  apply: 'build',
  writeBundle(options) {
    const walk = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]));
    for (const path of walk(options.dir!)) {
      if (!/\.(js|css|json)$/.test(path) || path.endsWith('package.json')) continue;
      const bytes = readFileSync(path);
      writeFileSync(path + '.gz', gzipSync(bytes, { level: 9 }));
      writeFileSync(
        path + '.br',
        brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } }),
      );
    }
  },
};

export default defineConfig({
  plugins: [privateZodConfig, shortZodErrors, unreachableLibraryCode, scriptTagTypes, localeFiles, precompress],
  // Classic JSX (h, imported in each component): preact's automatic runtime (jsx-runtime)
  // measured 389 bytes more of the gzipped bundle for the same markup.
  oxc: { jsx: { runtime: 'classic', pragma: 'h', pragmaFrag: 'Fragment' } },
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
    rollupOptions: {
      output: {
        exports: 'default',
        // Preact's private fields (__k, __e, __v, ...: its own mangled names, read by nothing
        // outside the bundle) become one letter each; oxc picks letters no other property in
        // the bundle uses. Public double-underscore names are kept. Saved 28 bytes gzipped.
        minify: {
          compress: true,
          mangle: true,
          mangleProps: { include: /^__[a-zA-Z]+$/, reserved: ['__html', '__proto__', '__self', '__source'] },
        },
        // V8's compile hint (recent Chromium): compile every function while the script streams in,
        // off the main thread, instead of lazily on the customer's first open. Measured by
        // npm run bench -- --cold at 4x CPU: first open 202 -> 130-152 ms, for 21 bytes.
        // Other engines read a comment.
        postBanner: '//# allFunctionsCalledOnLoad',
      },
    },
  },
  test: {
    environment: 'node', // DOM tests opt in with a @vitest-environment happy-dom comment
    globalSetup: ['server/testing/global-setup.ts'],
    // The service's files share their worker's imports (isolate: false): each file used to
    // import viem, PGlite and the service anew, about a third of a file's time. On 20 service
    // files, in one run: 104 s isolated, 57 s shared (0.54). The widget's files (happy-dom, a
    // vi.mock) keep a fresh module graph each; they import little. See docs/performance.md.
    projects: [
      {
        extends: true,
        test: {
          name: 'service',
          isolate: false,
          setupFiles: ['server/testing/setup.ts'],
          include: ['server/**/*.test.ts', 'contracts/**/*.test.ts', 'devchain/**/*.test.ts', 'demo/**/*.test.ts', 'contract/**/*.test.ts', 'sdk/**/*.test.ts'],
        },
      },
      { extends: true, test: { name: 'widget', include: ['src/**/*.test.{ts,tsx}'] } },
    ],
    // Three test files at once on two cores (vitest's default there is one): most of a file's
    // time is spent waiting on anvil's blocks, a spawned service or PostgreSQL, not on this CPU.
    // Sampled on CI's kind of machine, the whole unit run, one run each: two workers kept 1.45
    // cores busy (551 s), three keep 1.68 (440 s, 0.80). TEST_WORKERS sets another count.
    // See docs/performance.md ("The test run").
    maxWorkers: Number(process.env.TEST_WORKERS ?? 0) || availableParallelism() + 1,
    // The longest files first, from a committed list of a CI run's times (.ci/longest-first.ts).
    sequence: { sequencer: LongestFirst },
    // A test's time limit finds a hang; it is no speed check (the bench scripts are). Two
    // files at once on two cores made vitest's 5 s too short for tests that start a service or
    // write a thousand rows, so 30 s (a hook, which may start anvil or PostgreSQL: 60 s).
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default', 'json'],
    outputFile: { json: 'reports/unit.json' },
  },
});
