// Withdrawals from a merchant's balance to a wallet, as rows, and the operator's daily limits.
// SQL only: a withdrawal's checks and its journal entries are use cases (balances/use-cases.ts)
// that run these inside one transaction.
import type { Account } from '../domain/account.ts';
import { NotFound } from '../domain/errors.ts';
import type { StoredWithdrawal, WithdrawalRequest } from './ledger-rules.ts';
import type { Database, Row, Sql } from '../storage/db.ts';
import { WITHDRAWAL_WINDOW_MS } from './ledger-rules.ts';
import { newestFirst } from '../storage/history.ts';
import {
  anyNotFinal,
  minedIn,
  minedInOf,
  notFinalRows,
  recordedTx,
  sentOf,
  writeSigned,
  type MinedIn,
  type RecordedTx,
  type SignedTx,
} from './treasury-store.ts';
import { stateCounts, type StateCount } from '../storage/metrics.ts';

export type { StoredWithdrawal, MinedIn };
type Owner = Pick<Account, 'merchant' | 'mode'>;

/**
 * What a row is paid for: a merchant's withdrawal, or another feature's own send the treasury
 * pays the same way (a refund's). Only `withdrawal` rows are withdrawals to the
 * merchant: listed, answered, told (WITHDRAWAL_UPDATED) and counted as such.
 */
export type SendPurpose = StoredWithdrawal['purpose'];

/**
 * The feature a send of its purpose belongs to, told in the transaction that moves the send
 * (refunds: the refund's state and its REFUND_UPDATED event): no job copies one into the other.
 */
export interface SendFollower {
  /** Locks the feature's own row of the send before the send's row is (the order its own writes take both in). */
  lock(tx: Sql, id: string): Promise<void>;
  /** The send moved: its transaction recorded, or it completed or failed. */
  moved(tx: Sql, send: StoredWithdrawal, nowMs: number): Promise<void>;
}

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
  networkFee: big(r.network_fee ?? '0'),
  merchantId: r.merchant_id as string,
  mode: r.mode as string,
  symbol: r.symbol as string,
  decimals: Number(r.decimals),
  purpose: (r.purpose as SendPurpose | undefined) ?? 'withdrawal',
});

/** /metrics' withdrawals by key mode and state (storage/metrics.ts): a refund's send is not a withdrawal. */
export const withdrawalsByState = async (sql: Sql): Promise<StateCount[]> =>
  stateCounts(await sql.query(`SELECT mode, state, count(*)::text AS n FROM withdrawals WHERE purpose = 'withdrawal' GROUP BY 1, 2`));

/**
 * What the withdrawals' store asks of other features' stores (service/app.ts and commands/operator.ts hand them
 * in): whether a merchant exists (merchants/account-store.ts, in the caller's connection), and
 * the SQL of what its bank payouts and balance-settled refunds took since a time, in US cents
 * (the other parts of the one daily limit, from payouts/store.ts and refunds/store.ts, given the
 * statement's parameters for the merchant, the mode and the time).
 */
export interface LimitParts {
  merchants: { exists(sql: Sql, merchantId: string): Promise<boolean> };
  payoutsSpentSince(merchant: string, mode: string, since: string): string;
  refundsSpentSince(merchant: string, mode: string, since: string): string;
}

export class WithdrawalStore {
  constructor(
    private readonly db: Database,
    /** The daily withdrawal limit (US dollars) where the operator set none for a merchant (WITHDRAWAL_DAILY_LIMIT). */
    private readonly defaultDailyLimit: string,
    private readonly parts: LimitParts,
  ) {}

  /**
   * Whether the account has withdrawn to `address` on the chain before (a send not failed), in the
   * caller's transaction (merchants/destination-store.ts). A refund's send does not count: a
   * customer's claimed address never waited the delay (purpose 'refund': refunds/store.ts makes
   * every refund's send so, and migration 0041 marked the earlier ones).
   */
  async withdrewTo(tx: Sql, account: Pick<Account, 'merchant' | 'mode'>, chainId: number, address: string): Promise<boolean> {
    const [used] = await tx.query(
      `SELECT 1 FROM withdrawals WHERE merchant_id = $1 AND mode = $2 AND chain_id = $3 AND lower(address) = lower($4) AND state <> 'failed' AND purpose = 'withdrawal' LIMIT 1`,
      [account.merchant.id, account.mode, chainId, address],
    );
    return used !== undefined;
  }

  private readonly followers = new Map<SendPurpose, SendFollower>();

  /** The feature whose sends are of `purpose` (service/app.ts: refunds). */
  follow(purpose: Exclude<SendPurpose, 'withdrawal'>, follower: SendFollower): void {
    this.followers.set(purpose, follower);
  }

  /** The feature of a send of `purpose` (none for a withdrawal); a send no feature follows is refused, never moved untold. */
  private followerOf(purpose: SendPurpose): SendFollower | undefined {
    if (purpose === 'withdrawal') return undefined;
    const follower = this.followers.get(purpose);
    if (!follower) throw new Error(`no feature follows the treasury's sends of purpose ${purpose}: nothing moved`);
    return follower;
  }

  /** The send's feature, its row locked first (before the send's, as that feature's own writes take them), if the send is another feature's. */
  private async lockFollower(tx: Sql, id: string): Promise<SendFollower | undefined> {
    const [row] = await tx.query(`SELECT purpose FROM withdrawals WHERE id = $1`, [id]);
    const follower = row && this.followerOf(row.purpose as SendPurpose);
    await follower?.lock(tx, id);
    return follower;
  }

  // ---- withdrawals ---------------------------------------------------------------------------

  /** The merchant's daily withdrawal limit in a mode, US dollars as decimal text: the operator's for it, else the service's default. */
  async withdrawalLimit(account: Owner, sql: Sql = this.db): Promise<{ daily: string; set: boolean }> {
    const [row] = await sql.query(`SELECT daily_usd FROM withdrawal_daily_limits WHERE merchant_id = $1 AND mode = $2`, [account.merchant.id, account.mode]);
    return row ? { daily: row.daily_usd as string, set: true } : { daily: this.defaultDailyLimit, set: false };
  }

  /** Sets (or, with null, clears back to the default) a merchant's daily withdrawal limit in a mode, US dollars; false for an unknown merchant. */
  async setWithdrawalLimit(account: Owner, daily: string | null, nowMs: number): Promise<boolean> {
    if (!(await this.parts.merchants.exists(this.db, account.merchant.id))) return false;
    if (daily === null) await this.db.query(`DELETE FROM withdrawal_daily_limits WHERE merchant_id = $1 AND mode = $2`, [account.merchant.id, account.mode]);
    else {
      await this.db.query(
        `INSERT INTO withdrawal_daily_limits (merchant_id, mode, daily_usd, updated_ms) VALUES ($1, $2, $3, $4)
         ON CONFLICT (merchant_id, mode) DO UPDATE SET daily_usd = $3, updated_ms = $4`,
        [account.merchant.id, account.mode, daily, nowMs],
      );
    }
    return true;
  }

  async withdrawal(account: Owner, id: string): Promise<StoredWithdrawal> {
    const [row] = await this.db.query(`SELECT * FROM withdrawals WHERE merchant_id = $1 AND mode = $2 AND id::text = $3 AND purpose = 'withdrawal'`, [
      account.merchant.id,
      account.mode,
      id,
    ]);
    if (!row) throw new NotFound(`No withdrawal ${id}`);
    return withdrawalOf(row);
  }

  /** The merchant's withdrawals in a mode, newest first, after `before` (the last of the page before). */
  async history(account: Owner, before: { createdMs: number; id: string } | undefined, limit: number): Promise<StoredWithdrawal[]> {
    return (await newestFirst(this.db, 'withdrawals', `purpose = 'withdrawal'`, account, before, limit)).map(withdrawalOf);
  }

  /** What left the balance against the daily limit in the last day, in US cents (see spentSince). */
  spentToday(account: Owner, nowMs: number): Promise<bigint> {
    return this.spentSince(this.db, account, nowMs - WITHDRAWAL_WINDOW_MS);
  }

  async pendingWithdrawals(chainId: number): Promise<StoredWithdrawal[]> {
    return (await this.db.query(`SELECT * FROM withdrawals WHERE chain_id = $1 AND state = 'pending' ORDER BY created_ms, id`, [chainId])).map(withdrawalOf);
  }

  /**
   * Notes the transaction a withdrawal (or another feature's send) is sent in, before it is sent;
   * answers the one recorded (see `recordSigned`). The send's feature is told in the same
   * transaction, only when this call recorded it.
   */
  async withdrawalSigned(id: string, signed: SignedTx, nowMs: number): Promise<RecordedTx> {
    await this.db.transaction(async (tx) => {
      const follower = await this.lockFollower(tx, id);
      const [row] = await writeSigned(tx, 'withdrawals', id, signed, nowMs);
      if (row && follower) await follower.moved(tx, withdrawalOf(row), nowMs);
    });
    return recordedTx(this.db, 'withdrawals', id);
  }

  // ---- inside a use case's transaction (balances/use-cases.ts) ------------------------------------

  /**
   * What left the merchant's balance in a mode since `sinceMs`, in US cents as valued when it
   * left: withdrawals to wallets and bank payouts, of every coin on every chain; failed ones not counted.
   * A refund counts once, by its own row, from when it was asked for (its amount is
   * reserved then, claim link or not), not again by its withdrawal's row when its customer
   * claims it later: that counted a claimed refund in the day it was asked and again in the
   * day it was claimed. Wallet-settled refunds leave no balance and count nothing.
   * One statement, as a limit is decided under the merchant's lock: the payouts' and refunds' parts
   * are their owners' SQL (LimitParts), summed with the withdrawals' in it.
   */
  async spentSince(sql: Sql, account: Owner, sinceMs: number): Promise<bigint> {
    const { payoutsSpentSince, refundsSpentSince } = this.parts;
    const [row] = await sql.query(
      `SELECT ((SELECT COALESCE(sum(usd_cents), 0) FROM withdrawals w WHERE merchant_id = $1 AND mode = $2 AND state <> 'failed' AND created_ms > $3 AND purpose = 'withdrawal')
             + (${payoutsSpentSince('$1', '$2', '$3')})
             + (${refundsSpentSince('$1', '$2', '$3')}))::text AS s`,
      [account.merchant.id, account.mode, sinceMs],
    );
    return big(row!.s);
  }

  async insert(
    tx: Sql,
    account: Owner,
    id: string,
    w: WithdrawalRequest,
    usdCents: bigint,
    nowMs: number,
    purpose: SendPurpose = 'withdrawal',
  ): Promise<StoredWithdrawal> {
    const [row] = await tx.query(
      `INSERT INTO withdrawals (id, merchant_id, mode, chain_id, symbol, token, decimals, address, amount, usd_cents, state, created_ms, updated_ms, network_fee, purpose) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 'pending', $11, $11, $12, $13) RETURNING *`,
      [
        id,
        account.merchant.id,
        account.mode,
        w.chainId,
        w.symbol,
        w.token.toLowerCase(),
        w.decimals,
        w.address,
        String(w.amount),
        String(usdCents),
        nowMs,
        String(w.networkFee),
        purpose,
      ],
    );
    return withdrawalOf(row!);
  }

  /** A send locked until the transaction ends (its feature's row first, see lockFollower). */
  async lock(tx: Sql, id: string): Promise<StoredWithdrawal | undefined> {
    await this.lockFollower(tx, id);
    const [row] = await tx.query(`SELECT * FROM withdrawals WHERE id = $1 FOR UPDATE`, [id]);
    return row && withdrawalOf(row);
  }

  /** Completed, counted in `block`: looked at again (final_ms NULL) until that block is final. */
  async completed(tx: Sql, id: string, nowMs: number, block: MinedIn | null = null): Promise<StoredWithdrawal> {
    const [row] = await tx.query(
      `UPDATE withdrawals SET state = 'completed', updated_ms = $2, mined_block = $3, mined_block_hash = $4, final_ms = NULL, failure = NULL WHERE id = $1 RETURNING *`,
      [id, nowMs, block ? String(block.number) : null, block?.hash ?? null],
    );
    return withdrawalOf(row!);
  }

  /**
   * A completed send a reorganisation took off the chain, its transaction still valid (its nonce
   * unused): pending again, to be sent again at its recorded transaction (the treasury job sends
   * a pending row's recorded transaction each tick). Its signing time is now, so that it is sent
   * as recorded before it is re-priced.
   */
  async reopened(tx: Sql, id: string, nowMs: number): Promise<StoredWithdrawal> {
    const [row] = await tx.query(
      `UPDATE withdrawals SET state = 'pending', mined_block = NULL, mined_block_hash = NULL, final_ms = NULL, failure = NULL, signed_ms = $2, updated_ms = $2 WHERE id = $1 RETURNING *`,
      [id, nowMs],
    );
    return withdrawalOf(row!);
  }

  /** How many times a send's counting was undone by a reorganisation (its `withdrawal_unsent` entries): the round of its next `withdrawal_sent`. */
  async unsentTimes(sql: Sql, id: string): Promise<number> {
    const [row] = await sql.query(`SELECT count(*)::int AS n FROM journal_entries WHERE kind = 'withdrawal_unsent' AND (ref = $1 OR ref LIKE $1 || '#%')`, [
      id,
    ]);
    return Number(row!.n);
  }

  // ---- looked at again until final (balances/treasury-job.ts) ---------------------------------------

  /** A chain's completed sends whose block is not final yet (withdrawals and refunds' sends), oldest first. */
  async notFinal(chainId: number): Promise<Array<StoredWithdrawal & { minedIn: MinedIn | null }>> {
    return (await notFinalRows(this.db, 'withdrawals', chainId)).map((r) => ({ ...withdrawalOf(r), minedIn: minedInOf(r) }));
  }

  /** Whether any completed send of the chain is not final yet. */
  anyNotFinal(chainId: number): Promise<boolean> {
    return anyNotFinal(this.db, 'withdrawals', chainId);
  }

  /** A completed send paid by `txHash` found in `block`; `final` when that block is final (see treasury-store.ts minedIn). */
  minedIn(id: string, txHash: string, block: MinedIn, final: boolean, nowMs: number): Promise<boolean> {
    return minedIn(this.db, 'withdrawals', id, txHash, block, final, nowMs);
  }

  /** Wakes the chain's treasury sender once `tx` commits (a send or a swap is due on that chain). */
  async treasuryDue(tx: Sql, chainId: number): Promise<void> {
    await tx.query(`SELECT pg_notify('treasury_due', $1)`, [String(chainId)]);
  }

  /** The send's feature told that it moved, in `tx` (a withdrawal's own: nothing to tell). */
  async followed(tx: Sql, send: StoredWithdrawal, nowMs: number): Promise<void> {
    await this.followerOf(send.purpose)?.moved(tx, send, nowMs);
  }

  /** Marks a send failed ('canceled') if no transaction is recorded for it yet, locked meanwhile; false when one is (too late). Its feature is not told: it cancels. */
  async cancelUnsigned(tx: Sql, id: string, nowMs: number): Promise<boolean> {
    const [row] = await tx.query(`SELECT state, tx_hash FROM withdrawals WHERE id = $1 FOR UPDATE`, [id]);
    if (row?.state !== 'pending' || row.tx_hash !== null) return false;
    await tx.query(`UPDATE withdrawals SET state = 'failed', failure = 'canceled', updated_ms = $2 WHERE id = $1`, [id, nowMs]);
    return true;
  }

  async failed(tx: Sql, id: string, failure: string, nowMs: number): Promise<StoredWithdrawal> {
    const [row] = await tx.query(`UPDATE withdrawals SET state = 'failed', failure = $2, updated_ms = $3 WHERE id = $1 RETURNING *`, [id, failure, nowMs]);
    return withdrawalOf(row!);
  }
}
