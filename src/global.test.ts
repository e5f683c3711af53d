// @vitest-environment happy-dom
// The script-tag entry's preparation for the first open: loading checkout.js only
// asks for idle time; ICU's number tables are loaded by a worker (ICU keeps them for the
// whole renderer process, so the page's own first format is then cheap), and only where the
// worker is refused are they loaded on the page's thread, a piece per idle callback.
// How long each piece takes is measured by npm run bench (merchant-page rows), not here.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

/** What a worker would be given: its URL, and the handler the page set for its error event. */
interface FakeWorker {
  url: string;
  onerror: (() => void) | null;
}

let idle: Array<() => void>;
let workers: FakeWorker[];
let refuse: Error | undefined;

/** Intl on the page's thread, watched: which locales were formatted for, whether likely subtags were loaded. */
function watchIntl() {
  const formatted: string[] = [];
  const RealNumberFormat = Intl.NumberFormat;
  // biome-ignore lint/complexity/useArrowFunction: called with `new`, which an arrow function refuses
  vi.spyOn(Intl, 'NumberFormat').mockImplementation(function (locale?: string | string[], options?: Intl.NumberFormatOptions) {
    formatted.push(String(locale));
    return new RealNumberFormat(locale, options);
  } as unknown as typeof Intl.NumberFormat);
  const maximized = vi.spyOn(Intl.Locale.prototype, 'maximize');
  return { formatted, maximized };
}

/** Runs the idle callbacks asked for so far, and any they ask for in turn. */
function runIdle() {
  while (idle.length) idle.shift()!();
}

/** The worker's code, run with the Intl and close() given: the locales it formats for. */
function runWorker(worker: FakeWorker): { locales: unknown[]; closed: boolean } {
  expect(worker.url.startsWith('data:text/javascript,')).toBe(true);
  const code = decodeURIComponent(worker.url.slice('data:text/javascript,'.length));
  const locales: unknown[] = [];
  let closed = false;
  const fakeIntl = {
    // biome-ignore lint/complexity/useArrowFunction lint/correctness/noComponentHookFactories: a stand-in constructor called with `new`, no component
    NumberFormat: function (locale: unknown) {
      locales.push(locale);
      return { format: () => '' };
    },
  };
  new Function('Intl', 'close', code)(fakeIntl, () => (closed = true));
  return { locales, closed };
}

beforeEach(() => {
  vi.resetModules();
  idle = [];
  workers = [];
  refuse = undefined;
  vi.stubGlobal('requestIdleCallback', (callback: () => void) => idle.push(callback));
  vi.stubGlobal(
    'Worker',
    class {
      url: string;
      onerror: (() => void) | null = null;
      constructor(url: string) {
        if (refuse) throw refuse;
        this.url = url;
        workers.push(this);
      }
    },
  );
});

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  document.documentElement.lang = '';
});

describe('checkout.js on a page view', () => {
  it('does nothing as it loads but ask for idle time; the worker it then starts formats in the page language and English, and closes', async () => {
    document.documentElement.lang = 'fr-CA';
    const intl = watchIntl();
    const entry = await import('./global.ts');
    expect(typeof entry.default).toBe('function');
    expect(workers).toEqual([]);
    expect(idle.length).toBeGreaterThan(0);

    runIdle();
    expect(workers).toHaveLength(1);
    expect(runWorker(workers[0]!)).toEqual({ locales: ['fr-CA', 'en'], closed: true });
    // The page's thread formatted nothing and loaded no likely subtags: the worker did.
    expect(intl.formatted).toEqual([]);
    expect(intl.maximized).not.toHaveBeenCalled();
  });

  it('parses typical options once, in idle time, a field per idle callback and then the whole', async () => {
    const fields = (await import('./options/parse.ts')).warmUpPieces().length;
    await import('./global.ts');
    expect(idle).toHaveLength(2); // the worker, then the options' schema
    idle.shift()!();
    idle.shift()!();
    expect(idle).toHaveLength(fields); // each piece asked for on its own, none run yet
  });

  it("reads the page's language as data: a lang attribute written as code runs nothing in the worker", async () => {
    const hostile = '"]);close();Intl.NumberFormat("pwned");//`${x}`%23%';
    document.documentElement.lang = hostile;
    await import('./global.ts');
    runIdle();
    expect(runWorker(workers[0]!)).toEqual({ locales: [hostile, 'en'], closed: true });
  });

  it('where the worker is refused (a CSP), loads the tables on the page, one idle piece at a time', async () => {
    const intl = watchIntl();
    await import('./global.ts');
    runIdle();
    expect(intl.formatted).toEqual([]);

    workers[0]!.onerror!(); // as the browser tells a worker its CSP refused
    expect(idle.length).toBeGreaterThan(1); // asked for, not run in the error's own task
    expect(intl.maximized).not.toHaveBeenCalled();
    expect(intl.formatted).toEqual([]);
    idle.shift()!();
    expect(intl.maximized).toHaveBeenCalledOnce();
    expect(intl.formatted).toEqual([]);
    runIdle();
    expect(intl.formatted).toEqual(['en']);
  });

  it('where no worker can be made at all (the constructor throws), loads the tables on the page in idle pieces', async () => {
    refuse = new DOMException('refused', 'SecurityError');
    const intl = watchIntl();
    await import('./global.ts');
    runIdle();
    expect(workers).toEqual([]);
    expect(intl.maximized).toHaveBeenCalledOnce();
    expect(intl.formatted).toEqual(['en']);
  });
});
