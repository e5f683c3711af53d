// What /readyz (and /metrics' readiness gauges) answer, each check named: the database answers;
// each chain is watched and near its head, its gas wallet able to pay; each treasury's queue is
// moving; no live chain is without a gas wallet; no treasury is held short; fetched rates are fresh.
import type { Address } from 'viem';
import { COINS, CURRENCIES } from '../../contract/fields.ts';
import { chainReadiness, missingGasWallets, treasuryQueueReadiness, type Check } from '../chain/readiness.ts';
import type { Network } from '../chain/networks.ts';
import type { ChainStore } from '../chain/store.ts';
import { treasuryReadiness } from '../chain/treasury-reconcile.ts';
import type { TreasuryHoldStore } from '../balances/treasury-hold-store.ts';
import type { TreasuryTxStore } from '../balances/treasury-store.ts';
import type { RateCache } from '../rates/cache.ts';
import { answers, type Database } from '../storage/db.ts';

export function serviceReadiness(o: {
  db: Database;
  networks: Network[];
  live: Network[];
  chain: ChainStore;
  gasOf(network: Network): Address | undefined;
  /** Treasuries whose key the service holds: their chains' queues are looked at. */
  treasuryChains: Network[];
  treasuryTxs: Pick<TreasuryTxStore, 'queueHead'>;
  treasuryHolds: TreasuryHoldStore;
  rates: RateCache;
  /** Whether any rate provider fetches: a fixed table's rates never age, so it has no check. */
  ratesFetched: boolean;
  settings: { readyMaxLagBlocks: number; sweepIntervalMs: number; treasuryStuckMs: number };
  now: () => number;
}): () => Promise<Check[]> {
  const chainsReady = chainReadiness(o.networks, o.chain, o.settings.readyMaxLagBlocks, o.gasOf);
  const gasMissing = o.settings.sweepIntervalMs > 0 ? missingGasWallets(o.live, o.gasOf) : [];
  const queuesReady = treasuryQueueReadiness(o.treasuryChains, (chainId) => o.treasuryTxs.queueHead(chainId), o.settings.treasuryStuckMs, o.now);
  const database = async (): Promise<Check> =>
    (await answers(o.db)) ? { name: 'database', ok: true, detail: o.db.kind } : { name: 'database', ok: false, detail: `${o.db.kind} does not answer` };
  return async () => [
    await database(),
    ...(await chainsReady()),
    ...(await queuesReady()),
    ...gasMissing,
    ...(await treasuryReadiness(o.networks, o.treasuryHolds)),
    ...(o.ratesFetched ? [o.rates.readiness({ fiat: CURRENCIES.filter((c) => c !== 'USD'), coins: [...COINS] })] : []),
  ];
}
