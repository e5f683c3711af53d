// The port the balance use cases (balances/use-cases.ts) run in: one database transaction, with
// the journal, swaps, withdrawals and events bound to it. SQL only, through those stores.
import type { BalanceTransactions, BalanceWrites } from './use-cases.ts';
import { auditedTransaction } from '../storage/audit.ts';
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
  /** The one-transaction port the balance use cases (balances/use-cases.ts) run in. */
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
    balanceTransactions: new BalanceTransactionStore(db, { journal, swaps, withdrawals, events: o.events }),
  };
}

export class BalanceTransactionStore implements BalanceTransactions {
  constructor(
    private readonly db: Database,
    private readonly stores: { journal: JournalStore; swaps: SwapStore; withdrawals: WithdrawalStore; events: EventStore },
  ) {}

  inTransaction<T>(nowMs: number, work: (writes: BalanceWrites) => Promise<T>): Promise<T> {
    const { journal, swaps, withdrawals, events } = this.stores;
    // A request's withdrawal or swap writes its audit row with it (storage/audit.ts).
    return auditedTransaction(this.db, (tx) =>
      work({
        lock: async (owner) => void (await journal.lock(tx, owner)),
        catchUp: async (owner) => void (await journal.catchUp(tx, nowMs, owner)),
        available: (owner, chainId, token) => journal.available(tx, owner, chainId, token),
        held: (chainId) => journal.holdOn(tx, chainId),
        post: (entry, postings) => journal.post(tx, entry, postings, nowMs),
        event: async (owner, type, data) => void (await events.add(tx, owner, type, data, nowMs)),
        treasuryDue: async (chainId) => void (await tx.query(`SELECT pg_notify('treasury_due', $1)`, [String(chainId)])),
        swaps: {
          lock: (id, owner) => swaps.lock(tx, id, owner),
          pending: (id) => swaps.pending(tx, id, nowMs),
          completed: (id, out, fee, block) => swaps.completed(tx, id, out, fee, nowMs, block ?? null),
          failed: (id, failure) => swaps.failed(tx, id, failure, nowMs),
          reopened: (id, approveRound) => swaps.reopened(tx, id, approveRound, nowMs),
          unsentTimes: (id) => swaps.unsentTimes(tx, id),
        },
        withdrawals: {
          limit: async (owner) => (await withdrawals.withdrawalLimit(owner, tx)).daily,
          spentSince: (owner, sinceMs) => withdrawals.spentSince(tx, owner, sinceMs),
          insert: (owner, id, request, usdCents) => withdrawals.insert(tx, owner, id, request, usdCents, nowMs),
          lock: (id) => withdrawals.lock(tx, id),
          completed: (id, block) => withdrawals.completed(tx, id, nowMs, block ?? null),
          failed: (id, failure) => withdrawals.failed(tx, id, failure, nowMs),
          reopened: (id) => withdrawals.reopened(tx, id, nowMs),
          unsentTimes: (id) => withdrawals.unsentTimes(tx, id),
          followed: (send) => withdrawals.followed(tx, send, nowMs),
        },
      }),
    );
  }
}
