// Payments and the transfers credited to them: the SQL on both tables. Each change takes the
// caller's transaction (payments/crediting.ts and initialize's use case open it, lock the payment
// here, write their outbox event in it) and NOTIFYs 'changes' there so long polls held by any
// instance wake up when it commits.
import type { Account } from '../domain/account.ts';
import type { NewPayment, Payment, Requote } from './rules.ts';
import type { EventType } from '../../contract/events.ts';
import { NotFound } from '../domain/errors.ts';
import type { Database, Row, Sql } from '../storage/db.ts';
import { paymentKey } from '../realtime/keys.ts';
import type { RefundablePayment } from '../refunds/rules.ts';
import type { ChainStore } from '../chain/store.ts';
import type { PaymentGroup } from '../storage/metrics.ts';

/** The rates a payment was quoted at (migration: rates, rate_source, rate_fixed, rates_ms); null before they were kept. */
const ratesOf = (r: Row): Payment['rates'] => {
  if (r.rates === null || r.rates === undefined) return null;
  const parts = (typeof r.rates === 'string' ? JSON.parse(r.rates) : r.rates) as { fiatPerUsd: string; usdPerCoin: string };
  return {
    fiatPerCoin: r.fiat_rate as string,
    fiatPerUsd: parts.fiatPerUsd,
    usdPerCoin: parts.usdPerCoin,
    source: r.rate_source as string,
    fixed: r.rate_fixed as boolean,
    atMs: Number(r.rates_ms),
  };
};
const ratesColumns = (rates: Payment['rates']) =>
  rates ? [JSON.stringify({ fiatPerUsd: rates.fiatPerUsd, usdPerCoin: rates.usdPerCoin }), rates.source, rates.fixed, rates.atMs] : [null, null, null, null];

/** The columns paymentOf reads, named: a row's other columns are neither sent nor parsed. */
export const PAYMENT_COLUMNS = `id, merchant_id, mode, reference, created_by, payment_link_id, coin, chain_id, token, decimals, currency, fiat_minor, due, fee, paid,
  fiat_rate, crypto_rate, rates, rate_source, rate_fixed, rates_ms, address, accept_partial, customer_name, customer_email, metadata, last_hash,
  settled_ms, expires_ms, created_ms, updated_ms, fee_bps, fee_bearer, fee_to`;

/** A new payment, or nothing when its reference exists: one statement (initialize's new references). */
const INSERT_PAYMENT = `INSERT INTO payments (merchant_id, mode, reference, created_by, payment_link_id, coin, chain_id, token, decimals, currency,
    fiat_minor, due, fee, fiat_rate, crypto_rate, address, accept_partial, customer_name, customer_email, metadata,
    expires_ms, created_ms, updated_ms, payout, rates, rate_source, rate_fixed, rates_ms, settlement, fee_bps, fee_bearer, fee_to)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $22, $23, $24, $25, $26, $27, $28, $29, $30, $31)
  ON CONFLICT (merchant_id, mode, reference) DO NOTHING RETURNING ${PAYMENT_COLUMNS}`;

const insertParams = (account: Pick<Account, 'merchant' | 'mode'>, p: NewPayment, nowMs: number) => [
  account.merchant.id,
  account.mode,
  p.reference,
  p.createdBy,
  p.paymentLinkId,
  p.coin,
  p.chainId,
  p.token,
  p.decimals,
  p.currency,
  String(p.fiatMinor),
  String(p.due),
  String(p.fee),
  p.fiatRate,
  p.cryptoRate,
  p.address,
  p.acceptPartial,
  p.customerName,
  p.customerEmail,
  p.metadata === null ? null : JSON.stringify(p.metadata),
  p.expiresMs,
  nowMs,
  p.payout,
  ...ratesColumns(p.rates),
  p.settlement ?? 'wallet',
  p.feeBps,
  p.feeBearer,
  p.feeTo,
];

export const paymentOf = (r: Row): Payment => ({
  id: String(r.id),
  merchantId: r.merchant_id as string,
  mode: r.mode as string,
  reference: r.reference as string,
  createdBy: r.created_by as Payment['createdBy'],
  paymentLinkId: (r.payment_link_id as string | null) ?? null,
  coin: r.coin as Payment['coin'],
  chainId: Number(r.chain_id),
  token: r.token as string,
  decimals: Number(r.decimals),
  currency: r.currency as Payment['currency'],
  fiatMinor: BigInt(r.fiat_minor as string),
  due: BigInt(r.due as string),
  fee: BigInt(r.fee as string),
  paid: BigInt(r.paid as string),
  fiatRate: r.fiat_rate as string,
  cryptoRate: r.crypto_rate as string,
  rates: ratesOf(r),
  address: r.address as string,
  acceptPartial: r.accept_partial as boolean,
  customerName: r.customer_name as string,
  customerEmail: r.customer_email as string,
  metadata: (r.metadata as Record<string, unknown> | null) ?? null,
  lastHash: (r.last_hash as string | null) ?? null,
  settledMs: r.settled_ms === null || r.settled_ms === undefined ? null : Number(r.settled_ms),
  expiresMs: Number(r.expires_ms),
  createdMs: Number(r.created_ms),
  updatedMs: Number(r.updated_ms),
  feeBps: Number(r.fee_bps),
  feeBearer: r.fee_bearer as Payment['feeBearer'],
  feeTo: (r.fee_to as string | null) ?? null,
});

/** /metrics' payments: by the facts their status is made of (storage/metrics.ts). */
export async function paymentGroups(sql: Sql, nowMs: number): Promise<PaymentGroup[]> {
  const rows = await sql.query(
    `SELECT mode, paid >= due AS full, settled_ms IS NOT NULL AS settled, expires_ms <= $1 AS expired, paid > 0 AS some, count(*)::text AS n
       FROM payments GROUP BY 1, 2, 3, 4, 5`,
    [nowMs],
  );
  return rows.map((r) => ({ mode: r.mode as string, full: !!r.full, settled: !!r.settled, expired: !!r.expired, some: !!r.some, count: Number(r.n) }));
}

/** The event a change to a payment is told with, and its payload made from the changed payment. */
export interface ChangeReport {
  type: EventType;
  data: (payment: Payment) => unknown;
}

/** A transfer as credits name it: its chain, transaction and log index. */
export interface TransferKey {
  chainId: number;
  txHash: string;
  logIndex: number;
}

/** One key per transfer, to tell a credited one from a new one. */
export const creditKey = (t: TransferKey): string => `${t.chainId}:${t.txHash}:${t.logIndex}`;

export class PaymentStore {
  constructor(
    private readonly db: Database,
    /** What the chain saw of a payment, and its refunds: their owners' stores, asked in this store's transaction. */
    private readonly others: {
      chain: Pick<ChainStore, 'isConfirming' | 'received' | 'seenAny'>;
      refunds: { anyOf(sql: Sql, paymentId: string): Promise<boolean> };
    },
  ) {}

  async find(account: Pick<Account, 'merchant' | 'mode'>, reference: string, sql: Sql = this.db): Promise<Payment | undefined> {
    const [row] = await sql.query(
      `SELECT ${PAYMENT_COLUMNS} FROM payments WHERE merchant_id = $1 AND mode = $2 AND reference = $3`,
      [account.merchant.id, account.mode, reference],
      'payment_find',
    );
    return row && paymentOf(row);
  }

  /** Whose a payment is, by its id (as the chain's records name it): its merchant, mode and reference. */
  async whose(paymentId: string): Promise<{ merchantId: string; mode: 'test' | 'live'; reference: string } | undefined> {
    const [row] = await this.db.query(`SELECT merchant_id, mode, reference FROM payments WHERE id = $1`, [paymentId]);
    return row && { merchantId: row.merchant_id as string, mode: row.mode as 'test' | 'live', reference: row.reference as string };
  }

  async get(account: Pick<Account, 'merchant' | 'mode'>, reference: string): Promise<Payment> {
    const payment = await this.find(account, reference);
    if (!payment) throw new NotFound(`No transaction with reference ${reference}`);
    return payment;
  }

  /** The owner's payment by reference, locked until `tx` ends. */
  lock = async (tx: Sql, account: Pick<Account, 'merchant' | 'mode'>, reference: string) => {
    const [row] = await tx.query(
      `SELECT ${PAYMENT_COLUMNS} FROM payments WHERE merchant_id = $1 AND mode = $2 AND reference = $3 FOR UPDATE`,
      [account.merchant.id, account.mode, reference],
      'payment_lock',
    );
    return row && paymentOf(row);
  };

  /** The owner's payment a refund gives back, by reference, locked until `tx` ends (refunds/store.ts's transaction). */
  async refundable(tx: Sql, owner: Pick<Account, 'merchant' | 'mode'>, reference: string): Promise<RefundablePayment | undefined> {
    const [r] = await tx.query(
      `SELECT id, reference, coin, chain_id, token, decimals, paid::text AS paid, due::text AS due, settlement FROM payments WHERE merchant_id = $1 AND mode = $2 AND reference = $3 FOR UPDATE`,
      [owner.merchant.id, owner.mode, reference],
    );
    if (!r) return undefined;
    return {
      id: String(r.id),
      reference: r.reference as string,
      coin: r.coin as string,
      chainId: Number(r.chain_id),
      token: (r.token as string).toLowerCase(),
      decimals: Number(r.decimals),
      paid: BigInt(r.paid as string),
      due: BigInt(r.due as string),
      settlement: r.settlement as RefundablePayment['settlement'],
    };
  }

  /** How the owner's payment of this reference settles (undefined: no such payment). */
  async settlementOf(sql: Sql, owner: Pick<Account, 'merchant' | 'mode'>, reference: string): Promise<'wallet' | 'balance' | undefined> {
    const [row] = await sql.query(`SELECT settlement FROM payments WHERE merchant_id = $1 AND mode = $2 AND reference = $3`, [
      owner.merchant.id,
      owner.mode,
      reference,
    ]);
    return row?.settlement as 'wallet' | 'balance' | undefined;
  }

  /** Whether the merchant has a payment of this reference in its other mode. */
  async inOtherMode(sql: Sql, owner: Pick<Account, 'merchant' | 'mode'>, reference: string): Promise<boolean> {
    return (
      (await sql.query(`SELECT 1 FROM payments WHERE merchant_id = $1 AND mode <> $2 AND reference = $3 LIMIT 1`, [owner.merchant.id, owner.mode, reference]))
        .length > 0
    );
  }

  /** Whether the address is a deposit address of any payment of this service. */
  async isDepositAddress(sql: Sql, address: string): Promise<boolean> {
    return (await sql.query(`SELECT 1 FROM payments WHERE lower(address) = lower($1) LIMIT 1`, [address])).length > 0;
  }

  /** Initialize's new reference (payments/initialize.ts): one statement, its own transaction unless `sql` is the caller's; undefined when the reference exists. */
  async insertNew(account: Pick<Account, 'merchant' | 'mode'>, payment: NewPayment, nowMs: number, sql: Sql = this.db): Promise<Payment | undefined> {
    const [row] = await sql.query(INSERT_PAYMENT, insertParams(account, payment, nowMs), 'payment_insert');
    return row && paymentOf(row);
  }

  /**
   * A transaction for initialize (payments/initialize.ts) to run its reads and writes in: the use
   * case decides what runs in it; this store lends its database.
   */
  transaction<T>(work: (tx: Sql) => Promise<T>): Promise<T> {
    return this.db.transaction(work);
  }

  /** Whether a transfer in the payment's token is on the chain, still confirming (counted ones show in `paid`). */
  onChain(tx: Sql, payment: Payment): Promise<boolean> {
    return this.others.chain.isConfirming(tx, payment.id);
  }

  /** Whether any transfer at all (another token, dust) was recorded to the payment's deposit address. */
  received(tx: Sql, payment: Payment): Promise<boolean> {
    return this.others.chain.received(tx, payment.id);
  }

  /** Whether anything was recorded against the payment: any transfer (whatever its state) or any refund. */
  async hasHistory(tx: Sql, payment: Payment): Promise<boolean> {
    return (await this.others.chain.seenAny(tx, payment.id)) || (await this.others.refunds.anyOf(tx, payment.id));
  }

  /** A payment re-quoted (initialize again for its reference): its price, coin and, moved to another chain, its deposit address. */
  async requote(tx: Sql, existing: Payment, c: Requote, nowMs: number): Promise<Payment> {
    const [row] = await tx.query(
      `UPDATE payments SET created_by = $2, payment_link_id = COALESCE($3, payment_link_id), coin = $4, chain_id = $5, token = $6,
           decimals = $7, currency = $8, fiat_minor = $9, due = $10, fee = $11, fiat_rate = $12, crypto_rate = $13,
           accept_partial = $14, customer_name = $15, customer_email = $16, metadata = $17, expires_ms = $18, updated_ms = $19,
           rates = $20, rate_source = $21, rate_fixed = $22, rates_ms = $23,
           address = COALESCE($24, address), payout = CASE WHEN $24::text IS NULL THEN payout ELSE $25 END, settlement = COALESCE($26, settlement),
           fee_bps = $27, fee_bearer = $28, fee_to = CASE WHEN $24::text IS NULL THEN fee_to ELSE $29 END
         WHERE id = $1 RETURNING ${PAYMENT_COLUMNS}`,
      [
        existing.id,
        c.createdBy,
        c.paymentLinkId,
        c.coin,
        c.chainId,
        c.token,
        c.decimals,
        c.currency,
        String(c.fiatMinor),
        String(c.due),
        String(c.fee),
        c.fiatRate,
        c.cryptoRate,
        c.acceptPartial,
        c.customerName,
        c.customerEmail,
        c.metadata === null ? null : JSON.stringify(c.metadata),
        c.expiresMs,
        nowMs,
        ...ratesColumns(c.rates),
        // Moved to another chain: that chain's deposit address and what it is bound to.
        c.moved?.address ?? null,
        c.moved?.payout ?? null,
        c.moved ? (c.moved.settlement ?? 'wallet') : null,
        // The fee terms it is priced at: its own, or (moved) the new address's, with where that sends the fee.
        c.feeBps,
        c.feeBearer,
        c.moved?.feeTo ?? null,
      ],
    );
    return paymentOf(row);
  }

  /** Whether this transfer (its chain, hash and log index) is credited to a payment already. */
  async isCredited(tx: Sql, transfer: TransferKey): Promise<boolean> {
    const rows = await tx.query(
      `SELECT 1 FROM transfers WHERE chain_id = $1 AND tx_hash = $2 AND log_index = $3`,
      [transfer.chainId, transfer.txHash, transfer.logIndex],
      'transfer_credited',
    );
    return rows.length > 0;
  }

  /** Of the transfers in these transactions, those credited already, as `chain:hash:log` keys. */
  async creditedAmong(tx: Sql, txHashes: string[]): Promise<Set<string>> {
    const rows = await tx.query(`SELECT chain_id, tx_hash, log_index FROM transfers WHERE tx_hash = ANY($1::text[])`, [txHashes], 'transfers_credited');
    return new Set(rows.map((r) => creditKey({ chainId: Number(r.chain_id), txHash: r.tx_hash as string, logIndex: Number(r.log_index) })));
  }

  /** The payments of these ids, locked until `tx` ends, taken in one order so two writers never wait on each other's locks. */
  async lockAll(tx: Sql, ids: string[]): Promise<Map<string, Payment>> {
    const rows = await tx.query(`SELECT ${PAYMENT_COLUMNS} FROM payments WHERE id = ANY($1::bigint[]) ORDER BY id FOR UPDATE`, [ids], 'payments_lock_block');
    return new Map(rows.map((r) => [String(r.id), paymentOf(r)]));
  }

  /**
   * Records a transfer as credited to the payment and adds it to what the payment was paid; the
   * payment as it is now. Undefined when the transfer was recorded meanwhile by another way in
   * (a simulated payment): it counted there, once.
   */
  async addCredit(tx: Sql, paymentId: string, transfer: TransferKey, amount: bigint, nowMs: number): Promise<Payment | undefined> {
    const inserted = await tx.query(
      `INSERT INTO transfers (payment_id, chain_id, tx_hash, log_index, amount, created_ms) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (chain_id, tx_hash, log_index) DO NOTHING RETURNING id`,
      [paymentId, transfer.chainId, transfer.txHash, transfer.logIndex, String(amount), nowMs],
      'transfer_insert',
    );
    if (inserted.length === 0) return undefined;
    const [row] = await tx.query(
      `UPDATE payments SET paid = paid + $2, last_hash = $3, updated_ms = $4 WHERE id = $1 RETURNING ${PAYMENT_COLUMNS}`,
      [paymentId, String(amount), transfer.txHash, nowMs],
      'payment_paid',
    );
    return paymentOf(row);
  }

  /** Removes a credited transfer of the payment and takes it off what was paid; undefined when it was never credited to it. */
  async removeCredit(tx: Sql, paymentId: string, transfer: TransferKey, nowMs: number): Promise<Payment | undefined> {
    const [gone] = await tx.query(`DELETE FROM transfers WHERE chain_id = $1 AND tx_hash = $2 AND log_index = $3 AND payment_id = $4 RETURNING amount`, [
      transfer.chainId,
      transfer.txHash,
      transfer.logIndex,
      paymentId,
    ]);
    if (!gone) return undefined;
    const [row] = await tx.query(`UPDATE payments SET paid = paid - $2, updated_ms = $3 WHERE id = $1 RETURNING ${PAYMENT_COLUMNS}`, [
      paymentId,
      gone.amount,
      nowMs,
    ]);
    return paymentOf(row);
  }

  /** Marks a payment finished with what arrived (its settled_ms); the payment as it is now. */
  async markFinished(tx: Sql, paymentId: string, nowMs: number): Promise<Payment> {
    const [row] = await tx.query(`UPDATE payments SET settled_ms = $2, updated_ms = $2 WHERE id = $1 RETURNING ${PAYMENT_COLUMNS}`, [paymentId, nowMs]);
    return paymentOf(row);
  }

  /**
   * Accepted partial payments whose quote ran out by `nowMs`, not finished, none of `waiting`,
   * oldest quote first, at most `limit`: locked until `tx` ends, skipping those another instance holds.
   */
  async expiredPartials(tx: Sql, nowMs: number, waiting: string[], limit: number): Promise<Payment[]> {
    const rows = await tx.query(
      `SELECT ${PAYMENT_COLUMNS} FROM payments WHERE settled_ms IS NULL AND accept_partial AND paid > 0 AND paid < due AND expires_ms <= $1
        AND NOT (id::text = ANY($3::text[]))
        ORDER BY expires_ms LIMIT $2 FOR UPDATE SKIP LOCKED`,
      [nowMs, limit, waiting],
    );
    return rows.map(paymentOf);
  }

  /** What the account's payments in `coin` have brought in, in the coin's base units at `decimals`. */
  async collected(tx: Sql, account: Pick<Account, 'merchant' | 'mode'>, coin: string, decimals: number): Promise<bigint> {
    const rows = await tx.query('SELECT paid, decimals FROM payments WHERE merchant_id = $1 AND mode = $2 AND coin = $3 AND paid > 0', [
      account.merchant.id,
      account.mode,
      coin,
    ]);
    return rows.reduce((sum, r) => {
      const shift = Number(r.decimals) - decimals;
      const paid = BigInt(r.paid as string);
      return sum + (shift >= 0 ? paid / 10n ** BigInt(shift) : paid * 10n ** BigInt(-shift));
    }, 0n);
  }

  /** Wakes the long polls of any instance waiting on this payment, once `tx` commits. */
  notify = (tx: Sql, payment: Payment) => tx.query(`SELECT pg_notify('changes', $1)`, [paymentKey(payment.merchantId, payment.mode, payment.reference)]);
}
