// Paying with one signature: who pays the gas, and how much. The operator's gas wallet pays for
// each relay; what it may spend is capped per relay, per merchant and for the whole wallet per
// day, and relays are limited per payment and per payer, each refusal before any gas is spent.
import { PaymentState, RelayDeclined, Unavailable } from '../domain/errors.ts';
import type { Network } from './networks.ts';

// The relay's settings of a network (NETWORKS_FILE, read by config.ts), declared beside the relay that reads them.
declare module './networks.ts' {
  interface Network {
    /**
     * Paying with one signature: the most one relay may cost the gas wallet, in wei of the native
     * coin: the gas limit it is sent with × its max fee, re-pricings included (a relay is never
     * re-priced past it); one that would cost more at the fee it would be sent with is refused and
     * the customer pays by transfer. RELAY_MAX_GAS_WEI by default.
     */
    relayMaxGasWei?: bigint;
    /** The most one merchant's relays (of a mode) may cost on this chain in 24 hours, in wei, as journaled: RELAY_DAILY_GAS_WEI by default. */
    relayDailyGasWei?: bigint;
    /** The most every merchant's relays together may cost the gas wallet on this chain in 24 hours, in wei: RELAY_INSTANCE_DAILY_GAS_WEI by default. */
    relayInstanceDailyGasWei?: bigint;
    /** How many payments one payer address may have relayed on this chain in 24 hours: RELAYS_PER_PAYER_PER_DAY by default. */
    relaysPerPayerPerDay?: number;
  }
}

/** What a relay would cost, asked before it is sent: the node's gas estimate, the gas limit and max fee it would be sent with, and the gas wallet's balance (wei). */
export interface RelayCost {
  estimate: bigint;
  limit: bigint;
  maxFeePerGas: bigint;
  balance: bigint;
}

/**
 * The most one relay may cost the gas wallet where the network sets no `relayMaxGasWei`: 10^13
 * wei (0.00001 ETH). An EIP-3009 transfer is ~60-90k gas (sent with a limit of 72-108k), so it holds up to a max fee of ~0.09
 * gwei: a rollup's (Base, Optimism, Arbitrum: 0.001 to 0.05 gwei) many times over, and never
 * Ethereum's (a max fee of twice the base fee and a tip, 0.5 gwei and more), where the customer
 * pays by transfer.
 */
export const RELAY_MAX_GAS_WEI = 10_000_000_000_000n;
/** The most relays may cost for one merchant on one chain in 24 hours where the network sets no `relayDailyGasWei`: 10^16 wei (0.01 ETH), a thousand relays at the cap. */
export const RELAY_DAILY_GAS_WEI = 10_000_000_000_000_000n;
/** The most relays may cost the gas wallet on one chain in 24 hours, every merchant's together, where the network sets no `relayInstanceDailyGasWei`: 10^17 wei (0.1 ETH), ten merchants at their cap. */
export const RELAY_INSTANCE_DAILY_GAS_WEI = 100_000_000_000_000_000n;
/** Payments one payer address may have relayed on one chain in 24 hours where the network sets no `relaysPerPayerPerDay`: a customer pays a few times a day, not a hundred. */
export const RELAYS_PER_PAYER_PER_DAY = 5;
/** The window of the daily caps. */
export const RELAY_DAY_MS = 24 * 60 * 60 * 1000;

const declined = (field: string, message: string) =>
  new RelayDeclined(`${field}: ${message}; nothing was sent, pay with a transfer`, [{ field, message: `${message}; pay with a transfer` }]);

/**
 * Whether the gas wallet may pay for a relay that would cost `cost`, asked before anything is
 * sent, with the most it can spend: its gas limit × the max fee it would be sent with, within the
 * network's cap per payment; `spent` within its daily caps (what relays cost on this chain in the
 * last 24 hours, journaled, and what those under way may still cost: the merchant's, and every
 * merchant's for the gas wallet's own cap); and the gas wallet holding it. Answers the most the
 * relay may cost once re-priced: what the caps leave it (it is re-priced no higher). Each refusal a
 * RelayDeclined (409 `relay_declined`) naming `gas.payment_cap`, `gas.daily_cap`,
 * `gas.instance_cap` or `gas.wallet`: pay by transfer.
 */
export function assertRelayAffordable(network: Network, cost: RelayCost, spent: { merchant: bigint; instance: bigint }): bigint {
  const spend = cost.limit * cost.maxFeePerGas;
  const perPayment = network.relayMaxGasWei ?? RELAY_MAX_GAS_WEI;
  const daily = network.relayDailyGasWei ?? RELAY_DAILY_GAS_WEI;
  const instance = network.relayInstanceDailyGasWei ?? RELAY_INSTANCE_DAILY_GAS_WEI;
  if (spend > perPayment)
    throw declined('gas.payment_cap', `relaying it may cost ${spend} wei on ${network.name}, more than the ${perPayment} wei one relay may cost`);
  if (spent.merchant + spend > daily)
    throw declined(
      'gas.daily_cap',
      `this merchant's relays on ${network.name} cost ${spent.merchant} wei in the last 24 hours or may still; ${spend} more would pass the ${daily} wei a day`,
    );
  if (spent.instance + spend > instance)
    throw declined(
      'gas.instance_cap',
      `relays on ${network.name} cost the gas wallet ${spent.instance} wei in the last 24 hours or may still; ${spend} more would pass the ${instance} wei a day it may spend`,
    );
  if (cost.balance < spend)
    throw declined('gas.wallet', `the gas wallet on ${network.name} holds ${cost.balance} wei, less than the ${spend} wei this relay needs`);
  return [perPayment, daily - spent.merchant, instance - spent.instance].reduce((a, b) => (a < b ? a : b));
}

/**
 * Whether this payment may be relayed now, asked before any gas is spent (under the gas wallet's
 * lease): once, a relay under way or mined for it already refused (409 `payment_state`, naming
 * `reference`: the one sent brings the payment, or the customer pays by transfer), except that
 * the same payer's, still under way, is a 503 (its request stopped waiting: the same signature
 * again shortly answers it once mined, and a customer told "relayed already" might pay twice);
 * and its payer within the payments it may have relayed a day (409 `relay_declined` naming
 * `authorization.from`), so that one outsider cannot spend a merchant's daily cap on payments of
 * its own making.
 */
export function assertRelayAllowed(
  network: Network,
  reference: string,
  payer: string,
  relays: { ofPayment: Array<{ payer: string; underWay: boolean }>; ofPayerToday: number },
): void {
  if (relays.ofPayment.some((r) => r.underWay && r.payer.toLowerCase() === payer.toLowerCase()))
    throw new Unavailable(`the relay of ${reference} signed by this payer is under way, not yet mined; send the same signature again shortly`);
  if (relays.ofPayment.length > 0)
    throw new PaymentState(`reference: transaction ${reference} was relayed already; nothing more is sent for it`, [
      { field: 'reference', message: 'relayed already: one signed transfer is relayed per payment' },
    ]);
  const most = network.relaysPerPayerPerDay ?? RELAYS_PER_PAYER_PER_DAY;
  if (relays.ofPayerToday >= most)
    throw declined('authorization.from', `this payer had ${relays.ofPayerToday} payments relayed on ${network.name} in the last 24 hours, the most it may`);
}
