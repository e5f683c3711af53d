// What the treasury's reconciliation keeps, SQL only: the last finding per chain and
// coin (held on chain against owed by the journal, with what is in flight either way), the
// holds on a chain's money movements (one active per chain; resolved by the operator, who and
// why kept, never deleted), the operator's events, and a deposit a deep reorganisation took
// away, reversed in the journal by a balancing entry.
import type { SeenTransfer } from '../chain/store.ts';
import type { TransferViews } from '../chain/transfer-views-store.ts';
import type { DepositViews } from '../payments/deposit-views-store.ts';
import type { Database, Sql } from '../storage/db.ts';
import { depositRefOf, type JournalStore } from './journal-store.ts';

export interface TreasuryFinding {
  chainId: number;
  token: string;
  symbol: string;
  /** Base units: on chain, owed by the journal, on their way in (swept, not journaled) and out (sent, not counted). */
  held: bigint;
  owed: bigint;
  incoming: bigint;
  outgoing: bigint;
  /** What the treasury lacks even counting everything on its way out as gone already: owed − outgoing − held, when above 0. */
  short: bigint;
  atBlock: bigint;
  checkedMs: number;
}

/** Why a chain's money movements are held. */
export type HoldReason = 'treasury_short' | 'deep_reorganisation';

export interface TreasuryHold {
  id: string;
  chainId: number;
  reason: HoldReason;
  detail: string;
  sinceMs: number;
  resolvedMs: number | null;
  resolvedBy: string | null;
  resolvedWhy: string | null;
}

/** A transfer the watcher counted (or recorded as money that cannot count) whose block may still leave the chain. */
export interface CountedTransfer
  extends Pick<SeenTransfer, 'chainId' | 'txHash' | 'logIndex' | 'blockNumber' | 'blockHash' | 'token' | 'recipient' | 'amount'> {
  merchantId: string;
  mode: string;
  reference: string;
  /** Whether its money is in a merchant's balance (a deposit entry not reversed yet). */
  journaled: boolean;
}

const big = (v: unknown) => BigInt(v as string);

/**
 * SQL, the chain $1: transfers of balance-settled payments whose deposit entry is journaled while
 * their sweep is not final (not swept, or not deep enough yet): a final sweep a reorganisation
 * deeper than the confirmations took away, its deposit swept again (sweep-store.ts's unsweep).
 */
const resweeping = ({ chain, payments }: HoldViews) => `SELECT 1 FROM ${chain.transfersAs('c')} ${payments.joinDeposit('p', 'c.payment_id')}
  WHERE c.chain_id = $1 AND p.settlement = 'balance' AND NOT c.sweep_final AND c.state IN ('credited', 'late', 'unexpected', 'dust')
    AND EXISTS (SELECT 1 FROM journal_entries e WHERE e.kind = 'deposit' AND e.ref = ${depositRefOf('c')})`;
const holdOf = (r: Record<string, unknown>): TreasuryHold => ({
  id: String(r.id),
  chainId: Number(r.chain_id),
  reason: r.reason as HoldReason,
  detail: r.detail as string,
  sinceMs: Number(r.since_ms),
  resolvedMs: r.resolved_ms == null ? null : Number(r.resolved_ms),
  resolvedBy: (r.resolved_by as string | null) ?? null,
  resolvedWhy: (r.resolved_why as string | null) ?? null,
});

/**
 * The chain's transfers and their payments as this store reads them (chain/transfer-views-store.ts,
 * payments/deposit-views-store.ts, handed in by app.ts): the one statement that lifts a hold, and
 * what is in flight, join them to the journal, so their parts come as fragments; a transfer
 * re-mined or reversed is written by the chain's store, in this store's transaction.
 */
export interface HoldViews {
  chain: Pick<TransferViews, 'transfersAs' | 'moved' | 'orphan'>;
  payments: Pick<DepositViews, 'joinDeposit'>;
}

export class TreasuryHoldStore {
  constructor(
    private readonly db: Database,
    private readonly journal: Pick<JournalStore, 'post'>,
    private readonly views: HoldViews,
  ) {}

  // ---- holds -------------------------------------------------------------------------------

  /** The chain's active hold, if any: money-moving requests on it are refused while it lasts. */
  async active(chainId: number, sql: Sql = this.db): Promise<TreasuryHold | undefined> {
    const [row] = await sql.query(`SELECT * FROM treasury_holds WHERE chain_id = $1 AND resolved_ms IS NULL`, [chainId]);
    return row && holdOf(row);
  }

  /** Every active hold, and the last resolved ones (newest first). */
  async holds(limit = 20): Promise<{ active: TreasuryHold[]; resolved: TreasuryHold[] }> {
    const active = await this.db.query(`SELECT * FROM treasury_holds WHERE resolved_ms IS NULL ORDER BY chain_id`);
    const resolved = await this.db.query(`SELECT * FROM treasury_holds WHERE resolved_ms IS NOT NULL ORDER BY resolved_ms DESC, id DESC LIMIT $1`, [limit]);
    return { active: active.map(holdOf), resolved: resolved.map(holdOf) };
  }

  /**
   * Holds a chain's money movements, unless a hold is active already; true when this one is new.
   * A `treasury_short` hold active already (one that lifts itself) takes the new reason of any
   * other kind, which only the operator lifts: a deep reorganisation found while the treasury was
   * short is never lifted by the shortfall's end alone.
   */
  async hold(chainId: number, reason: HoldReason, detail: string, nowMs: number, sql: Sql = this.db): Promise<boolean> {
    const rows = await sql.query(
      `INSERT INTO treasury_holds (chain_id, reason, detail, since_ms) VALUES ($1, $2, $3, $4)
       ON CONFLICT (chain_id) WHERE resolved_ms IS NULL DO NOTHING RETURNING id`,
      [chainId, reason, detail, nowMs],
    );
    if (rows.length) await this.event('hold', chainId, `money movements held (${reason}): ${detail}`, nowMs, sql);
    else if (reason !== 'treasury_short') {
      const [raised] = await sql.query(
        `UPDATE treasury_holds SET reason = $2, detail = $3 || ' (held before: ' || detail || ')' WHERE chain_id = $1 AND resolved_ms IS NULL AND reason = 'treasury_short' RETURNING id`,
        [chainId, reason, detail],
      );
      if (raised)
        await this.event('hold', chainId, `money movements held (${reason}, was treasury_short: lifted by the operator only now): ${detail}`, nowMs, sql);
    }
    return rows.length > 0;
  }

  /**
   * Lifts a chain's `treasury_short` hold by itself once the journal and the chain agree again
   * (the caller's reconciliation found no token short) and no deposit the journal counts waits for
   * its sweep to be final again (a sweep a reorganisation deeper than the confirmations took away,
   * swept again: the shortfall must not come back when that one does). Kept resolved by `service`
   * with why, and the operator's event `hold_cleared`; undefined when there was nothing to lift.
   * Any other hold only the operator lifts (`resolve`). One conditional UPDATE: once, whichever
   * instance looks.
   */
  async clear(chainId: number, why: string, nowMs: number): Promise<TreasuryHold | undefined> {
    return this.db.transaction(async (tx) => {
      const [row] = await tx.query(
        `UPDATE treasury_holds SET resolved_ms = $2, resolved_by = 'service', resolved_why = $3
          WHERE chain_id = $1 AND resolved_ms IS NULL AND reason = 'treasury_short' AND NOT EXISTS (${resweeping(this.views)}) RETURNING *`,
        [chainId, nowMs, why],
      );
      if (row) await this.event('hold_cleared', chainId, `hold (treasury_short) lifted by the service: ${why}`, nowMs, tx);
      return row && holdOf(row);
    });
  }

  /** The operator lifts a chain's hold, saying who and why; undefined when none is active. */
  async resolve(chainId: number, by: string, why: string, nowMs: number): Promise<TreasuryHold | undefined> {
    return this.db.transaction(async (tx) => {
      const [row] = await tx.query(
        `UPDATE treasury_holds SET resolved_ms = $2, resolved_by = $3, resolved_why = $4 WHERE chain_id = $1 AND resolved_ms IS NULL RETURNING *`,
        [chainId, nowMs, by, why],
      );
      if (row) await this.event('resolved', chainId, `hold resolved by ${by}: ${why}`, nowMs, tx);
      return row && holdOf(row);
    });
  }

  // ---- the operator's events -----------------------------------------------------------------

  async event(kind: string, chainId: number | null, detail: string, nowMs: number, sql: Sql = this.db): Promise<void> {
    await sql.query(`INSERT INTO operator_events (kind, chain_id, detail, created_ms) VALUES ($1, $2, $3, $4)`, [kind, chainId, detail, nowMs]);
  }

  async events(limit = 50): Promise<Array<{ id: string; kind: string; chainId: number | null; detail: string; createdMs: number }>> {
    const rows = await this.db.query(`SELECT * FROM operator_events ORDER BY id DESC LIMIT $1`, [limit]);
    return rows.map((r) => ({
      id: String(r.id),
      kind: r.kind as string,
      chainId: r.chain_id == null ? null : Number(r.chain_id),
      detail: r.detail as string,
      createdMs: Number(r.created_ms),
    }));
  }

  // ---- findings ------------------------------------------------------------------------------

  /**
   * What is on its way, per coin, that the journal and the chain do not both show yet: in, a
   * balance-settled deposit swept into the treasury and not journaled (its sweep not final);
   * out, a treasury transaction recorded and not counted (withdrawals, swaps' coin sold,
   * partner transfers).
   */
  async inFlight(chainId: number, token: string): Promise<{ incoming: bigint; outgoing: bigint }> {
    const t = token.toLowerCase();
    const [row] = await this.db.query(
      `SELECT (SELECT COALESCE(sum(COALESCE(c.swept_received, c.amount)), 0) FROM ${this.views.chain.transfersAs('c')} ${this.views.payments.joinDeposit('p', 'c.payment_id')}
                WHERE c.chain_id = $1 AND lower(c.token) = $2 AND p.settlement = 'balance' AND c.swept_hash IS NOT NULL AND c.state <> 'orphaned'
                  AND NOT EXISTS (SELECT 1 FROM journal_entries e WHERE e.kind = 'deposit' AND e.ref = ${depositRefOf('c')}))::text AS incoming,
              ((SELECT COALESCE(sum(amount), 0) FROM withdrawals WHERE chain_id = $1 AND token = $2 AND state = 'pending' AND tx_hash IS NOT NULL)
             + (SELECT COALESCE(sum(amount_in), 0) FROM swaps WHERE chain_id = $1 AND lower(from_token) = $2 AND state = 'pending' AND tx_hash IS NOT NULL)
             + (SELECT COALESCE(sum(amount), 0) FROM partner_transfers WHERE chain_id = $1 AND token = $2 AND state = 'pending' AND tx_hash IS NOT NULL))::text AS outgoing`,
      [chainId, t],
    );
    return { incoming: big(row!.incoming), outgoing: big(row!.outgoing) };
  }

  /** Keeps the latest finding of each coin (any instance's), for /readyz and /metrics. */
  async saveFinding(f: TreasuryFinding): Promise<void> {
    await this.db.query(
      `INSERT INTO treasury_findings (chain_id, token, symbol, held, owed, incoming, outgoing, short, at_block, checked_ms) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
       ON CONFLICT (chain_id, token) DO UPDATE SET symbol = $3, held = $4, owed = $5, incoming = $6, outgoing = $7, short = $8, at_block = $9, checked_ms = $10`,
      [
        f.chainId,
        f.token.toLowerCase(),
        f.symbol,
        String(f.held),
        String(f.owed),
        String(f.incoming),
        String(f.outgoing),
        String(f.short),
        String(f.atBlock),
        f.checkedMs,
      ],
    );
  }

  async findings(): Promise<TreasuryFinding[]> {
    const rows = await this.db.query(`SELECT * FROM treasury_findings ORDER BY chain_id, symbol`);
    return rows.map((r) => ({
      chainId: Number(r.chain_id),
      token: r.token as string,
      symbol: r.symbol as string,
      held: big(r.held),
      owed: big(r.owed),
      incoming: big(r.incoming),
      outgoing: big(r.outgoing),
      short: big(r.short),
      atBlock: big(r.at_block),
      checkedMs: Number(r.checked_ms),
    }));
  }

  // ---- deep reorganisations ------------------------------------------------------------------

  /**
   * Transfers the watcher counted (credited, or recorded as late, another token or dust) above
   * `aboveBlock`, still on the books: a reorganisation deeper than the confirmations may yet
   * take them away, so their blocks are looked at again until the chain finalizes them.
   */
  async counted(chainId: number, aboveBlock: bigint): Promise<CountedTransfer[]> {
    const rows = await this.db.query(
      `SELECT c.chain_id, c.tx_hash, c.log_index, c.block_number, c.block_hash, c.token, c.recipient, COALESCE(c.swept_received, c.amount)::text AS amount, p.merchant_id, p.mode, p.reference,
              EXISTS (SELECT 1 FROM journal_entries e WHERE e.kind = 'deposit' AND e.ref = ${depositRefOf('c')}) AS journaled
         FROM ${this.views.chain.transfersAs('c')} ${this.views.payments.joinDeposit('p', 'c.payment_id')}
        WHERE c.chain_id = $1 AND c.block_number > $2 AND c.state IN ('credited', 'late', 'unexpected', 'dust')
        ORDER BY c.block_number, c.log_index`,
      [chainId, String(aboveBlock)],
    );
    return rows.map((r) => ({
      chainId: Number(r.chain_id),
      txHash: r.tx_hash as string,
      logIndex: Number(r.log_index),
      blockNumber: big(r.block_number),
      blockHash: r.block_hash as string,
      token: r.token as string,
      recipient: r.recipient as string,
      amount: big(r.amount),
      merchantId: r.merchant_id as string,
      mode: r.mode as string,
      reference: r.reference as string,
      journaled: r.journaled === true,
    }));
  }

  /** A counted transfer found again in another block (the same transaction, re-mined): its new block is kept. */
  moved(t: Pick<CountedTransfer, 'chainId' | 'txHash' | 'logIndex'>, block: { number: bigint; hash: string }): Promise<void> {
    return this.views.chain.moved(this.db, t, block);
  }

  /**
   * A counted transfer a reorganisation deeper than the confirmations took away for good, in
   * one transaction: orphaned (the watcher then takes its credit back and tells the merchant,
   * DEPOSIT_REVERSED), its deposit entry reversed by a balancing entry of the same ref, each of
   * its postings negated (the merchant's available and the operator's fee back to
   * external:deposits: the history stays, the balance may go below zero), the chain's money
   * movements held, and the operator's event. False when it was reversed already. Mined again
   * later, it is counted and journaled anew (journal-store.ts's depositRefOf).
   */
  async reverse(t: CountedTransfer, nowMs: number): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      // The deposit's ref as the row stands once orphaned, in the same statement as before.
      const gone = await this.views.chain.orphan(tx, t, depositRefOf);
      if (!gone) return false;
      const ref = gone.also as string;
      const deposit = await tx.query(
        `SELECT p.account, p.chain_id, p.token, p.amount::text AS amount FROM postings p JOIN journal_entries e ON e.id = p.entry_id WHERE e.kind = 'deposit' AND e.ref = $1 ORDER BY p.id`,
        [ref],
      );
      const owner = { merchant: { id: t.merchantId } as never, mode: t.mode as never };
      if (deposit.length) {
        await this.journal.post(
          tx,
          {
            kind: 'deposit_reversed',
            ref,
            owner,
            memo: `payment ${t.reference}: its transfer ${t.txHash} left the chain in a reorganisation deeper than the confirmations`,
          },
          deposit.map((p) => ({ account: p.account as string, chainId: Number(p.chain_id), token: p.token as string, amount: -big(p.amount) })),
          nowMs,
        );
      }
      const detail = `transfer ${t.txHash}/${t.logIndex} of ${t.amount} base units of ${t.token} to payment ${t.reference} (block ${t.blockNumber}) left the chain after it counted${deposit.length ? '; its deposit is reversed in the journal' : ''}`;
      await this.event('deep_reorganisation', t.chainId, detail, nowMs, tx);
      await this.hold(t.chainId, 'deep_reorganisation', detail, nowMs, tx);
      return true;
    });
  }
}
