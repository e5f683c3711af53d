// The script-tag entry: the bundle's only side effect is the global this file returns,
// which Vite's IIFE wrapper assigns to window.ServiceCheckout.
import { ServiceCheckout, type CheckoutHandle, type ServiceCheckoutOptions } from './index.ts';
import { warmUpPieces } from './options/parse.ts';
import { fiat } from './ui/format.ts';

// Once the page is idle, what the first open would otherwise build while the customer waits,
// each piece in an idle callback of its own so no run of this script keeps the page busy
// for long (npm run bench's merchant-page rows): nothing is fetched, drawn or added
// to the page. The options' first parse is a piece per field and then the whole: in one piece
// it ran 17-57 ms at 4x CPU.
//
// ICU's number tables, which the page's first currency format loads (60-300 ms at 4x CPU,
// in pieces Intl's API cannot split below 20-75 ms), are loaded by a worker that formats a
// price and closes: ICU keeps its tables for the whole renderer process, so this page's
// first format then takes a millisecond or two. Where the worker cannot run (a CSP without
// data: in worker-src, or in script-src when worker-src is not set, refuses it, and the
// browser reports that), they are loaded here instead, a piece per idle callback: likely
// subtags, the locale's number data, the rest with a format.
const idle = (step: () => unknown) => (self.requestIdleCallback ?? setTimeout)(step);
const here = [
  () => new Intl.Locale('en').maximize(),
  () => (new Intl.Locale('en') as { getNumberingSystems?(): void }).getNumberingSystems?.(),
  () => fiat(0, 'USD'),
];
const steps = [
  () => {
    try {
      // The page's language as well as English: the first open writes amounts in one of them.
      const locales = JSON.stringify([document.documentElement.lang, 'en']);
      const code = `for(const l of ${locales})try{new Intl.NumberFormat(l,{style:"currency",currency:"USD"}).format(0)}catch{}close()`;
      new Worker('data:text/javascript,' + encodeURIComponent(code)).onerror = () => here.forEach(idle);
    } catch {
      here.forEach(idle);
    }
  },
  // The options' schema made, then its first parse in pieces.
  () => warmUpPieces().forEach(idle),
];
steps.forEach(idle);

// Read while the script runs: afterwards document.currentScript points elsewhere.
const script = document.currentScript as HTMLScriptElement | null;
const scriptOrigin = script?.src ? new URL(script.src).origin : undefined;

/** The service serves this script, so by default the API is where the script came from. */
export default function ServiceCheckoutFromScript(options: ServiceCheckoutOptions): CheckoutHandle {
  const defaulted = options && typeof options === 'object' && options.apiBase === undefined && scriptOrigin ? { ...options, apiBase: scriptOrigin } : options;
  return ServiceCheckout(defaulted);
}
