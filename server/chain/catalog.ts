// Which coins a key's mode pays with, and where a new payment's money goes: a configured
// network's tokens and CREATE2 deposit addresses, or (no network configured for the mode) the
// static catalogue, whose payments only the sandbox can pay.
import type { Address } from 'viem';
import type { Coin } from '../../contract/schemas.ts';
import type { KeyMode } from '../../contract/keys.ts';
import { COINS } from '../domain/defaults.ts';
import { Conflict } from '../domain/errors.ts';
import { coinsOf, create2Addresses, type Network } from './networks.ts';
import { randomBytes } from 'node:crypto';
import type { Settlement } from '../../contract/balances.ts';

export interface Catalog {
  coins(mode: KeyMode): Coin[];
  coin(mode: KeyMode, symbol: string): Coin | undefined;
  network(mode: KeyMode): Network | undefined;
  /**
   * The deposit address of a new payment, and the payout address it is bound to. Without a
   * network for test keys (the sandbox-only catalogue): a random address no one controls, never
   * watched, bound to nothing; without one for live keys, a refusal.
   */
  depositAddress(merchantId: string, mode: KeyMode, reference: string): Promise<{ address: string; payout: string | null; settlement: Settlement }>;
}

/** Live keys on a service with no live network: said plainly, with what the operator must do. */
export const noLiveNetwork = () =>
  new Conflict('Live payments are not available: this service has no live network configured. Its operator must add a "live" network to NETWORKS_FILE (chain, RPC URLs, deposit factory, tokens) and restart it');

/**
 * `settlementOf`: where the merchant's new payments in a mode settle: its own payout address
 * (`wallet`, the default) or the network's treasury (`balance`), bound into the deposit
 * address now, so a later switch leaves this payment as it was made.
 */
export function catalog(
  networks: Partial<Record<KeyMode, Network>>,
  payoutAddress: (merchantId: string, mode: KeyMode, chainId: number) => Promise<string | undefined>,
  settlementOf: (merchantId: string, mode: KeyMode) => Promise<Settlement> = async () => 'wallet',
): Catalog {
  const coins = { test: networks.test ? coinsOf(networks.test) : COINS.test, live: networks.live ? coinsOf(networks.live) : COINS.live };
  return {
    coins: (mode) => coins[mode],
    coin: (mode, symbol) => coins[mode].find((c) => c.symbol === symbol),
    network: (mode) => networks[mode],
    async depositAddress(merchantId, mode, reference) {
      const network = networks[mode];
      if (!network) {
        // Test keys without a network pay in the sandbox only. Live keys never get an address
        // that no one watches: money sent there would be gone.
        if (mode === 'live') throw noLiveNetwork();
        return { address: '0x' + randomBytes(20).toString('hex'), payout: null, settlement: await settlementOf(merchantId, mode) };
      }
      const settlement = await settlementOf(merchantId, mode);
      if (settlement === 'balance') {
        if (!network.treasury) throw new Conflict(`Balance settlement needs a treasury on ${network.name}, and its operator has configured none: switch back with PUT /api/v1/settlement {"settlement":"wallet"}`);
        const treasury = network.treasury;
        return { address: create2Addresses(network.factory).addressFor({ merchantId, mode, reference, payout: treasury }), payout: treasury.toLowerCase(), settlement };
      }
      const payout = await payoutAddress(merchantId, mode, network.chainId);
      if (!payout) {
        throw new Conflict(`No payout address for ${network.name} (chain ${network.chainId}): register one with PUT /api/v1/payout_address before taking payments there`);
      }
      return { address: create2Addresses(network.factory).addressFor({ merchantId, mode, reference, payout: payout as Address }), payout: payout.toLowerCase(), settlement };
    },
  };
}
