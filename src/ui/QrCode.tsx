import { qrPath } from '../payment/qr.ts';
import { text } from './text.ts';

export function QrCode({ value }: { value: string }) {
  const { size, d } = qrPath(value);
  const edge = size + 8; // four modules of quiet zone on each side, as scanners expect
  return (
    <svg viewBox={`-4 -4 ${edge} ${edge}`} role="img" aria-label={text.qr} data-uri={value}>
      <rect x="-4" y="-4" width={edge} height={edge} fill="#fff" />
      <path d={d} fill="#000" />
    </svg>
  );
}
