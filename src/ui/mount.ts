import { effect } from '@preact/signals-core';
import { h, render } from 'preact';
import type { Checkout } from '../checkout/machine.ts';
import { focusables, Modal, type Look } from './Modal.tsx';
import { css } from './styles.ts';

let sheet: CSSStyleSheet | undefined;

/** Puts the modal in a shadow root at the end of <body>; returns how to take it away. */
export function mountModal(checkout: Checkout, look: Look): () => void {
  const opener = document.activeElement as HTMLElement | null;
  const host = document.createElement('div');
  host.setAttribute('data-service-checkout', '');
  const root = host.attachShadow({ mode: 'open' });
  // Constructable stylesheets (every current browser; Safari since 16.4): a strict CSP allows them.
  if (!sheet) (sheet = new CSSStyleSheet()).replaceSync(css);
  root.adoptedStyleSheets = [sheet];
  const page = document.documentElement.style;
  const overflow = page.overflow;
  page.overflow = 'hidden';
  document.body.appendChild(host);
  // One effect renders the whole modal from the model: every signal a component reads
  // during the (synchronous) render is tracked, and a change renders again. Components
  // keep no state of their own, so they need no hooks and no signals integration.
  let focused: string | undefined;
  let refused = false;
  const stop = effect(() => {
    render(h(Modal, { checkout, look }), root);
    // A new screen takes focus to its first control, so keyboard and screen-reader users
    // land where the next step is rather than on whatever vanished. A screen that is still
    // loading (the coin list) focuses the dialog, then its first control once it has one.
    const dialog = root.querySelector<HTMLElement>('[role=dialog]');
    const body = dialog?.querySelector('.bo');
    const first = body && (body.querySelector<HTMLElement>('[data-focus]') ?? focusables(body)[0]);
    const key = `${checkout.view.value.screen}/${checkout.leaving.value}/${!!first}`;
    if (key !== focused) {
      focused = key;
      (first ?? dialog)?.focus();
    }
    // The service refused a signature: its button is gone, and focus goes to the transfer beside it.
    const now = (checkout.state.value as { wallet?: string }).wallet === 'refused';
    if (now && !refused) body?.querySelector<HTMLElement>('[data-pay-wallet]')?.focus();
    refused = now;
  });
  // Back from the wallet app (the page hidden, then shown again): the payment's status, after
  // "Open in wallet", is brought into view; a live region, it speaks only when its words change.
  const back = () => document.hidden || root.querySelector('[data-wallet]~[role=status]')?.scrollIntoView({ block: 'nearest' });
  document.addEventListener('visibilitychange', back);
  return () => {
    document.removeEventListener('visibilitychange', back);
    stop();
    render(null, root);
    host.remove();
    page.overflow = overflow;
    opener?.focus?.();
  };
}
