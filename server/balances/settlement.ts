// The merchant's choice of settlement for the payments it makes from now on: `wallet` (each
// deposit swept to its own payout address) always; `balance` (the service holds the money) only
// where it has somewhere to keep it: a treasury whose key it holds on the mode's networks (of
// several, payments on one without a treasury are then refused, naming it), and never live
// without a live network.
import type { KeyMode } from '../../contract/keys.ts';
import type { Account } from '../domain/account.ts';
import { NotConfigured } from '../domain/errors.ts';
import type { Catalog } from '../chain/catalog.ts';
import type { JournalStore } from './journal-store.ts';

/** What choosing a settlement needs of the service. */
export interface SettlementParts {
  catalog: Pick<Catalog, 'networks'>;
  treasury(mode: KeyMode, chainId: number): object | undefined;
  journal: Pick<JournalStore, 'setSettlement'>;
  now(): number;
}

export async function chooseSettlement(service: SettlementParts, account: Account, settlement: 'wallet' | 'balance'): Promise<void> {
  if (settlement === 'balance') {
    const networks = service.catalog.networks(account.mode);
    if (networks.length > 0 && !networks.some((n) => service.treasury(account.mode, n.chainId))) {
      throw new NotConfigured(
        `Balance settlement is not available on ${networks.map((n) => n.name).join(', ')}: its operator has configured no treasury (a "treasury" address in NETWORKS_FILE and its key in TREASURY_KEY_FILE)`,
        [{ field: 'settlement', message: 'expected wallet: this network has no treasury' }],
      );
    }
    if (networks.length === 0 && account.mode === 'live')
      throw new NotConfigured('Balance settlement is not available: this service has no live network configured', [
        { field: 'settlement', message: 'expected wallet' },
      ]);
  }
  await service.journal.setSettlement(account, settlement, service.now());
}
