// The merchant's payments as a list (newest first, a keyset cursor on the payments_list index,
// filters on indexed columns) and one payment's timeline: its transfers as the chain and the
// ledger saw them, its sweeps, and the events told about it with each delivery attempt.
import type { Account } from '../domain/account.ts';
import type { PaymentStatus } from '../../contract/schemas.ts';
import type { Payment } from './rules.ts';
import type { Database, Sql } from '../storage/db.ts';
import { paymentOf } from './store.ts';
import { attemptsOf, eventsAbout, type Attempt, type StoredEvent } from '../storage/events.ts';
import type { TransferViews } from '../chain/transfer-views-store.ts';

/** A payment's customer as its refund's receipt reaches them (email/store.ts, in its transaction): their e-mail and the payment's metadata. */
export async function customerContact(
  sql: Sql,
  merchantId: string,
  mode: string,
  reference: string,
): Promise<{ email: string | null; metadata: Record<string, unknown> | null } | undefined> {
  const [row] = await sql.query('SELECT customer_email, metadata FROM payments WHERE merchant_id = $1 AND mode = $2 AND reference = $3', [
    merchantId,
    mode,
    reference,
  ]);
  if (!row) return undefined;
  const metadata =
    typeof row.metadata === 'string' ? (JSON.parse(row.metadata) as Record<string, unknown> | null) : (row.metadata as Record<string, unknown> | null);
  return { email: (row.customer_email as string | null) ?? null, metadata };
}

export interface PaymentFilter {
  /** After this payment (the last one of the previous page), by (created_ms, id). */
  after?: { createdMs: number; id: string };
  limit: number;
  status?: PaymentStatus;
  coin?: string;
  fromMs?: number;
  toMs?: number;
  /** A reference, a customer's e-mail, a deposit address or a transaction hash. */
  q?: string;
  /** Only the payments that need the merchant's attention (money that did not count as asked). */
  needsAttention?: boolean;
}

/**
 * payments/attention-rules.ts's caseOf as SQL: a transfer that could not count, told and not
 * resolved (the chain's fragment: its table is the chain's), or the payment's own case (its
 * excess, or an expired partial it does not accept) not resolved. Held equal by
 * server/payments/tests/attention-api.test.ts.
 */
const needsAttentionSql = (chain: Pick<TransferViews, 'openCaseOf'>) => `(${chain.openCaseOf('p')}
  OR (p.resolution IS NULL AND (p.paid > p.due OR (p.paid > 0 AND p.paid < p.due AND p.settled_ms IS NULL AND NOT p.accept_partial AND p.expires_ms <= $NOW))))`;

/**
 * payments/rules.ts's statusOf as SQL (the list filters in the database, a page at a time):
 * the two are held equal by server/tests/payments-api.test.ts. `failed` is never stored.
 */
const STATUS_SQL: Record<PaymentStatus, string> = {
  confirmed: 'p.paid >= p.due',
  settled: 'p.paid < p.due AND p.settled_ms IS NOT NULL',
  expired: 'p.paid < p.due AND p.settled_ms IS NULL AND p.expires_ms <= $NOW',
  incomplete: 'p.paid < p.due AND p.settled_ms IS NULL AND p.expires_ms > $NOW AND p.paid > 0',
  pending: 'p.paid < p.due AND p.settled_ms IS NULL AND p.expires_ms > $NOW AND p.paid = 0',
  failed: 'false',
};

export interface TransferLine {
  txHash: string;
  logIndex: number;
  amount: bigint;
  /** seen (confirming), credited, orphaned, late, unexpected, dust; `credited` alone for a ledger line the chain did not record (the sandbox). */
  state: string;
  /** The chain and token it came in (lower case); null for a ledger line the chain did not record, which is in the payment's own coin. */
  chainId: number | null;
  token: string | null;
  atMs: number;
  blockNumber: number | null;
  sweptHash: string | null;
  /** When its sweep was mined (its block's time, epoch ms); null: not swept, or swept before the time was kept. */
  sweptMs: number | null;
}

export interface Timeline {
  transfers: TransferLine[];
  events: StoredEvent[];
  attempts: Attempt[];
}

export class PaymentList {
  constructor(
    private readonly db: Database,
    /** The chain's transfers (chain/transfer-views-store.ts): the list's filters on them, and a timeline's. */
    private readonly chain: Pick<TransferViews, 'openCaseOf' | 'paymentsOfHash' | 'ofPayment'>,
  ) {}

  async list(account: Pick<Account, 'merchant' | 'mode'>, filter: PaymentFilter, nowMs: number): Promise<Payment[]> {
    const params: unknown[] = [account.merchant.id, account.mode];
    const arg = (value: unknown) => {
      params.push(value);
      return `$${params.length}`;
    };
    const where = ['p.merchant_id = $1', 'p.mode = $2'];
    if (filter.after) where.push(`(p.created_ms, p.id) < (${arg(filter.after.createdMs)}, ${arg(filter.after.id)})`);
    if (filter.status) {
      const sql = STATUS_SQL[filter.status];
      where.push(sql.includes('$NOW') ? sql.replaceAll('$NOW', arg(nowMs)) : sql);
    }
    if (filter.coin) where.push(`p.coin = ${arg(filter.coin)}`);
    if (filter.needsAttention) where.push(needsAttentionSql(this.chain).replaceAll('$NOW', arg(nowMs)));
    if (filter.fromMs !== undefined) where.push(`p.created_ms >= ${arg(filter.fromMs)}`);
    if (filter.toMs !== undefined) where.push(`p.created_ms < ${arg(filter.toMs)}`);
    const q = filter.q?.trim();
    if (q) {
      if (/^0x[0-9a-fA-F]{40}$/.test(q)) where.push(`lower(p.address) = lower(${arg(q)})`);
      else if (/^0x[0-9a-fA-F]{64}$/.test(q)) {
        const hash = arg(q);
        where.push(`(p.id IN (SELECT payment_id FROM transfers WHERE lower(tx_hash) = lower(${hash})) OR p.id IN (${this.chain.paymentsOfHash(hash)}))`);
      } else if (q.includes('@')) where.push(`lower(p.customer_email) = lower(${arg(q)})`);
      else where.push(`p.reference = ${arg(q)}`);
    }
    const rows = await this.db.query(
      `SELECT p.* FROM payments p WHERE ${where.join(' AND ')} ORDER BY p.created_ms DESC, p.id DESC LIMIT ${arg(filter.limit)}`,
      params,
    );
    return rows.map(paymentOf);
  }

  async timeline(account: Pick<Account, 'merchant' | 'mode'>, payment: Payment): Promise<Timeline> {
    const chain = await this.chain.ofPayment(this.db, payment.id);
    const ledger = await this.db.query(`SELECT * FROM transfers WHERE payment_id = $1 ORDER BY created_ms, id`, [payment.id]);
    const onChain = new Set(chain.map((t) => `${t.txHash}:${t.logIndex}`.toLowerCase()));
    const transfers: TransferLine[] = [
      ...chain.map((t) => ({
        txHash: t.txHash,
        logIndex: t.logIndex,
        amount: t.amount,
        state: t.state,
        chainId: t.chainId,
        token: t.token,
        atMs: t.seenMs,
        blockNumber: t.blockNumber,
        sweptHash: t.sweptHash,
        sweptMs: t.sweptMs,
      })),
      ...ledger
        .filter((r) => !onChain.has(`${r.tx_hash as string}:${Number(r.log_index)}`.toLowerCase()))
        .map((r) => ({
          txHash: r.tx_hash as string,
          logIndex: Number(r.log_index),
          amount: BigInt(r.amount as string),
          state: 'credited',
          chainId: null,
          token: null,
          atMs: Number(r.created_ms),
          blockNumber: null,
          sweptHash: null,
          sweptMs: null,
        })),
    ];
    // A timeline only reads events: the lease a delivery may hold on one is not its business.
    const events: StoredEvent[] = (await eventsAbout(this.db, account, payment.reference)).map((e) => ({ ...e, leaseToken: null }));
    const attempts: Attempt[] = await attemptsOf(
      this.db,
      events.map((e) => e.id),
    );
    return { transfers, events, attempts };
  }
}
