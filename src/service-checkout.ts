import { createApi } from './api/client.ts';
import type { CheckoutError } from './checkout/errors.ts';
import { createCheckout } from './checkout/machine.ts';
import { parseOptions, type CloseInfo } from './options/parse.ts';
import { mountModal } from './ui/mount.ts';
import { learn, speak } from './ui/text.ts';
import type { Verification } from '../contract/schemas.ts';

/** What a merchant page passes to ServiceCheckout(). Checked at run time, whatever its type. */
export interface ServiceCheckoutOptions {
  /** Your public key: pk_test_… (testnet) or pk_live_… (mainnet). Never a secret key. */
  key: string;
  /** The amount in `currency`, up to two decimals: 25, "25.50". */
  amount: string | number;
  currency: 'USD' | 'GBP' | 'EUR' | 'AED' | 'NGN';
  /** Asked of the customer when left out. */
  name?: string;
  /** Asked of the customer when left out. */
  email?: string;
  /** Unique, case-sensitive; generated when left out. */
  reference?: string | number;
  acceptPartialPayment?: boolean;
  /** A JSON object (or its text), at most 4096 bytes as JSON. */
  metadata?: Record<string, unknown> | string;
  onSuccess?: (data: Verification) => void;
  onError?: (error: CheckoutError) => void;
  onClose?: (info: CloseInfo) => void;
  /** The modal's language: "en", "fr" or "ar" (right to left), or a tag such as "fr-CA" or
   * "ar-AE" that also sets how amounts are written. Unknown languages fall back to the page's
   * `<html lang>`, then English. */
  locale?: string;
  /** "light", "dark", or "auto" (the default: the customer's system setting). */
  theme?: 'light' | 'dark' | 'auto';
  /** Your brand colour as #rrggbb, for the main buttons. Their text is black or white,
   * whichever contrasts more (at least 4.5:1 either way). */
  accent?: string;
  /** The API's base URL. The script tag build defaults it to the script's own origin. */
  apiBase?: string;
}

export interface CheckoutHandle {
  /** The payment's reference: the one given, or the one generated. */
  readonly reference: string;
  /** Closes the modal; onClose follows. Does nothing once closed. */
  close(): void;
}

let open: CheckoutHandle | undefined;

/**
 * Opens the checkout. Options are validated first: a bad option is reported (console, and
 * onError, or a thrown TypeError when there is no onError to tell) and nothing is sent.
 * While a checkout is open, another call opens nothing and returns the open one's handle,
 * so a double-clicked pay button cannot start two payments.
 */
export function ServiceCheckout(input: ServiceCheckoutOptions): CheckoutHandle {
  const result = parseOptions(input);
  if (!result.ok) {
    console.error(result.error.message);
    if (!result.onError) throw new TypeError(result.error.message);
    try {
      result.onError(result.error);
    } catch (error) {
      console.error('ServiceCheckout: your onError callback threw', error);
    }
    return { reference: '', close() {} };
  }
  if (open) {
    console.warn(`ServiceCheckout: ${open.reference} is already open`);
    return open;
  }
  const { options } = result;
  let unmount = () => {};
  const checkout = createCheckout(options, createApi(options.apiBase, options.key), () => {
    open = undefined;
    unmount();
  });
  const handle = (open = { reference: options.reference, close: checkout.close });
  checkout.start();
  // A language other than English is fetched first, while the coin list loads: the modal
  // opens speaking it, rather than changing language under the customer.
  const look = speak(options.locale, document.documentElement.lang);
  const show = () => {
    if (open === handle) unmount = mountModal(checkout, look);
  };
  if (look.lang === 'en') show();
  else void learn(options.apiBase, look).then(show);
  return handle;
}
