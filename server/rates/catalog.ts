// The catalogue as customers see it: a coin whose price is off its dollar peg is offered as
// inactive (the coin list says so, and initialize refuses it), whatever its network offers.
import type { Catalog } from '../chain/catalog.ts';
import type { RateCache } from './cache.ts';

export function offeredCatalog(catalog: Catalog, rates: Pick<RateCache, 'offered'>): Catalog {
  const offered = <C extends { symbol: string; status: 'active' | 'inactive' }>(coin: C): C =>
    coin.status === 'active' && !rates.offered(coin.symbol as never) ? { ...coin, status: 'inactive' } : coin;
  // Everything else of the catalogue as it is (through the prototype: a class's methods too).
  const wrapped: Catalog = Object.create(catalog);
  wrapped.coins = (mode) => catalog.coins(mode).map(offered);
  wrapped.coin = (mode, symbol, chainId) => {
    const coin = catalog.coin(mode, symbol, chainId);
    return coin && offered(coin);
  };
  // (choose reads `this.coins`: through this wrapper, the offered ones.)
  return wrapped;
}
