// Swaps between coins of a merchant's balance, as rows: quoted, pending (its amount reserved),
// completed or failed. SQL only: accepting a quote and finishing a swap are use cases
// (balances/use-cases.ts) that run these inside one transaction.
import { randomUUID } from 'node:crypto';
import type { Account } from '../domain/account.ts';
import { NotFound } from '../domain/errors.ts';
import { swapTerms, type StoredSwap } from './ledger-rules.ts';
import type { Database, Row, Sql } from '../storage/db.ts';
import { newestFirst } from '../storage/history.ts';
import { recordSigned, sentOf, type RecordedTx, type SignedTx } from './treasury-store.ts';
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

  async completed(tx: Sql, id: string, out: bigint, fee: bigint, nowMs: number): Promise<StoredSwap> {
    const [row] = await tx.query(`UPDATE swaps SET state = 'completed', amount_out = $2, fee = $3, updated_ms = $4 WHERE id = $1 RETURNING *`, [
      id,
      String(out),
      String(fee),
      nowMs,
    ]);
    return swapOf(row!);
  }

  async failed(tx: Sql, id: string, failure: string, nowMs: number): Promise<StoredSwap> {
    const [row] = await tx.query(`UPDATE swaps SET state = 'failed', failure = $2, updated_ms = $3 WHERE id = $1 RETURNING *`, [id, failure, nowMs]);
    return swapOf(row!);
  }
}
