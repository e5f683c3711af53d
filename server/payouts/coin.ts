// Bank payouts pay collected USDT: that of the first of the mode's networks that takes it, with
// the treasury's terms for sending it there (its minimum and network fee). Read from the catalogue, no I/O.
import type { KeyMode } from '../../contract/keys.ts';
import type { Catalog } from '../chain/catalog.ts';
import { sendTermsOf, tokenOf } from '../chain/networks.ts';
import type { PayoutCoin } from './store.ts';

export function payoutCoinIn(catalogue: Pick<Catalog, 'coins' | 'network'>, mode: KeyMode): PayoutCoin | undefined {
  const usdt = catalogue.coins(mode).find((c) => c.symbol === 'USDT');
  if (!usdt) return undefined;
  const terms = sendTermsOf(tokenOf(catalogue.network(mode, usdt.chainId), usdt.contractAddress));
  return { chainId: usdt.chainId, token: usdt.contractAddress.toLowerCase(), decimals: usdt.decimals, ...(terms ? { terms } : {}) };
}
