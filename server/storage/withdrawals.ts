// Withdrawals from a merchant's balance to a wallet, as rows, and the operator's daily limits.
// SQL only: a withdrawal's checks and its journal entries are use cases (domain/balances.ts)
// that run these inside one transaction.
import type { Account } from '../domain/account.ts';
import { NotFound } from '../domain/errors.ts';
import { DEFAULT_WITHDRAWAL_DAILY_LIMIT, type StoredWithdrawal } from '../domain/ledger.ts';
import type { WithdrawalRequest } from '../domain/balances.ts';
import type { Database, Row, Sql } from './db.ts';
import { recordSigned, sentOf, type RecordedTx, type SignedTx } from './treasury-txs.ts';

export type { StoredWithdrawal };
type Owner = Pick<Account, 'merchant' | 'mode'>;

const big = (v: unknown) => BigInt(v as string);
/** A row the treasury pays to an address: a withdrawal, or (without merchant, mode, symbol, decimals) a partner transfer. */
export const paidOf = (r: Row) => ({
  id: r.id as string,
  chainId: Number(r.chain_id),
  token: r.token as string,
  address: r.address as string,
  amount: big(r.amount),
  state: r.state as StoredWithdrawal['state'],
  ...sentOf(r),
});
const withdrawalOf = (r: Row): StoredWithdrawal => ({
  ...paidOf(r),
  merchantId: r.merchant_id as string,
  mode: r.mode as string,
  symbol: r.symbol as string,
  decimals: Number(r.decimals),
});

export class WithdrawalStore {
  constructor(
    private readonly db: Database,
    /** The daily withdrawal limit per coin (whole tokens) where the operator set none for a merchant. */
    private readonly defaultDailyLimit: string = DEFAULT_WITHDRAWAL_DAILY_LIMIT,
  ) {}


  // ---- withdrawals ---------------------------------------------------------------------------

  /** The merchant's daily withdrawal limit of a coin in a mode, in whole tokens: the operator's for it, else the service's default. */
  async withdrawalLimit(account: Owner, symbol: string, sql: Sql = this.db): Promise<{ daily: string; set: boolean }> {
    const [row] = await sql.query(`SELECT daily FROM withdrawal_limits WHERE merchant_id = $1 AND mode = $2 AND coin = $3`, [account.merchant.id, account.mode, symbol]);
    return row ? { daily: row.daily as string, set: true } : { daily: this.defaultDailyLimit, set: false };
  }

  /** Sets (or, with null, clears back to the default) a merchant's daily withdrawal limit of a coin; false for an unknown merchant. */
  async setWithdrawalLimit(account: Owner, symbol: string, daily: string | null, nowMs: number): Promise<boolean> {
    const [known] = await this.db.query(`SELECT 1 FROM merchants WHERE id::text = $1`, [account.merchant.id]);
    if (!known) return false;
    if (daily === null) await this.db.query(`DELETE FROM withdrawal_limits WHERE merchant_id = $1 AND mode = $2 AND coin = $3`, [account.merchant.id, account.mode, symbol]);
    else {
      await this.db.query(
        `INSERT INTO withdrawal_limits (merchant_id, mode, coin, daily, updated_ms) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (merchant_id, mode, coin) DO UPDATE SET daily = $4, updated_ms = $5`,
        [account.merchant.id, account.mode, symbol, daily, nowMs],
      );
    }
    return true;
  }

  async withdrawal(account: Owner, id: string): Promise<StoredWithdrawal> {
    const [row] = await this.db.query(`SELECT * FROM withdrawals WHERE merchant_id = $1 AND mode = $2 AND id::text = $3`, [account.merchant.id, account.mode, id]);
    if (!row) throw new NotFound(`No withdrawal ${id}`);
    return withdrawalOf(row);
  }

  async pendingWithdrawals(chainId: number): Promise<StoredWithdrawal[]> {
    return (await this.db.query(`SELECT * FROM withdrawals WHERE chain_id = $1 AND state = 'pending' ORDER BY created_ms, id`, [chainId])).map(withdrawalOf);
  }

  /** Notes the transaction a withdrawal is sent in, before it is sent; answers the one recorded (see `recordSigned`). */
  withdrawalSigned(id: string, signed: SignedTx, nowMs: number): Promise<RecordedTx> {
    return recordSigned(this.db, 'withdrawals', id, signed, nowMs);
  }

  // ---- inside a use case's transaction (domain/balances.ts) ------------------------------------

  /** What the merchant withdrew of a coin since `sinceMs`, failed ones not counted. */
  async withdrawnSince(tx: Sql, account: Owner, chainId: number, token: string, sinceMs: number): Promise<bigint> {
    const [row] = await tx.query(
      `SELECT COALESCE(sum(amount), 0)::text AS s FROM withdrawals WHERE merchant_id = $1 AND mode = $2 AND chain_id = $3 AND token = $4 AND state <> 'failed' AND created_ms > $5`,
      [account.merchant.id, account.mode, chainId, token.toLowerCase(), sinceMs],
    );
    return big(row!.s);
  }

  async insert(tx: Sql, account: Owner, id: string, w: WithdrawalRequest, nowMs: number): Promise<StoredWithdrawal> {
    const [row] = await tx.query(
      `INSERT INTO withdrawals (id, merchant_id, mode, chain_id, symbol, token, decimals, address, amount, state, created_ms, updated_ms) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'pending', $10, $10) RETURNING *`,
      [id, account.merchant.id, account.mode, w.chainId, w.symbol, w.token.toLowerCase(), w.decimals, w.address, String(w.amount), nowMs],
    );
    return withdrawalOf(row!);
  }

  async lock(tx: Sql, id: string): Promise<StoredWithdrawal | undefined> {
    const [row] = await tx.query(`SELECT * FROM withdrawals WHERE id = $1 FOR UPDATE`, [id]);
    return row && withdrawalOf(row);
  }

  async completed(tx: Sql, id: string, nowMs: number): Promise<StoredWithdrawal> {
    const [row] = await tx.query(`UPDATE withdrawals SET state = 'completed', updated_ms = $2 WHERE id = $1 RETURNING *`, [id, nowMs]);
    return withdrawalOf(row!);
  }

  async failed(tx: Sql, id: string, failure: string, nowMs: number): Promise<StoredWithdrawal> {
    const [row] = await tx.query(`UPDATE withdrawals SET state = 'failed', failure = $2, updated_ms = $3 WHERE id = $1 RETURNING *`, [id, failure, nowMs]);
    return withdrawalOf(row!);
  }
}
