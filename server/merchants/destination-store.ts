// Where a live key's money may go that it did not go before: a new payout address, a new bank
// account or new bank details, a wallet never withdrawn to. Each waits the operator's delay as a
// change (destination_changes), the owner told at once by an event and free to cancel it, so a
// stolen key cannot redirect income or empty a balance before anyone can see it. Test keys'
// changes apply at once. A change due is applied the next time the account's destinations are read
// (storage/destination-changes.ts, which the merchants' and the payouts' stores call too).
import { randomUUID } from 'node:crypto';
import type { Account } from '../domain/account.ts';
import { NotFound } from '../domain/errors.ts';
import type { Fields } from '../payouts/rules.ts';
import { auditedTransaction } from '../storage/audit.ts';
import type { Database, Sql } from '../storage/db.ts';
import { applyDue, changeOf, dropUnpaidBankAccount, lockMerchant } from '../storage/destination-changes.ts';
import type { WithdrawalStore } from '../balances/withdrawal-store.ts';
import { notifyAccountChange } from '../storage/account-cache.ts';
import { changeView, type DestinationChange, type DestinationKind } from './destination-views.ts';

export type { DestinationChange, DestinationKind } from './destination-views.ts';
import type { EventStore } from '../storage/events.ts';

type Owner = Pick<Account, 'merchant' | 'mode'>;

const EVENT = { payout_address: 'PAYOUT_ADDRESS_PENDING', bank_account: 'BANK_ACCOUNT_PENDING', withdrawal_address: 'WITHDRAWAL_ADDRESS_PENDING' } as const;

export class DestinationStore {
  /** `delayMs`: how long a live key's new destination waits (NEW_DESTINATION_DELAY_SECONDS; 0: none). */
  constructor(
    private readonly db: Database,
    private readonly events: EventStore,
    readonly delayMs: number,
    /** Told a merchant's payout address or its waiting change moved, once committed (the account cache; other instances hear the NOTIFY). */
    private readonly changed: (merchantId: string) => void,
    /** The withdrawals' store: whether a wallet was withdrawn to before, asked in this store's transaction. */
    private readonly withdrawals: Pick<WithdrawalStore, 'withdrewTo'>,
  ) {}

  /** Whether a change by this account waits: live keys, when the operator set a delay. */
  waits(account: Owner): boolean {
    return account.mode === 'live' && this.delayMs > 0;
  }

  /** Records a change, pending for the delay, and tells the owner (its event) in the same transaction. */
  async record(
    tx: Sql,
    account: Owner,
    change: { kind: DestinationKind; chainId?: number; address?: string; bankAccountId?: string; fields?: Fields },
    nowMs: number,
  ): Promise<DestinationChange> {
    const [row] = await tx.query(
      `INSERT INTO destination_changes (id, merchant_id, mode, kind, chain_id, address, bank_account_id, fields, state, requested_ms, effective_ms)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'pending', $9, $10) RETURNING *`,
      [
        randomUUID(),
        account.merchant.id,
        account.mode,
        change.kind,
        change.chainId ?? null,
        change.address ?? null,
        change.bankAccountId ?? null,
        change.fields ? JSON.stringify(change.fields) : null,
        nowMs,
        nowMs + this.delayMs,
      ],
    );
    const recorded = changeOf(row);
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
    await applyDue(this.db, account.merchant.id, account.mode, nowMs);
    const outcome = await auditedTransaction(this.db, async (tx) => {
      await lockMerchant(tx, account.merchant.id);
      const [current] = await tx.query('SELECT address FROM payout_addresses WHERE merchant_id = $1 AND mode = $2 AND chain_id = $3', [
        account.merchant.id,
        account.mode,
        chainId,
      ]);
      const pending = (
        await tx.query(
          `SELECT * FROM destination_changes WHERE merchant_id = $1 AND mode = $2 AND kind = 'payout_address' AND chain_id = $3 AND state = 'pending'`,
          [account.merchant.id, account.mode, chainId],
        )
      ).map(changeOf);
      const same = pending.find((c) => c.address!.toLowerCase() === address.toLowerCase());
      if (same && this.waits(account)) return { effectiveMs: same.effectiveMs, change: same };
      // The address, or when it changes, is what every instance's account cache keeps.
      await notifyAccountChange(tx, account.merchant.id);
      if (pending.length) {
        await tx.query(`UPDATE destination_changes SET state = 'cancelled', decided_ms = $2 WHERE id = ANY($1::uuid[])`, [pending.map((c) => c.id), nowMs]);
      }
      const unchanged = current && (current.address as string).toLowerCase() === address.toLowerCase();
      if (!this.waits(account) || unchanged) {
        await tx.query(
          `INSERT INTO payout_addresses (merchant_id, mode, chain_id, address) VALUES ($1, $2, $3, $4) ON CONFLICT (merchant_id, mode, chain_id) DO UPDATE SET address = $4`,
          [account.merchant.id, account.mode, chainId, address],
        );
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
      const [registered] = await tx.query(
        `SELECT * FROM destination_changes WHERE merchant_id = $1 AND mode = $2 AND kind = 'withdrawal_address' AND chain_id = $3 AND lower(address) = lower($4) AND state IN ('pending', 'applied')
          ORDER BY effective_ms LIMIT 1`,
        [account.merchant.id, account.mode, chainId, address],
      );
      if (registered) {
        const change = changeOf(registered);
        return change.effectiveMs <= nowMs ? ({ ready: true } as const) : { ready: false as const, change };
      }
      return { ready: false as const, change: await this.record(tx, account, { kind: 'withdrawal_address', chainId, address }, nowMs) };
    });
  }

  /** The account's changes still waiting, oldest first (those due are applied first). */
  async pending(account: Owner, nowMs: number): Promise<DestinationChange[]> {
    await applyDue(this.db, account.merchant.id, account.mode, nowMs);
    const rows = await this.db.query(`SELECT * FROM destination_changes WHERE merchant_id = $1 AND mode = $2 AND state = 'pending' ORDER BY requested_ms, id`, [
      account.merchant.id,
      account.mode,
    ]);
    return rows.map(changeOf);
  }

  /** The pending change of new details for a bank account, if any. */
  async pendingBankDetails(account: Owner, bankAccountId: string, sql: Sql = this.db): Promise<DestinationChange | undefined> {
    const [row] = await sql.query(
      `SELECT * FROM destination_changes WHERE merchant_id = $1 AND mode = $2 AND kind = 'bank_account' AND bank_account_id = $3 AND fields IS NOT NULL AND state = 'pending'
        ORDER BY requested_ms DESC LIMIT 1`,
      [account.merchant.id, account.mode, bankAccountId],
    );
    return row && changeOf(row);
  }

  /**
   * The owner calls a change off before it takes effect: a payout address or bank details are
   * never applied, a wallet is never registered, a new bank account is deleted (no payout can
   * have been made to it). A change applied, cancelled or another account's: 404.
   */
  async cancel(account: Owner, id: string, nowMs: number): Promise<DestinationChange> {
    await applyDue(this.db, account.merchant.id, account.mode, nowMs);
    const cancelled = await auditedTransaction(this.db, async (tx) => {
      await lockMerchant(tx, account.merchant.id);
      const [row] = await tx.query(
        `UPDATE destination_changes SET state = 'cancelled', decided_ms = $4 WHERE merchant_id = $1 AND mode = $2 AND id::text = $3 AND state = 'pending' RETURNING *`,
        [account.merchant.id, account.mode, id, nowMs],
      );
      if (!row) throw new NotFound(`No change waiting with id ${id.slice(0, 60)} (it may have taken effect already, or been cancelled)`);
      const change = changeOf(row);
      if (change.kind === 'payout_address') await notifyAccountChange(tx, account.merchant.id);
      if (change.kind === 'bank_account' && !change.fields) {
        await tx.query(`UPDATE destination_changes SET state = 'cancelled', decided_ms = $2 WHERE bank_account_id = $1 AND state = 'pending'`, [
          change.bankAccountId,
          nowMs,
        ]);
        await dropUnpaidBankAccount(tx, change.bankAccountId, account.merchant.id, account.mode);
      }
      return change;
    });
    if (cancelled.kind === 'payout_address') this.changed(account.merchant.id);
    return cancelled;
  }
}
