// What other features ask of the chain's transfers (chain_transfers): reads and writes that take
// the caller's transaction, and SQL fragments for the queries whose point is a join with their
// own tables (a list filtered across both). Handed to them as a port (ChainStore.views), so the
// table's name is written only in chain/. SQL only.
import type { Row, Sql } from '../storage/db.ts';
import type { OpenTransfer } from '../payments/attention-rules.ts';
import type { CreditTerms } from '../payments/credit-rules.ts';

/** A transfer the chain saw to a payment, as its timeline shows it. */
export interface PaymentTransfer {
  txHash: string;
  logIndex: number;
  amount: bigint;
  state: string;
  chainId: number;
  token: string;
  seenMs: number;
  blockNumber: number;
  sweptHash: string | null;
  /** When its sweep was mined (its block's time, epoch ms); null: not swept, or swept before the time was kept. */
  sweptMs: number | null;
}

/** A transfer credited toward its payment at a rate, with when its case was resolved. */
export type CreditedTransfer = OpenTransfer & CreditTerms & { resolvedMs: number };

/** The key of one transfer on a chain. */
type Key = Pick<OpenTransfer, 'chainId' | 'txHash' | 'logIndex'>;

const openOf = (r: Row): OpenTransfer => ({
  chainId: Number(r.chain_id),
  txHash: r.tx_hash as string,
  logIndex: Number(r.log_index),
  token: (r.token as string).toLowerCase(),
  amount: BigInt(r.amount as string),
  state: r.state as OpenTransfer['state'],
  seenMs: Number(r.seen_ms),
});

/** Transfers that could not count (late, another token), told to the merchant (deep enough), not resolved: a payment's case (payments/attention-rules.ts). */
const OPEN = (t: string) => `${t}.state IN ('late', 'unexpected') AND ${t}.told_ms IS NOT NULL AND ${t}.resolution IS NULL`;
/** A transfer's columns another feature's join reads: where it was seen, what it moved to which payment, and its sweep. */
const TRANSFER_COLUMNS =
  'chain_id, tx_hash, log_index, block_number, block_hash, token, recipient, amount, payment_id, state, swept_hash, swept_received, sweep_final';

const keys = (transfers: Key[]) => [transfers.map((t) => t.chainId), transfers.map((t) => t.txHash), transfers.map((t) => t.logIndex)];
const MATCH = `(chain_id, tx_hash, log_index) IN (SELECT * FROM unnest($1::int[], $2::text[], $3::int[]))`;

export const transferViews = {
  /** SQL: the transfers as a derived table named `alias` (TRANSFER_COLUMNS), for another store's FROM or JOIN (the balances' journal and treasury). */
  transfersAs: (alias: string): string => `(SELECT ${TRANSFER_COLUMNS} FROM chain_transfers) ${alias}`,

  /** A counted transfer found again in another block (the same transaction, re-mined): its new block is kept. */
  async moved(sql: Sql, t: Key, block: { number: bigint; hash: string }): Promise<void> {
    await sql.query(`UPDATE chain_transfers SET block_number = $4, block_hash = $5 WHERE chain_id = $1 AND tx_hash = $2 AND log_index = $3`, [
      t.chainId,
      t.txHash,
      t.logIndex,
      String(block.number),
      block.hash,
    ]);
  },

  /**
   * Orphans a transfer not orphaned yet (a reorganisation deeper than the confirmations took it
   * away), in the caller's transaction: its payment and `also`, an SQL expression of the caller's
   * on its row as `c`, as the update left it; undefined when it was orphaned already.
   */
  async orphan(tx: Sql, t: Key, also: (c: string) => string): Promise<{ paymentId: string; also: unknown } | undefined> {
    const [gone] = await tx.query(
      `UPDATE chain_transfers c SET state = 'orphaned' WHERE chain_id = $1 AND tx_hash = $2 AND log_index = $3 AND state <> 'orphaned' RETURNING payment_id, ${also('c')} AS also`,
      [t.chainId, t.txHash, t.logIndex],
    );
    return gone && { paymentId: String(gone.payment_id), also: gone.also };
  },

  /** SQL: whether the payment row `payment` has a transfer open as a case (the list's needs-attention filter). */
  openCaseOf: (payment: string): string => `EXISTS (SELECT 1 FROM chain_transfers t WHERE t.payment_id = ${payment}.id AND ${OPEN('t')})`,

  /** SQL: the ids of the payments the chain saw a transfer to in transaction `hash` (a parameter, lower-cased here). */
  paymentsOfHash: (hash: string): string => `SELECT payment_id FROM chain_transfers WHERE tx_hash = lower(${hash})`,

  /** The payment's transfers, in the order they were seen. */
  async ofPayment(sql: Sql, paymentId: string): Promise<PaymentTransfer[]> {
    const rows = await sql.query(`SELECT * FROM chain_transfers WHERE payment_id = $1 ORDER BY seen_ms, block_number, log_index`, [paymentId]);
    return rows.map((r) => ({
      txHash: r.tx_hash as string,
      logIndex: Number(r.log_index),
      amount: BigInt(r.amount as string),
      state: r.state as string,
      chainId: Number(r.chain_id),
      token: (r.token as string).toLowerCase(),
      seenMs: Number(r.seen_ms),
      blockNumber: Number(r.block_number),
      sweptHash: (r.swept_hash as string | null) ?? null,
      sweptMs: r.swept_hash && r.swept_ms != null ? Number(r.swept_ms) : null,
    }));
  },

  /** The open transfers (see OPEN) of these payments, by payment id, oldest first. */
  async openOf(sql: Sql, paymentIds: string[]): Promise<Array<{ paymentId: string; transfer: OpenTransfer }>> {
    const rows = await sql.query(`SELECT * FROM chain_transfers t WHERE payment_id::text = ANY($1::text[]) AND ${OPEN('t')} ORDER BY block_number, log_index`, [
      paymentIds,
    ]);
    return rows.map((r) => ({ paymentId: String(r.payment_id), transfer: openOf(r) }));
  },

  /** The payment's open transfers, oldest first, locked until the caller's transaction ends. */
  async lockOpen(tx: Sql, paymentId: string): Promise<OpenTransfer[]> {
    return (
      await tx.query(`SELECT * FROM chain_transfers t WHERE payment_id = $1 AND ${OPEN('t')} ORDER BY block_number, log_index FOR UPDATE`, [paymentId])
    ).map(openOf);
  },

  /** The payment's transfers in another coin or on another chain credited toward it, oldest first, with what they were credited at. */
  async credited(sql: Sql, paymentId: string): Promise<CreditedTransfer[]> {
    const rows = await sql.query(`SELECT * FROM chain_transfers WHERE payment_id = $1 AND credited IS NOT NULL ORDER BY seen_ms, block_number, log_index`, [
      paymentId,
    ]);
    return rows.map((r) => ({
      ...openOf(r),
      credited: BigInt(r.credited as string),
      usdFrom: BigInt(r.credit_usd_from as string),
      usdTo: BigInt(r.credit_usd_to as string),
      rateMs: Number(r.credit_rate_ms),
      source: r.credit_source as string,
      resolvedMs: Number(r.resolved_ms),
    }));
  },

  /** Late transfers counted toward their payment after all: credited, and their case resolved as accepted. */
  async countLate(tx: Sql, transfers: Key[], nowMs: number): Promise<void> {
    await tx.query(`UPDATE chain_transfers SET state = 'credited', resolution = 'accepted', resolved_ms = $4 WHERE ${MATCH} AND state = 'late'`, [
      ...keys(transfers),
      nowMs,
    ]);
  },

  /** A transfer credited toward its payment at a rate (keeping its own amount and coin), its case resolved as accepted, once. */
  async creditAt(tx: Sql, c: Key & CreditTerms, nowMs: number): Promise<void> {
    await tx.query(
      `UPDATE chain_transfers SET resolution = 'accepted', resolved_ms = $4, credited = $5, credit_usd_from = $6, credit_usd_to = $7, credit_rate_ms = $8, credit_source = $9
        WHERE (chain_id, tx_hash, log_index) = ($1, $2, $3) AND resolution IS NULL`,
      [c.chainId, c.txHash, c.logIndex, nowMs, String(c.credited), String(c.usdFrom), String(c.usdTo), c.rateMs, c.source],
    );
  },

  /** Transfers resolved without counting: accepted (the merchant keeps them) or refunded (by `refundId`). */
  async resolve(tx: Sql, transfers: Key[], resolution: 'accepted' | 'refunded', nowMs: number, refundId?: string): Promise<void> {
    await tx.query(`UPDATE chain_transfers SET resolution = $4, resolved_ms = $5, resolution_refund = $6 WHERE ${MATCH} AND resolution IS NULL`, [
      ...keys(transfers),
      resolution,
      nowMs,
      refundId ?? null,
    ]);
  },

  /** The payment's transfers a refund resolved, still resolved by it, open again (the refund failed or was canceled): how many. */
  async reopen(tx: Sql, refundId: string, paymentId: string): Promise<number> {
    return (
      await tx.query(
        `UPDATE chain_transfers SET resolution = NULL, resolved_ms = NULL, resolution_refund = NULL WHERE payment_id = $2 AND resolution_refund = $1 AND resolution = 'refunded' RETURNING payment_id`,
        [refundId, paymentId],
      )
    ).length;
  },
};

export type TransferViews = typeof transferViews;
