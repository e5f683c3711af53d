// The waiting changes of where a live key's money goes (destination_changes: payout addresses,
// bank accounts, withdrawal wallets), applied when due: the port the merchants', the payouts' and
// the destinations' stores share, so none imports another's. Each table through its owner's store.
import type { Database } from './db.ts';
import { notifyAccountChange } from './account-cache.ts';
import { anyDue, changeOf, putPayoutAddress, takeDue } from '../merchants/change-store.ts';
import { setBankFields } from '../payouts/bank-store.ts';

// A new bank account whose change is cancelled is dropped in the cancel's transaction (merchants/destination-store.ts).
export { dropUnpaidBankAccount } from '../payouts/bank-store.ts';

export { changeOf };
// One writer at a time per merchant: two requests at once cannot both see "no change yet".
export { lockMerchant } from '../merchants/account-store.ts';

/**
 * Applies the account's changes whose time has come: a payout address replaces the chain's,
 * new bank details replace the account's; a new bank account or wallet is then simply in effect.
 * Cheap when nothing is due (one indexed look); safe twice at once (a row is applied once).
 */
export async function applyDue(db: Database, merchantId: string, mode: string, nowMs: number): Promise<void> {
  if (!(await anyDue(db, merchantId, mode, nowMs))) return;
  await db.transaction(async (tx) => {
    for (const change of await takeDue(tx, merchantId, mode, nowMs)) {
      if (change.kind === 'payout_address') {
        // Every instance's account cache let its copy lapse at this change's time; this tells them anyway.
        await notifyAccountChange(tx, merchantId);
        await putPayoutAddress(tx, merchantId, mode, change.chainId, change.address);
      } else if (change.kind === 'bank_account' && change.fields) {
        await setBankFields(tx, change.bankAccountId, change.fields, change.effectiveMs);
      }
    }
  });
}
