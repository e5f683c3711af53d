// A payment's exceptions (money that did not count as asked) as rows: what each payment needs of its merchant (payments/attention-rules.ts
// decides from these facts), and the writes of resolving it, each in the caller's transaction (the
// payment row locked first, so two accepts at once resolve once). SQL only.
import type { Account } from '../domain/account.ts';
import type { Database, Sql } from '../storage/db.ts';
import type { EventStore } from '../storage/events.ts';
import { paymentKey } from '../realtime/keys.ts';
import { PAYMENT_COLUMNS, paymentOf, type ChangeReport } from './store.ts';
import type { Payment } from './rules.ts';
import type { AttentionPayment, OpenTransfer } from './attention-rules.ts';
import type { CreditTerms, RateAt } from './credit-rules.ts';
import type { RateHistoryStore } from '../rates/history-store.ts';
import type { CreditedTransfer, TransferViews } from '../chain/transfer-views-store.ts';

type Owner = Pick<Account, 'merchant' | 'mode'>;

/** A transfer credited toward its payment, as the payment's detail shows it. */
export type CreditLine = CreditedTransfer;

/** The refund a case was resolved by (its id), and its payment's key to tell those waiting on it. */
export interface ReopenedBy {
  id: string;
  paymentId: string;
  merchantId: string;
  mode: string;
  reference: string;
}

export class AttentionStore {
  constructor(
    private readonly db: Database,
    private readonly events: EventStore,
    /** The chain's transfers (chain/transfer-views-store.ts): a case's transfers are its rows, read and resolved in this store's transaction. */
    private readonly chain: TransferViews,
    /** The coin rates kept (rates/history-store.ts) and a refund's mark of money the payment never counted (refunds/outside-store.ts), read and written in this store's transaction. */
    private readonly others: { rates: Pick<RateHistoryStore, 'at'>; markOutsidePayment(tx: Sql, refundId: string): Promise<void> },
  ) {}

  /** Each payment's open transfers and own resolution, by payment id: the facts caseOf decides from. */
  async facts(payments: Payment[]): Promise<Map<string, { payment: AttentionPayment; open: OpenTransfer[] }>> {
    const facts = new Map<string, { payment: AttentionPayment; open: OpenTransfer[] }>();
    if (payments.length === 0) return facts;
    const ids = payments.map((p) => p.id);
    const resolved = await this.db.query(`SELECT id, resolution FROM payments WHERE id::text = ANY($1::text[])`, [ids]);
    const resolution = new Map(resolved.map((r) => [String(r.id), (r.resolution as string | null) ?? null]));
    for (const p of payments) facts.set(p.id, { payment: { ...p, resolution: resolution.get(p.id) ?? null }, open: [] });
    for (const { paymentId, transfer } of await this.chain.openOf(this.db, ids)) facts.get(paymentId)?.open.push(transfer);
    return facts;
  }

  /** The payment's transfers in another coin or on another chain credited toward it, oldest first, with what they were credited at. */
  async credits(paymentId: string): Promise<CreditLine[]> {
    return this.chain.credited(this.db, paymentId);
  }

  /** The owner's payment by reference, its row locked until the transaction ends, with what was decided of its own case. */
  async lock(tx: Sql, owner: Owner, reference: string): Promise<(Payment & { resolution: string | null; settlement: string }) | undefined> {
    const [row] = await tx.query(
      `SELECT ${PAYMENT_COLUMNS}, resolution, settlement FROM payments WHERE merchant_id = $1 AND mode = $2 AND reference = $3 FOR UPDATE`,
      [owner.merchant.id, owner.mode, reference],
    );
    return row && { ...paymentOf(row), resolution: (row.resolution as string | null) ?? null, settlement: row.settlement as string };
  }

  /** Whether the merchant has a payment of this reference in its other mode. */
  async inOtherMode(tx: Sql, owner: Owner, reference: string): Promise<boolean> {
    return (
      (await tx.query(`SELECT 1 FROM payments WHERE merchant_id = $1 AND mode <> $2 AND reference = $3 LIMIT 1`, [owner.merchant.id, owner.mode, reference]))
        .length > 0
    );
  }

  /** Its transfers that could not count and are not resolved, oldest first, locked. */
  open(tx: Sql, paymentId: string): Promise<OpenTransfer[]> {
    return this.chain.lockOpen(tx, paymentId);
  }

  /** Late transfers counted toward the payment (as the watcher would have, had they been in time): recorded as credits, its paid raised, its chain rows credited and resolved. */
  async count(tx: Sql, payment: Payment, transfers: OpenTransfer[], nowMs: number): Promise<Payment> {
    let total = 0n;
    for (const t of transfers) {
      if (await ledgerLine(tx, payment.id, t, t.amount, nowMs)) total += t.amount;
    }
    await this.chain.countLate(tx, transfers, nowMs);
    const [row] = await tx.query(`UPDATE payments SET paid = paid + $2, last_hash = $3, updated_ms = $4 WHERE id = $1 RETURNING ${PAYMENT_COLUMNS}`, [
      payment.id,
      String(total),
      transfers.at(-1)?.txHash ?? payment.lastHash,
      nowMs,
    ]);
    return paymentOf(row!);
  }

  /**
   * Transfers in another coin or on another chain credited toward the payment at the rate of
   * their arrival: each recorded as a credit of its value in the payment's coin (once: a
   * transfer is credited to one payment once), its chain row keeping its own amount and coin
   * and what it was credited at, the payment's paid raised by what was credited.
   */
  async credit(tx: Sql, payment: Payment, credits: Array<OpenTransfer & CreditTerms>, nowMs: number): Promise<Payment> {
    let total = 0n;
    for (const c of credits) {
      if (!(await ledgerLine(tx, payment.id, c, c.credited, nowMs))) continue;
      total += c.credited;
      await this.chain.creditAt(tx, c, nowMs);
    }
    const [row] = await tx.query(`UPDATE payments SET paid = paid + $2, updated_ms = $3 WHERE id = $1 RETURNING ${PAYMENT_COLUMNS}`, [
      payment.id,
      String(total),
      nowMs,
    ]);
    return paymentOf(row!);
  }

  /** The newest rate of `symbol` the rates cache kept (rates/history-store.ts writes them) fetched at or before `atMs`; read in the caller's transaction (PGlite has one connection). */
  rateAt(tx: Sql, symbol: string, atMs: number): Promise<RateAt | undefined> {
    return this.others.rates.at(tx, symbol, atMs);
  }

  /** Transfers resolved without counting: accepted (the merchant keeps them) or refunded (by `refundId`). */
  resolveTransfers(tx: Sql, transfers: OpenTransfer[], resolution: 'accepted' | 'refunded', nowMs: number, refundId?: string): Promise<void> {
    return this.chain.resolve(tx, transfers, resolution, nowMs, refundId);
  }

  /** The payment's own case (its excess, or its partial) resolved. */
  async resolvePayment(tx: Sql, paymentId: string, resolution: 'accepted' | 'refunded', nowMs: number, refundId?: string): Promise<void> {
    await tx.query(`UPDATE payments SET resolution = $2, resolved_ms = $3, resolution_refund = $4 WHERE id = $1`, [
      paymentId,
      resolution,
      nowMs,
      refundId ?? null,
    ]);
  }

  /** Finished with what arrived (an expired partial, or late money short of due): its status `settled`. */
  async finish(tx: Sql, paymentId: string, nowMs: number): Promise<Payment> {
    return paymentOf(
      (await tx.query(`UPDATE payments SET settled_ms = $2, updated_ms = $2 WHERE id = $1 RETURNING ${PAYMENT_COLUMNS}`, [paymentId, nowMs]))[0]!,
    );
  }

  /** The payment's change told to the merchant (its DEPOSIT_TRANSACTION event) and to those waiting on it. */
  async told(tx: Sql, owner: Owner, payment: Payment, report: ChangeReport, nowMs: number): Promise<void> {
    await this.events.add(tx, owner, report.type, report.data(payment), nowMs);
    await tx.query(`SELECT pg_notify('changes', $1)`, [paymentKey(payment.merchantId, payment.mode, payment.reference)]);
  }

  /** A refund of money the payment never counted (late, another coin or chain) marked: it never counts against what the payment itself can give back. */
  outsidePayment(tx: Sql, refundId: string): Promise<void> {
    return this.others.markOutsidePayment(tx, refundId);
  }

  /** A refund that resolved a case ended failed or canceled: the case is open again. Whether any was. */
  async reopen(tx: Sql, refund: ReopenedBy): Promise<boolean> {
    // Only what this refund resolved, still resolved by it: a case resolved again since (by a
    // newer refund, or accepted) is never touched, and a second call finds nothing.
    const own = await tx.query(
      `UPDATE payments SET resolution = NULL, resolved_ms = NULL, resolution_refund = NULL WHERE id = $2 AND resolution_refund = $1 AND resolution = 'refunded' RETURNING id`,
      [refund.id, refund.paymentId],
    );
    const transfers = await this.chain.reopen(tx, refund.id, refund.paymentId);
    if (own.length + transfers === 0) return false;
    await tx.query(`SELECT pg_notify('changes', $1)`, [paymentKey(refund.merchantId, refund.mode, refund.reference)]);
    return true;
  }
}

/** The payment's ledger line for a transfer, once: whether this call wrote it (a retry finds it there). */
const ledgerLine = async (tx: Sql, paymentId: string, t: { chainId: number; txHash: string; logIndex: number }, amount: bigint, nowMs: number) =>
  (
    await tx.query(
      `INSERT INTO transfers (payment_id, chain_id, tx_hash, log_index, amount, created_ms) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (chain_id, tx_hash, log_index) DO NOTHING RETURNING id`,
      [paymentId, t.chainId, t.txHash, t.logIndex, String(amount), nowMs],
    )
  ).length > 0;
