// Subscriptions' parts, composed from the service's (startService hands them in): the store, and
// each chain's charger, built once per gas wallet the relay has (GAS_WALLET_KEY's, or the dev chain's).
import type { KeyMode } from '../../contract/keys.ts';
import { Charger } from '../chain/charge.ts';
import type { Relayer } from '../chain/relay.ts';
import type { ChainStore } from '../chain/store.ts';
import type { Database } from '../storage/db.ts';
import type { EventStore } from '../storage/events.ts';
import { SubscriptionStore } from './store.ts';
import { Subscriptions, type SubscriptionDeps } from './use-cases.ts';

export function subscriptionsOf(
  db: Database,
  o: Pick<SubscriptionDeps, 'payments' | 'now' | 'log'> & {
    catalogue: SubscriptionDeps['catalog'];
    /** How long a charge's payment stays open (QUOTE_SECONDS). */
    quoteSeconds: number;
    events: EventStore;
    chain: Pick<ChainStore, 'sweeps'>;
    /** Each network's relay by `mode/chainId`: its gas wallet is the charging address. */
    relayers: ReadonlyMap<string, Relayer>;
    instance: string;
  },
): Subscriptions {
  const chargers = new Map<string, Charger>();
  const charger = (mode: KeyMode, chainId: number) => {
    const key = `${mode}/${chainId}`;
    const relayer = o.relayers.get(key);
    if (!relayer) return undefined;
    if (!chargers.has(key)) chargers.set(key, new Charger(relayer, o.chain, o.instance, o.now));
    return chargers.get(key);
  };
  const { catalogue: catalog, payments, now, log } = o;
  return new Subscriptions({ db, store: new SubscriptionStore(db), events: o.events, catalog, payments, charger, quoteMs: o.quoteSeconds * 1000, now, log });
}
