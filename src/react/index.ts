// service-checkout/react: the checkout in a React app (React 18 or 19, a peer dependency,
// never part of checkout.js). Written without JSX so it builds with any JSX setting.
//
// The exactly-once promises come from the checkout itself (one payment open at a time,
// each callback at most once). The hook keeps them through React's life cycle: callbacks
// are read from the latest render when they fire, so a re-render never adds or drops one;
// nothing is opened from an effect, so StrictMode's double effects open nothing twice; and
// an unmount does not end a payment the customer is making: they finish it, and the
// callbacks of the last render still run, once. Call close() to end it yourself.
import { createElement, useCallback, useRef, type ButtonHTMLAttributes, type ReactNode } from 'react';
import { forwarded } from '../frameworks/forward.ts';
import { ServiceCheckout, type CheckoutHandle, type ServiceCheckoutOptions } from '../service-checkout.ts';

export type { CheckoutHandle, ServiceCheckoutOptions };

export interface UseServiceCheckout {
  /** Opens the checkout with the latest options (and any given here); returns its handle. */
  open(overrides?: Partial<ServiceCheckoutOptions>): CheckoutHandle;
  /** Closes the checkout this hook opened, if it is still open. */
  close(): void;
}

export function useServiceCheckout(options: ServiceCheckoutOptions): UseServiceCheckout {
  const latest = useRef(options);
  latest.current = options;
  const handle = useRef<CheckoutHandle | null>(null);
  const open = useCallback((overrides: Partial<ServiceCheckoutOptions> = {}) => {
    handle.current = ServiceCheckout(
      forwarded(
        () => latest.current,
        overrides,
        () => (handle.current = null),
      ),
    );
    return handle.current;
  }, []);
  const close = useCallback(() => handle.current?.close(), []);
  return { open, close };
}

export interface ServiceCheckoutButtonProps extends Omit<ButtonHTMLAttributes<HTMLButtonElement>, 'onClick' | 'type'> {
  /**
   * The checkout's options, as one object: React keeps a prop named `key` for itself, so
   * the public key cannot be a prop of its own.
   */
  options: ServiceCheckoutOptions;
  children?: ReactNode;
}

/** A button that opens the checkout: `<ServiceCheckoutButton options={{ key, amount, currency }}>Pay</…>`. */
export function ServiceCheckoutButton({ options, children, ...button }: ServiceCheckoutButtonProps) {
  const { open } = useServiceCheckout(options);
  return createElement('button', { ...button, type: 'button', onClick: () => void open() }, children ?? 'Pay with stablecoins');
}
