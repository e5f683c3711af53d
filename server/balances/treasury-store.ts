// What the treasury's sender keeps across its three kinds of row (swaps, withdrawals, partner
// transfers), each paid by one transaction: the transaction recorded for a row before it is
// sent, the nonces under way, and the lease on sending from a chain's treasury. SQL only.
import { NotFound } from '../domain/errors.ts';
import type { Database, Row, Sql } from '../storage/db.ts';
import { releaseLease, takeLease } from '../storage/leases.ts';

/** The tables whose rows the treasury pays by one transaction each. */
export type TreasuryTable = 'swaps' | 'withdrawals' | 'partner_transfers';
/** A treasury transaction signed: its hash, its bytes, and the nonce it was signed at. */
export interface SignedTx {
  hash: string;
  raw: string;
  nonce: number;
}
/** The block a treasury row's transaction was counted in. */
export interface MinedIn {
  number: bigint;
  hash: string;
}

/** A completed row's counted block as stored (null: counted before its block was kept). */
export const minedInOf = (r: Row): MinedIn | null =>
  r.mined_block === null || r.mined_block === undefined ? null : { number: BigInt(r.mined_block as string), hash: (r.mined_block_hash as string | null) ?? '' };

/** A chain's completed rows of `table` whose block is not final yet, oldest first (balances/sends-final.ts looks at them again). */
export const notFinalRows = (db: Database, table: TreasuryTable, chainId: number): Promise<Row[]> =>
  db.query(`SELECT * FROM ${table} WHERE chain_id = $1 AND state = 'completed' AND final_ms IS NULL ORDER BY created_ms, id`, [chainId]);

/** Whether any completed row of `table` on the chain is not final yet. */
export async function anyNotFinal(db: Database, table: TreasuryTable, chainId: number): Promise<boolean> {
  const [row] = await db.query(`SELECT EXISTS (SELECT 1 FROM ${table} WHERE chain_id = $1 AND state = 'completed' AND final_ms IS NULL) AS any`, [chainId]);
  return Boolean(row!.any);
}

/**
 * A completed row of `table` paid by `txHash` found in `block` (again, or re-mined in another
 * after a reorganisation); `final` when that block is at or below the chain's finalized block: never looked at again.
 */
export async function minedIn(db: Database, table: TreasuryTable, id: string, txHash: string, block: MinedIn, final: boolean, nowMs: number): Promise<boolean> {
  const rows = await db.query(
    `UPDATE ${table} SET final_ms = $5, mined_block = $3, mined_block_hash = $4 WHERE id = $1 AND tx_hash = $2 AND state = 'completed' AND final_ms IS NULL RETURNING id`,
    [id, txHash, String(block.number), block.hash, final ? nowMs : null],
  );
  return rows.length > 0;
}

/** A treasury row as stored now: pending or decided, and the transaction recorded for it, if any. */
export interface RecordedTx {
  state: 'quoted' | 'pending' | 'completed' | 'failed';
  txHash: string | null;
  rawTx: string | null;
  /** When its first transaction was signed (null: recorded before migration 0028, or none yet). */
  signedMs?: number | null;
}

/** A replacement of a treasury row's transaction: the same call at its nonce with higher fees, recorded before it was sent. */
export interface Replacement {
  hash: string;
  raw: string;
  signedMs: number;
}

/** The head of a chain's treasury queue: its oldest transaction still unmined (signed, not decided). */
export interface QueueHead {
  table: TreasuryTable;
  id: string;
  nonce: number | null;
  signedMs: number;
  replacements: number;
}

/** What every row the treasury sends from keeps of its sending: the transaction, why it failed, when. */
export const sentOf = (r: Row) => ({
  txHash: (r.tx_hash as string | null) ?? null,
  rawTx: (r.raw_tx as string | null) ?? null,
  failure: (r.failure as string | null) ?? null,
  createdMs: Number(r.created_ms),
  updatedMs: Number(r.updated_ms),
});

/** A treasury row's state and recorded transaction, as stored now (not as a list read earlier said). */
export async function recordedTx(db: Database, table: TreasuryTable, id: string): Promise<RecordedTx> {
  const [row] = await db.query(`SELECT state, tx_hash, raw_tx, signed_ms FROM ${table} WHERE id = $1`, [id]);
  if (!row) throw new NotFound(`No ${table} row ${id}`);
  const signedMs = row.signed_ms === null || row.signed_ms === undefined ? null : Number(row.signed_ms);
  return { state: row.state as RecordedTx['state'], txHash: (row.tx_hash as string | null) ?? null, rawTx: (row.raw_tx as string | null) ?? null, signedMs };
}

/**
 * Records the transaction a treasury row (swap, withdrawal, partner transfer) is paid by, once:
 * the first recorded stays, whoever signed later. Answers the row as it is afterwards, read
 * again (a statement of its own, so it sees another instance's write that made this one a
 * no-op): its state, and the transaction to send and follow, which is the caller's own only
 * when `txHash` equals it. Anything else signed for the row must never be sent. A
 * transaction recorded for another row already is not recorded (two withdrawals of one amount
 * to one address signed at one nonce are one transaction: one payment would count for both).
 */
export async function recordSigned(db: Database, table: TreasuryTable, id: string, signed: SignedTx, nowMs: number): Promise<RecordedTx> {
  await writeSigned(db, table, id, signed, nowMs);
  return recordedTx(db, table, id);
}

/** recordSigned's write alone, on `sql` (a caller's transaction): the row as it is now recorded, or none when it was not. */
export function writeSigned(sql: Sql, table: TreasuryTable, id: string, signed: SignedTx, nowMs: number): Promise<Row[]> {
  return sql.query(
    `UPDATE ${table} SET tx_hash = $2, raw_tx = $3, tx_nonce = $4, updated_ms = $5, signed_ms = $5 WHERE id = $1 AND state = 'pending' AND tx_hash IS NULL
        AND NOT EXISTS (SELECT 1 FROM swaps WHERE tx_hash = $2) AND NOT EXISTS (SELECT 1 FROM withdrawals WHERE tx_hash = $2)
        AND NOT EXISTS (SELECT 1 FROM partner_transfers WHERE tx_hash = $2) RETURNING *`,
    [id, signed.hash, signed.raw, signed.nonce, nowMs],
  );
}

export class TreasuryTxStore {
  constructor(private readonly db: Database) {}

  /** A treasury row's state and recorded transaction, as stored now (not as a list read earlier said). */
  recordedTx(table: TreasuryTable, id: string): Promise<RecordedTx> {
    return recordedTx(this.db, table, id);
  }

  /** Whether any treasury transaction of a chain is signed and not yet counted (swaps, withdrawals, partner transfers). */
  async inFlight(chainId: number): Promise<boolean> {
    const [row] = await this.db.query(
      `SELECT (EXISTS (SELECT 1 FROM swaps WHERE chain_id = $1 AND state = 'pending' AND tx_hash IS NOT NULL)
            OR EXISTS (SELECT 1 FROM withdrawals WHERE chain_id = $1 AND state = 'pending' AND tx_hash IS NOT NULL)
            OR EXISTS (SELECT 1 FROM swaps WHERE chain_id = $1 AND state = 'pending' AND approve_tx_hash IS NOT NULL)
            OR EXISTS (SELECT 1 FROM partner_transfers WHERE chain_id = $1 AND state = 'pending' AND tx_hash IS NOT NULL)) AS busy`,
      [chainId],
    );
    return Boolean(row!.busy);
  }

  /** The lowest nonce a new treasury transaction of a chain may take: past every one recorded and still under way. */
  async nonceFloor(chainId: number): Promise<number> {
    const [row] = await this.db.query(
      `SELECT COALESCE(max(n) + 1, 0)::text AS floor FROM (
         SELECT tx_nonce AS n FROM swaps WHERE chain_id = $1 AND state = 'pending'
         UNION ALL SELECT approve_nonce FROM swaps WHERE chain_id = $1 AND state = 'pending'
         UNION ALL SELECT tx_nonce FROM withdrawals WHERE chain_id = $1 AND state = 'pending'
         UNION ALL SELECT tx_nonce FROM partner_transfers WHERE chain_id = $1 AND state = 'pending') AS t`,
      [chainId],
    );
    return Number(row!.floor);
  }

  /** Every transaction of a chain's treasury recorded at `nonce` (swaps, withdrawals, partner transfers, whatever their state). */
  async treasuryTxsAtNonce(chainId: number, nonce: number): Promise<string[]> {
    const rows = await this.db.query(
      `SELECT tx_hash FROM swaps WHERE chain_id = $1 AND tx_nonce = $2
       UNION SELECT tx_hash FROM withdrawals WHERE chain_id = $1 AND tx_nonce = $2
       UNION SELECT tx_hash FROM partner_transfers WHERE chain_id = $1 AND tx_nonce = $2
       UNION SELECT tx_hash FROM treasury_replacements WHERE chain_id = $1 AND nonce = $2`,
      [chainId, nonce],
    );
    return rows.map((r) => r.tx_hash as string);
  }

  /** A row's replacements, oldest first: each the same transaction at its nonce with higher fees. */
  async replacements(table: TreasuryTable, id: string): Promise<Replacement[]> {
    const rows = await this.db.query(
      `SELECT tx_hash, raw_tx, signed_ms FROM treasury_replacements WHERE row_table = $1 AND row_id = $2 ORDER BY signed_ms, tx_hash`,
      [table, id],
    );
    return rows.map((r) => ({ hash: r.tx_hash as string, raw: r.raw_tx as string, signedMs: Number(r.signed_ms) }));
  }

  /** Records a replacement before it is sent, while its row is still pending; false when the row was decided meanwhile. */
  async recordReplacement(chainId: number, table: TreasuryTable, id: string, signed: SignedTx, nowMs: number): Promise<boolean> {
    const rows = await this.db.query(
      `INSERT INTO treasury_replacements (tx_hash, chain_id, row_table, row_id, nonce, raw_tx, signed_ms)
         SELECT $1, $2, $3, $4, $5, $6, $7 WHERE EXISTS (SELECT 1 FROM ${table} WHERE id::text = $4 AND state = 'pending')
       ON CONFLICT (tx_hash) DO NOTHING RETURNING tx_hash`,
      [signed.hash, chainId, table, id, signed.nonce, signed.raw, nowMs],
    );
    return rows.length > 0;
  }

  /** The row is paid by the replacement that was mined: its transaction, for its answer and its record, from now on. */
  async adoptMined(table: TreasuryTable, id: string, mined: { hash: string; raw: string }, nowMs: number): Promise<void> {
    await this.db.query(`UPDATE ${table} SET tx_hash = $2, raw_tx = $3, updated_ms = $4 WHERE id = $1 AND state = 'pending'`, [
      id,
      mined.hash,
      mined.raw,
      nowMs,
    ]);
  }

  /** The oldest treasury transaction of a chain signed and not decided (the head of its queue), with its replacements. */
  async queueHead(chainId: number): Promise<QueueHead | undefined> {
    const [row] = await this.db.query(
      `SELECT t.tbl, t.id, t.nonce, t.signed_ms, (SELECT count(*) FROM treasury_replacements r WHERE r.row_table = t.tbl AND r.row_id = t.id)::int AS replacements FROM (
         SELECT 'swaps' AS tbl, id::text AS id, tx_nonce AS nonce, COALESCE(signed_ms, updated_ms) AS signed_ms FROM swaps WHERE chain_id = $1 AND state = 'pending' AND tx_hash IS NOT NULL
         UNION ALL SELECT 'withdrawals', id::text, tx_nonce, COALESCE(signed_ms, updated_ms) FROM withdrawals WHERE chain_id = $1 AND state = 'pending' AND tx_hash IS NOT NULL
         UNION ALL SELECT 'partner_transfers', id::text, tx_nonce, COALESCE(signed_ms, updated_ms) FROM partner_transfers WHERE chain_id = $1 AND state = 'pending' AND tx_hash IS NOT NULL) AS t
       ORDER BY t.signed_ms LIMIT 1`,
      [chainId],
    );
    if (!row) return undefined;
    return {
      table: row.tbl as TreasuryTable,
      id: row.id as string,
      nonce: row.nonce === null ? null : Number(row.nonce),
      signedMs: Number(row.signed_ms),
      replacements: Number(row.replacements),
    };
  }

  /** A swap's approval of the router, recorded before it is sent (once: the first recorded stays); answers the one recorded. */
  async recordApproval(id: string, signed: SignedTx): Promise<{ hash: string; raw: string } | undefined> {
    await this.db.query(
      `UPDATE swaps SET approve_tx_hash = $2, approve_raw_tx = $3, approve_nonce = $4 WHERE id = $1 AND state = 'pending' AND approve_tx_hash IS NULL AND tx_hash IS NULL`,
      [id, signed.hash, signed.raw, signed.nonce],
    );
    return this.approval(id);
  }

  /** A recorded approval that reverted: forgotten, so that another is signed. */
  async approvalFailed(id: string): Promise<void> {
    await this.db.query(`UPDATE swaps SET approve_tx_hash = NULL, approve_raw_tx = NULL, approve_nonce = NULL WHERE id = $1 AND tx_hash IS NULL`, [id]);
  }

  /** A swap's recorded approval, if any. */
  async approval(id: string): Promise<{ hash: string; raw: string } | undefined> {
    const [row] = await this.db.query(`SELECT approve_tx_hash, approve_raw_tx FROM swaps WHERE id = $1`, [id]);
    return row?.approve_tx_hash ? { hash: row.approve_tx_hash as string, raw: row.approve_raw_tx as string } : undefined;
  }

  /** Takes (or renews) the lease on sending from a chain's treasury; false while another instance holds it. */
  leaseTreasury(chainId: number, holder: string, nowMs: number, leaseMs: number): Promise<boolean> {
    return takeLease(this.db, `treasury/${chainId}`, holder, nowMs, leaseMs);
  }

  releaseTreasury(chainId: number, holder: string): Promise<void> {
    return releaseLease(this.db, `treasury/${chainId}`, holder);
  }
}
