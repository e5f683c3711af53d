// Where a live key's money may go that it did not go before, as rows: the destination changes
// waiting the operator's delay, and the payout addresses in effect. SQL only; the rules and the
// transactions are merchants/destinations.ts's (a change due is applied the next time the
// account's destinations are read: storage/destination-changes.ts).
import { randomUUID } from 'node:crypto';
import type { Account } from '../domain/account.ts';
import type { Fields } from '../payouts/rules.ts';
import type { Database, Sql } from '../storage/db.ts';
import { changeOf } from '../storage/destination-changes.ts';
import type { DestinationChange, DestinationKind } from './destination-views.ts';

export type { DestinationChange, DestinationKind } from './destination-views.ts';

type Owner = Pick<Account, 'merchant' | 'mode'>;

/** A change as it is asked for: what it is and where it sends money. */
export interface NewChange {
  kind: DestinationKind;
  chainId?: number;
  address?: string;
  bankAccountId?: string;
  fields?: Fields;
}

export class DestinationStore {
  constructor(private readonly db: Database) {}

  /** A change recorded, pending until `effectiveMs`. */
  async insert(tx: Sql, account: Owner, change: NewChange, nowMs: number, effectiveMs: number): Promise<DestinationChange> {
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
        effectiveMs,
      ],
    );
    return changeOf(row!);
  }

  /** The chain's payout address in effect, if any. */
  async payoutAddress(tx: Sql, account: Owner, chainId: number): Promise<string | undefined> {
    const [row] = await tx.query('SELECT address FROM payout_addresses WHERE merchant_id = $1 AND mode = $2 AND chain_id = $3', [
      account.merchant.id,
      account.mode,
      chainId,
    ]);
    return row?.address as string | undefined;
  }

  /** The chain's payout address changes still pending. */
  async pendingPayoutAddresses(tx: Sql, account: Owner, chainId: number): Promise<DestinationChange[]> {
    const rows = await tx.query(
      `SELECT * FROM destination_changes WHERE merchant_id = $1 AND mode = $2 AND kind = 'payout_address' AND chain_id = $3 AND state = 'pending'`,
      [account.merchant.id, account.mode, chainId],
    );
    return rows.map(changeOf);
  }

  /** These changes called off. */
  async cancelAll(tx: Sql, ids: string[], nowMs: number): Promise<void> {
    await tx.query(`UPDATE destination_changes SET state = 'cancelled', decided_ms = $2 WHERE id = ANY($1::uuid[])`, [ids, nowMs]);
  }

  /** The chain's payout address in effect from now. */
  async setPayoutAddress(tx: Sql, account: Owner, chainId: number, address: string): Promise<void> {
    await tx.query(
      `INSERT INTO payout_addresses (merchant_id, mode, chain_id, address) VALUES ($1, $2, $3, $4) ON CONFLICT (merchant_id, mode, chain_id) DO UPDATE SET address = $4`,
      [account.merchant.id, account.mode, chainId, address],
    );
  }

  /** A wallet registered to withdraw to (pending or applied), the one that takes effect first. */
  async registeredWallet(tx: Sql, account: Owner, chainId: number, address: string): Promise<DestinationChange | undefined> {
    const [row] = await tx.query(
      `SELECT * FROM destination_changes WHERE merchant_id = $1 AND mode = $2 AND kind = 'withdrawal_address' AND chain_id = $3 AND lower(address) = lower($4) AND state IN ('pending', 'applied')
        ORDER BY effective_ms LIMIT 1`,
      [account.merchant.id, account.mode, chainId, address],
    );
    return row && changeOf(row);
  }

  /** The account's changes still waiting, oldest first. */
  async pending(account: Owner): Promise<DestinationChange[]> {
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

  /** The account's pending change called off (undefined: none pending by that id). */
  async cancel(tx: Sql, account: Owner, id: string, nowMs: number): Promise<DestinationChange | undefined> {
    const [row] = await tx.query(
      `UPDATE destination_changes SET state = 'cancelled', decided_ms = $4 WHERE merchant_id = $1 AND mode = $2 AND id::text = $3 AND state = 'pending' RETURNING *`,
      [account.merchant.id, account.mode, id, nowMs],
    );
    return row && changeOf(row);
  }

  /** Every pending change about a bank account called off (its new details, once the account itself is). */
  async cancelBankAccount(tx: Sql, bankAccountId: string | null, nowMs: number): Promise<void> {
    await tx.query(`UPDATE destination_changes SET state = 'cancelled', decided_ms = $2 WHERE bank_account_id = $1 AND state = 'pending'`, [
      bankAccountId,
      nowMs,
    ]);
  }
}
