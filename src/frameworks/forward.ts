// What the React and Vue wrappers share: the options a checkout opens with, its callbacks
// forwarding to the merchant's latest ones.
import type { ServiceCheckoutOptions } from '../service-checkout.ts';

/**
 * The latest options with `overrides` on top, each callback read when it fires (the
 * override's, else the latest options'): a re-render between opening and a callback never
 * adds or drops one. `closed` runs first when the checkout closes (the wrapper forgets it).
 */
export function forwarded(latest: () => ServiceCheckoutOptions, overrides: Partial<ServiceCheckoutOptions>, closed: () => void): ServiceCheckoutOptions {
  const callback = <K extends 'onSuccess' | 'onError' | 'onClose'>(name: K) => overrides[name] ?? latest()[name];
  return {
    ...latest(),
    ...overrides,
    onSuccess: (payment) => callback('onSuccess')?.(payment),
    onError: (error) => callback('onError')?.(error),
    onClose: (info) => {
      closed();
      callback('onClose')?.(info);
    },
  };
}
