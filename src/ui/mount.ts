import { h, render } from 'preact';
import type { Checkout } from '../checkout/machine.ts';
import { Modal } from './Modal.tsx';
import { css } from './styles.ts';

let sheet: CSSStyleSheet | undefined;

/** Puts the modal in a shadow root at the end of <body>; returns how to take it away. */
export function mountModal(checkout: Checkout): () => void {
  const opener = document.activeElement as HTMLElement | null;
  const host = document.createElement('div');
  host.setAttribute('data-service-checkout', '');
  const root = host.attachShadow({ mode: 'open' });
  if ('adoptedStyleSheets' in root) {
    if (!sheet) {
      sheet = new CSSStyleSheet();
      sheet.replaceSync(css);
    }
    root.adoptedStyleSheets = [sheet];
  } else {
    // Browsers before constructable stylesheets: an element, which a strict CSP may block.
    (root as ShadowRoot).appendChild(document.createElement('style')).textContent = css;
  }
  const page = document.documentElement.style;
  const overflow = page.overflow;
  page.overflow = 'hidden';
  document.body.appendChild(host);
  render(h(Modal, { checkout }), root);
  return () => {
    render(null, root);
    host.remove();
    page.overflow = overflow;
    opener?.focus?.();
  };
}
