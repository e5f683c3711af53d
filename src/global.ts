// The script-tag entry: the bundle's only side effect is the global this file returns,
// which Vite's IIFE wrapper assigns to window.ServiceCheckout.
import { ServiceCheckout, type CheckoutHandle, type ServiceCheckoutOptions } from './index.ts';
import { parseOptions } from './options/parse.ts';
import { fiat } from './ui/format.ts';

// Once the page is idle, what the first open would otherwise build while the customer waits:
// the options' schema (validating nothing) and the page's first currency format, which loads
// ICU's tables. Nothing is fetched, drawn or added to the page. One piece per idle callback,
// so no run of this script blocks the merchant's page for long: ICU's tables took ~100 ms at
// 4x CPU in one call; these steps load them a part at a time (likely subtags, then the
// locale's number data, then the rest with the format itself), each under 50 ms at 4x on an
// idle machine (issue 26; npm run bench's merchant-page rows). The number data is the
// largest piece, and Intl's API offers none smaller.
const steps = [
  () => parseOptions({}),
  () => new Intl.Locale('en').maximize(),
  () => (new Intl.Locale('en') as { getNumberingSystems?(): void }).getNumberingSystems?.(),
  () => fiat(0, 'USD'),
];
// Asked for together, each still runs as a task of its own (the browser handles input between them).
steps.forEach((step) => (self.requestIdleCallback ?? setTimeout)(step));

// Read while the script runs: afterwards document.currentScript points elsewhere.
const script = document.currentScript as HTMLScriptElement | null;
const scriptOrigin = script?.src ? new URL(script.src).origin : undefined;

/** The service serves this script, so by default the API is where the script came from. */
export default function ServiceCheckoutFromScript(options: ServiceCheckoutOptions): CheckoutHandle {
  const defaulted =
    options && typeof options === 'object' && options.apiBase === undefined && scriptOrigin
      ? { ...options, apiBase: scriptOrigin }
      : options;
  return ServiceCheckout(defaulted);
}
