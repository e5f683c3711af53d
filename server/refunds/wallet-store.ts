// Refunds on `wallet` settlement as rows: where the service looks on chain for the
// merchant's transfer, and the transfer that paid each (one transaction pays one refund only:
// refund_transfers' unique index, and a lock on the hash while it is checked). SQL only; the writes
// take the transaction the wallet refund use cases open (refunds/wallet.ts).
import type { Account } from '../domain/account.ts';
import type { StoredRefund } from './rules.ts';
import type { Database, Sql } from '../storage/db.ts';
import type { PaymentStore } from '../payments/store.ts';
import { refundOf } from './store.ts';

type Owner = Pick<Account, 'merchant' | 'mode'>;

/** A wallet refund the watcher follows: ready (its address known) or sent, and where its scan stands. */
export interface WatchedRefund {
  refund: StoredRefund;
  /** The next block to look for its transfer from; null until the watcher first saw it. */
  scanFrom: bigint | null;
  /** The block of the transaction that paid it, once sent. */
  block: bigint | null;
}

export class WalletRefundStore {
  constructor(
    private readonly db: Database,
    private readonly payments: Pick<PaymentStore, 'settlementOf'>,
  ) {}

  /** How the owner's payment of this reference settles (undefined: no such payment). */
  settlementOf(owner: Owner, reference: string): Promise<'wallet' | 'balance' | undefined> {
    return this.payments.settlementOf(this.db, owner, reference);
  }

  /** Wallet refunds ready with an address or sent, oldest first, with their scan's place. */
  async watched(limit: number): Promise<WatchedRefund[]> {
    const rows = await this.db.query(
      `SELECT r.*, t.scan_from::text AS t_scan_from, t.block_number::text AS t_block FROM refunds r LEFT JOIN refund_transfers t ON t.refund_id = r.id
        WHERE r.settlement = 'wallet' AND r.state IN ('ready', 'sent') AND r.address IS NOT NULL ORDER BY r.created_ms, r.id LIMIT ${Number(limit)}`,
    );
    return rows.map((r) => ({
      refund: refundOf(r),
      scanFrom: r.t_scan_from == null ? null : BigInt(r.t_scan_from as string),
      block: r.t_block == null ? null : BigInt(r.t_block as string),
    }));
  }

  /** Where the watcher looks next for a refund's transfer (its first sight writes the row). */
  async scanned(refundId: string, chainId: number, scanFrom: bigint, nowMs: number): Promise<void> {
    await this.db.query(
      `INSERT INTO refund_transfers (refund_id, chain_id, scan_from, updated_ms) VALUES ($1, $2, $3, $4)
        ON CONFLICT (refund_id) DO UPDATE SET scan_from = $3, updated_ms = $4 WHERE refund_transfers.tx_hash IS NULL`,
      [refundId, chainId, String(scanFrom), nowMs],
    );
  }

  /** Whether a refund other than `refundId` is paid by this transaction (any settlement: the treasury's too). Holds the hash's lock until the caller's transaction ends. */
  async used(tx: Sql, chainId: number, txHash: string, refundId: string): Promise<boolean> {
    // Two refunds offered one hash at once (on any instance) are checked one after the other.
    await tx.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`refund-tx:${chainId}:${txHash.toLowerCase()}`]);
    const [row] = await tx.query(
      `SELECT 1 FROM refunds WHERE chain_id = $1 AND lower(tx_hash) = $2 AND id <> $3
       UNION ALL SELECT 1 FROM refund_transfers WHERE chain_id = $1 AND tx_hash = $2 AND refund_id <> $3 LIMIT 1`,
      [chainId, txHash.toLowerCase(), refundId],
    );
    return Boolean(row);
  }

  /** A ready refund paid by this transaction (in `block`): sent. */
  async paid(tx: Sql, id: string, chainId: number, txHash: string, block: bigint, foundBy: 'watcher' | 'merchant', nowMs: number): Promise<StoredRefund> {
    await tx.query(
      `INSERT INTO refund_transfers (refund_id, chain_id, scan_from, tx_hash, block_number, found_by, updated_ms) VALUES ($1, $2, $4, $3, $4, $5, $6)
        ON CONFLICT (refund_id) DO UPDATE SET tx_hash = $3, block_number = $4, found_by = $5, updated_ms = $6`,
      [id, chainId, txHash.toLowerCase(), String(block), foundBy, nowMs],
    );
    const [row] = await tx.query(
      `UPDATE refunds SET state = 'sent', tx_hash = $2, failure = NULL, updated_ms = $3 WHERE id = $1 AND state = 'ready' RETURNING *`,
      [id, txHash.toLowerCase(), nowMs],
    );
    return refundOf(row!);
  }

  /** A sent refund whose transaction has its confirmations: confirmed. */
  async confirmed(tx: Sql, id: string, nowMs: number): Promise<StoredRefund> {
    const [row] = await tx.query(`UPDATE refunds SET state = 'confirmed', updated_ms = $2 WHERE id = $1 AND state = 'sent' RETURNING *`, [id, nowMs]);
    return refundOf(row!);
  }

  /** A sent refund whose transaction is gone from the chain (reorganised away) or failed: ready again, looked for from `scanFrom`. */
  async unpaid(tx: Sql, id: string, scanFrom: bigint, nowMs: number): Promise<StoredRefund> {
    await tx.query(`UPDATE refund_transfers SET tx_hash = NULL, block_number = NULL, found_by = NULL, scan_from = $2, updated_ms = $3 WHERE refund_id = $1`, [
      id,
      String(scanFrom),
      nowMs,
    ]);
    const [row] = await tx.query(`UPDATE refunds SET state = 'ready', tx_hash = NULL, updated_ms = $2 WHERE id = $1 AND state = 'sent' RETURNING *`, [
      id,
      nowMs,
    ]);
    return refundOf(row!);
  }
}
