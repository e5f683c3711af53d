import { h } from 'preact';
import type { Checkout } from '../checkout/machine.ts';
import { text } from './text.ts';

export function Copy({ checkout, value, label }: { checkout: Checkout; value: string; label: string }) {
  const copy = () =>
    navigator.clipboard?.writeText(value).then(
      () => checkout.markCopied(value),
      () => {},
    );
  return (
    <button type="button" aria-label={label} onClick={copy}>
      {checkout.copied.value === value ? text.copied : text.copy}
    </button>
  );
}
