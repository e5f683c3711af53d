// Which coins a key's mode pays with, and where a new payment's money goes: the tokens of each
// network configured for the mode (a coin is a symbol on a chain: USDT on BNB Smart Chain and
// USDT on Ethereum are two) and CREATE2 deposit addresses on that chain, or (no network
// configured for the mode) the static catalogue, whose payments only the sandbox can pay.
import type { Address } from 'viem';
import type { Coin } from '../../contract/schemas.ts';
import type { KeyMode } from '../../contract/keys.ts';
import { COINS } from '../domain/defaults.ts';
import { NotConfigured, PayoutAddressRequired, invalidField } from '../domain/errors.ts';
import { coinsOf, create2Addresses, type Network } from './networks.ts';
import { randomBytes } from 'node:crypto';
import type { Settlement } from '../../contract/balances.ts';
import { feeFraction, NO_FEE, type FeeTerms } from '../domain/fees.ts';

export interface Catalog {
  /** Every coin the mode offers: one entry per (symbol, network), networks in the file's order. */
  coins(mode: KeyMode): Coin[];
  /** The coin of `symbol` on chain `chainId`, if the mode offers it there. */
  coin(mode: KeyMode, symbol: string, chainId: number): Coin | undefined;
  /**
   * The coin a request names by symbol and, optionally, chain: without a chain, the one chain of
   * the mode that offers the symbol; a chain the mode does not offer it on, or no chain for a
   * symbol offered on several, is refused naming `chain_id` (`field` for the symbol) and the
   * chains that do offer it. Never a guess: the chain is where the customer's money goes.
   */
  choose(mode: KeyMode, symbol: string, chainId?: number, field?: string): Coin;
  /** The mode's networks, in the file's order; none: the static catalogue (the sandbox pays). */
  networks(mode: KeyMode): Network[];
  network(mode: KeyMode, chainId: number): Network | undefined;
  /**
   * The deposit address of a new payment on chain `chainId`, and the payout address it is bound
   * to. Without a network for test keys (the sandbox-only catalogue): a random address no one
   * controls, never watched, bound to nothing; without one for live keys, a refusal.
   */
  depositAddress(merchantId: string, mode: KeyMode, reference: string, chainId: number): Promise<NewDeposit>;
  /** The operator's fee terms a new payment of the merchant on chain `chainId` is priced at, as depositAddress binds them. */
  feeTerms(merchantId: string, mode: KeyMode, chainId: number): Promise<FeeTerms>;
}

/**
 * A new payment's deposit: its address, what it is bound to (the payout, and on `wallet`
 * settlement the fee address and fraction), and the operator's fee terms its quote is priced
 * at. On `wallet` settlement a network with neither a fee address nor a treasury charges no fee:
 * the contract could not collect it, and an answer never names a fee no one receives.
 */
export interface NewDeposit {
  address: string;
  payout: string | null;
  settlement: Settlement;
  feeTerms: FeeTerms;
  /** Where the deposit contract sends the fee (`wallet` settlement with a fee), or null. */
  feeTo: string | null;
}

/** "56 (BNB Smart Chain), 1 (Ethereum)": chains as an answer names them. */
export const chainsNamed = (coins: Array<Pick<Coin, 'chainId' | 'network'>>): string =>
  [...new Map(coins.map((c) => [c.chainId, `${c.chainId} (${c.network})`])).values()].join(', ');

/** Live keys on a service with no live network: said plainly, with what the operator must do. */
export const noLiveNetwork = () =>
  new NotConfigured(
    'Live payments are not available: this service has no live network configured. Its operator must add a "live" network to NETWORKS_FILE (chain, RPC URLs, deposit factory, tokens) and restart it',
  );

/**
 * `settlementOf`: where the merchant's new payments in a mode settle: its own payout address
 * (`wallet`, the default) or the network's treasury (`balance`), bound into the deposit
 * address now, so a later switch leaves this payment as it was made.
 */
export function catalog(
  networks: Partial<Record<KeyMode, Network[]>>,
  payoutAddress: (merchantId: string, mode: KeyMode, chainId: number) => Promise<string | undefined>,
  settlementOf: (merchantId: string, mode: KeyMode) => Promise<Settlement> = async () => 'wallet',
  feeOf: (merchantId: string, mode: KeyMode) => Promise<FeeTerms> = async () => NO_FEE,
): Catalog {
  const listOf = (mode: KeyMode) => networks[mode] ?? [];
  const coins = {
    test: listOf('test').length ? listOf('test').flatMap(coinsOf) : COINS.test,
    live: listOf('live').length ? listOf('live').flatMap(coinsOf) : COINS.live,
  };
  return {
    coins: (mode) => coins[mode],
    coin: (mode, symbol, chainId) => coins[mode].find((c) => c.symbol === symbol && c.chainId === chainId),
    choose(mode, symbol, chainId, field = 'coin') {
      const offered = this.coins(mode).filter((c) => c.symbol === symbol);
      if (offered.length === 0)
        throw invalidField(
          field,
          `expected a coin your ${mode} keys take (${[...new Set(this.coins(mode).map((c) => c.symbol))].join(', ')}), received ${symbol}; ${symbol} is not available on this network`,
        );
      if (chainId !== undefined) {
        const coin = offered.find((c) => c.chainId === chainId);
        if (!coin) throw invalidField('chain_id', `expected a chain your ${mode} keys take ${symbol} on: ${chainsNamed(offered)}; received ${chainId}`);
        return coin;
      }
      if (offered.length > 1)
        throw invalidField('chain_id', `${symbol} is taken on several chains with ${mode} keys: ${chainsNamed(offered)}; say which with chain_id`);
      return offered[0]!;
    },
    networks: listOf,
    network: (mode, chainId) => listOf(mode).find((n) => n.chainId === chainId),
    async feeTerms(merchantId, mode, chainId) {
      const { bps, bearer } = await feeOf(merchantId, mode);
      const network = listOf(mode).find((n) => n.chainId === chainId);
      if (bps === 0 || !network || (await settlementOf(merchantId, mode)) === 'balance') return { bps, bearer };
      return feeAddressOf(network) ? { bps, bearer } : NO_FEE;
    },
    async depositAddress(merchantId, mode, reference, chainId) {
      const { bps, bearer } = await feeOf(merchantId, mode);
      const terms: FeeTerms = { bps, bearer };
      if (listOf(mode).length === 0) {
        // Test keys without a network pay in the sandbox only. Live keys never get an address
        // that no one watches: money sent there would be gone.
        if (mode === 'live') throw noLiveNetwork();
        return {
          address: '0x' + randomBytes(20).toString('hex'),
          payout: null,
          settlement: await settlementOf(merchantId, mode),
          feeTerms: terms,
          feeTo: null,
        };
      }
      const network = listOf(mode).find((n) => n.chainId === chainId);
      if (!network) throw invalidField('chain_id', `expected a chain of your ${mode} keys: ${chainsNamed(coins[mode])}; received ${chainId}`);
      const settlement = await settlementOf(merchantId, mode);
      if (settlement === 'balance') {
        if (!network.treasury)
          throw new NotConfigured(
            `Balance settlement needs a treasury on ${network.name}, and its operator has configured none: switch back with PUT /api/v1/settlement {"settlement":"wallet"}`,
          );
        const treasury = network.treasury;
        // The fee stays in the treasury with the rest, and is journaled to the operator (balances/journal-store.ts).
        return {
          address: create2Addresses(network.factory).addressFor({ merchantId, mode, reference, payout: treasury }),
          payout: treasury.toLowerCase(),
          settlement,
          feeTerms: terms,
          feeTo: null,
        };
      }
      const payout = await payoutAddress(merchantId, mode, network.chainId);
      if (!payout) {
        throw new PayoutAddressRequired(
          `No payout address for ${network.name} (chain ${network.chainId}): register one with PUT /api/v1/payout_address before taking payments there`,
        );
      }
      const feeTo = terms.bps > 0 ? feeAddressOf(network) : undefined;
      const fee = feeTo ? { to: feeTo, ...feeFraction(terms) } : null;
      const address = create2Addresses(network.factory).addressFor({ merchantId, mode, reference, payout: payout as Address, fee });
      return { address, payout: payout.toLowerCase(), settlement, feeTerms: feeTo ? terms : NO_FEE, feeTo: feeTo?.toLowerCase() ?? null };
    },
  };
}

/** Where a network's deposit contracts send the operator's fee on `wallet` settlement: its fee address, else its treasury. */
export const feeAddressOf = (network: Network): Address | undefined => network.feeAddress ?? network.treasury;
