// Refunds as rows: SQL only, of the refunds' own table; the writes take the transaction the refund
// use cases open (refunds/use-cases.ts). The payments' deposit addresses and the merchant's support
// limit are their owners' stores, handed in by type.
import type { Account } from '../domain/account.ts';
import { NotFound } from '../domain/errors.ts';
import type { RefundState } from '../../contract/refunds.ts';
import type { StoredRefund } from './rules.ts';
import type { Database, Row, Sql } from '../storage/db.ts';
import type { PaymentStore } from '../payments/store.ts';
import type { MerchantStore } from '../merchants/store.ts';
import { stateCounts, type StateCount } from '../storage/metrics.ts';

type Owner = Pick<Account, 'merchant' | 'mode'>;

export const refundOf = (r: Row): StoredRefund => ({
  id: r.id as string,
  merchantId: r.merchant_id as string,
  mode: r.mode as string,
  paymentId: String(r.payment_id),
  reference: r.reference as string,
  coin: r.coin as string,
  chainId: Number(r.chain_id),
  token: r.token as string,
  decimals: Number(r.decimals),
  address: (r.address as string | null) ?? null,
  amount: BigInt(r.amount as string),
  reason: r.reason as string,
  settlement: r.settlement as StoredRefund['settlement'],
  state: r.state as RefundState,
  txHash: (r.tx_hash as string | null) ?? null,
  failure: (r.failure as string | null) ?? null,
  claimExpiresMs: r.claim_expires_ms === null || r.claim_expires_ms === undefined ? null : Number(r.claim_expires_ms),
  usdCents: BigInt((r.usd_cents as string | undefined) ?? '0'),
  createdMs: Number(r.created_ms),
  updatedMs: Number(r.updated_ms),
});

export interface RefundFilter {
  /** After this refund (the last one of the previous page), by (created_ms, id). */
  after?: { createdMs: number; id: string };
  limit: number;
  state?: RefundState;
  reference?: string;
  fromMs?: number;
  toMs?: number;
}

/** /metrics' refunds by key mode and state (storage/metrics.ts). */
export const refundsByState = async (sql: Sql): Promise<StateCount[]> =>
  stateCounts(await sql.query(`SELECT mode, state, count(*)::text AS n FROM refunds GROUP BY 1, 2`));

/**
 * SQL: what the merchant's balance-settled refunds took since a time, US cents as valued when
 * asked for (counted from then, claimed or not; failed and canceled ones not counted), with
 * `merchant`, `mode`, `since` the caller's parameters: their part of the one daily limit, which
 * balances/withdrawal-store.ts sums in one statement.
 */
export const refundsSpentSince = (merchant: string, mode: string, since: string): string =>
  `SELECT COALESCE(sum(usd_cents), 0) FROM refunds WHERE merchant_id = ${merchant} AND mode = ${mode} AND settlement = 'balance' AND state NOT IN ('failed', 'canceled') AND created_ms > ${since}`;

/** A refund as asked for, before its row has a state (ready, or waiting for the address its claim link names). */
export type NewRefund = Omit<StoredRefund, 'merchantId' | 'mode' | 'state' | 'txHash' | 'failure' | 'claimExpiresMs' | 'createdMs' | 'updatedMs'> & {
  claim?: { hash: string; expiresMs: number };
  role?: string;
};

export class RefundStore {
  constructor(
    private readonly db: Database,
    private readonly stores: {
      payments: Pick<PaymentStore, 'isDepositAddress'>;
      merchants: Pick<MerchantStore, 'supportRefundLimit' | 'setSupportRefundLimit'>;
    },
    /** The daily limit of a support member's refunds, US dollars as decimal text, where the merchant set none (SUPPORT_REFUND_DAILY_LIMIT). */
    private readonly defaultSupportLimit = '100',
  ) {}

  async refund(owner: Owner, id: string): Promise<StoredRefund> {
    const [row] = /^[0-9a-f-]{36}$/i.test(id)
      ? await this.db.query(`SELECT * FROM refunds WHERE merchant_id = $1 AND mode = $2 AND id::text = $3`, [owner.merchant.id, owner.mode, id.toLowerCase()])
      : [];
    if (!row) throw new NotFound(`No refund ${id}`);
    return refundOf(row);
  }

  async list(owner: Owner, filter: RefundFilter): Promise<StoredRefund[]> {
    const params: unknown[] = [owner.merchant.id, owner.mode];
    const arg = (value: unknown) => `$${params.push(value)}`;
    const where = ['merchant_id = $1', 'mode = $2'];
    if (filter.after) where.push(`(created_ms, id::text) < (${arg(filter.after.createdMs)}, ${arg(filter.after.id)})`);
    if (filter.state) where.push(`state = ${arg(filter.state)}`);
    if (filter.reference) where.push(`reference = ${arg(filter.reference)}`);
    if (filter.fromMs !== undefined) where.push(`created_ms >= ${arg(filter.fromMs)}`);
    if (filter.toMs !== undefined) where.push(`created_ms < ${arg(filter.toMs)}`);
    const rows = await this.db.query(
      `SELECT * FROM refunds WHERE ${where.join(' AND ')} ORDER BY created_ms DESC, id::text DESC LIMIT ${arg(filter.limit)}`,
      params,
    );
    return rows.map(refundOf);
  }

  /** What a payment's refunds not failed add up to, by payment id (base units): for its detail's `refunded`. */
  async refundedOf(paymentIds: string[]): Promise<Map<string, bigint>> {
    if (paymentIds.length === 0) return new Map();
    const rows = await this.db.query(
      `SELECT payment_id, sum(amount)::text AS s FROM refunds WHERE payment_id::text = ANY($1::text[]) AND state NOT IN ('failed', 'canceled') AND NOT outside_payment GROUP BY payment_id`,
      [paymentIds],
    );
    return new Map(rows.map((r) => [String(r.payment_id), BigInt(r.s as string)]));
  }

  /** Whether the payment has any refund, in any state (in the caller's transaction). */
  async anyOf(sql: Sql, paymentId: string): Promise<boolean> {
    return (await sql.query(`SELECT 1 FROM refunds WHERE payment_id = $1 LIMIT 1`, [paymentId])).length > 0;
  }

  /** Whether any refund waits on a claim link expired by `nowMs` (the job looks further only then). */
  async expiring(nowMs: number): Promise<boolean> {
    const [row] = await this.db.query(`SELECT EXISTS (SELECT 1 FROM refunds WHERE state = 'waiting_for_address' AND claim_expires_ms <= $1) AS due`, [nowMs]);
    return Boolean(row!.due);
  }

  /** The refund a claim link's token hash opens (any merchant's: the token is the only key), or undefined. */
  async byClaim(claimHash: string): Promise<StoredRefund | undefined> {
    const [row] = await this.db.query(`SELECT * FROM refunds WHERE claim_hash = $1`, [claimHash]);
    return row && refundOf(row);
  }

  /** Whether the address is a deposit address of any payment of this service. */
  async isDepositAddress(address: string): Promise<boolean> {
    return this.stores.payments.isDepositAddress(this.db, address);
  }

  /** A merchant's limit on its support members' refunds a day, US cents: its own, else the operator's default. */
  /** The support members' daily refund limit of a mode, in US cents (each mode its own; the operator's default where none is set). */
  async supportLimitCents(merchantId: string, mode: string): Promise<bigint> {
    const own = await this.stores.merchants.supportRefundLimit(merchantId, mode);
    if (own !== null) return own;
    const [whole, fraction = ''] = this.defaultSupportLimit.split('.');
    return BigInt((whole || '0') + fraction.slice(0, 2).padEnd(2, '0'));
  }

  async setSupportLimit(merchantId: string, mode: string, cents: bigint | null): Promise<void> {
    await this.stores.merchants.setSupportRefundLimit(merchantId, mode, cents);
  }

  /** What the payment's refunds not failed add up to (base units), in the caller's transaction. */
  async refundedFor(tx: Sql, paymentId: string): Promise<bigint> {
    const [r] = await tx.query(
      `SELECT COALESCE(sum(amount), 0)::text AS s FROM refunds WHERE payment_id = $1 AND state NOT IN ('failed', 'canceled') AND NOT outside_payment`,
      [paymentId],
    );
    return BigInt(r!.s as string);
  }

  async insert(tx: Sql, owner: Owner, r: NewRefund, nowMs: number): Promise<StoredRefund> {
    const [row] = await tx.query(
      `INSERT INTO refunds (id, merchant_id, mode, payment_id, reference, coin, chain_id, token, decimals, address, amount, reason, settlement, state, claim_hash, claim_expires_ms, usd_cents, actor_role, created_ms, updated_ms)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $19) RETURNING *`,
      [
        r.id,
        owner.merchant.id,
        owner.mode,
        r.paymentId,
        r.reference,
        r.coin,
        r.chainId,
        r.token.toLowerCase(),
        r.decimals,
        r.address,
        String(r.amount),
        r.reason,
        r.settlement,
        r.claim ? 'waiting_for_address' : 'ready',
        r.claim?.hash ?? null,
        r.claim?.expiresMs ?? null,
        String(r.usdCents),
        r.role ?? null,
        nowMs,
      ],
    );
    return refundOf(row!);
  }

  /** A refund by id, locked until the caller's transaction ends. */
  async lock(tx: Sql, id: string): Promise<StoredRefund | undefined> {
    const [row] = await tx.query(`SELECT * FROM refunds WHERE id = $1 FOR UPDATE`, [id]);
    return row && refundOf(row);
  }

  /** A waiting refund given the customer's address: ready. */
  async claimed(tx: Sql, id: string, address: string, nowMs: number): Promise<StoredRefund> {
    const [row] = await tx.query(
      `UPDATE refunds SET address = $2, state = 'ready', updated_ms = $3 WHERE id = $1 AND state = 'waiting_for_address' RETURNING *`,
      [id, address, nowMs],
    );
    return refundOf(row!);
  }

  async canceled(tx: Sql, id: string, why: string, nowMs: number): Promise<StoredRefund> {
    const [row] = await tx.query(`UPDATE refunds SET state = 'canceled', failure = $2, updated_ms = $3 WHERE id = $1 RETURNING *`, [id, why, nowMs]);
    return refundOf(row!);
  }

  /** Refunds waiting on a claim link expired by `nowMs`, locked (those another instance holds skipped). */
  async expired(tx: Sql, nowMs: number, limit: number): Promise<StoredRefund[]> {
    const rows = await tx.query(
      `SELECT * FROM refunds WHERE state = 'waiting_for_address' AND claim_expires_ms <= $1 ORDER BY claim_expires_ms LIMIT ${Number(limit)} FOR UPDATE SKIP LOCKED`,
      [nowMs],
    );
    return rows.map(refundOf);
  }

  /** US cents of the owner's refunds made by support members since, not failed or canceled. */
  async supportSince(tx: Sql, owner: Owner, sinceMs: number): Promise<bigint> {
    const [r] = await tx.query(
      `SELECT COALESCE(sum(usd_cents), 0)::text AS s FROM refunds WHERE merchant_id = $1 AND mode = $2 AND actor_role = 'support' AND state NOT IN ('failed', 'canceled') AND created_ms > $3`,
      [owner.merchant.id, owner.mode, sinceMs],
    );
    return BigInt(r!.s as string);
  }

  async advance(
    tx: Sql,
    id: string,
    to: { state: StoredRefund['state']; txHash: string | null; failure: string | null },
    nowMs: number,
  ): Promise<StoredRefund> {
    const [row] = await tx.query(`UPDATE refunds SET state = $2, tx_hash = $3, failure = $4, updated_ms = $5 WHERE id = $1 RETURNING *`, [
      id,
      to.state,
      to.txHash,
      to.failure,
      nowMs,
    ]);
    return refundOf(row!);
  }
}
