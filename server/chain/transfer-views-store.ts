// What other features ask of the chain's transfers (chain_transfers): reads and writes that take
// the caller's transaction, and SQL fragments for the queries whose point is a join with their
// own tables (a list filtered across both). Handed to them as a port (ChainStore.views), so the
// table's name is written only in chain/. SQL only.
import type { Sql } from '../storage/db.ts';

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

/** Transfers that could not count (late, another token), told to the merchant (deep enough), not resolved: a payment's case (payments/attention-rules.ts). */
const OPEN = (t: string) => `${t}.state IN ('late', 'unexpected') AND ${t}.told_ms IS NOT NULL AND ${t}.resolution IS NULL`;

export const transferViews = {
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
};

export type TransferViews = typeof transferViews;
