import type { Checkout } from '../checkout/machine.ts';
import { fiat } from './format.ts';
import { Coins } from './screens/Coins.tsx';
import { Details } from './screens/Details.tsx';
import { Outcome } from './screens/Outcome.tsx';
import { Payment } from './screens/Payment.tsx';
import { text } from './text.ts';

export const FOCUSABLE = 'button,input,[href],[tabindex]:not([tabindex="-1"])';

/**
 * A logo from the API is shown only from https or as an inline image (nothing runs inside
 * an <img>, SVG included): never javascript:, http: or anything else.
 */
export const safeLogo = (url = '') => /^(https:\/\/|data:image\/)/i.test(url);

function Screen({ checkout }: { checkout: Checkout }) {
  const view = checkout.view.value;
  switch (view.screen) {
    case 'details':
      return <Details checkout={checkout} view={view} />;
    case 'coins':
    case 'quoting':
      return <Coins checkout={checkout} view={view} />;
    case 'payment':
    case 'partial':
      return <Payment checkout={checkout} view={view} />;
    case 'closed':
      return null;
    default:
      return <Outcome checkout={checkout} view={view} />;
  }
}

export function Modal({ checkout }: { checkout: Checkout }) {
  const { options } = checkout;

  const onKeyDown = (event: KeyboardEvent) => {
    const dialog = event.currentTarget as HTMLElement;
    if (event.key === 'Escape') {
      event.stopPropagation();
      checkout.close();
    } else if (event.key === 'Tab') {
      const items = [...dialog.querySelectorAll<HTMLElement>(FOCUSABLE)];
      const active = (dialog.getRootNode() as ShadowRoot).activeElement;
      const edge = event.shiftKey ? items[0] : items[items.length - 1];
      if (active === edge || !items.includes(active as HTMLElement)) {
        event.preventDefault();
        (event.shiftKey ? items[items.length - 1] : items[0])?.focus();
      }
    }
  };

  return (
    <div class="bd">
      <div
        class="dl"
        role="dialog"
        aria-modal="true"
        aria-labelledby="sc-title"
        tabIndex={-1}
        onKeyDown={onKeyDown}
      >
        {options.mode === 'test' && <p class="rb">{text.testMode}</p>}
        <header>
          {safeLogo(checkout.quote.value?.businessLogo) && (
            <img class="lg" src={checkout.quote.value!.businessLogo} alt="" />
          )}
          <h2 id="sc-title">{checkout.quote.value?.businessName || text.checkout}</h2>
          <p class="tot">
            {text.pay} {fiat(options.amount, options.currency)}
          </p>
          <button type="button" class="x" aria-label={text.close} onClick={checkout.close}>
            ×
          </button>
        </header>
        <main>
          <Screen checkout={checkout} />
        </main>
      </div>
    </div>
  );
}
