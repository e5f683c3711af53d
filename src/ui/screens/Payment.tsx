import type { Checkout, View } from '../../checkout/machine.ts';
import { DEPOSIT_KINDS } from '../../wire/schemas.ts';
import { paymentUri } from '../../payment/uri.ts';
import { Copy } from '../Copy.tsx';
import { QrCode } from '../QrCode.tsx';
import { clock, coinAmount, fiat } from '../format.ts';
import { sandbox, text } from '../text.ts';

type Props = { checkout: Checkout; view: Extract<View, { screen: 'payment' | 'partial' }> };

export function Payment({ checkout, view }: Props) {
  const { coin, payment } = view;
  const partial = view.screen === 'partial';
  const due = payment.amountRemaining;
  const quote = checkout.quote.value;
  const left = Date.parse(payment.expiresAt) - checkout.now.value;
  const uri = paymentUri(coin, payment.address, due);
  return (
    <>
      {partial && (
        <p class="nt">
          {text.received}: <b>{coinAmount(payment.amountPaid, coin.symbol)}</b>. {text.stillDue}
        </p>
      )}
      <p class="lb">{partial ? text.sendRest : text.sendExactly}</p>
      <p class="row">
        <output class="amt" data-amount>
          {coinAmount(due, coin.symbol)}
        </output>
        <Copy checkout={checkout} value={String(due)} label={text.copyAmount} />
      </p>
      <QrCode value={uri} />
      {/* On a phone the wallet is on the same device: one tap opens it with this payment. */}
      {matchMedia('(pointer:coarse)').matches && (
        <a class="pr" href={uri} data-wallet>
          {text.wallet}
        </a>
      )}
      <p class="lb">{text.toAddress}</p>
      <p class="row ad">
        <code data-address>{payment.address}</code>
        <Copy checkout={checkout} value={payment.address} label={text.copyAddress} />
      </p>
      <dl>
        <dt>{text.onNetwork}</dt>
        <dd>{coin.network}</dd>
        <dt>{text.fee}</dt>
        <dd>{coinAmount(payment.feeInCrypto, coin.symbol)}</dd>
        {quote && (
          <>
            <dt>{text.rate}</dt>
            <dd>
              1 {coin.symbol} = {fiat(quote.fiatRate, quote.currency)}
            </dd>
          </>
        )}
        <dt>{text.timeLeft}</dt>
        <dd>
          <time data-time-left>{clock(left)}</time>
        </dd>
      </dl>
      <p role="status" class={checkout.reconnecting.value ? 'nt' : undefined}>
        {checkout.reconnecting.value ? text.reconnecting : text.waiting}
      </p>
      {partial && payment.acceptPartialPayment && (
        <button type="button" class="pr" onClick={checkout.finishPartial}>
          {text.finishPartial}
        </button>
      )}
      {!partial && (
        <button type="button" class="ln" onClick={checkout.changeCoin}>
          {text.changeCoin}
        </button>
      )}
      {checkout.options.mode === 'test' && (
        <div class="sb" role="group" aria-label={sandbox.simulate} lang="en" dir="ltr">
          {sandbox.simulate}:
          {DEPOSIT_KINDS.map((kind) => (
            <button type="button" key={kind} onClick={() => checkout.simulate(kind)}>
              {sandbox[kind]}
            </button>
          ))}
        </div>
      )}
    </>
  );
}
