// A place kept in the navigation for what comes with the balances issue.
import { h } from 'preact';
import { useTitle } from './common.tsx';

export function Later({ title }: { path?: string; title: string }) {
  useTitle(title);
  return (
    <section>
      <h1>{title}</h1>
      <p>{title} come to the dashboard with balance settlement. Until then, the API has them (see the README).</p>
    </section>
  );
}
