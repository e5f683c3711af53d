// Swaps between coins of a merchant's balance, as rows: quoted, pending (its amount reserved),
// completed or failed. SQL only: accepting a quote and finishing a swap are use cases
// (balances/use-cases.ts) that run these inside one transaction.
import { randomUUID } from 'node:crypto';
import type { Account } from '../domain/account.ts';
import { NotFound } from '../domain/errors.ts';
import { swapTerms, type StoredSwap } from './ledger-rules.ts';
import type { Database, Row, Sql } from '../storage/db.ts';
import { newestFirst } from '../storage/history.ts';
import { anyNotFinal, minedIn, minedInOf, notFinalRows, recordSigned, sentOf, type MinedIn, type RecordedTx, type SignedTx } from './treasury-store.ts';
import { stateCounts, type StateCount } from '../storage/metrics.ts';

export type { StoredSwap };
type Owner = Pick<Account, 'merchant' | 'mode'>;

const big = (v: unknown) => BigInt(v as string);
const swapOf = (r: Row): StoredSwap => ({
  id: r.id as string,
  merchantId: r.merchant_id as string,
  mode: r.mode as string,
  chainId: Number(r.chain_id),
  fromSymbol: r.from_symbol as string,
  toSymbol: r.to_symbol as string,
  fromToken: r.from_token as string,
  toToken: r.to_token as string,
  fromDecimals: Number(r.from_decimals),
  toDecimals: Number(r.to_decimals),
  amountIn: big(r.amount_in),
  poolOut: big(r.pool_out),
  fee: big(r.fee),
  minimumOut: big(r.minimum_out),
  amountOut: r.amount_out == null ? null : big(r.amount_out),
  state: r.state as StoredSwap['state'],
  expiresMs: Number(r.expires_ms),
  ...sentOf(r),
});

/** /metrics' swaps by key mode and state (storage/metrics.ts). */
export const swapsByState = async (sql: Sql): Promise<StateCount[]> =>
  stateCounts(await sql.query(`SELECT mode, state, count(*)::text AS n FROM swaps GROUP BY 1, 2`));

export class SwapStore {
  constructor(private readonly db: Database) {}

  async quote(
    account: Owner,
    q: {
      chainId: number;
      fromSymbol: string;
      toSymbol: string;
      fromToken: string;
      toToken: string;
      fromDecimals: number;
      toDecimals: number;
      amountIn: bigint;
      poolOut: bigint;
      expiresMs: number;
    },
    nowMs: number,
  ): Promise<StoredSwap> {
    const { fee, minimumOut } = swapTerms(q.poolOut);
    const [row] = await this.db.query(
      `INSERT INTO swaps (id, merchant_id, mode, chain_id, from_symbol, to_symbol, from_token, to_token, from_decimals, to_decimals, amount_in, pool_out, fee, minimum_out, state, expires_ms, created_ms, updated_ms)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, 'quoted', $15, $16, $16) RETURNING *`,
      [
        randomUUID(),
        account.merchant.id,
        account.mode,
        q.chainId,
        q.fromSymbol,
        q.toSymbol,
        q.fromToken.toLowerCase(),
        q.toToken.toLowerCase(),
        q.fromDecimals,
        q.toDecimals,
        String(q.amountIn),
        String(q.poolOut),
        String(fee),
        String(minimumOut),
        q.expiresMs,
        nowMs,
      ],
    );
    return swapOf(row!);
  }

  async swap(account: Owner, id: string): Promise<StoredSwap> {
    const [row] = await this.db.query(`SELECT * FROM swaps WHERE merchant_id = $1 AND mode = $2 AND id::text = $3`, [account.merchant.id, account.mode, id]);
    if (!row) throw new NotFound(`No swap ${id}`);
    return swapOf(row);
  }

  /** The merchant's swaps in a mode (quotes never accepted left out), newest first, after `before` (the last of the page before). */
  async history(account: Owner, before: { createdMs: number; id: string } | undefined, limit: number): Promise<StoredSwap[]> {
    return (await newestFirst(this.db, 'swaps', `state <> 'quoted'`, account, before, limit)).map(swapOf);
  }

  async pendingSwaps(chainId: number): Promise<StoredSwap[]> {
    return (await this.db.query(`SELECT * FROM swaps WHERE chain_id = $1 AND state = 'pending' ORDER BY created_ms, id`, [chainId])).map(swapOf);
  }

  /**
   * Notes the transaction a swap is sent in, before it is sent: a restart sends the same one
   * again, never a second. Answers what the row holds after: when another instance recorded its
   * transaction first, that one, which is the one to send and follow (see `recordSigned`).
   */
  swapSigned(id: string, signed: SignedTx, nowMs: number): Promise<RecordedTx> {
    return recordSigned(this.db, 'swaps', id, signed, nowMs);
  }

  // ---- inside a use case's transaction (balances/use-cases.ts) ------------------------------------

  /** A swap locked until the transaction ends; the merchant's own only, where `owner` is given. */
  async lock(tx: Sql, id: string, owner?: Owner): Promise<StoredSwap | undefined> {
    const [row] = owner
      ? await tx.query(`SELECT * FROM swaps WHERE merchant_id = $1 AND mode = $2 AND id::text = $3 FOR UPDATE`, [owner.merchant.id, owner.mode, id])
      : await tx.query(`SELECT * FROM swaps WHERE id = $1 FOR UPDATE`, [id]);
    return row && swapOf(row);
  }

  async pending(tx: Sql, id: string, nowMs: number): Promise<StoredSwap> {
    const [row] = await tx.query(`UPDATE swaps SET state = 'pending', updated_ms = $2 WHERE id = $1 RETURNING *`, [id, nowMs]);
    return swapOf(row!);
  }

  /** Completed, counted in `block`: looked at again (final_ms NULL) until that block is final. */
  async completed(tx: Sql, id: string, out: bigint, fee: bigint, nowMs: number, block: MinedIn | null = null): Promise<StoredSwap> {
    const [row] = await tx.query(
      `UPDATE swaps SET state = 'completed', amount_out = $2, fee = $3, updated_ms = $4, mined_block = $5, mined_block_hash = $6, final_ms = NULL, failure = NULL
        WHERE id = $1 RETURNING *`,
      [id, String(out), String(fee), nowMs, block ? String(block.number) : null, block?.hash ?? null],
    );
    return swapOf(row!);
  }

  /**
   * A completed swap a reorganisation took off the chain, its transaction still valid: pending
   * again, its recorded transaction sent again by the treasury's sender (and its approval first,
   * `approveRound` > 0, when that left the chain too: its gas journaled at that round once mined).
   */
  async reopened(tx: Sql, id: string, approveRound: number, nowMs: number): Promise<StoredSwap> {
    const [row] = await tx.query(
      `UPDATE swaps SET state = 'pending', mined_block = NULL, mined_block_hash = NULL, final_ms = NULL, failure = NULL, approve_round = $3, signed_ms = $2, updated_ms = $2
        WHERE id = $1 RETURNING *`,
      [id, nowMs, approveRound],
    );
    return swapOf(row!);
  }

  /** How many times a swap's counting was undone by a reorganisation (its `swap_unsent` entries): the round of its next `swap_completed`. */
  async unsentTimes(sql: Sql, id: string): Promise<number> {
    const [row] = await sql.query(`SELECT count(*)::int AS n FROM journal_entries WHERE kind = 'swap_unsent' AND (ref = $1 OR ref LIKE $1 || '#%')`, [id]);
    return Number(row!.n);
  }

  // ---- looked at again until final (balances/sends-final.ts) ----------------------------------------

  /** A chain's completed swaps whose block is not final yet, oldest first. */
  async notFinal(chainId: number): Promise<Array<StoredSwap & { minedIn: MinedIn | null }>> {
    return (await notFinalRows(this.db, 'swaps', chainId)).map((r) => ({ ...swapOf(r), minedIn: minedInOf(r) }));
  }

  /** Whether any completed swap of the chain is not final yet. */
  anyNotFinal(chainId: number): Promise<boolean> {
    return anyNotFinal(this.db, 'swaps', chainId);
  }

  /** A completed swap paid by `txHash` found in `block`; `final` when that block is final (see treasury-store.ts minedIn). */
  minedIn(id: string, txHash: string, block: MinedIn, final: boolean, nowMs: number): Promise<boolean> {
    return minedIn(this.db, 'swaps', id, txHash, block, final, nowMs);
  }

  /** The round its approval's gas is journaled at once mined again (0: its approval never sent again). */
  async approveRound(id: string): Promise<number> {
    const [row] = await this.db.query(`SELECT approve_round FROM swaps WHERE id = $1`, [id]);
    return Number(row?.approve_round ?? 0);
  }

  async failed(tx: Sql, id: string, failure: string, nowMs: number): Promise<StoredSwap> {
    const [row] = await tx.query(`UPDATE swaps SET state = 'failed', failure = $2, updated_ms = $3 WHERE id = $1 RETURNING *`, [id, failure, nowMs]);
    return swapOf(row!);
  }
}
