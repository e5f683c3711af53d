// A small Vue 3 shop built with Vite for the e2e tests: options that change every 50 ms,
// and a way to unmount the component mid-payment.
import { createApp, defineComponent, h, onBeforeUnmount, ref } from 'vue';
import { useServiceCheckout } from 'service-checkout/vue';

const params = new URLSearchParams(location.search);
const events: string[] = [];
(window as unknown as { appEvents: string[] }).appEvents = events;

const Shop = defineComponent({
  setup() {
    const renders = ref(0);
    const timer = setInterval(() => renders.value++, 50);
    onBeforeUnmount(() => clearInterval(timer));
    const { open } = useServiceCheckout(() => ({
      key: params.get('key')!,
      apiBase: params.get('api')!,
      amount: '12.00',
      currency: 'USD' as const,
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      metadata: { renders: renders.value },
      onSuccess: (payment) => events.push(`success ${payment.status}`),
      onError: (error) => events.push(`error ${error.code}`),
      onClose: () => events.push('close'),
    }));
    return () => h('main', [h('p', `Rendered ${renders.value} times`), h('button', { type: 'button', onClick: () => open() }, 'Pay with Vue')]);
  },
});

const shown = ref(true);
(window as unknown as { hideShop(): void }).hideShop = () => (shown.value = false);
createApp({ render: () => (shown.value ? h(Shop) : h('p', 'The shop is gone')) }).mount('#app');
