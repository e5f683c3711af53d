// A merchant's bank accounts as it changes them, each in one transaction opened here under the
// merchant's balance lock (so a payout being initiated sees the account before or after, never
// half): the first one, or one asked to be, the default; a live key's new account, or new
// details of one, paid to only after the operator's delay (a destination change recorded, the
// owner told and free to cancel it); deleting several is all or nothing. The SQL is the owners'
// stores' (payouts/store.ts, the journal's lock, the destinations').
import type { PayoutCurrency } from '../../contract/payouts.ts';
import type { Account } from '../domain/account.ts';
import { auditedTransaction } from '../storage/audit.ts';
import type { Database } from '../storage/db.ts';
import type { JournalStore } from '../balances/journal-store.ts';
import type { Destinations } from '../merchants/destinations.ts';
import type { BankAccount, Fields } from './rules.ts';
import type { PayoutStore } from './store.ts';

export class BankAccounts {
  constructor(
    private readonly db: Database,
    private readonly stores: {
      payouts: Pick<PayoutStore, 'bankCount' | 'clearDefault' | 'insertBank' | 'setBank' | 'deleteBanks' | 'bank'>;
      journal: Pick<JournalStore, 'lock'>;
      /** A live key's new account or new details wait the operator's delay. */
      destinations: Pick<Destinations, 'waits' | 'record' | 'delayMs'>;
    },
  ) {}

  async add(account: Account, currency: PayoutCurrency, fields: Fields, isDefault: boolean | undefined, nowMs: number): Promise<BankAccount> {
    const { payouts, journal, destinations } = this.stores;
    return auditedTransaction(this.db, async (tx) => {
      await journal.lock(tx, account);
      const makeDefault = isDefault ?? (await payouts.bankCount(tx, account)) === 0;
      if (makeDefault) await payouts.clearDefault(tx, account);
      const waits = destinations.waits(account);
      const bank = await payouts.insertBank(
        tx,
        account,
        { currency, fields, isDefault: makeDefault, effectiveMs: waits ? nowMs + destinations.delayMs : nowMs },
        nowMs,
      );
      // A live key's new account is paid to only after the delay; the owner is told now and may cancel it.
      if (waits) await destinations.record(tx, account, { kind: 'bank_account', bankAccountId: bank.id }, nowMs);
      return bank;
    });
  }

  async update(account: Account, id: string, fields: Fields, makeDefault: boolean, nowMs: number): Promise<BankAccount> {
    const { payouts, journal, destinations } = this.stores;
    return auditedTransaction(this.db, async (tx) => {
      await journal.lock(tx, account);
      const { id: _i, currency: _c, default: _d, createdAt: _ca, updatedAt: _u, effectiveAt: _e, ...current } = await payouts.bank(account, id, tx);
      if (makeDefault) await payouts.clearDefault(tx, account);
      // A live key's new details wait the delay (the owner told, free to cancel); payouts go to the details in effect till then.
      const same =
        JSON.stringify(Object.entries(current).sort()) ===
        JSON.stringify(
          Object.entries(fields)
            .filter(([, v]) => v !== undefined)
            .sort(),
        );
      const waits = !same && destinations.waits(account);
      if (waits) await destinations.record(tx, account, { kind: 'bank_account', bankAccountId: id, fields }, nowMs);
      return payouts.setBank(tx, id, { fields, makeDefault, waits }, nowMs);
    });
  }

  /** All or nothing: an unknown id deletes none. */
  async delete(account: Account, ids: string[]): Promise<string[]> {
    const { payouts } = this.stores;
    return auditedTransaction(this.db, async (tx) => {
      for (const id of ids) await payouts.bank(account, id, tx);
      await payouts.deleteBanks(tx, account, ids);
      return ids;
    });
  }
}
