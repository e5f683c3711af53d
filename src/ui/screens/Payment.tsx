import { Fragment, h } from 'preact';
import type { Checkout, View } from '../../checkout/machine.ts';
import type { WalletState } from '../../checkout/table.ts';
import { DEPOSIT_KINDS } from '../../../contract/schemas.ts';
import { paymentUri } from '../../../contract/payment-uri.ts';
import { Copy } from '../Copy.tsx';
import { QrCode } from '../QrCode.tsx';
import { clock, coinAmount, fiat, minus } from '../format.ts';
import { fill, sandbox, text } from '../text.ts';

type Props = { checkout: Checkout; view: Extract<View, { screen: 'payment' | 'partial' }> };

/** From two minutes left the countdown says so in words and changes shape, not only colour. */
export const HURRY_MS = 120_000;

/**
 * Everything here is the payment the API last reported: amount, coin, network, contract and
 * address all come from `view`, never from an earlier choice.
 */
export function Payment({ checkout, view }: Props) {
  const { coin, payment } = view;
  const partial = view.screen === 'partial';
  const due = payment.amountRemaining;
  const left = Date.parse(payment.expiresAt) - checkout.now.value;
  const hurry = left < HURRY_MS;
  const uri = paymentUri(coin, payment.address, due);
  const net = minus(payment.actualAmount, payment.feeInCrypto, coin.decimals);
  // How paying from a browser wallet goes (only a watched payment has it).
  const { wallet: paying } = checkout.state.value as { wallet?: WalletState };
  const busy = paying === 'asking' || paying === 'signing';
  const c = payment.confirming;
  const coarse = matchMedia('(pointer:coarse)').matches;
  // A phone (touch, one column): what pays and what it is doing come first, the address and
  // the QR code (for paying from another device) after. Elsewhere the QR code heads its column.
  const phone = coarse && innerWidth < 700; // one column: styles.ts makes two from 700px
  const time = (
    <span class={hurry ? 'tm ur' : 'tm'} data-hurry={hurry || undefined}>
      {hurry && <b>{text.hurrySoon}. </b>}
      {text.timeLeft}: <time data-time-left>{clock(left)}</time>
    </span>
  );
  const acts = (
    <>
      {/* A wallet that holds the coin pays with one signature, and no gas; the transfer stays beside it. */}
      {paying !== 'sent' &&
        checkout.signers.value.map((index) => (
          <button type="button" class="pr" key={index} onClick={() => checkout.signWith(index)} disabled={busy} data-sign>
            {fill(text.signWith, checkout.wallets.value[index]!.name)}
          </button>
        ))}
      {/* A wallet in this browser (EIP-6963) pays in one click; the QR code stays for any other. */}
      {checkout.wallets.value.map((wallet, index) => (
        <button type="button" class="pr" key={wallet.name} onClick={() => checkout.payWith(index)} disabled={busy} data-pay-wallet>
          {fill(text.payWith, wallet.name)}
        </button>
      ))}
      {paying && (
        <p role="status" class={busy || paying === 'sent' ? undefined : 'nt'} data-wallet-note>
          {fill(text.walletNote[paying], coin.network)}
        </p>
      )}
      {/* On a phone the wallet is on the same device: one tap opens it with this payment. */}
      {coarse && (
        <a class="pr" href={uri} data-wallet>
          {text.wallet}
        </a>
      )}
      {/* The time left stays out of the live region: it would be read out every second. */}
      <p role="status" class={checkout.reconnecting.value ? 'nt' : undefined}>
        {checkout.reconnecting.value
          ? text.reconnecting
          : c
            ? fill(text.confirming, coinAmount(c.amount, coin.symbol), c.confirmations, c.required)
            : text.waiting}
      </p>
      {phone && time}
      {partial && payment.acceptPartialPayment && (
        <button type="button" class="pr" onClick={checkout.finishPartial} disabled={view.settling}>
          {view.settling ? text.finishing : text.finishPartial}
        </button>
      )}
    </>
  );
  return (
    <>
      <div class="pay">
        <div>
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
            {/* Beside the amount, so the time left is in view wherever the amount and address are read. */}
            {!phone && time}
          </p>
          {/* Sending on another chain is how customers lose money: the network sits by the amount. */}
          <div class="net" data-network>
            <p>
              {text.onNetwork}: <b>{coin.network}</b>
            </p>
            <p>
              {text.contract}: <code data-contract>{coin.contractAddress}</code>
            </p>
            <p class="wn">{fill(text.warn, coin.symbol, coin.network)}</p>
          </div>
          {phone && acts}
          <p class="lb">{text.toAddress}</p>
          <p class="row ad">
            <code data-address>{payment.address}</code>
            <Copy checkout={checkout} value={payment.address} label={text.copyAddress} />
          </p>
          <dl data-breakdown>
            <dt>{text.price}</dt>
            <dd>
              {/* bdi: each amount keeps its own direction inside Arabic text */}
              <bdi>{fiat(payment.fiatAmount, payment.currency)}</bdi>
              {net && (
                <>
                  {' = '}
                  <bdi>{coinAmount(net, coin.symbol)}</bdi>
                </>
              )}
            </dd>
            {payment.feeInCrypto > 0 && (
              <>
                <dt>{text.fee}</dt>
                <dd>{coinAmount(payment.feeInCrypto, coin.symbol)}</dd>
              </>
            )}
            <dt>{text.total}</dt>
            <dd>
              <b>{coinAmount(payment.actualAmount, coin.symbol)}</b>
            </dd>
          </dl>
        </div>
        <div>
          <QrCode checkout={checkout} value={uri} />
          {!phone && acts}
          {!partial && (
            <button type="button" class="ln" onClick={checkout.changeCoin}>
              {text.changeCoin}
            </button>
          )}
        </div>
      </div>
      {checkout.sandbox && (
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
