// A small React shop built with Vite for the e2e tests: StrictMode, a component that
// re-renders every 50 ms with fresh callbacks, and a way to unmount it mid-payment.
import { createElement as e, StrictMode, useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { ServiceCheckoutButton } from 'service-checkout/react';

const params = new URLSearchParams(location.search);
const events: string[] = [];
(window as unknown as { appEvents: string[] }).appEvents = events;

function Shop() {
  const [renders, setRenders] = useState(0);
  useEffect(() => {
    const timer = setInterval(() => setRenders((n) => n + 1), 50);
    return () => clearInterval(timer);
  }, []);
  return e(
    'main',
    null,
    e('p', null, `Rendered ${renders} times`),
    e(
      ServiceCheckoutButton,
      {
        options: {
          key: params.get('key')!,
          apiBase: params.get('api')!,
          amount: '12.00',
          currency: 'USD',
          name: 'Ada Lovelace',
          email: 'ada@example.com',
          // New closures on every render: the checkout must call the latest, once.
          onSuccess: (payment) => events.push(`success ${payment.status}`),
          onError: (error) => events.push(`error ${error.code}`),
          onClose: () => events.push('close'),
        },
      },
      'Pay with React',
    ),
  );
}

function App() {
  const [shown, setShown] = useState(true);
  (window as unknown as { hideShop(): void }).hideShop = () => setShown(false);
  return shown ? e(Shop) : e('p', null, 'The shop is gone');
}

createRoot(document.getElementById('root')!).render(e(StrictMode, null, e(App)));
