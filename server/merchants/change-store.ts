// The waiting changes of where a live key's money goes (destination_changes) and the payout
// addresses they replace, as storage/destination-changes.ts applies them when due, in its
// transaction (the bank details a change replaces are the payouts' rows: payouts/bank-store.ts).
import type { Fields } from '../payouts/rules.ts';
import type { DestinationChange, DestinationKind } from './destination-views.ts';
import type { Row, Sql } from '../storage/db.ts';

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

/** Whether the account has a change whose time has come (one indexed look). */
export async function anyDue(sql: Sql, merchantId: string, mode: string, nowMs: number): Promise<boolean> {
  const [due] = await sql.query(`SELECT 1 FROM destination_changes WHERE merchant_id = $1 AND mode = $2 AND state = 'pending' AND effective_ms <= $3 LIMIT 1`, [
    merchantId,
    mode,
    nowMs,
  ]);
  return due !== undefined;
}

/** The account's changes whose time has come, marked applied (each once, whoever asks at once), oldest request first. */
export async function takeDue(tx: Sql, merchantId: string, mode: string, nowMs: number): Promise<DestinationChange[]> {
  const rows = await tx.query(
    `UPDATE destination_changes SET state = 'applied', decided_ms = $3 WHERE merchant_id = $1 AND mode = $2 AND state = 'pending' AND effective_ms <= $3 RETURNING *`,
    [merchantId, mode, nowMs],
  );
  return rows.map(changeOf).sort((a, b) => a.requestedMs - b.requestedMs);
}

/** The chain's payout address is now `address`. */
export async function putPayoutAddress(tx: Sql, merchantId: string, mode: string, chainId: number | null, address: string | null): Promise<void> {
  await tx.query(
    `INSERT INTO payout_addresses (merchant_id, mode, chain_id, address) VALUES ($1, $2, $3, $4) ON CONFLICT (merchant_id, mode, chain_id) DO UPDATE SET address = $4`,
    [merchantId, mode, chainId, address],
  );
}
