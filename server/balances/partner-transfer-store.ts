// What the operator owes its payout partner for bank payouts paid, and the transfers that pay
// it from the treasury: SQL only. A transfer mined is one journal entry (what was owed leaves
// to the partner); a failed one moves nothing; one a reorganisation took off the chain once
// counted is undone by a `partner_unsent` entry (owed again), and sent again as recorded or failed
// (balances/sends-final.ts looks at it again until final).
import { randomUUID } from 'node:crypto';
import { EXTERNAL, move, PAYOUT_PAYABLE, sentRef, type StoredWithdrawal } from './ledger-rules.ts';
import type { Database, Row, Sql } from '../storage/db.ts';
import type { JournalStore } from './journal-store.ts';
import { anyNotFinal, minedIn, minedInOf, notFinalRows, recordSigned, type MinedIn, type RecordedTx, type SignedTx } from './treasury-store.ts';
import { paidOf } from './withdrawal-store.ts';

const big = (v: unknown) => BigInt(v as string);
/** A transfer of what is owed to the payout partner, as stored. */
export type PartnerTransfer = Omit<StoredWithdrawal, 'merchantId' | 'mode' | 'symbol' | 'decimals' | 'networkFee' | 'purpose'>;
const partnerOf = (r: Row): PartnerTransfer => paidOf(r);

export class PartnerTransferStore {
  constructor(
    private readonly db: Database,
    private readonly journal: JournalStore,
  ) {}

  /** Each coin of a chain owed to the payout partner, with when the oldest of it (since the last transfer) became owed. */
  async owedToPartner(chainId: number): Promise<Array<{ token: string; owed: bigint; sinceMs: number | null }>> {
    const rows = await this.db.query(
      `SELECT p.token, sum(p.amount)::text AS owed,
              min(e.created_ms) FILTER (WHERE e.kind = 'payout_paid' AND e.created_ms > COALESCE(
                (SELECT max(t.created_ms) FROM partner_transfers t WHERE t.chain_id = $1 AND t.token = p.token AND t.state = 'completed'), 0)) AS since
         FROM postings p JOIN journal_entries e ON e.id = p.entry_id
        WHERE p.account = $2 AND p.chain_id = $1 GROUP BY p.token`,
      [chainId, PAYOUT_PAYABLE],
    );
    return rows.map((r) => ({ token: r.token as string, owed: big(r.owed), sinceMs: r.since == null ? null : Number(r.since) }));
  }

  async pendingPartnerTransfers(chainId: number): Promise<PartnerTransfer[]> {
    return (await this.db.query(`SELECT * FROM partner_transfers WHERE chain_id = $1 AND state = 'pending' ORDER BY created_ms, id`, [chainId])).map(partnerOf);
  }

  async partnerTransfers(chainId?: number): Promise<PartnerTransfer[]> {
    return (
      await this.db.query(
        `SELECT * FROM partner_transfers ${chainId === undefined ? '' : 'WHERE chain_id = $1'} ORDER BY created_ms, id`,
        chainId === undefined ? [] : [chainId],
      )
    ).map(partnerOf);
  }

  /** The last failed transfer's time (a failure waits a minute before the next try). */
  async lastPartnerFailureMs(chainId: number, token: string): Promise<number | null> {
    const [row] = await this.db.query(`SELECT max(updated_ms) AS t FROM partner_transfers WHERE chain_id = $1 AND token = $2 AND state = 'failed'`, [
      chainId,
      token.toLowerCase(),
    ]);
    return row?.t == null ? null : Number(row.t);
  }

  /**
   * Records a transfer of `amount` to the partner, before anything is signed: at most one
   * pending per coin (a unique index), so a second instance or a retry makes none. Undefined
   * when one is pending already, or while the operator holds the chain's money movements.
   */
  async startPartnerTransfer(chainId: number, token: string, address: string, amount: bigint, nowMs: number): Promise<PartnerTransfer | undefined> {
    const [row] = await this.db.query(
      `INSERT INTO partner_transfers (id, chain_id, token, address, amount, state, created_ms, updated_ms)
       SELECT $1, $2, $3, $4, $5, 'pending', $6, $6 WHERE NOT EXISTS (SELECT 1 FROM treasury_holds WHERE chain_id = $2 AND resolved_ms IS NULL)
       ON CONFLICT (chain_id, token) WHERE state = 'pending' DO NOTHING RETURNING *`,
      [randomUUID(), chainId, token.toLowerCase(), address, String(amount), nowMs],
    );
    return row && partnerOf(row);
  }

  /** Notes the transaction a partner transfer is sent in, before it is sent; answers the one recorded (see `recordSigned`). */
  partnerSigned(id: string, signed: SignedTx, nowMs: number): Promise<RecordedTx> {
    return recordSigned(this.db, 'partner_transfers', id, signed, nowMs);
  }

  /**
   * A partner transfer mined: what was owed moves out to the partner (one entry; `id#n` counted
   * again after n undone), counted in `block` (looked at again until that block is final);
   * failed: nothing moves, it is still owed.
   */
  async finishPartnerTransfer(id: string, result: { sent: true; block?: MinedIn } | { failure: string }, nowMs: number): Promise<PartnerTransfer> {
    return this.db.transaction(async (tx) => {
      const [row] = await tx.query(`SELECT * FROM partner_transfers WHERE id = $1 FOR UPDATE`, [id]);
      const t = partnerOf(row!);
      if (t.state !== 'pending') return t;
      if ('sent' in result) {
        await this.journal.post(
          tx,
          { kind: 'partner_sent', ref: sentRef(id, await this.unsentTimes(tx, id)), memo: `to the payout partner ${t.address} in ${t.txHash}` },
          move(PAYOUT_PAYABLE, EXTERNAL.partner, t.chainId, t.token, t.amount),
          nowMs,
        );
        const [done] = await tx.query(
          `UPDATE partner_transfers SET state = 'completed', updated_ms = $2, mined_block = $3, mined_block_hash = $4, final_ms = NULL WHERE id = $1 RETURNING *`,
          [id, nowMs, result.block ? String(result.block.number) : null, result.block?.hash ?? null],
        );
        return partnerOf(done!);
      }
      const [done] = await tx.query(`UPDATE partner_transfers SET state = 'failed', failure = $2, updated_ms = $3 WHERE id = $1 RETURNING *`, [
        id,
        result.failure,
        nowMs,
      ]);
      return partnerOf(done!);
    });
  }

  // ---- looked at again until final (balances/sends-final.ts) ----------------------------------------

  /** How many times a partner transfer's counting was undone (its `partner_unsent` entries). */
  async unsentTimes(sql: Sql, id: string): Promise<number> {
    const [row] = await sql.query(`SELECT count(*)::int AS n FROM journal_entries WHERE kind = 'partner_unsent' AND (ref = $1 OR ref LIKE $1 || '#%')`, [id]);
    return Number(row!.n);
  }

  /** A chain's completed partner transfers whose block is not final yet, oldest first. */
  async notFinal(chainId: number): Promise<Array<PartnerTransfer & { minedIn: MinedIn | null }>> {
    return (await notFinalRows(this.db, 'partner_transfers', chainId)).map((r) => ({ ...partnerOf(r), minedIn: minedInOf(r) }));
  }

  /** Whether any completed partner transfer of the chain is not final yet. */
  anyNotFinal(chainId: number): Promise<boolean> {
    return anyNotFinal(this.db, 'partner_transfers', chainId);
  }

  /** A completed partner transfer paid by `txHash` found in `block`; `final` when that block is final (see treasury-store.ts minedIn). */
  minedIn(id: string, txHash: string, block: MinedIn, final: boolean, nowMs: number): Promise<boolean> {
    return minedIn(this.db, 'partner_transfers', id, txHash, block, final, nowMs);
  }

  /**
   * A completed partner transfer whose transaction a reorganisation deeper than the confirmations
   * took off the chain, paid by `txHash` as its row still says (else nothing moves: another look
   * decided it first): its `partner_sent` entry undone by a balancing `partner_unsent` (owed to
   * the partner again), then `resend`: pending again, its recorded transaction sent again by the
   * treasury's sender; or `failure` (its nonce taken), failed: still owed, sent in the next batch.
   * Sent again only while no other transfer of its coin is pending (one pending per coin): else
   * failed, the next batch sends it. One transaction, the row locked.
   */
  async undoSent(id: string, txHash: string, result: { resend: true } | { failure: string }, nowMs: number): Promise<PartnerTransfer | undefined> {
    return this.db.transaction(async (tx) => {
      const [row] = await tx.query(`SELECT * FROM partner_transfers WHERE id = $1 FOR UPDATE`, [id]);
      const sent = row && partnerOf(row);
      if (sent?.state !== 'completed' || sent.txHash !== txHash) return undefined;
      const why = 'resend' in result ? 'its transaction is sent again' : result.failure;
      await this.journal.post(
        tx,
        {
          kind: 'partner_unsent',
          ref: sentRef(id, await this.unsentTimes(tx, id)),
          memo: `${txHash} to the payout partner ${sent.address} left the chain in a reorganisation deeper than the confirmations: ${why}`,
        },
        move(EXTERNAL.partner, PAYOUT_PAYABLE, sent.chainId, sent.token, sent.amount),
        nowMs,
      );
      if ('resend' in result) {
        const [reopened] = await tx.query(
          `UPDATE partner_transfers SET state = 'pending', mined_block = NULL, mined_block_hash = NULL, final_ms = NULL, failure = NULL, signed_ms = $2, updated_ms = $2
            WHERE id = $1 AND NOT EXISTS (SELECT 1 FROM partner_transfers p WHERE p.chain_id = $3 AND p.token = $4 AND p.state = 'pending') RETURNING *`,
          [id, nowMs, sent.chainId, sent.token],
        );
        if (reopened) return partnerOf(reopened);
      }
      const failure =
        'failure' in result
          ? result.failure
          : `the transaction ${txHash} left the chain; another transfer of the coin is pending, which the next batch follows`;
      const [failed] = await tx.query(`UPDATE partner_transfers SET state = 'failed', failure = $2, updated_ms = $3 WHERE id = $1 RETURNING *`, [
        id,
        failure,
        nowMs,
      ]);
      return partnerOf(failed!);
    });
  }
}
