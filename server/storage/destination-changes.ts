// The waiting changes of where a live key's money goes (destination_changes: payout addresses,
// bank accounts, withdrawal wallets), applied when due: the port the merchants', the payouts' and
// the destinations' stores share, so none imports another's. SQL only.
import type { Fields } from '../payouts/rules.ts';
import type { DestinationChange, DestinationKind } from '../merchants/destination-views.ts';
import type { Database, Row, Sql } from './db.ts';
import { notifyAccountChange } from './account-cache.ts';

export const changeOf = (r: Row): DestinationChange => ({
  id: r.id as string,
  kind: r.kind as DestinationKind,
  state: r.state as DestinationChange['state'],
  chainId: r.chain_id === null ? null : Number(r.chain_id),
  address: (r.address as string | null) ?? null,
  bankAccountId: (r.bank_account_id as string | null) ?? null,
  fields: (r.fields as Fields | null) ?? null,
  requestedMs: Number(r.requested_ms),
  effectiveMs: Number(r.effective_ms),
});

/** One writer at a time per merchant: two requests at once cannot both see "no change yet". */
export const lockMerchant = (tx: Sql, merchantId: string) => tx.query('SELECT id FROM merchants WHERE id = $1 FOR UPDATE', [merchantId]);

/**
 * Applies the account's changes whose time has come: a payout address replaces the chain's,
 * new bank details replace the account's; a new bank account or wallet is then simply in effect.
 * Cheap when nothing is due (one indexed look); safe twice at once (a row is applied once).
 */
export async function applyDue(db: Database, merchantId: string, mode: string, nowMs: number): Promise<void> {
  const [due] = await db.query(`SELECT 1 FROM destination_changes WHERE merchant_id = $1 AND mode = $2 AND state = 'pending' AND effective_ms <= $3 LIMIT 1`, [
    merchantId,
    mode,
    nowMs,
  ]);
  if (!due) return;
  await db.transaction(async (tx) => {
    const rows = await tx.query(
      `UPDATE destination_changes SET state = 'applied', decided_ms = $3 WHERE merchant_id = $1 AND mode = $2 AND state = 'pending' AND effective_ms <= $3 RETURNING *`,
      [merchantId, mode, nowMs],
    );
    for (const change of rows.map(changeOf).sort((a, b) => a.requestedMs - b.requestedMs)) {
      if (change.kind === 'payout_address') {
        // Every instance's account cache let its copy lapse at this change's time; this tells them anyway.
        await notifyAccountChange(tx, merchantId);
        await tx.query(
          `INSERT INTO payout_addresses (merchant_id, mode, chain_id, address) VALUES ($1, $2, $3, $4) ON CONFLICT (merchant_id, mode, chain_id) DO UPDATE SET address = $4`,
          [merchantId, mode, change.chainId, change.address],
        );
      } else if (change.kind === 'bank_account' && change.fields) {
        await tx.query('UPDATE bank_accounts SET fields = $2, updated_ms = $3 WHERE id = $1', [
          change.bankAccountId,
          JSON.stringify(change.fields),
          change.effectiveMs,
        ]);
      }
    }
  });
}
