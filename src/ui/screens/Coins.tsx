import { Fragment, h } from 'preact';
import type { Checkout, View } from '../../checkout/machine.ts';
import { coinAmount } from '../format.ts';
import { text } from '../text.ts';

type Props = { checkout: Checkout; view: Extract<View, { screen: 'coins' | 'quoting' }> };

/** Each coin says what the customer will send in it, fee included, before anyone picks. */
export function Coins({ checkout, view }: Props) {
  if (view.screen === 'quoting') return <p role="status">{text.quoting}</p>;
  if (!view.coins) return <p role="status">{text.loadingCoins}</p>;
  return (
    <>
      <h3>{text.chooseCoin}</h3>
      <ul>
        {view.coins.map((coin) => (
          <li key={coin.symbol + coin.chainId}>
            <button type="button" class="cn" onClick={() => checkout.chooseCoin(coin)}>
              <b>{coin.symbol}</b> {coin.name}
              {coin.due !== undefined && <b class="due">{coinAmount(coin.due, coin.symbol)}</b>}
              <small>{coin.network}</small>
            </button>
          </li>
        ))}
      </ul>
      {view.coins.some((coin) => coin.fee) && <p class="lb">{text.inclFee}</p>}
    </>
  );
}
