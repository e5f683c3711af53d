import type { Checkout, View } from '../../checkout/machine.ts';
import { coinAmount, fiat, overpaid } from '../format.ts';
import { text } from '../text.ts';

type Props = { checkout: Checkout; view: Extract<View, { screen: 'success' | 'expired' | 'error' }> };

/** The screens that end a payment: success, expired, error. */
export function Outcome({ checkout, view }: Props) {
  const done = (
    <button type="button" class="pr" onClick={checkout.close}>
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
  if (view.screen === 'expired') {
    return (
      <>
        <h3>{text.expired}</h3>
        <p>
          {view.canRequote
            ? text.expiredEmpty
            : text.expiredPartial(coinAmount(payment.amountPaid, coin.symbol), payment.reference)}
        </p>
        {view.canRequote ? (
          <button type="button" class="pr" onClick={checkout.requote}>
            {text.requote}
          </button>
        ) : (
          done
        )}
      </>
    );
  }
  const extra = overpaid(payment.amountPaid, payment.actualAmount, coin.decimals);
  return (
    <>
      <h3 class="ok">{text.success}</h3>
      <p>
        {text.paid}: <b data-paid>{coinAmount(payment.amountPaid, coin.symbol)}</b> ({fiat(payment.fiatAmount, payment.currency)})
      </p>
      {payment.hash && (
        <p>
          {text.hash}: <code>{payment.hash}</code>
        </p>
      )}
      {extra && <p class="nt">{text.over(coinAmount(extra, coin.symbol))}</p>}
      {done}
    </>
  );
}
