import { h } from 'preact';
import type { Checkout } from '../checkout/machine.ts';
import { coinAmount, fiat } from './format.ts';
import { Coins } from './screens/Coins.tsx';
import { Details } from './screens/Details.tsx';
import { Outcome, Reference } from './screens/Outcome.tsx';
import { Payment } from './screens/Payment.tsx';
import { fill, text } from './text.ts';
import { textOn } from './theme.ts';

/**
 * What Tab reaches in `root`, in order, as a11y-dialog's isFocusable has it: a tabbable element
 * (tabIndex 0 or more: a control, a link, a positive tabindex), neither disabled nor inert,
 * and rendered (a hidden one has no client rects). The shadow root's own tree: nothing nests.
 */
export const focusables = (root: Element) =>
  [...root.querySelectorAll<HTMLElement>('*')].filter((el) => el.tabIndex >= 0 && !el.matches(':disabled,[inert] *') && el.getClientRects().length);

/**
 * A logo from the API is shown only from https or as an inline image (nothing runs inside
 * an <img>, SVG included): never javascript:, http: or anything else.
 */
export const safeLogo = (url = '') => /^(https:\/\/|data:image\/)/i.test(url);

/** How the modal looks and speaks, decided once as it mounts. */
export interface Look {
  lang: string;
  rtl: boolean;
}

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
      if (checkout.leaving.value) return <Leave checkout={checkout} partial={view.screen === 'partial'} />;
      return <Payment checkout={checkout} view={view} />;
    case 'closed':
      return null;
    default:
      return <Outcome checkout={checkout} view={view} />;
  }
}

/**
 * Asked before closing on an open payment; "Keep paying" comes first, and takes focus. After
 * part was paid it also gives the reference, and, when the merchant's page named it (so a
 * reopened checkout finds this payment), says that reopening resumes it.
 */
function Leave({ checkout, partial }: { checkout: Checkout; partial: boolean }) {
  const { options } = checkout;
  return (
    <div role="alertdialog" aria-labelledby="sc-q" aria-describedby="sc-qn">
      <h3 id="sc-q">{text.leave}</h3>
      <p id="sc-qn">
        {text.leaveNote} {partial && options.resumable && text.resume}
      </p>
      {partial && <Reference checkout={checkout} value={options.reference} />}
      <button type="button" class="pr" onClick={checkout.stay} data-focus>
        {text.stay}
      </button>
      <button type="button" class="pr sc" onClick={checkout.close}>
        {text.leaveYes}
      </button>
    </div>
  );
}

/**
 * What a screen reader hears as the payment moves on, from one live region that stays put
 * (a region added along with its text is often not read).
 */
function announcement(checkout: Checkout): string {
  const view = checkout.view.value;
  if (view.screen === 'success') return text[view.payment.status === 'settled' ? 'settled' : 'success'];
  if (view.screen === 'expired') return text.expired;
  if (view.screen !== 'payment' && view.screen !== 'partial') return '';
  const detected = view.screen === 'partial' ? fill(text.detected, coinAmount(view.payment.amountPaid, view.coin.symbol)) : '';
  const hurry = Date.parse(view.payment.expiresAt) - checkout.now.value < 60_000 ? text.hurry : '';
  return `${detected} ${hurry}`.trim();
}

export function Modal({ checkout, look }: { checkout: Checkout; look: Look }) {
  const { options } = checkout;

  const view = checkout.view.value;
  const business = checkout.business.value;
  const payment = 'payment' in view ? view.payment : undefined;
  const onKeyDown = (event: KeyboardEvent) => {
    const dialog = event.currentTarget as HTMLElement;
    if (event.key === 'Escape') {
      event.stopPropagation();
      checkout.send({ type: 'escape' });
    } else if (event.key === 'Tab') {
      // Its edges are the first and last controls Tab can reach: a disabled one ("Finishing…")
      // taken for the last would let Tab walk out of the dialog.
      const items = focusables(dialog);
      const active = (dialog.getRootNode() as ShadowRoot).activeElement;
      const edge = event.shiftKey ? items[0] : items.at(-1);
      if (active === edge || !items.includes(active as HTMLElement)) {
        event.preventDefault();
        (event.shiftKey ? items.at(-1) : items[0])?.focus();
      }
    }
  };

  return (
    <div class="bd">
      <div
        class={`dl ${options.theme?.[0] ?? 'a'}${view.screen === 'payment' || view.screen === 'partial' ? ' w' : ''}`}
        role="dialog"
        aria-modal="true"
        aria-labelledby="sc-title"
        lang={look.lang}
        dir={look.rtl ? 'rtl' : 'ltr'}
        style={options.accent && { '--ac': options.accent, '--on': textOn(options.accent) }}
        tabIndex={-1}
        onKeyDown={onKeyDown}
      >
        {options.mode === 'test' && <p class="rb">{text.testMode}</p>}
        <div class="hd">
          {safeLogo(business?.logo) && <img class="lg" src={business!.logo} alt="" />}
          <h2 id="sc-title">{business?.name || text.checkout}</h2>
          {/* The amount of the payment on screen; before there is one, the price asked for. */}
          <p class="tot">
            {payment ? `${text.total} ${coinAmount(payment.actualAmount, payment.coin)}` : `${text.price} ${fiat(options.amount, options.currency)}`}
          </p>
          <button type="button" class="x" aria-label={text.close} onClick={checkout.askClose}>
            ×
          </button>
        </div>
        <div class="bo">
          <Screen checkout={checkout} />
        </div>
        <p class="sr" aria-live="polite">
          {announcement(checkout)}
        </p>
      </div>
    </div>
  );
}
