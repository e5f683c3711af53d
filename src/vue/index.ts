// service-checkout/vue: the checkout in a Vue 3 app (a peer dependency, never part of
// checkout.js). Options may be a plain object, a ref or a getter: open() reads them as they
// are at that moment, and the callbacks too when they fire, so the exactly-once promises of
// the checkout hold however often the component updates. An unmount does not end a payment
// the customer is making; call close() to end it yourself.
import { defineComponent, h, shallowRef, toValue, type MaybeRefOrGetter } from 'vue';
import { forwarded } from '../frameworks/forward.ts';
import { ServiceCheckout, type CheckoutHandle, type ServiceCheckoutOptions } from '../service-checkout.ts';

export type { CheckoutHandle, ServiceCheckoutOptions };

export function useServiceCheckout(options: MaybeRefOrGetter<ServiceCheckoutOptions>) {
  const handle = shallowRef<CheckoutHandle | null>(null);
  const latest = () => toValue(options);
  function open(overrides: Partial<ServiceCheckoutOptions> = {}): CheckoutHandle {
    handle.value = ServiceCheckout(forwarded(latest, overrides, () => (handle.value = null)));
    return handle.value;
  }
  return { open, close: () => handle.value?.close(), handle };
}

/** A button that opens the checkout: `<ServiceCheckoutButton :options="…">Pay</ServiceCheckoutButton>`. */
export const ServiceCheckoutButton = defineComponent({
  name: 'ServiceCheckoutButton',
  props: { options: { type: Object as () => ServiceCheckoutOptions, required: true } },
  setup(props, { slots }) {
    const { open } = useServiceCheckout(() => props.options);
    return () => h('button', { type: 'button', onClick: () => void open() }, slots.default?.() ?? 'Pay with stablecoins');
  },
});
