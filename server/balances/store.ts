// The stores of balance settlement, made once at start: the journal, swaps, the treasury's sends,
// what is owed to the payout partner, the treasury's own transactions and its holds.
import type { BalanceTransactions } from './use-cases.ts';
import type { Database } from '../storage/db.ts';
import type { EventStore } from '../storage/events.ts';
import { JournalStore } from './journal-store.ts';
import { PartnerTransferStore } from './partner-transfer-store.ts';
import { TreasuryTxStore } from './treasury-store.ts';
import { TreasuryHoldStore, type HoldViews } from './treasury-hold-store.ts';
import { SwapStore } from './swap-store.ts';
import { WithdrawalStore, type LimitParts } from './withdrawal-store.ts';

/** What the journal joins its entries to: the chain's transfers and the payments' deposits. */
type JournalViews = ConstructorParameters<typeof JournalStore>[2];

/** The stores of balance settlement, as the routes and the jobs are handed them. */
export interface BalanceStores {
  /** The double-entry journal, balances and the settlement choice (balance settlement). */
  journal: JournalStore;
  swaps: SwapStore;
  withdrawals: WithdrawalStore;
  /** What is owed to the payout partner, and the treasury's transfers paying it. */
  partnerTransfers: PartnerTransferStore;
  /** The transactions the treasury records before sending, its nonces and its lease. */
  treasuryTxs: TreasuryTxStore;
  /** The stores the balance use cases (balances/use-cases.ts) open their transaction on. */
  balanceTransactions: BalanceTransactions;
  /** The treasury's reconciliation: its findings, the holds on a chain's money movements, the operator's events. */
  treasuryHolds: TreasuryHoldStore;
}

/**
 * The stores of balance settlement on one database, made once at start. `forget`: tells the
 * account cache a merchant's settlement changed; `views`: the chain's transfers and the payments'
 * deposits as the journal's catch-up and the holds join them (their owners' fragments);
 * `limits`: the merchants' rows and what payouts and refunds spent, for the one daily limit.
 */
export function balanceStoresOf(
  db: Database,
  o: { forget(merchantId: string): void; views: HoldViews & JournalViews; limits: LimitParts; withdrawalDailyLimit: string; events: EventStore },
): BalanceStores {
  const journal = new JournalStore(db, o.forget, o.views);
  const swaps = new SwapStore(db);
  const withdrawals = new WithdrawalStore(db, o.withdrawalDailyLimit, o.limits);
  return {
    journal,
    swaps,
    withdrawals,
    partnerTransfers: new PartnerTransferStore(db, journal),
    treasuryTxs: new TreasuryTxStore(db),
    treasuryHolds: new TreasuryHoldStore(db, journal, o.views),
    balanceTransactions: { db, journal, swaps, withdrawals, events: o.events },
  };
}
