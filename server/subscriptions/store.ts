// Plans, subscriptions and their charges: the SQL of server/subscriptions/, and nothing else.
// The use cases (use-cases.ts) open the transactions; each write here takes the caller's.
import { randomUUID } from 'node:crypto';
import type { Period, SubscriptionState } from '../../contract/subscriptions.ts';
import type { Account } from '../domain/account.ts';
import type { Database, Row, Sql } from '../storage/db.ts';
import { releaseLease, takeLease } from '../storage/leases.ts';
import type { StoredPlan, StoredSubscription } from './rules.ts';

export type { StoredPlan, StoredSubscription } from './rules.ts';

/** Whose plans: a merchant (its id is all a store needs) in a mode. */
export type Owner = { merchant: Pick<Account['merchant'], 'id'>; mode: Account['mode'] };

export type ChargeState = 'due' | 'sending' | 'sent' | 'failed';

const PLAN_COLUMNS = `p.id AS p_id, p.merchant_id AS p_merchant_id, p.mode AS p_mode, p.name AS p_name, p.coin AS p_coin, p.chain_id AS p_chain_id,
  p.token AS p_token, p.decimals AS p_decimals, p.price AS p_price, p.period AS p_period, p.periods AS p_periods, p.created_ms AS p_created_ms`;
const WITH_PLAN = `SELECT s.*, ${PLAN_COLUMNS} FROM subscriptions s JOIN subscription_plans p ON p.id = s.plan_id`;

const planOf = (r: Row): StoredPlan => ({
  id: r.p_id as string,
  merchantId: r.p_merchant_id as string,
  mode: r.p_mode as Account['mode'],
  name: r.p_name as string,
  coin: r.p_coin as string,
  chainId: Number(r.p_chain_id),
  token: r.p_token as string,
  decimals: Number(r.p_decimals),
  price: BigInt(r.p_price as string),
  period: r.p_period as Period,
  periods: Number(r.p_periods),
  createdMs: Number(r.p_created_ms),
});

const subscriptionOf = (r: Row): StoredSubscription => ({
  id: r.id as string,
  merchantId: r.merchant_id as string,
  mode: r.mode as Account['mode'],
  planId: r.plan_id as string,
  wallet: r.wallet as string,
  spender: r.spender as string,
  status: r.status as SubscriptionState,
  startMs: Number(r.start_ms),
  charged: Number(r.charged),
  nextMs: r.next_ms === null ? null : Number(r.next_ms),
  failures: Number(r.failures),
  canceledMs: r.canceled_ms === null ? null : Number(r.canceled_ms),
  createdMs: Number(r.created_ms),
  plan: planOf(r),
});

const PLAN_SELECT = `SELECT ${PLAN_COLUMNS} FROM subscription_plans p`;
export interface ChargeRow {
  period: number;
  reference: string;
  amount: bigint;
  state: ChargeState;
  attempts: number;
  txHash: string | null;
}

export class SubscriptionStore {
  constructor(private readonly db: Database) {}

  async createPlan(owner: Owner, p: Omit<StoredPlan, 'id' | 'merchantId' | 'mode' | 'createdMs'>, nowMs: number): Promise<StoredPlan> {
    const id = randomUUID();
    await this.db.query(
      `INSERT INTO subscription_plans (id, merchant_id, mode, name, coin, chain_id, token, decimals, price, period, periods, created_ms)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
      [id, owner.merchant.id, owner.mode, p.name, p.coin, p.chainId, p.token.toLowerCase(), p.decimals, String(p.price), p.period, p.periods, nowMs],
    );
    return (await this.plan(owner, id))!;
  }

  async plan(owner: Owner, id: string): Promise<StoredPlan | undefined> {
    const [row] = await this.db.query(`${PLAN_SELECT} WHERE p.merchant_id = $1 AND p.mode = $2 AND p.id = $3`, [owner.merchant.id, owner.mode, id]);
    return row && planOf(row);
  }

  /** Newest first, after (created_ms, id) of the page before. */
  async plans(owner: Owner, after: { createdMs: number; id: string } | undefined, limit: number): Promise<StoredPlan[]> {
    return (await this.page(PLAN_SELECT, 'p', owner, after, limit)).map(planOf);
  }

  /** One page of the owner's rows of `select` (its table as `alias`), newest first, after (created_ms, id) of the page before. */
  private page(select: string, alias: 'p' | 's', owner: Owner, after: { createdMs: number; id: string } | undefined, limit: number) {
    return this.db.query(
      `${select} WHERE ${alias}.merchant_id = $1 AND ${alias}.mode = $2 ${after ? `AND (${alias}.created_ms, ${alias}.id) < ($4, $5)` : ''}
       ORDER BY ${alias}.created_ms DESC, ${alias}.id DESC LIMIT $3`,
      after ? [owner.merchant.id, owner.mode, limit, after.createdMs, after.id] : [owner.merchant.id, owner.mode, limit],
    );
  }

  /** A new subscription, pending, its first period starting at `startMs`. */
  async subscribe(owner: Owner, s: { planId: string; wallet: string; spender: string; startMs: number }, nowMs: number): Promise<StoredSubscription> {
    const id = randomUUID();
    await this.db.query(
      `INSERT INTO subscriptions (id, merchant_id, mode, plan_id, wallet, spender, status, start_ms, charged, next_ms, failures, created_ms, updated_ms)
       VALUES ($1, $2, $3, $4, $5, $6, 'pending', $7, 0, $7, 0, $8, $8)`,
      [id, owner.merchant.id, owner.mode, s.planId, s.wallet.toLowerCase(), s.spender.toLowerCase(), s.startMs, nowMs],
    );
    return (await this.subscription(owner, id))!;
  }

  async subscription(owner: Owner, id: string): Promise<StoredSubscription | undefined> {
    const [row] = await this.db.query(`${WITH_PLAN} WHERE s.merchant_id = $1 AND s.mode = $2 AND s.id = $3`, [owner.merchant.id, owner.mode, id]);
    return row && subscriptionOf(row);
  }

  async subscriptions(owner: Owner, after: { createdMs: number; id: string } | undefined, limit: number): Promise<StoredSubscription[]> {
    return (await this.page(WITH_PLAN, 's', owner, after, limit)).map(subscriptionOf);
  }

  /** Each period's charge of a subscription, first period first. */
  async charges(id: string): Promise<ChargeRow[]> {
    const rows = await this.db.query(`SELECT * FROM subscription_charges WHERE subscription_id = $1 ORDER BY period`, [id]);
    return rows.map((r) => ({
      period: Number(r.period),
      reference: r.reference as string,
      amount: BigInt(r.amount as string),
      state: r.state as ChargeState,
      attempts: Number(r.attempts),
      txHash: (r.tx_hash as string | null) ?? null,
    }));
  }

  /** Subscriptions whose next charge (or retry) is due at `nowMs`, on one chain of one mode, oldest due first. */
  async due(mode: Account['mode'], chainId: number, nowMs: number, limit: number): Promise<StoredSubscription[]> {
    const rows = await this.db.query(
      `${WITH_PLAN} WHERE s.mode = $1 AND p.chain_id = $2 AND s.status <> 'canceled' AND s.next_ms IS NOT NULL AND s.next_ms <= $3
       ORDER BY s.next_ms, s.id LIMIT $4`,
      [mode, chainId, nowMs, limit],
    );
    return rows.map(subscriptionOf);
  }

  /** The charge job's lease on one chain of one mode: one instance charges there at a time. */
  lease(name: string, holder: string, nowMs: number, ms: number): Promise<boolean> {
    return takeLease(this.db, `subscriptions/${name}`, holder, nowMs, ms);
  }

  release(name: string, holder: string): Promise<void> {
    return releaseLease(this.db, `subscriptions/${name}`, holder);
  }

  /** The subscription and its plan, locked until the caller's transaction ends. */
  async lock(tx: Sql, id: string): Promise<StoredSubscription | undefined> {
    await tx.query(`SELECT 1 FROM subscriptions WHERE id = $1 FOR UPDATE`, [id]);
    const [row] = await tx.query(`${WITH_PLAN} WHERE s.id = $1`, [id]);
    return row && subscriptionOf(row);
  }

  async update(
    tx: Sql,
    id: string,
    c: { status: SubscriptionState; charged?: number; nextMs: number | null; failures?: number },
    nowMs: number,
  ): Promise<void> {
    await tx.query(
      `UPDATE subscriptions SET status = $2, charged = COALESCE($3, charged), next_ms = $4, failures = COALESCE($5, failures), updated_ms = $6 WHERE id = $1`,
      [id, c.status, c.charged ?? null, c.nextMs, c.failures ?? null, nowMs],
    );
  }

  async cancel(tx: Sql, id: string, nowMs: number): Promise<void> {
    await tx.query(`UPDATE subscriptions SET status = 'canceled', next_ms = NULL, canceled_ms = $2, updated_ms = $2 WHERE id = $1`, [id, nowMs]);
  }

  /**
   * The key of period `n`'s charge, written before anything is broadcast, and claimed for
   * sending: true only for the one caller that moved it from `due` or `failed` to `sending`
   * (a charge sending or sent is never claimed again).
   */
  async claim(tx: Sql, id: string, n: number, reference: string, amount: bigint, holder: string, nowMs: number): Promise<boolean> {
    await tx.query(
      `INSERT INTO subscription_charges (subscription_id, period, reference, amount, state, attempts, created_ms, updated_ms)
       VALUES ($1, $2, $3, $4, 'due', 0, $5, $5) ON CONFLICT (subscription_id, period) DO NOTHING`,
      [id, n, reference, String(amount), nowMs],
    );
    const claimed = await tx.query(
      `UPDATE subscription_charges SET state = 'sending', attempts = attempts + 1, claimed_by = $3, updated_ms = $4
       WHERE subscription_id = $1 AND period = $2 AND state IN ('due', 'failed') RETURNING period`,
      [id, n, holder, nowMs],
    );
    return claimed.length === 1;
  }

  /** Where period `n`'s charge ended: sent (its transaction), failed (why), or back to due (nothing was broadcast). */
  async chargeEnded(
    tx: Sql,
    id: string,
    n: number,
    state: Exclude<ChargeState, 'sending'>,
    detail: { txHash?: string; error?: string },
    nowMs: number,
  ): Promise<void> {
    await tx.query(
      `UPDATE subscription_charges SET state = $3, tx_hash = COALESCE($4, tx_hash), error = $5, updated_ms = $6 WHERE subscription_id = $1 AND period = $2`,
      [id, n, state, detail.txHash ?? null, detail.error ?? null, nowMs],
    );
  }
}
