import { Fragment, h } from 'preact';
import type { Checkout, View } from '../../checkout/machine.ts';
import { coinAmount } from '../format.ts';
import { text } from '../text.ts';

type Props = { checkout: Checkout; view: Extract<View, { screen: 'coins' | 'quoting' }> };

/**
 * Each coin says what the customer will send in it, fee included, before anyone picks. Coins
 * are grouped by network, each group under its name where there are several: USDT on two
 * networks is two choices, and the one picked is paid on its own network.
 */
export function Coins({ checkout, view }: Props) {
  if (view.screen === 'quoting') return <p role="status">{text.quoting}</p>;
  const coins = view.coins;
  if (!coins) return <p role="status">{text.loadingCoins}</p>;
  const networks = [...new Set(coins.map((coin) => coin.network))];
  return (
    <>
      <h3>{text.chooseCoin}</h3>
      {networks.map((network) => (
        <Fragment key={network}>
          {networks[1] && <h4 class="lb">{network}</h4>}
          <ul>
            {coins
              .filter((coin) => coin.network === network)
              .map((coin) => (
                <li key={coin.symbol + coin.chainId}>
                  <button type="button" class="cn" onClick={() => checkout.chooseCoin(coin)}>
                    <b>{coin.symbol}</b> {coin.name}
                    {coin.due !== undefined && <b class="due">{coinAmount(coin.due, coin.symbol)}</b>}
                    <small>{coin.network}</small>
                  </button>
                </li>
              ))}
          </ul>
        </Fragment>
      ))}
      {coins.some((coin) => coin.fee) && <p class="lb">{text.inclFee}</p>}
    </>
  );
}
