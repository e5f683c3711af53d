// What the relay keeps of each transaction the gas wallet sends for a payment paid by signature:
// recorded before it is broadcast (a re-priced one added by hash before it is), so that a relay
// mined after the service stopped or gave up waiting is still found (relay-job.ts); and what
// the caps count: the relays under way, each payment's, each payer's. SQL only.
import type { Database } from '../storage/db.ts';

/** A relay as recorded before its broadcast: whose payment, who signed, the gas wallet's nonce, the most it may cost. */
export interface RelayRecord {
  id: string;
  chainId: number;
  nonce: number;
  merchantId: string;
  mode: string;
  reference: string;
  payer: string;
  /** Every transaction sent for it (re-priced ones after the first), lower case. */
  txHashes: string[];
  reservedWei: bigint;
}

const recordOf = (r: Record<string, unknown>): RelayRecord => ({
  id: r.id as string,
  chainId: Number(r.chain_id),
  nonce: Number(r.nonce),
  merchantId: r.merchant_id as string,
  mode: r.mode as string,
  reference: r.reference as string,
  payer: r.payer as string,
  txHashes: r.tx_hashes as string[],
  reservedWei: BigInt(r.reserved_wei as string),
});

export class RelayStore {
  constructor(private readonly db: Database) {}

  /**
   * Records one transaction of a relay before it is broadcast: the relay's row the first time,
   * the hash added (and the most it may cost raised to `reservedWei` where higher) for each one
   * re-priced after it.
   */
  async signed(r: Omit<RelayRecord, 'txHashes'>, txHash: string, nowMs: number): Promise<void> {
    await this.db.query(
      `INSERT INTO relays (id, chain_id, nonce, merchant_id, mode, reference, payer, tx_hashes, reserved_wei, state, created_ms)
       VALUES ($1, $2, $3, $4, $5, $6, $7, ARRAY[$8::text], $9, 'sent', $10)
       ON CONFLICT (id) DO UPDATE SET tx_hashes = array_append(relays.tx_hashes, $8::text), reserved_wei = GREATEST(relays.reserved_wei, EXCLUDED.reserved_wei)`,
      [r.id, r.chainId, r.nonce, r.merchantId, r.mode, r.reference, r.payer.toLowerCase(), txHash.toLowerCase(), String(r.reservedWei), nowMs],
    );
  }

  /** A relay is done: `mined` in `txHash` (its gas journaled), or `dropped` (its nonce went to another transaction: no gas spent). */
  async finished(id: string, outcome: { mined: string } | 'dropped', nowMs: number): Promise<void> {
    await this.db.query(`UPDATE relays SET state = $2, tx_hash = $3, done_ms = $4 WHERE id = $1 AND state = 'sent'`, [
      id,
      outcome === 'dropped' ? 'dropped' : 'mined',
      outcome === 'dropped' ? null : outcome.mined.toLowerCase(),
      nowMs,
    ]);
  }

  /** Relays on a chain not yet seen mined or dropped, oldest first. */
  async unfinished(chainId: number): Promise<RelayRecord[]> {
    const rows = await this.db.query(
      `SELECT *, reserved_wei::text AS reserved_wei FROM relays WHERE chain_id = $1 AND state = 'sent' ORDER BY created_ms, id`,
      [chainId],
    );
    return rows.map(recordOf);
  }

  /** What relays under way on a chain may still cost (wei): a merchant's (of a mode), or every merchant's. */
  async reserved(chainId: number, of?: { merchantId: string; mode: string }): Promise<bigint> {
    const [row] = await this.db.query(
      `SELECT COALESCE(sum(reserved_wei), 0)::text AS s FROM relays
        WHERE chain_id = $1 AND state = 'sent' AND ($2::text IS NULL OR (merchant_id = $2 AND mode = $3))`,
      [chainId, of?.merchantId ?? null, of?.mode ?? null],
    );
    return BigInt(row!.s as string);
  }

  /** A payment's relays under way or mined (not those whose nonce went to another transaction): who signed each, and whether it is still under way. */
  async ofPayment(merchantId: string, mode: string, reference: string): Promise<Array<{ payer: string; underWay: boolean }>> {
    const rows = await this.db.query(
      `SELECT payer, state FROM relays WHERE merchant_id = $1 AND mode = $2 AND reference = $3 AND state <> 'dropped' ORDER BY created_ms`,
      [merchantId, mode, reference],
    );
    return rows.map((r) => ({ payer: r.payer as string, underWay: r.state === 'sent' }));
  }

  /** The relays a payer signed on a chain since `sinceMs`, under way or mined. */
  async ofPayerSince(chainId: number, payer: string, sinceMs: number): Promise<number> {
    const [row] = await this.db.query(`SELECT count(*)::text AS n FROM relays WHERE chain_id = $1 AND payer = $2 AND created_ms >= $3 AND state <> 'dropped'`, [
      chainId,
      payer.toLowerCase(),
      sinceMs,
    ]);
    return Number(row!.n);
  }
}
