// What reconciliation reads and keeps: what each deposit holds and has passed on by our records,
// and the last look at the chain for each deposit line (deposit_checks). SQL only.
import type { Database } from '../storage/db.ts';
import type { DepositViews } from '../payments/deposit-views-store.ts';

/** A transfer moved on by a sweep mined at or below block $2 (sweeps recorded before their block was kept count as mined at 0). */
const SWEPT_BY = `(t.swept_hash IS NOT NULL AND COALESCE(t.swept_block, 0) <= $2)`;

export class DepositCheckStore {
  constructor(
    private readonly db: Database,
    /** The payments' part of a deposit's line (payments/deposit-views-store.ts): whose deposit it is. */
    private readonly payments: Pick<DepositViews, 'joinDeposit'>,
  ) {}

  /**
   * What the ledger says each deposit holds and has passed on, per token, counting transfers
   * in blocks up to `atBlock` that are on the chain (orphaned ones are not): `held`, not yet
   * swept (credited, late, unexpected, dust, or still confirming); `credited`, counted toward
   * the payment; `swept`, moved on by a recorded sweep mined at or below `atBlock` (one mined
   * above it has not moved the money yet, as the chain at `atBlock` says).
   */
  async depositHoldings(
    chainId: number,
    atBlock: bigint,
  ): Promise<
    Array<{
      paymentId: string;
      merchantId: string;
      mode: string;
      reference: string;
      address: string;
      token: string;
      held: bigint;
      credited: bigint;
      swept: bigint;
    }>
  > {
    const rows = await this.db.query(
      `SELECT p.id, p.merchant_id, p.mode, p.reference, p.address, t.token,
              COALESCE(SUM(CASE WHEN NOT ${SWEPT_BY} THEN t.amount END), 0)::text AS held,
              COALESCE(SUM(CASE WHEN t.state = 'credited' THEN t.amount END), 0)::text AS credited,
              COALESCE(SUM(CASE WHEN ${SWEPT_BY} THEN t.amount END), 0)::text AS swept
         FROM chain_transfers t ${this.payments.joinDeposit('p', 't.payment_id')}
        WHERE t.chain_id = $1 AND t.state <> 'orphaned' AND t.block_number <= $2
        GROUP BY p.id, p.merchant_id, p.mode, p.reference, p.address, t.token
        ORDER BY p.id, t.token`,
      [chainId, String(atBlock)],
    );
    return rows.map((r) => ({
      paymentId: String(r.id),
      merchantId: r.merchant_id as string,
      mode: r.mode as string,
      reference: r.reference as string,
      address: (r.address as string).toLowerCase(),
      token: r.token as string,
      held: BigInt(r.held as string),
      credited: BigInt(r.credited as string),
      swept: BigInt(r.swept as string),
    }));
  }

  /** Reconciliation's last look at each deposit line of a chain, by `${address}/${token}`. */
  async depositChecks(chainId: number): Promise<Map<string, { held: bigint; onChain: bigint; checkedMs: number }>> {
    const rows = await this.db.query(
      `SELECT address, token, held::text AS held, on_chain::text AS on_chain, checked_ms FROM deposit_checks WHERE chain_id = $1`,
      [chainId],
    );
    return new Map(
      rows.map((r) => [`${r.address}/${r.token}`, { held: BigInt(r.held as string), onChain: BigInt(r.on_chain as string), checkedMs: Number(r.checked_ms) }]),
    );
  }

  /**
   * Records a look at a deposit line. Answers true when the figures differ from the last look
   * recorded (a new finding, to tell): of two instances recording the same, one gets true.
   */
  async recordCheck(chainId: number, address: string, token: string, held: bigint, onChain: bigint, nowMs: number): Promise<boolean> {
    const changed = await this.db.query(
      `INSERT INTO deposit_checks (chain_id, address, token, held, on_chain, checked_ms) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (chain_id, address, token) DO UPDATE SET held = $4, on_chain = $5, checked_ms = $6
       WHERE deposit_checks.held <> $4 OR deposit_checks.on_chain <> $5
       RETURNING 1`,
      [chainId, address, token, String(held), String(onChain), nowMs],
    );
    if (changed.length === 0)
      await this.db.query(`UPDATE deposit_checks SET checked_ms = $4 WHERE chain_id = $1 AND address = $2 AND token = $3`, [chainId, address, token, nowMs]);
    return changed.length > 0;
  }
}
