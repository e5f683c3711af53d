import type { Checkout, View } from '../../checkout/machine.ts';
import { text } from '../text.ts';

type Props = { checkout: Checkout; view: Extract<View, { screen: 'coins' | 'quoting' }> };

export function Coins({ checkout, view }: Props) {
  if (view.screen === 'quoting') return <p role="status">{text.quoting}</p>;
  if (!view.coins) return <p role="status">{text.loadingCoins}</p>;
  return (
    <>
      <h3>{text.chooseCoin}</h3>
      <ul>
        {view.coins.map((coin) => (
          <li key={coin.symbol}>
            <button type="button" class="cn" onClick={() => checkout.chooseCoin(coin.symbol)}>
              <b>{coin.symbol}</b> {coin.name} <small>{coin.network}</small>
            </button>
          </li>
        ))}
      </ul>
    </>
  );
}
