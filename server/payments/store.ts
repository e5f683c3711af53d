// Payments and the transfers credited to them. Every change runs in one transaction with a
// row lock, writes its outbox event in that transaction, and NOTIFYs 'changes' so
// long polls held by any instance wake up.
import type { Account } from '../domain/account.ts';
import type { NewPayment, PaymentWrites } from './initialize-rules.ts';
import { assertCountsToward, assertSettles, assertTakesDeposits, type Payment } from './rules.ts';
import type { EventType } from '../../contract/events.ts';
import { Conflict, NotFound, NotItsToken, PaymentState } from '../domain/errors.ts';
import type { Database, Row, Sql } from '../storage/db.ts';
import type { EventStore } from '../storage/events.ts';
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

export interface ChangeReport {
  type: EventType;
  data: (payment: Payment) => unknown;
}

export class PaymentStore {
  constructor(
    private readonly db: Database,
    private readonly events: EventStore,
    /** What the chain saw of a payment, and its refunds: their owners' stores, asked in this store's transaction. */
    private readonly others: {
      chain: Pick<ChainStore, 'isConfirming' | 'confirmingPayments' | 'received' | 'seenAny'>;
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

  private lock = async (tx: Sql, account: Pick<Account, 'merchant' | 'mode'>, reference: string) => {
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

  /** Initialize's new reference (payments/initialize-rules.ts): one statement, its own transaction. */
  async insertNew(account: Pick<Account, 'merchant' | 'mode'>, payment: NewPayment, nowMs: number): Promise<Payment | undefined> {
    const [row] = await this.db.query(INSERT_PAYMENT, insertParams(account, payment, nowMs), 'payment_insert');
    return row && paymentOf(row);
  }

  /** Initialize's writes (payments/initialize-rules.ts), inside one transaction. */
  inTransaction<T>(work: (writes: PaymentWrites) => Promise<T>): Promise<T> {
    return this.db.transaction((tx) =>
      work({
        lock: (account, reference) => this.lock(tx, account, reference),
        onChain: (payment) => this.others.chain.isConfirming(tx, payment.id),
        received: (payment) => this.others.chain.received(tx, payment.id),
        hasHistory: async (payment) => (await this.others.chain.seenAny(tx, payment.id)) || (await this.others.refunds.anyOf(tx, payment.id)),
        insert: async (account, p, nowMs) => {
          const [row] = await tx.query(INSERT_PAYMENT, insertParams(account, p, nowMs), 'payment_insert');
          return row && paymentOf(row);
        },
        requote: async (existing, c, nowMs) => {
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
        },
        notify: (payment) => this.notify(tx, payment).then(() => undefined),
      }),
    );
  }

  /**
   * Credits one transfer to a payment, once: a transfer already credited (same chain,
   * hash and log index) changes nothing and answers the payment as it is, whatever the
   * payment's state now (a watcher that stopped between crediting and recording it asks
   * again). The quote's expiry is judged at `arrivedMs`, when the money reached the chain,
   * not when it had its confirmations. The outbox event is written in the same transaction.
   */
  async credit(
    account: Account,
    reference: string,
    transfer: { chainId: number; token: string; txHash: string; logIndex: number; amount: (payment: Payment) => bigint },
    nowMs: number,
    report: ChangeReport,
    arrivedMs = nowMs,
  ): Promise<Payment> {
    return this.db.transaction(async (tx) => {
      const payment = await this.lock(tx, account, reference);
      if (!payment) throw new NotFound(`No transaction with reference ${reference}`);
      const [already] = await tx.query(`SELECT 1 FROM transfers WHERE chain_id = $1 AND tx_hash = $2 AND log_index = $3`, [
        transfer.chainId,
        transfer.txHash,
        transfer.logIndex,
      ]);
      if (already) return payment;
      assertCountsToward(payment, transfer);
      assertTakesDeposits(payment, arrivedMs);
      const amount = transfer.amount(payment);
      const inserted = await tx.query(
        `INSERT INTO transfers (payment_id, chain_id, tx_hash, log_index, amount, created_ms) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (chain_id, tx_hash, log_index) DO NOTHING RETURNING id`,
        [payment.id, transfer.chainId, transfer.txHash, transfer.logIndex, String(amount), nowMs],
      );
      if (inserted.length === 0) return payment;
      const [row] = await tx.query(`UPDATE payments SET paid = paid + $2, last_hash = $3, updated_ms = $4 WHERE id = $1 RETURNING *`, [
        payment.id,
        String(amount),
        transfer.txHash,
        nowMs,
      ]);
      const updated = paymentOf(row);
      await this.events.add(tx, account, report.type, report.data(updated), nowMs);
      await this.notify(tx, updated);
      return updated;
    });
  }

  /**
   * Credits a block's confirmed transfers in `tx`, the caller's transaction (the watcher marks
   * them there too): all of them count, or, the transaction failing, none, and the block is
   * asked again. Their payments are locked at once, in one order (two blocks never wait on each
   * other's locks); a transfer already credited answers 'credited' again and counts once; money
   * in another token is 'unexpected' and money the payment no longer takes is 'late', as
   * credit() judges them (expiry at the transfer's `arrivedMs`). One outcome per transfer, in order.
   */
  async creditBlock(
    tx: Sql,
    transfers: Array<{ paymentId: string; chainId: number; token: string; txHash: string; logIndex: number; amount: bigint; arrivedMs: number }>,
    nowMs: number,
    report: ChangeReport,
  ): Promise<Array<'credited' | 'late' | 'unexpected'>> {
    if (transfers.length === 0) return [];
    const ids = [...new Set(transfers.map((t) => t.paymentId))];
    const rows = await tx.query(`SELECT ${PAYMENT_COLUMNS} FROM payments WHERE id = ANY($1::bigint[]) ORDER BY id FOR UPDATE`, [ids], 'payments_lock_block');
    const payments = new Map(rows.map((r) => [String(r.id), paymentOf(r)]));
    const seen = await tx.query(
      `SELECT chain_id, tx_hash, log_index FROM transfers WHERE tx_hash = ANY($1::text[])`,
      [[...new Set(transfers.map((t) => t.txHash))]],
      'transfers_credited',
    );
    const credited = new Set(seen.map((r) => `${r.chain_id}:${r.tx_hash}:${r.log_index}`));
    const changed = new Map<string, Payment>();
    const outcomes: Array<'credited' | 'late' | 'unexpected'> = [];
    for (const t of transfers) {
      const payment = payments.get(t.paymentId);
      if (!payment) throw new NotFound(`No transaction with id ${t.paymentId}`);
      if (credited.has(`${t.chainId}:${t.txHash}:${t.logIndex}`)) {
        outcomes.push('credited');
        continue;
      }
      try {
        assertCountsToward(payment, t);
        assertTakesDeposits(payment, t.arrivedMs);
      } catch (error) {
        if (error instanceof NotItsToken) outcomes.push('unexpected');
        else if (error instanceof Conflict) outcomes.push('late');
        else throw error;
        continue;
      }
      credited.add(`${t.chainId}:${t.txHash}:${t.logIndex}`);
      outcomes.push('credited');
      // Credited meanwhile by another way in (a simulated payment): counted there, once.
      const inserted = await tx.query(
        `INSERT INTO transfers (payment_id, chain_id, tx_hash, log_index, amount, created_ms) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (chain_id, tx_hash, log_index) DO NOTHING RETURNING id`,
        [payment.id, t.chainId, t.txHash, t.logIndex, String(t.amount), nowMs],
        'transfer_insert',
      );
      if (inserted.length === 0) continue;
      const [row] = await tx.query(
        `UPDATE payments SET paid = paid + $2, last_hash = $3, updated_ms = $4 WHERE id = $1 RETURNING ${PAYMENT_COLUMNS}`,
        [payment.id, String(t.amount), t.txHash, nowMs],
        'payment_paid',
      );
      const updated = paymentOf(row);
      payments.set(t.paymentId, updated); // a second transfer to it in this block is judged on what the first left
      changed.set(t.paymentId, updated);
      const account = { merchant: { id: updated.merchantId } as Account['merchant'], mode: updated.mode as Account['mode'] };
      await this.events.add(tx, account, report.type, report.data(updated), nowMs);
    }
    for (const payment of changed.values()) await this.notify(tx, payment);
    return outcomes;
  }

  /**
   * Takes back a credited transfer whose block left the chain (a reorganisation), in one
   * transaction with the event that tells the merchant. A transfer never credited changes nothing.
   */
  async uncredit(
    account: Account,
    reference: string,
    transfer: { chainId: number; txHash: string; logIndex: number },
    nowMs: number,
    report: ChangeReport,
  ): Promise<Payment | undefined> {
    return this.db.transaction(async (tx) => {
      const payment = await this.lock(tx, account, reference);
      if (!payment) return undefined;
      const [gone] = await tx.query(`DELETE FROM transfers WHERE chain_id = $1 AND tx_hash = $2 AND log_index = $3 AND payment_id = $4 RETURNING amount`, [
        transfer.chainId,
        transfer.txHash,
        transfer.logIndex,
        payment.id,
      ]);
      if (!gone) return payment;
      const [row] = await tx.query(`UPDATE payments SET paid = paid - $2, updated_ms = $3 WHERE id = $1 RETURNING *`, [payment.id, gone.amount, nowMs]);
      const updated = paymentOf(row);
      await this.events.add(tx, account, report.type, report.data(updated), nowMs);
      await this.notify(tx, updated);
      return updated;
    });
  }

  /** Tells the merchant of money that reached a payment's address and could not count. */
  async reportUnmatched(account: Account, data: unknown, nowMs: number): Promise<void> {
    await this.report(account, 'DEPOSIT_UNMATCHED', data, nowMs);
  }

  /** Writes an event for the merchant that changes no payment (unmatched money, a discrepancy). */
  async report(account: Pick<Account, 'merchant' | 'mode'>, type: EventType, data: unknown, nowMs: number): Promise<void> {
    await this.db.transaction((tx) => this.events.add(tx, account, type, data, nowMs));
  }

  /**
   * Settles an accepted partial payment with what arrived: a final state the merchant sees in
   * verify and, once, in a webhook. Settling a settled payment answers it as it is.
   */
  async settle(account: Account, reference: string, nowMs: number, report: ChangeReport): Promise<Payment> {
    return this.db.transaction(async (tx) => {
      const payment = await this.lock(tx, account, reference);
      if (!payment) throw new NotFound(`No transaction with reference ${reference}`);
      if (assertSettles(payment, nowMs) === 'already') return payment;
      // Money on its way (seen, not yet deep enough) would count as late once settled: wait for it.
      if (await this.others.chain.isConfirming(tx, payment.id))
        throw new PaymentState(`Transaction ${reference} has money on the chain still confirming; it can be finished once that counts`);
      return this.markSettled(tx, account, payment, nowMs, report);
    });
  }

  /**
   * Settles, one batch at a time, accepted partial payments whose quote ran out (any
   * instance). One with money still confirming (it arrived in time) waits until that counts.
   */
  async settleExpired(nowMs: number, report: ChangeReport, limit = 50): Promise<number> {
    return this.db.transaction(async (tx) => {
      const confirming = await this.others.chain.confirmingPayments(tx);
      const rows = await tx.query(
        `SELECT * FROM payments WHERE settled_ms IS NULL AND accept_partial AND paid > 0 AND paid < due AND expires_ms <= $1
          AND NOT (id::text = ANY($3::text[]))
          ORDER BY expires_ms LIMIT $2 FOR UPDATE SKIP LOCKED`,
        [nowMs, limit, confirming],
      );
      for (const row of rows) {
        const payment = paymentOf(row);
        const account = { merchant: { id: payment.merchantId } as Account['merchant'], mode: payment.mode as Account['mode'], via: 'secret' as const };
        await this.markSettled(tx, account, payment, nowMs, report);
      }
      return rows.length;
    });
  }

  private async markSettled(tx: Sql, account: Pick<Account, 'merchant' | 'mode'>, payment: Payment, nowMs: number, report: ChangeReport): Promise<Payment> {
    const [row] = await tx.query('UPDATE payments SET settled_ms = $2, updated_ms = $2 WHERE id = $1 RETURNING *', [payment.id, nowMs]);
    const settled = paymentOf(row);
    await this.events.add(tx, account, report.type, report.data(settled), nowMs);
    await this.notify(tx, settled);
    return settled;
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

  private notify = (tx: Sql, payment: Payment) =>
    tx.query(`SELECT pg_notify('changes', $1)`, [paymentKey(payment.merchantId, payment.mode, payment.reference)]);
}
