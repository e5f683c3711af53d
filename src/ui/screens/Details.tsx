import { Fragment, h } from 'preact';
import type { Checkout, View } from '../../checkout/machine.ts';
import { text } from '../text.ts';

type Props = { checkout: Checkout; view: Extract<View, { screen: 'details' }> };

export function Details({ checkout, view }: Props) {
  const wrong = checkout.wrong.value;
  const submit = (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const value = (name: string) => (form.elements.namedItem(name) as HTMLInputElement | null)?.value ?? '';
    checkout.submitDetails(value('name'), value('email'));
    // The model re-rendered synchronously: send the customer to the first field to correct.
    form.querySelector<HTMLElement>('[aria-invalid=true]')?.focus();
  };
  const field = (name: 'name' | 'email', label: string, error: string, type: 'text' | 'email') => {
    const invalid = wrong.includes(name);
    return (
      <>
        <label for={`sc-${name}`}>{label}</label>
        <input
          id={`sc-${name}`}
          name={name}
          type={type}
          autocomplete={name}
          required
          aria-invalid={invalid}
          aria-describedby={invalid ? `sc-${name}-e` : undefined}
        />
        {invalid && (
          <p id={`sc-${name}-e`} class="er">
            {error}
          </p>
        )}
      </>
    );
  };
  return (
    <form onSubmit={submit} noValidate>
      <h3>{text.details}</h3>
      {view.needName && field('name', text.name, text.nameWrong, 'text')}
      {view.needEmail && field('email', text.email, text.emailWrong, 'email')}
      <button type="submit" class="pr">
        {text.next}
      </button>
    </form>
  );
}
