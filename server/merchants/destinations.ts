// Where a live key's money may go that it did not go before: a new payout address, a new bank
// account or new bank details, a wallet never withdrawn to. Each waits the operator's delay as a
// change, the owner told at once by an event and free to cancel it, so a stolen key cannot
// redirect income or empty a balance before anyone can see it. Test keys' changes apply at once.
// A change due is applied the next time the account's destinations are read
// (storage/destination-changes.ts). Each change in one transaction opened here, under the
// merchant's lock; the SQL is the destinations' store's (merchants/destination-store.ts).
import type { Account } from '../domain/account.ts';
import { NotFound } from '../domain/errors.ts';
import { auditedTransaction } from '../storage/audit.ts';
import { notifyAccountChange } from '../storage/account-cache.ts';
import type { Database, Sql } from '../storage/db.ts';
import { applyDue, dropUnpaidBankAccount, lockMerchant } from '../storage/destination-changes.ts';
import type { EventStore } from '../storage/events.ts';
import type { WithdrawalStore } from '../balances/withdrawal-store.ts';
import type { DestinationChange, DestinationStore, NewChange } from './destination-store.ts';
import { changeView } from './destination-views.ts';

type Owner = Pick<Account, 'merchant' | 'mode'>;

const EVENT = { payout_address: 'PAYOUT_ADDRESS_PENDING', bank_account: 'BANK_ACCOUNT_PENDING', withdrawal_address: 'WITHDRAWAL_ADDRESS_PENDING' } as const;

export class Destinations {
  /** `delayMs`: how long a live key's new destination waits (NEW_DESTINATION_DELAY_SECONDS; 0: none). */
  constructor(
    private readonly db: Database,
    private readonly store: DestinationStore,
    private readonly events: Pick<EventStore, 'add'>,
    readonly delayMs: number,
    /** Told a merchant's payout address or its waiting change moved, once committed (the account cache; other instances hear the NOTIFY). */
    private readonly changed: (merchantId: string) => void,
    /** The withdrawals' store: whether a wallet was withdrawn to before, asked in this transaction. */
    private readonly withdrawals: Pick<WithdrawalStore, 'withdrewTo'>,
  ) {}

  /** Whether a change by this account waits: live keys, when the operator set a delay. */
  waits(account: Owner): boolean {
    return account.mode === 'live' && this.delayMs > 0;
  }

  /** Records a change, pending for the delay, and tells the owner (its event) in the caller's transaction. */
  async record(tx: Sql, account: Owner, change: NewChange, nowMs: number): Promise<DestinationChange> {
    const recorded = await this.store.insert(tx, account, change, nowMs, nowMs + this.delayMs);
    await this.events.add(tx, account, EVENT[change.kind], changeView(recorded), nowMs);
    return recorded;
  }

  /**
   * A chain's new payout address. Test keys, or no delay: in effect now. Live keys: pending for
   * the delay, told by its event (and e-mail), the old one used until then; the chain's first
   * address too (a stolen key naming it would be paid every live payment from then on,
   * unseen; until it takes effect the chain takes no live payment). Asking again for the address
   * already pending answers that change (its clock is not restarted), and a later request
   * replaces an earlier one still pending. Asking for the address in effect withdraws any
   * pending change.
   */
  async setPayoutAddress(account: Owner, chainId: number, address: string, nowMs: number): Promise<{ effectiveMs: number; change?: DestinationChange }> {
    const { store } = this;
    await applyDue(this.db, account.merchant.id, account.mode, nowMs);
    const outcome = await auditedTransaction(this.db, async (tx) => {
      await lockMerchant(tx, account.merchant.id);
      const current = await store.payoutAddress(tx, account, chainId);
      const pending = await store.pendingPayoutAddresses(tx, account, chainId);
      const same = pending.find((c) => c.address!.toLowerCase() === address.toLowerCase());
      if (same && this.waits(account)) return { effectiveMs: same.effectiveMs, change: same };
      // The address, or when it changes, is what every instance's account cache keeps.
      await notifyAccountChange(tx, account.merchant.id);
      if (pending.length)
        await store.cancelAll(
          tx,
          pending.map((c) => c.id),
          nowMs,
        );
      const unchanged = current !== undefined && current.toLowerCase() === address.toLowerCase();
      if (!this.waits(account) || unchanged) {
        await store.setPayoutAddress(tx, account, chainId, address);
        return { effectiveMs: nowMs };
      }
      const change = await this.record(tx, account, { kind: 'payout_address', chainId, address }, nowMs);
      return { effectiveMs: change.effectiveMs, change };
    });
    this.changed(account.merchant.id);
    return outcome;
  }

  /**
   * Whether a live key may withdraw to `address` on `chainId` now: yes when the merchant has
   * withdrawn there before (in this mode) or registered it at least the delay ago. A wallet
   * never used is registered now (pending, the owner told) and the answer is the change: the
   * caller refuses the withdrawal, naming when the wallet can receive. Asking again while it
   * waits answers the same change, and tells no one twice.
   */
  async withdrawalAddress(
    account: Owner,
    chainId: number,
    address: string,
    nowMs: number,
  ): Promise<{ ready: true } | { ready: false; change: DestinationChange }> {
    if (!this.waits(account)) return { ready: true };
    return this.db.transaction(async (tx) => {
      await lockMerchant(tx, account.merchant.id);
      // A refund's withdrawal does not make its address the merchant's: a customer's claimed
      // address never waited the delay, so it must not let a withdrawal skip it.
      if (await this.withdrawals.withdrewTo(tx, account, chainId, address)) return { ready: true } as const;
      const registered = await this.store.registeredWallet(tx, account, chainId, address);
      if (registered) return registered.effectiveMs <= nowMs ? ({ ready: true } as const) : { ready: false as const, change: registered };
      return { ready: false as const, change: await this.record(tx, account, { kind: 'withdrawal_address', chainId, address }, nowMs) };
    });
  }

  /** The account's changes still waiting, oldest first (those due are applied first). */
  async pending(account: Owner, nowMs: number): Promise<DestinationChange[]> {
    await applyDue(this.db, account.merchant.id, account.mode, nowMs);
    return this.store.pending(account);
  }

  /** The pending change of new details for a bank account, if any. */
  pendingBankDetails(account: Owner, bankAccountId: string, sql?: Sql): Promise<DestinationChange | undefined> {
    return this.store.pendingBankDetails(account, bankAccountId, sql);
  }

  /**
   * The owner calls a change off before it takes effect: a payout address or bank details are
   * never applied, a wallet is never registered, a new bank account is deleted (no payout can
   * have been made to it). A change applied, cancelled or another account's: 404.
   */
  async cancel(account: Owner, id: string, nowMs: number): Promise<DestinationChange> {
    const { store } = this;
    await applyDue(this.db, account.merchant.id, account.mode, nowMs);
    const cancelled = await auditedTransaction(this.db, async (tx) => {
      await lockMerchant(tx, account.merchant.id);
      const change = await store.cancel(tx, account, id, nowMs);
      if (!change) throw new NotFound(`No change waiting with id ${id.slice(0, 60)} (it may have taken effect already, or been cancelled)`);
      if (change.kind === 'payout_address') await notifyAccountChange(tx, account.merchant.id);
      if (change.kind === 'bank_account' && !change.fields) {
        await store.cancelBankAccount(tx, change.bankAccountId, nowMs);
        await dropUnpaidBankAccount(tx, change.bankAccountId, account.merchant.id, account.mode);
      }
      return change;
    });
    if (cancelled.kind === 'payout_address') this.changed(account.merchant.id);
    return cancelled;
  }
}
