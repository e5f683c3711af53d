import { useState } from 'preact/hooks';
import { text } from './text.ts';

export function Copy({ value, label }: { value: string; label: string }) {
  const [copied, setCopied] = useState(false);
  const copy = () =>
    navigator.clipboard?.writeText(value).then(
      () => setCopied(true),
      () => setCopied(false),
    );
  return (
    <button type="button" aria-label={label} onClick={copy}>
      {copied ? text.copied : text.copy}
    </button>
  );
}
