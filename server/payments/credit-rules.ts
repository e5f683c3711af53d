// Money in another listed coin or on another of the mode's chains credited toward its
// payment at the rate of its arrival. No I/O: the rates come from the rates history (what the
// cache fetched, server/rates/history-store.ts) as the newest at or before the transfer's
// arrival; integer math, rounded down, so a credit is never worth more than what arrived.
import { NoRateAtArrival } from '../domain/errors.ts';
import { formatRate, RATE_ONE } from '../domain/rates.ts';
import { formatUnits } from '../../contract/money.ts';

/** A coin's rate as the history kept it: US dollars one coin is worth (units at RATE_DECIMALS), fetched when, from where. */
export interface RateAt {
  units: bigint;
  atMs: number;
  source: string;
  fixed: boolean;
}

/** A coin as the catalog lists it on one chain. */
export interface CoinOn {
  symbol: string;
  decimals: number;
}

/** What one transfer is credited, and at what: both coins' dollar rates, the older one's time, their sources. */
export interface CreditTerms {
  credited: bigint;
  usdFrom: bigint;
  usdTo: bigint;
  rateMs: number;
  source: string;
}

/** The rate usable for money that arrived at `arrivalMs`: fetched at or before it, and no older than `maxAgeMs` then (a fixed one never ages); else undefined. */
export function usableAt(rate: RateAt | undefined, arrivalMs: number, maxAgeMs: number): RateAt | undefined {
  if (!rate || rate.atMs > arrivalMs) return undefined;
  return rate.fixed || arrivalMs - rate.atMs <= maxAgeMs ? rate : undefined;
}

/**
 * What `amount` base units of `from` (arrived at `arrivalMs`) are worth in base units of `to`,
 * rounded down. The same coin on another chain is 1:1, its decimals converted; another coin
 * needs both coins' rates usable at arrival, else 409 `no_rate_at_arrival` naming `reference`.
 */
export function creditOf(
  reference: string,
  amount: bigint,
  from: CoinOn,
  to: CoinOn,
  rates: { from?: RateAt; to?: RateAt },
  arrivalMs: number,
  maxAgeMs: number,
): CreditTerms {
  const scale = (usdFrom: bigint, usdTo: bigint) => (amount * usdFrom * 10n ** BigInt(to.decimals)) / (usdTo * 10n ** BigInt(from.decimals));
  if (from.symbol === to.symbol)
    return { credited: scale(RATE_ONE, RATE_ONE), usdFrom: RATE_ONE, usdTo: RATE_ONE, rateMs: arrivalMs, source: `same coin (${from.symbol})` };
  const rateFrom = usableAt(rates.from, arrivalMs, maxAgeMs);
  const rateTo = usableAt(rates.to, arrivalMs, maxAgeMs);
  const missing = [!rateFrom && from.symbol, !rateTo && to.symbol].filter(Boolean).join(' and ');
  if (!rateFrom || !rateTo) {
    throw new NoRateAtArrival(
      `reference: payment ${reference}: no ${missing} rate was recorded within ${Math.round(maxAgeMs / 1000)} s before its ${from.symbol} arrived (${new Date(arrivalMs).toISOString()}), so it cannot be credited; accept it as it arrived, or send it back in ${from.symbol} (POST /api/v1/payments/${reference}/send_back)`,
      [{ field: 'reference', message: `expected a payment whose ${from.symbol} arrived while the ${missing} rate was fresh; send_back is still possible` }],
    );
  }
  const source = rateFrom.source === rateTo.source ? rateFrom.source : `${rateFrom.source} (${from.symbol}) + ${rateTo.source} (${to.symbol})`;
  return { credited: scale(rateFrom.units, rateTo.units), usdFrom: rateFrom.units, usdTo: rateTo.units, rateMs: Math.min(rateFrom.atMs, rateTo.atMs), source };
}

/** A credited transfer as the payment's detail shows it: what arrived, in its coin; the rates and their time; what was credited, in the payment's coin. */
export function creditView(
  line: {
    txHash: string;
    chainId: number;
    amount: bigint;
    seenMs: number;
    credited: bigint;
    usdFrom: bigint;
    usdTo: bigint;
    rateMs: number;
    source: string;
    resolvedMs: number;
  },
  from: CoinOn | undefined,
  token: string,
  paymentDecimals: number,
) {
  return {
    tx_hash: line.txHash,
    chain_id: line.chainId,
    coin: from?.symbol ?? token,
    arrived: formatUnits(line.amount, from?.decimals ?? 0),
    arrived_at: new Date(line.seenMs).toISOString(),
    usd_per_arrived_coin: formatRate(line.usdFrom),
    usd_per_payment_coin: formatRate(line.usdTo),
    rate_at: new Date(line.rateMs).toISOString(),
    rate_source: line.source,
    credited: formatUnits(line.credited, paymentDecimals),
    credited_at: new Date(line.resolvedMs).toISOString(),
  };
}
