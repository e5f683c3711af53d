// The operator's fee per merchant and mode (merchant_fees, migration 0029): SQL only. A merchant
// with no row of its own pays the service's default (FEE_BPS, FEE_BEARER: none unless set).
import type { FeeBearer, FeeTerms } from '../domain/fees.ts';
import type { Database } from '../storage/db.ts';
import { notifyAccountChange } from '../storage/account-cache.ts';

export class FeeStore {
  constructor(
    private readonly db: Database,
    /** The service's default terms (service/settings.ts: feeBps, feeBearer). */
    private readonly fallback: FeeTerms,
    /** Told once a change committed: this instance's copies of the terms go at once (AccountCache). */
    private readonly changed: (merchantId: string) => void = () => {},
  ) {}

  /** The terms a new payment of this merchant in `mode` is priced at, and whether they are the merchant's own. */
  async terms(merchantId: string, mode: string): Promise<FeeTerms & { own: boolean }> {
    const [row] = await this.db.query('SELECT bps, bearer FROM merchant_fees WHERE merchant_id::text = $1 AND mode = $2', [merchantId, mode]);
    return row ? { bps: Number(row.bps), bearer: row.bearer as FeeBearer, own: true } : { ...this.fallback, own: false };
  }

  /** Sets the merchant's own terms in `mode` (null: back to the default); false for an unknown merchant. Payments already made keep theirs. */
  async set(merchantId: string, mode: string, terms: FeeTerms | null, nowMs: number): Promise<boolean> {
    const [known] = await this.db.query('SELECT 1 FROM merchants WHERE id::text = $1', [merchantId]);
    if (!known) return false;
    // Every instance's copy (AccountCache, read by each initialize) goes with the NOTIFY of the change's transaction.
    await this.db
      .transaction(async (tx) => {
        if (terms === null) await tx.query('DELETE FROM merchant_fees WHERE merchant_id = $1 AND mode = $2', [merchantId, mode]);
        else {
          await tx.query(
            `INSERT INTO merchant_fees (merchant_id, mode, bps, bearer, updated_ms) VALUES ($1, $2, $3, $4, $5)
             ON CONFLICT (merchant_id, mode) DO UPDATE SET bps = $3, bearer = $4, updated_ms = $5`,
            [merchantId, mode, terms.bps, terms.bearer, nowMs],
          );
        }
        await notifyAccountChange(tx, merchantId);
      })
      .finally(() => this.changed(merchantId));
    return true;
  }
}
