// What the chain watcher keeps: a cursor per chain (with the lease that makes one instance
// the watcher), recent block hashes, and every transfer it saw to a deposit address. SQL only.
// The sweeps of those transfers (sweep-store.ts) and reconciliation's looks at them
// (deposit-check-store.ts) keep their own tables and columns; the store hands them out.
import type { Database, Sql } from '../storage/db.ts';
import { DepositCheckStore } from './deposit-check-store.ts';
import { RelayStore } from './relay-store.ts';
import { SweepStore } from './sweep-store.ts';
import { transferViews } from './transfer-views-store.ts';
import type { DepositViews, Watched } from '../payments/deposit-views-store.ts';

export interface Cursor {
  number: bigint;
  hash: string | null;
}

/** A Transfer log to a deposit address, as the chain reported it. */
export interface SeenTransfer {
  chainId: number;
  txHash: string;
  logIndex: number;
  blockNumber: bigint;
  blockHash: string;
  token: string;
  sender: string;
  recipient: string;
  amount: bigint;
  paymentId: string;
  /**
   * When the money arrived (ms), for the quote's expiry: its block's own time, or when the
   * watcher first saw it if that was sooner; kept when a reorganisation brings it back.
   */
  seenMs?: number;
  /** When the merchant was told of it as money that cannot count (late, another token); never reset. */
  toldMs?: number;
}

/**
 * `unexpected`: money the payment did not ask for: another token, or sent on another chain than
 * the payment's (a token is its contract on its chain): recorded, told, swept, never counted.
 * `dust`: below its token's minimum: recorded, never counted, told or swept on its own.
 */
export type TransferState = 'seen' | 'credited' | 'orphaned' | 'late' | 'unexpected' | 'dust';

/** The payment a deposit address belongs to, as the watcher needs it (the payments' own read). */
export type { Watched } from '../payments/deposit-views-store.ts';

const transferOf = (r: Record<string, unknown>): SeenTransfer & { state: TransferState; sweptHash?: string } => ({
  ...(r.swept_hash ? { sweptHash: r.swept_hash as string } : {}),
  chainId: Number(r.chain_id),
  txHash: r.tx_hash as string,
  logIndex: Number(r.log_index),
  blockNumber: BigInt(r.block_number as string),
  blockHash: r.block_hash as string,
  token: r.token as string,
  sender: r.sender as string,
  recipient: r.recipient as string,
  amount: BigInt(r.amount as string),
  paymentId: String(r.payment_id),
  seenMs: Number(r.seen_ms),
  ...(r.told_ms != null ? { toldMs: Number(r.told_ms) } : {}),
  state: r.state as TransferState,
});

/** /metrics' counted transfers per chain, swept or still waiting for a sweep (storage/metrics.ts). */
export async function sweepCounts(sql: Sql): Promise<Array<{ chainId: number; swept: boolean; count: number }>> {
  const rows = await sql.query(
    `SELECT chain_id, swept_hash IS NOT NULL AS swept, count(*)::text AS n FROM chain_transfers WHERE state IN ('credited', 'late', 'unexpected') GROUP BY 1, 2`,
  );
  return rows.map((r) => ({ chainId: Number(r.chain_id), swept: !!r.swept, count: Number(r.n) }));
}

export class ChainStore {
  /** The sweeps of this chain's deposits: the sweeper's lease, claims, and what each sweep moved. */
  readonly sweeps: SweepStore;
  /** Reconciliation's figures: what each deposit holds by our records, and its last look at the chain. */
  readonly checks: DepositCheckStore;
  /** What other features ask of the transfers, in their transaction or as SQL fragments (handed to them as a port). */
  readonly views = transferViews;
  /** The relays of payments paid by signature, each recorded before it is broadcast. */
  readonly relays: RelayStore;

  constructor(
    private readonly db: Database,
    /** The payments as their deposits' owners (payments/deposit-views-store.ts, handed in: chain imports no payments store). */
    private readonly payments: DepositViews,
  ) {
    this.sweeps = new SweepStore(db, payments);
    this.checks = new DepositCheckStore(db, payments);
    this.relays = new RelayStore(db);
  }

  /**
   * Takes (or renews) the chain's watcher lease for `holder`, and answers the cursor; undefined
   * when another instance holds an unexpired lease. A new chain starts at `startAt`.
   */
  async claim(chainId: number, holder: string, nowMs: number, leaseMs: number, startAt: Cursor): Promise<Cursor | undefined> {
    await this.db.query(
      `INSERT INTO chain_cursors (chain_id, block_number, block_hash, updated_ms) VALUES ($1, $2, $3, $4) ON CONFLICT (chain_id) DO NOTHING`,
      [chainId, String(startAt.number), startAt.hash, nowMs],
    );
    const [row] = await this.db.query(
      `UPDATE chain_cursors SET holder = $2, lease_until_ms = $4 WHERE chain_id = $1 AND (holder = $2 OR holder IS NULL OR lease_until_ms <= $3)
       RETURNING block_number, block_hash`,
      [chainId, holder, nowMs, nowMs + leaseMs],
    );
    return row && { number: BigInt(row.block_number as string), hash: (row.block_hash as string | null) ?? null };
  }

  /** Forgets a chain's watcher state: for a dev chain, which starts afresh on every run. */
  async forget(chainId: number): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.query(`DELETE FROM chain_transfers WHERE chain_id = $1`, [chainId]);
      await tx.query(`DELETE FROM chain_blocks WHERE chain_id = $1`, [chainId]);
      await tx.query(`DELETE FROM chain_cursors WHERE chain_id = $1`, [chainId]);
    });
  }

  /** The last block scanned on a chain, or undefined when it was never watched. */
  async scannedTo(chainId: number): Promise<bigint | undefined> {
    const [row] = await this.db.query(`SELECT block_number FROM chain_cursors WHERE chain_id = $1`, [chainId]);
    return row ? BigInt(row.block_number as string) : undefined;
  }

  async release(chainId: number, holder: string): Promise<void> {
    await this.db.query(`UPDATE chain_cursors SET holder = NULL, lease_until_ms = 0 WHERE chain_id = $1 AND holder = $2`, [chainId, holder]);
  }

  /** Stored block hashes from `from` up, highest first. */
  async blocks(chainId: number, from: bigint): Promise<Array<{ number: bigint; hash: string }>> {
    const rows = await this.db.query(`SELECT number, hash FROM chain_blocks WHERE chain_id = $1 AND number >= $2 ORDER BY number DESC`, [
      chainId,
      String(from),
    ]);
    return rows.map((r) => ({ number: BigInt(r.number as string), hash: r.hash as string }));
  }

  /**
   * Deposit addresses of payments on a chain (lower-case hex), up to `limit` of them; with
   * `others`, those of that mode's payments on those chains too (their addresses are this
   * chain's as well: money sent on the wrong chain). One query, whatever their number.
   */
  depositAddresses(chainId: number, limit: number, others?: { mode: string; chainIds: number[] }): Promise<string[]> {
    return this.payments.depositAddresses(this.db, chainId, limit, others);
  }

  /** The payments whose deposit addresses these are (lower-case hex): asked of the payments' store. */
  watched(addresses: string[]): Promise<Watched[]> {
    return this.payments.watched(this.db, addresses);
  }

  /**
   * Records what a scan found, and moves the cursor, in one transaction: the transfers (a
   * transfer seen again after its block was orphaned is seen anew, in its new block, but keeps
   * its first arrival time, which decides whether it came in time, and forgets its old sweep,
   * final or not: one a deep reorganisation took away was reversed after its sweep was final), the
   * hashes of the blocks relied on, and the new cursor. Drops block hashes too old to matter.
   * Answers the transfers that are new (or seen anew): those already recorded are left as they are.
   */
  async record(
    chainId: number,
    transfers: Array<SeenTransfer & { state: TransferState }>,
    blocks: Array<{ number: bigint; hash: string }>,
    cursor: Cursor,
    keepFrom: bigint,
    nowMs: number,
  ): Promise<Array<SeenTransfer & { state: TransferState; inserted: boolean }>> {
    return this.db.transaction(async (tx) => {
      const fresh: Array<SeenTransfer & { state: TransferState; inserted: boolean }> = [];
      for (const t of transfers) {
        const written = await tx.query(
          `INSERT INTO chain_transfers (chain_id, tx_hash, log_index, block_number, block_hash, token, sender, recipient, amount, payment_id, state, seen_ms)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
           ON CONFLICT (chain_id, tx_hash, log_index) DO UPDATE SET block_number = $4, block_hash = $5, state = $11,
             swept_hash = NULL, swept_block = NULL, swept_block_hash = NULL, swept_ms = NULL, swept_received = NULL, sweep_claim_ms = 0, sweep_final = false
           WHERE chain_transfers.state = 'orphaned' RETURNING (xmax = 0) AS inserted`,
          [
            chainId,
            t.txHash,
            t.logIndex,
            String(t.blockNumber),
            t.blockHash,
            t.token,
            t.sender,
            t.recipient,
            String(t.amount),
            t.paymentId,
            t.state,
            t.seenMs ?? nowMs,
          ],
        );
        if (!written.length) continue;
        fresh.push({ ...t, inserted: written[0].inserted === true });
        // Seen after a sweep of its deposit that was mined after it (the watcher was behind the
        // sweeper): that sweep moved it too. A transfer brought back by a reorganisation loses
        // the sweep it had (mined again, that sweep may have come before it) and gets this one.
        await tx.query(
          `UPDATE chain_transfers SET swept_hash = s.swept_hash, swept_block = s.swept_block, swept_block_hash = s.swept_block_hash, swept_ms = s.swept_ms, sweep_final = s.sweep_final
             FROM (SELECT swept_hash, swept_block, swept_block_hash, swept_ms, sweep_final FROM chain_transfers
                    WHERE chain_id = $1 AND payment_id = $2 AND token = $3 AND swept_hash IS NOT NULL AND swept_block > $4 AND state <> 'orphaned'
                    ORDER BY swept_block LIMIT 1) s
            WHERE chain_transfers.chain_id = $1 AND chain_transfers.tx_hash = $5 AND chain_transfers.log_index = $6 AND chain_transfers.swept_hash IS NULL`,
          [chainId, t.paymentId, t.token, String(t.blockNumber), t.txHash, t.logIndex],
        );
      }
      for (const b of blocks) {
        await tx.query(`INSERT INTO chain_blocks (chain_id, number, hash) VALUES ($1, $2, $3) ON CONFLICT (chain_id, number) DO UPDATE SET hash = $3`, [
          chainId,
          String(b.number),
          b.hash,
        ]);
      }
      await tx.query(`DELETE FROM chain_blocks WHERE chain_id = $1 AND number < $2`, [chainId, String(keepFrom)]);
      await tx.query(`UPDATE chain_cursors SET block_number = $2, block_hash = $3, updated_ms = $4 WHERE chain_id = $1`, [
        chainId,
        String(cursor.number),
        cursor.hash,
        nowMs,
      ]);
      return fresh;
    });
  }

  /**
   * The chain reorganised below `fork`: blocks from `fork` up are forgotten, transfers in them
   * are orphaned, and the cursor goes back to `fork - 1`. Credits of orphaned transfers are
   * then found by `orphanedCredits` and taken back by the caller: found again after a crash in
   * between, so none is left behind.
   */
  async rewind(chainId: number, fork: bigint, nowMs: number): Promise<void> {
    await this.db.transaction(async (tx) => {
      // Payments whose unconfirmed transfer is gone stop showing it: wake their long polls.
      await tx.query(this.payments.notify(`SELECT payment_id FROM chain_transfers WHERE chain_id = $1 AND block_number >= $2 AND state = 'seen'`), [
        chainId,
        String(fork),
      ]);
      // Everything in the gone blocks leaves the books, counted or not (late, unexpected, dust
      // too), unless a final sweep moved it on. A sweep not final yet may be gone with it: the
      // sweeper looks at it again, and undoes it if it is.
      await tx.query(`UPDATE chain_transfers SET state = 'orphaned' WHERE chain_id = $1 AND block_number >= $2 AND state <> 'orphaned' AND NOT sweep_final`, [
        chainId,
        String(fork),
      ]);
      await tx.query(`DELETE FROM chain_blocks WHERE chain_id = $1 AND number >= $2`, [chainId, String(fork)]);
      const [below] = await tx.query(`SELECT hash FROM chain_blocks WHERE chain_id = $1 AND number = $2`, [chainId, String(fork - 1n)]);
      await tx.query(`UPDATE chain_cursors SET block_number = $2, block_hash = $3, updated_ms = $4 WHERE chain_id = $1`, [
        chainId,
        String(fork - 1n),
        (below?.hash as string) ?? null,
        nowMs,
      ]);
    });
  }

  /** Orphaned transfers whose credit is still on their payment: to take back. */
  async orphanedCredits(chainId: number): Promise<SeenTransfer[]> {
    const rows = await this.db.query(
      `SELECT c.* FROM chain_transfers c ${this.payments.joinCredit('t', 't.chain_id = c.chain_id AND t.tx_hash = c.tx_hash AND t.log_index = c.log_index AND t.payment_id = c.payment_id')}
       WHERE c.chain_id = $1 AND c.state = 'orphaned' ORDER BY c.block_number, c.log_index`,
      [chainId],
    );
    return rows.map(transferOf);
  }

  /** Money that cannot count (another token, or late), deep enough to count, that the merchant was not told of yet. */
  async untold(chainId: number, maxBlock: bigint): Promise<Array<SeenTransfer & { state: TransferState }>> {
    const rows = await this.db.query(
      `SELECT * FROM chain_transfers WHERE chain_id = $1 AND state IN ('unexpected', 'late') AND told_ms IS NULL AND block_number <= $2 ORDER BY block_number, log_index`,
      [chainId, String(maxBlock)],
    );
    return rows.map(transferOf);
  }

  async told(t: Pick<SeenTransfer, 'chainId' | 'txHash' | 'logIndex'>, nowMs: number): Promise<void> {
    await this.db.query(`UPDATE chain_transfers SET told_ms = $4 WHERE chain_id = $1 AND tx_hash = $2 AND log_index = $3 AND told_ms IS NULL`, [
      t.chainId,
      t.txHash,
      t.logIndex,
      nowMs,
    ]);
  }

  /** Seen transfers in blocks up to `maxBlock`: deep enough to count. */
  async confirmable(chainId: number, maxBlock: bigint): Promise<SeenTransfer[]> {
    const rows = await this.db.query(
      `SELECT * FROM chain_transfers WHERE chain_id = $1 AND state = 'seen' AND block_number <= $2 ORDER BY block_number, log_index`,
      [chainId, String(maxBlock)],
    );
    return rows.map(transferOf);
  }

  async mark(t: Pick<SeenTransfer, 'chainId' | 'txHash' | 'logIndex'>, state: TransferState): Promise<void> {
    await this.db.query(`UPDATE chain_transfers SET state = $4 WHERE chain_id = $1 AND tx_hash = $2 AND log_index = $3`, [
      t.chainId,
      t.txHash,
      t.logIndex,
      state,
    ]);
  }

  /**
   * Runs `work` in one transaction: a block's credits and the marks that say they were made
   * (the watcher hands `tx` on to the payments' side, which never sees this store).
   */
  atomically<T>(work: (tx: Sql) => Promise<T>): Promise<T> {
    return this.db.transaction(work);
  }

  /** Marks transfers of one chain, each with its state, in one statement (in the caller's transaction). */
  async markAll(tx: Sql, chainId: number, marks: Array<Pick<SeenTransfer, 'txHash' | 'logIndex'> & { state: TransferState }>): Promise<void> {
    if (marks.length === 0) return;
    await tx.query(
      `UPDATE chain_transfers c SET state = m.state FROM unnest($2::text[], $3::int[], $4::text[]) AS m(tx_hash, log_index, state)
        WHERE c.chain_id = $1 AND c.tx_hash = m.tx_hash AND c.log_index = m.log_index`,
      [chainId, marks.map((m) => m.txHash), marks.map((m) => m.logIndex), marks.map((m) => m.state)],
      'chain_transfers_mark',
    );
  }

  /**
   * What a payment has on the chain but not yet counted: the amount of its transfers seen in
   * the token it asked for, and the confirmations of the least deep of them so far.
   */
  async confirming(paymentId: string): Promise<{ amount: bigint; confirmations: number } | undefined> {
    const [row] = await this.db.query(
      `SELECT SUM(t.amount)::text AS amount, MIN(c.block_number - t.block_number + 1)::text AS depth
       FROM chain_transfers t JOIN chain_cursors c ON c.chain_id = t.chain_id
       WHERE t.payment_id = $1 AND t.state = 'seen'`,
      [paymentId],
      'chain_confirming', // every verify of a payment on a watched chain
    );
    return row?.amount == null ? undefined : { amount: BigInt(row.amount as string), confirmations: Math.max(1, Number(row.depth)) };
  }

  /**
   * Wakes the long polls of every payment with a transfer still confirming on this chain: each
   * new block gives them one more confirmation to show. One statement, whatever their number.
   */
  async notifyConfirming(chainId: number): Promise<void> {
    await this.db.query(this.payments.notify(`SELECT payment_id FROM chain_transfers WHERE chain_id = $1 AND state = 'seen'`), [chainId]);
  }

  /** Whether money for the payment is on the chain, seen but not yet deep enough to count (in the caller's transaction). */
  async isConfirming(sql: Sql, paymentId: string): Promise<boolean> {
    return (await sql.query(`SELECT 1 FROM chain_transfers WHERE payment_id = $1 AND state = 'seen' LIMIT 1`, [paymentId])).length > 0;
  }

  /** The payments with money on the chain still confirming: few (the transfers between seen and counted). */
  async confirmingPayments(sql: Sql): Promise<string[]> {
    return (await sql.query(`SELECT DISTINCT payment_id FROM chain_transfers WHERE state = 'seen'`)).map((r) => String(r.payment_id));
  }

  /** Whether the chain brought the payment anything not orphaned (seen, counted, late or unexpected). */
  async received(sql: Sql, paymentId: string): Promise<boolean> {
    return (await sql.query(`SELECT 1 FROM chain_transfers WHERE payment_id = $1 AND state <> 'orphaned' LIMIT 1`, [paymentId])).length > 0;
  }

  /** Whether the chain ever saw a transfer to the payment, orphaned ones included. */
  async seenAny(sql: Sql, paymentId: string): Promise<boolean> {
    return (await sql.query(`SELECT 1 FROM chain_transfers WHERE payment_id = $1 LIMIT 1`, [paymentId])).length > 0;
  }

  async transfers(chainId: number): Promise<Array<SeenTransfer & { state: TransferState; sweptHash?: string }>> {
    return (await this.db.query(`SELECT * FROM chain_transfers WHERE chain_id = $1 ORDER BY block_number, log_index`, [chainId])).map(transferOf);
  }
}
