// A withdrawal to a wallet as the merchant asks for it: on a network of its mode that has a
// treasury, never to one of the service's own addresses, in a coin offered there, at or above the
// token's minimum with the network's fee charged beside it, and, for a live key, only to a wallet
// registered at least the operator's delay ago (a stolen key must not send the balance to a wallet
// of its own at once). Then use-cases.ts's withdraw: the daily limit, the balance, the reservation.
import { getAddress, isAddress } from 'viem';
import type { CoinSymbol } from '../../contract/fields.ts';
import type { KeyMode } from '../../contract/keys.ts';
import { formatUnits } from '../../contract/money.ts';
import type { Account } from '../domain/account.ts';
import { ChainNotOffered, DestinationPending, invalidField, NotConfigured } from '../domain/errors.ts';
import type { Catalog } from '../chain/catalog.ts';
import { sendTermsOf, tokenOf } from '../chain/networks.ts';
import { refuseOwn, type OwnAddresses } from '../chain/own-addresses.ts';
import type { Destinations } from '../merchants/destinations.ts';
import type { RateCache } from '../rates/cache.ts';
import { sendFee, unitsOf } from './ledger-rules.ts';
import { withdraw, type BalanceTransactions } from './use-cases.ts';
import type { StoredWithdrawal } from './withdrawal-store.ts';

/** What a withdrawal request needs of the service. */
export interface WithdrawalParts {
  catalog: Pick<Catalog, 'network' | 'networks' | 'choose'>;
  treasury(mode: KeyMode, chainId: number): object | undefined;
  ownAddresses: OwnAddresses;
  destinations: Pick<Destinations, 'withdrawalAddress' | 'delayMs'>;
  rates: Pick<RateCache, 'usdPerCoin'>;
  balanceTransactions: BalanceTransactions;
  now(): number;
}

/** The request as the route parsed it: the chain, the coin's symbol, the amount as decimal text, the wallet. */
export interface AskedWithdrawal {
  chainId: number;
  coin: string;
  amount: string;
  address: string;
}

export async function requestWithdrawal(
  service: WithdrawalParts,
  account: Account,
  asked: AskedWithdrawal,
  view: (w: StoredWithdrawal) => unknown,
): Promise<StoredWithdrawal> {
  const network = service.catalog.network(account.mode, asked.chainId);
  if (!network) {
    const networks = service.catalog.networks(account.mode);
    throw new ChainNotOffered(`chain_id ${asked.chainId} is not a network of your ${account.mode} keys`, [
      { field: 'chain_id', message: `expected ${networks.length ? networks.map((n) => n.chainId).join(' or ') : 'a configured network'}` },
    ]);
  }
  if (!service.treasury(account.mode, network.chainId))
    throw new NotConfigured(`Withdrawals are not available on ${network.name}: its operator has configured no treasury`);
  // Never to the service's own addresses: a treasury, the gas wallet, the fee address, a deposit address.
  await refuseOwn(service.ownAddresses, asked.address, 'address', 'a wallet of yours');
  if (!isAddress(asked.address, { strict: true }) && asked.address.slice(2) !== asked.address.slice(2).toUpperCase()) {
    throw invalidField('address', `expected a valid EIP-55 checksum (mixed case), or all lower case; did you mean ${getAddress(asked.address.toLowerCase())}?`);
  }
  const address = getAddress(asked.address.toLowerCase());
  const coin = service.catalog.choose(account.mode, asked.coin, network.chainId, 'coin');
  const amount = unitsOf('amount', asked.amount, coin.decimals);
  const format = (u: bigint) => formatUnits(u, coin.decimals);
  // The treasury's one rule for what it sends: below the token's minimum refused, its
  // network fee charged beside the amount (the wallet receives the amount).
  const networkFee = sendFee(
    amount,
    sendTermsOf(tokenOf(network, coin.contractAddress)),
    { symbol: coin.symbol, format },
    'amount',
    `withdrawal on ${network.name}`,
  );
  // A live key's wallet never withdrawn to is registered now and receives only after the delay.
  const wallet = await service.destinations.withdrawalAddress(account, network.chainId, address, service.now());
  if (!wallet.ready) {
    const at = new Date(wallet.change.effectiveMs).toISOString();
    throw new DestinationPending(
      `address: ${address} has never received a withdrawal of your live balance on ${network.name}; it is registered now and can receive from ${at} (new wallets wait ${Math.round(service.destinations.delayMs / 60_000)} minutes, so the owner can cancel one they did not add: change ${wallet.change.id}). Ask again from then; nothing was reserved or sent`,
      [{ field: 'address', message: `expected a wallet registered at least the delay ago; this one can receive from ${at}` }],
    );
  }
  const usdPerCoin = await service.rates.usdPerCoin(coin.symbol as CoinSymbol);
  const request = {
    chainId: coin.chainId,
    symbol: coin.symbol,
    token: coin.contractAddress,
    decimals: coin.decimals,
    address,
    amount,
    networkFee,
    format,
    usdPerCoin,
  };
  return withdraw(service.balanceTransactions, account, request, service.now(), view);
}
