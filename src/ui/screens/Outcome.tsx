import { Fragment, h } from 'preact';
import type { Checkout, View } from '../../checkout/machine.ts';
import { Copy } from '../Copy.tsx';
import { coinAmount, fiat, minus } from '../format.ts';
import { fill, text } from '../text.ts';

type Props = { checkout: Checkout; view: Extract<View, { screen: 'success' | 'expired' | 'error' }> };

/** The reference, with a copy button: what the customer quotes to the merchant. */
export function Reference({ checkout, value }: { checkout: Checkout; value: string }) {
  return (
    <p class="row">
      {text.reference}: <code data-reference>{value}</code>
      <Copy checkout={checkout} value={value} label={text.copyReference} />
    </p>
  );
}

/** The screens that end a payment: success (a receipt), expired, error. */
export function Outcome({ checkout, view }: Props) {
  // Ending screens send focus to Done (data-focus), past the copy buttons above it.
  const done = (
    <button type="button" class="pr" onClick={checkout.close} data-focus>
      {text.done}
    </button>
  );
  if (view.screen === 'error') {
    return (
      <>
        <h3>{text.errors[view.error.code]}</h3>
        {view.retry && (
          <button type="button" class="pr" onClick={view.retry}>
            {text.retry}
          </button>
        )}
        {!view.retry && done}
      </>
    );
  }
  const { payment, coin } = view;
  const paid = coinAmount(payment.amountPaid, coin.symbol);
  const due = coinAmount(payment.actualAmount, coin.symbol);
  if (view.screen === 'expired') {
    if (view.canRequote) {
      return (
        <>
          <h3>{text.expired}</h3>
          <p>{text.expiredEmpty}</p>
          <button type="button" class="pr" onClick={checkout.requote}>
            {text.requote}
          </button>
        </>
      );
    }
    // Money arrived and the time ran out: what arrived, the reference, and who can finish it.
    const business = checkout.business.value;
    return (
      <>
        <h3>{text.expired}</h3>
        <p>{fill(text.expiredPartial, paid, due)}</p>
        <Reference checkout={checkout} value={payment.reference} />
        {business?.email && (
          <p>
            {text.contact}{' '}
            <a href={`mailto:${business.email}?subject=${encodeURIComponent(payment.reference)}`} data-contact>
              {business.name || business.email}
            </a>
          </p>
        )}
        {done}
      </>
    );
  }
  const extra = minus(payment.amountPaid, payment.actualAmount, coin.decimals);
  return (
    <>
      <p class="mk" aria-hidden="true">
        ✓
      </p>
      {/* Settled: the merchant accepted part of the amount as payment. */}
      <h3 class="ok">{text[payment.status === 'settled' ? 'settled' : 'success']}</h3>
      <dl data-receipt>
        <dt>{text.paid}</dt>
        <dd>
          <b data-paid>{paid}</b>
        </dd>
        <dt>{text.due}</dt>
        <dd>
          {due} ({fiat(payment.fiatAmount, payment.currency)})
        </dd>
        <dt>{text.onNetwork}</dt>
        <dd>{coin.network}</dd>
        {payment.hash && (
          <>
            <dt>{text.hash}</dt>
            <dd>
              {coin.explorer ? (
                <a href={`${coin.explorer}/tx/${payment.hash}`} target="_blank" rel="noopener noreferrer" data-explorer>
                  {text.explorer}
                </a>
              ) : (
                <code>{payment.hash}</code>
              )}
            </dd>
          </>
        )}
      </dl>
      <Reference checkout={checkout} value={payment.reference} />
      {extra && <p class="nt">{fill(text.over, coinAmount(extra, coin.symbol))}</p>}
      {done}
    </>
  );
}
