// What the sweeper keeps: its lease per chain, the claims on deposits to sweep, and each sweep
// recorded on the transfers it moved (until its block has its confirmations). SQL only.
import type { Database } from '../storage/db.ts';
import type { DepositViews } from '../payments/deposit-views-store.ts';
import { releaseLease, takeLease } from '../storage/leases.ts';

/** A deposit to sweep: whose payment it is (its salt), the payout address it is bound to, the token. */
export interface SweepTarget {
  paymentId: string;
  merchantId: string;
  mode: string;
  reference: string;
  payout: string;
  token: string;
  /** The operator's fee bound into the deposit address (`wallet` settlement), or null: none. */
  fee: { to: string; bps: number; bearer: 'customer' | 'merchant' } | null;
}

/** A payment's transfers in one token that hold money to sweep, up to block $5 ($1 chain, $2 payment, $3 token). */
const UNSWEPT = `chain_id = $1 AND payment_id = $2 AND token = $3 AND block_number <= $5 AND swept_hash IS NULL AND state IN ('credited', 'late', 'unexpected', 'dust')`;

/** A sweep as recorded: its transaction, the block it was mined in, and the deposits (address, token) it moved, with how much. */
export interface RecordedSweep {
  hash: string;
  blockNumber: bigint;
  blockHash: string;
  deposits: Array<{ address: string; token: string; amount: bigint }>;
}

export class SweepStore {
  constructor(
    private readonly db: Database,
    /** The payments as their deposits' owners (payments/deposit-views-store.ts): whose deposit a sweep moves, and their long polls to wake. */
    private readonly payments: Pick<DepositViews, 'joinDeposit' | 'deposits' | 'notify'>,
  ) {}

  /** Takes (or renews) the chain's sweeper lease for `holder`; false while another instance holds it. */
  leaseSweeper(chainId: number, holder: string, nowMs: number, leaseMs: number): Promise<boolean> {
    return takeLease(this.db, `sweep/${chainId}`, holder, nowMs, leaseMs);
  }

  releaseSweeper(chainId: number, holder: string): Promise<void> {
    return releaseLease(this.db, `sweep/${chainId}`, holder);
  }

  /**
   * Claims, for `claimMs`, the deposits that hold money to sweep on this chain: transfers
   * that counted (or were recorded as late or in an unexpected token) in blocks up to
   * `maxBlock`, not yet swept, not claimed by a sweep under way (late or other-token money
   * alone: only from `unmatchedMinimums` of its token up). One target per deposit and
   * token, with what its address is bound to. A claim that runs out (its sweeper died) is
   * taken again: a second sweep of a deposit is harmless. Money sent on this chain to a
   * balance-settled payment of another chain goes to that chain's treasury address here: swept
   * only where that is this chain's `treasury` too (else it would leave the books: it stays, told).
   * The factory is the same on both chains (Network.sameAddresses), so is the deposit's salt.
   */
  async claimSweeps(
    chainId: number,
    maxBlock: bigint,
    nowMs: number,
    claimMs: number,
    limit: number,
    unmatchedMinimums: Map<string, bigint> = new Map(),
    treasury?: string,
  ): Promise<SweepTarget[]> {
    return this.db.transaction(async (tx) => {
      // Money that cannot count (late, another token) is swept on its own only once there is
      // enough of it: a cent sent to each of many deposits must not cost the operator a
      // deposit's first sweep each. It stays recorded, told, and goes with any later sweep.
      const rows = await tx.query(
        `SELECT p.id, p.merchant_id, p.mode, p.reference, p.payout, p.fee_to, p.fee_bps, p.fee_bearer, t.token FROM chain_transfers t ${this.payments.joinDeposit('p', 't.payment_id')}
         WHERE t.chain_id = $1 AND t.swept_hash IS NULL AND t.state IN ('credited', 'late', 'unexpected') AND t.block_number <= $2
           AND t.sweep_claim_ms <= $3 AND p.payout IS NOT NULL
           AND (t.chain_id = p.chain_id OR p.settlement <> 'balance' OR lower(p.payout) = $7)
         GROUP BY p.id, p.merchant_id, p.mode, p.reference, p.payout, p.fee_to, p.fee_bps, p.fee_bearer, t.token
         HAVING bool_or(t.state = 'credited')
             OR sum(t.amount) >= COALESCE((SELECT m.units FROM unnest($5::text[], $6::numeric[]) AS m(token, units) WHERE m.token = t.token), 0)
         ORDER BY p.merchant_id, p.mode, p.reference, t.token LIMIT $4`,
        [chainId, String(maxBlock), nowMs, limit, [...unmatchedMinimums.keys()], [...unmatchedMinimums.values()].map(String), treasury?.toLowerCase() ?? ''],
      );
      const targets = rows.map((r) => ({
        paymentId: String(r.id),
        merchantId: r.merchant_id as string,
        mode: r.mode as string,
        reference: r.reference as string,
        payout: r.payout as string,
        token: r.token as string,
        fee: r.fee_to && Number(r.fee_bps) > 0 ? { to: r.fee_to as string, bps: Number(r.fee_bps), bearer: r.fee_bearer as 'customer' | 'merchant' } : null,
      }));
      for (const t of targets) {
        await tx.query(`UPDATE chain_transfers SET sweep_claim_ms = $4 WHERE ${UNSWEPT}`, [chainId, t.paymentId, t.token, nowMs + claimMs, String(maxBlock)]);
      }
      return targets;
    });
  }

  /** Leaves a deposit whose sweep fails on its own out of sweeps until `untilMs` (its claim, moved on). */
  async postponeSweep(chainId: number, t: SweepTarget, maxBlock: bigint, untilMs: number): Promise<void> {
    await this.db.query(`UPDATE chain_transfers SET sweep_claim_ms = $4 WHERE ${UNSWEPT}`, [chainId, t.paymentId, t.token, untilMs, String(maxBlock)]);
  }

  /**
   * Notes the sweep that moved these deposits' money on, with the block it was mined in, that
   * block's time (epoch ms: a payment's timeline shows it) and its first log's index in that
   * block. Not final yet: `openSweeps` hands it back until `sweepFinal`.
   */
  async swept(chainId: number, targets: SweepTarget[], hash: string, block: { number: bigint; hash: string; firstLog: number; timeMs: number }): Promise<void> {
    await this.db.transaction(async (tx) => {
      for (const t of targets) {
        // A sweep moves all its deposit holds of the token: every transfer before it, whatever
        // its state (dust, still confirming, or not claimed because it came after the claim).
        await tx.query(
          `UPDATE chain_transfers SET swept_hash = $4, swept_block = $5, swept_block_hash = $6, swept_ms = $8, sweep_final = false
            WHERE chain_id = $1 AND payment_id = $2 AND token = $3 AND swept_hash IS NULL AND state <> 'orphaned'
              AND (block_number < $5 OR (block_number = $5 AND log_index < $7))`,
          [chainId, t.paymentId, t.token, hash, String(block.number), block.hash, block.firstLog, block.timeMs],
        );
      }
    });
  }

  /**
   * What the payout address gained of a deposit's `token` in sweep `hash`, where that is less than
   * the deposit held (a token with a fee on transfer): split over the transfers the sweep moved in
   * proportion to their amounts (the last takes the remainder), each kept as its `swept_received`.
   */
  async sweptReceived(chainId: number, hash: string, paymentId: string, token: string, received: bigint): Promise<void> {
    await this.db.transaction(async (tx) => {
      const rows = await tx.query(
        `SELECT tx_hash, log_index, amount::text AS amount FROM chain_transfers WHERE chain_id = $1 AND swept_hash = $2 AND payment_id = $3 AND token = $4 AND state <> 'orphaned' ORDER BY block_number, log_index`,
        [chainId, hash, paymentId, token],
      );
      const total = rows.reduce((sum, r) => sum + BigInt(r.amount as string), 0n);
      if (total === 0n) return;
      let left = received;
      for (const [i, r] of rows.entries()) {
        const share = i === rows.length - 1 ? left : (received * BigInt(r.amount as string)) / total;
        left -= share;
        await tx.query(`UPDATE chain_transfers SET swept_received = $5 WHERE chain_id = $1 AND tx_hash = $2 AND log_index = $3 AND swept_hash = $4`, [
          chainId,
          r.tx_hash,
          r.log_index,
          hash,
          String(share),
        ]);
      }
    });
  }

  /** Sweeps recorded on a chain whose block has not had its confirmations yet, with the deposits (address, token) each one moved. */
  openSweeps(chainId: number): Promise<RecordedSweep[]> {
    return this.sweepsOf('NOT t.sweep_final', [chainId]);
  }

  /**
   * Final sweeps mined above `aboveBlock` (the chain's finalized block, or a recent window): a
   * reorganisation deeper than the confirmations may still take them away, so the sweeper looks
   * at them again. With the deposits each moved and how much of its token (the transfers' sum;
   * a transfer itself taken away, orphaned, left out: its deposit never held it).
   */
  finalSweeps(chainId: number, aboveBlock: bigint): Promise<RecordedSweep[]> {
    // Written as migration 0048's index chain_transfers_sweep_final says (its predicate in the
    // query's words, the block a range of it), so each look reads the recent sweeps only.
    return this.sweepsOf(`t.sweep_final AND t.state <> 'orphaned' AND t.swept_block > $2`, [chainId, String(aboveBlock)]);
  }

  /** The sweeps of chain `$1` whose transfers match `which` (written in the words of the index that serves it). */
  private async sweepsOf(which: string, params: unknown[]): Promise<RecordedSweep[]> {
    const rows = await this.db.query(
      `SELECT t.swept_hash, t.swept_block, t.swept_block_hash, lower(p.address) AS address, t.token, sum(t.amount)::text AS amount FROM chain_transfers t ${this.payments.joinDeposit('p', 't.payment_id')}
        WHERE t.chain_id = $1 AND t.swept_hash IS NOT NULL AND ${which}
        GROUP BY t.swept_hash, t.swept_block, t.swept_block_hash, lower(p.address), t.token ORDER BY t.swept_block, t.swept_hash`,
      params,
    );
    const sweeps = new Map<string, RecordedSweep>();
    for (const r of rows) {
      const hash = r.swept_hash as string;
      if (!sweeps.has(hash))
        sweeps.set(hash, {
          hash,
          blockNumber: BigInt((r.swept_block as string | null) ?? '0'),
          blockHash: (r.swept_block_hash as string | null) ?? '',
          deposits: [],
        });
      sweeps.get(hash)!.deposits.push({ address: r.address as string, token: r.token as string, amount: BigInt(r.amount as string) });
    }
    return [...sweeps.values()];
  }

  /**
   * The sweep was mined again, in another block (after a reorganisation): its confirmations, and
   * its time, count from there; a final one stays final, and is looked at again from there.
   */
  async sweepMoved(chainId: number, hash: string, block: { number: bigint; hash: string; timeMs: number }): Promise<void> {
    await this.db.query(`UPDATE chain_transfers SET swept_block = $3, swept_block_hash = $4, swept_ms = $5 WHERE chain_id = $1 AND swept_hash = $2`, [
      chainId,
      hash,
      String(block.number),
      block.hash,
      block.timeMs,
    ]);
  }

  /** The sweep's block has its confirmations: the money has left its deposits for good. */
  async sweepFinal(chainId: number, hash: string): Promise<void> {
    await this.db.query(`UPDATE chain_transfers SET sweep_final = true WHERE chain_id = $1 AND swept_hash = $2 AND NOT sweep_final`, [chainId, hash]);
  }

  /**
   * The sweep left the chain (its block was reorganised away and it was not mined again), or it
   * was mined again and failed (for `only` these deposits): its deposits still hold the money,
   * so they are unswept and free to claim at once. A sweep not final yet; with `final`, a final
   * one a reorganisation deeper than the confirmations took away (its deposits to sweep again:
   * their deposit entries, journaled once, stay as they are). Each transfer once: answers how many.
   */
  async unsweep(chainId: number, hash: string, only?: Array<{ address: string; token: string }>, final = false): Promise<number> {
    const rows = await this.db.query(
      `UPDATE chain_transfers t SET swept_hash = NULL, swept_block = NULL, swept_block_hash = NULL, swept_ms = NULL, swept_received = NULL, sweep_claim_ms = 0, sweep_final = false
         FROM ${this.payments.deposits('p')} WHERE p.id = t.payment_id AND t.chain_id = $1 AND t.swept_hash = $2 AND t.sweep_final = $4
          AND ($3::text[] IS NULL OR lower(p.address) || '/' || t.token = ANY($3::text[]))
        RETURNING t.payment_id`,
      [chainId, hash, only ? only.map((d) => `${d.address.toLowerCase()}/${d.token.toLowerCase()}`) : null, final],
    );
    if (rows.length) await this.db.query(this.payments.notify(`SELECT unnest($1::bigint[])`), [[...new Set(rows.map((r) => String(r.payment_id)))]]);
    return rows.length;
  }
}
