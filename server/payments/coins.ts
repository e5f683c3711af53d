// The coins a checkout may pay with, for a key's mode: each listed coin, marked where the customer
// may pay with one signature (its token signs, EIP-3009, and a gas wallet relays on its chain),
// priced for an amount when one is given at each coin's rates, fresh or fixed (a stale one refuses
// the list, naming it; an inactive coin, off its peg or not offered, is listed unpriced); and
// whether the sandbox's buttons can pay here.
import { FIAT_DECIMALS, type Currency } from '../../contract/fields.ts';
import type { KeyMode } from '../../contract/keys.ts';
import { toUnits, unitsToNumber } from '../../contract/money.ts';
import type { Coin } from '../../contract/schemas.ts';
import type { Account } from '../domain/account.ts';
import { quote } from '../domain/quote.ts';
import { noLiveNetwork, type Catalog } from '../chain/catalog.ts';
import type { Relayer } from '../chain/relay.ts';
import type { RateCache } from '../rates/cache.ts';

/** What listing the coins needs of the service. */
export interface CoinsParts {
  catalog: Pick<Catalog, 'coins' | 'network' | 'networks' | 'feeTerms'>;
  relayer(mode: KeyMode, chainId: number): Relayer | undefined;
  rates: Pick<RateCache, 'forQuote'>;
  config: { sandbox: boolean };
}

export async function offeredCoins(service: CoinsParts, account: Account, price: { amount?: string | number; currency?: Currency }) {
  if (account.mode === 'live' && service.catalog.networks('live').length === 0) throw noLiveNetwork();
  let rate: { source: string; fixed: boolean; at: string } | undefined;
  const list = await Promise.all(
    service.catalog.coins(account.mode).map(async (listed): Promise<Coin> => {
      const signs =
        service.relayer(account.mode, listed.chainId) &&
        service.catalog.network(account.mode, listed.chainId)?.tokens.find((t) => t.address.toLowerCase() === listed.contractAddress.toLowerCase())?.eip3009;
      const coin = signs ? { ...listed, signs: { name: signs.name, version: signs.version } } : listed;
      if (price.amount === undefined || price.currency === undefined || coin.status !== 'active') return coin;
      const rates = await service.rates.forQuote(price.currency, coin.symbol);
      rate ??= { source: rates.source, fixed: rates.fixed, at: new Date(rates.atMs).toISOString() };
      const terms = await service.catalog.feeTerms(account.merchant.id, account.mode, coin.chainId);
      const q = quote(toUnits(price.amount, FIAT_DECIMALS)!, rates.fiatPerCoin, coin.decimals, terms);
      return { ...coin, due: unitsToNumber(q.due, q.decimals), fee: unitsToNumber(q.fee, q.decimals) };
    }),
  );
  // The sandbox's buttons are offered only where a press can pay: test keys, the sandbox on,
  // and a dev chain among the mode's (or no chain at all). On a public testnet payments are
  // real transfers, and a press for a payment there is refused.
  const networks = service.catalog.networks(account.mode);
  const sandbox = account.mode === 'test' && service.config.sandbox && (networks.length === 0 || networks.some((n) => !!n.dev));
  return { list, rate, sandbox };
}
