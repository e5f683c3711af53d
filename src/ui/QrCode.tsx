import { h } from 'preact';
import type { Checkout } from '../checkout/machine.ts';
import { text } from './text.ts';

/**
 * The payment's QR code, drawn by the service: an empty square of the same place until it
 * comes, and only ever the code of `value`, the URI this checkout computed itself.
 */
export function QrCode({ checkout, value }: { checkout: Checkout; value: string }) {
  const drawn = checkout.qr.value;
  const qr = drawn?.uri === value ? drawn : undefined;
  const edge = (qr?.size ?? 25) + 8; // four modules of quiet zone on each side, as scanners expect
  return (
    <svg viewBox={`-4 -4 ${edge} ${edge}`} role={qr && 'img'} aria-label={qr && text.qr} data-uri={qr?.uri}>
      <rect x="-4" y="-4" width={edge} height={edge} fill="#fff" />
      {qr && <path d={qr.path} fill="#000" />}
    </svg>
  );
}
