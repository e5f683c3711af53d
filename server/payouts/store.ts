// Registered bank accounts and the payouts made to them: the SQL on both tables. A payout's
// initiation and end, which move its USDT in the journal, are payouts/use-cases.ts's, in their
// transaction; a bank account's changes are payouts/bank-accounts.ts's.
import { randomUUID } from 'node:crypto';
import { formatUnits } from '../../contract/money.ts';
import type { PayoutCurrency } from '../../contract/payouts.ts';
import type { Account } from '../domain/account.ts';
import { NotFound } from '../domain/errors.ts';
import { PAYOUT_COIN, PAYOUT_DECIMALS, type BankAccount, type Fields, type Payout, type PayoutStatus } from './rules.ts';
import type { Database, Row, Sql } from '../storage/db.ts';
import type { JournalStore } from '../balances/journal-store.ts';
import { merchantAccount, PAYOUT_PAYABLE, type SendTerms } from '../balances/ledger-rules.ts';
import { applyDue } from '../storage/destination-changes.ts';
import { newestFirst } from '../storage/history.ts';
import { stateCounts, type StateCount } from '../storage/metrics.ts';

/** The coin payouts are drawn on in a mode: USDT of its network (or of the sandbox's catalogue). */
export interface PayoutCoin {
  chainId: number;
  token: string;
  decimals: number;
  /** The treasury's terms for sending it (the minimum and network fee of every send); none for the sandbox's coin. */
  terms?: SendTerms;
}

export { PAYOUT_PAYABLE };

const iso = (ms: unknown) => new Date(Number(ms)).toISOString();

const bankOf = (r: Row): BankAccount => ({
  id: r.id as string,
  currency: r.currency as PayoutCurrency,
  ...(r.fields as Fields),
  default: r.is_default as boolean,
  createdAt: iso(r.created_ms),
  updatedAt: iso(r.updated_ms),
  // Only an account that waited (a live key's, merchants/destination-store.ts) says from when it is paid to.
  ...(Number(r.effective_ms ?? 0) > Number(r.created_ms) ? { effectiveAt: iso(r.effective_ms) } : {}),
});

/** A payout as initiation records it: its amount in payout units and in the token's, and what it is worth. */
export interface NewPayout {
  id: string;
  bankId: string;
  currency: PayoutCurrency;
  units: bigint;
  fiatMinor: bigint;
  reference: string;
  metadata: Record<string, unknown> | null;
  chainId: number;
  token: string;
  tokenUnits: bigint;
  usdCents: bigint;
}

export interface StoredPayout extends Payout {
  merchantId: string;
  mode: string;
  providerRef: string | null;
}

const payoutOf = (r: Row): StoredPayout => ({
  id: r.id as string,
  merchantId: r.merchant_id as string,
  mode: r.mode as string,
  payout_bank_id: r.bank_account_id as string,
  coin: r.coin as string,
  amount: Number(formatUnits(BigInt(r.units as string), PAYOUT_DECIMALS)),
  currency: r.currency as PayoutCurrency,
  fiat_amount: Number(formatUnits(BigInt(r.fiat_minor as string), 2)),
  reference: r.reference as string,
  metadata: (r.metadata as Record<string, unknown> | null) ?? null,
  status: r.status as PayoutStatus,
  failure: (r.failure as string | null) ?? null,
  providerRef: (r.provider_ref as string | null) ?? null,
  createdAt: iso(r.created_ms),
  updatedAt: iso(r.updated_ms),
});

/** The payout as the merchant sees it: no storage bookkeeping. */
export const payoutView = ({ merchantId: _m, mode: _o, providerRef: _p, ...payout }: StoredPayout): Payout => payout;

const owner = (account: Pick<Account, 'merchant' | 'mode'>) => [account.merchant.id, account.mode];

/** /metrics' payouts by key mode and status (storage/metrics.ts). */
export const payoutsByState = async (sql: Sql): Promise<StateCount[]> =>
  stateCounts(await sql.query(`SELECT mode, status AS state, count(*)::text AS n FROM payouts GROUP BY 1, 2`));

/**
 * SQL: what the merchant's bank payouts took from its balance since a time, US cents as valued
 * when each left, failed ones not counted (`merchant`, `mode`, `since`: the caller's parameters):
 * their part of the one daily limit, which balances/withdrawal-store.ts sums in one statement.
 */
export const payoutsSpentSince = (merchant: string, mode: string, since: string): string =>
  `SELECT COALESCE(sum(usd_cents), 0) FROM payouts WHERE merchant_id = ${merchant} AND mode = ${mode} AND status <> 'failed' AND created_ms > ${since}`;

export class PayoutStore {
  constructor(
    private readonly db: Database,
    private readonly journal: JournalStore,
    private readonly coinOf: (mode: string) => PayoutCoin | undefined,
    private readonly now: () => number = Date.now,
  ) {}

  /** How many bank accounts the owner has. */
  async bankCount(tx: Sql, account: Pick<Account, 'merchant' | 'mode'>): Promise<number> {
    const [{ count }] = await tx.query('SELECT count(*) AS count FROM bank_accounts WHERE merchant_id = $1 AND mode = $2', owner(account));
    return Number(count);
  }

  /** None of the owner's bank accounts the default (another becomes it in the same transaction). */
  async clearDefault(tx: Sql, account: Pick<Account, 'merchant' | 'mode'>): Promise<void> {
    await tx.query('UPDATE bank_accounts SET is_default = false WHERE merchant_id = $1 AND mode = $2', owner(account));
  }

  /** A new bank account, paid to from `effectiveMs`. */
  async insertBank(
    tx: Sql,
    account: Pick<Account, 'merchant' | 'mode'>,
    bank: { currency: PayoutCurrency; fields: Fields; isDefault: boolean; effectiveMs: number },
    nowMs: number,
  ): Promise<BankAccount> {
    const [row] = await tx.query(
      `INSERT INTO bank_accounts (id, merchant_id, mode, currency, fields, is_default, created_ms, updated_ms, effective_ms) VALUES ($1, $2, $3, $4, $5, $6, $7, $7, $8) RETURNING *`,
      [randomUUID(), ...owner(account), bank.currency, JSON.stringify(bank.fields), bank.isDefault, nowMs, bank.effectiveMs],
    );
    return bankOf(row!);
  }

  /** A bank account's details changed (unless `waits`: its new details wait the delay, recorded as a destination change), made the default if asked. */
  async setBank(tx: Sql, id: string, change: { fields: Fields; makeDefault: boolean; waits: boolean }, nowMs: number): Promise<BankAccount> {
    const [row] = await tx.query(
      `UPDATE bank_accounts SET fields = CASE WHEN $5 THEN fields ELSE $2 END, is_default = is_default OR $3, updated_ms = $4 WHERE id = $1 RETURNING *`,
      [id, JSON.stringify(change.fields), change.makeDefault, nowMs, change.waits],
    );
    return bankOf(row!);
  }

  async deleteBanks(tx: Sql, account: Pick<Account, 'merchant' | 'mode'>, ids: string[]): Promise<void> {
    await tx.query('DELETE FROM bank_accounts WHERE merchant_id = $1 AND mode = $2 AND id::text = ANY($3::text[])', [...owner(account), ids]);
  }

  /** Oldest first, after (created_ms, id) of the page before; at most `limit`. */
  async banks(account: Account, after: { createdMs: number; id: string } | undefined, limit: number): Promise<BankAccount[]> {
    await applyDue(this.db, account.merchant.id, account.mode, this.now());
    const rows = after
      ? await this.db.query(
          'SELECT * FROM bank_accounts WHERE merchant_id = $1 AND mode = $2 AND (created_ms, id) > ($3, $4) ORDER BY created_ms, id LIMIT $5',
          [...owner(account), after.createdMs, after.id, limit],
        )
      : await this.db.query('SELECT * FROM bank_accounts WHERE merchant_id = $1 AND mode = $2 ORDER BY created_ms, id LIMIT $3', [...owner(account), limit]);
    return rows.map(bankOf);
  }

  async bank(account: Pick<Account, 'merchant' | 'mode'>, id: string, sql: Sql = this.db): Promise<BankAccount> {
    if (sql === this.db) await applyDue(this.db, account.merchant.id, account.mode, this.now());
    const [row] = await sql.query('SELECT * FROM bank_accounts WHERE merchant_id = $1 AND mode = $2 AND id::text = $3', [...owner(account), id]);
    if (!row) throw new NotFound(`No bank payout ${id}`);
    return bankOf(row);
  }

  /** The USDT available to pay out (the balance's, journaled), in payout units, rounded down. */
  async balance(account: Pick<Account, 'merchant' | 'mode'>, sql: Sql = this.db): Promise<bigint> {
    const coin = this.coinOf(account.mode);
    if (!coin) return 0n;
    if (sql === this.db) await this.db.transaction((tx) => this.journal.catchUp(tx, Date.now(), account));
    const units = await this.journal.sum(sql, merchantAccount(account.merchant.id, account.mode, 'available'), coin.chainId, coin.token);
    return units / 10n ** BigInt(coin.decimals - PAYOUT_DECIMALS);
  }

  /** A payout's reference in use by the owner already: that payout's id. */
  async referenceTaken(tx: Sql, account: Pick<Account, 'merchant' | 'mode'>, reference: string): Promise<string | undefined> {
    const [taken] = await tx.query('SELECT id FROM payouts WHERE merchant_id = $1 AND mode = $2 AND reference = $3', [...owner(account), reference]);
    return taken?.id as string | undefined;
  }

  /** Records a new pending payout, due to be handed to the provider now (any instance's payout job is woken when `tx` commits). */
  async insert(tx: Sql, account: Pick<Account, 'merchant' | 'mode'>, p: NewPayout, nowMs: number): Promise<Payout> {
    const [row] = await tx.query(
      `INSERT INTO payouts (id, merchant_id, mode, bank_account_id, coin, units, currency, fiat_minor, reference, metadata, status, next_check_ms, created_ms, updated_ms, chain_id, token, token_units, usd_cents)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 'pending', $11, $11, $11, $12, $13, $14, $15) RETURNING *`,
      [
        p.id,
        ...owner(account),
        p.bankId,
        PAYOUT_COIN,
        String(p.units),
        p.currency,
        String(p.fiatMinor),
        p.reference,
        p.metadata === null ? null : JSON.stringify(p.metadata),
        nowMs,
        p.chainId,
        p.token.toLowerCase(),
        String(p.tokenUnits),
        String(p.usdCents),
      ],
    );
    await tx.query(`SELECT pg_notify('payouts_due', $1)`, [row.id]);
    return payoutView(payoutOf(row));
  }

  /** The merchant's payouts in a mode, newest first, after `before` (the last of the page before). */
  async history(account: Account, before: { createdMs: number; id: string } | undefined, limit: number): Promise<Payout[]> {
    return (await newestFirst(this.db, 'payouts', 'true', account, before, limit)).map((r) => payoutView(payoutOf(r)));
  }

  async get(account: Account, id: string): Promise<Payout> {
    const [row] = await this.db.query('SELECT * FROM payouts WHERE merchant_id = $1 AND mode = $2 AND id::text = $3', [...owner(account), id]);
    if (!row) throw new NotFound(`No payout ${id}`);
    return payoutView(payoutOf(row));
  }

  /** Claims payouts whose provider should be asked now (one instance each, leased). */
  async claimDue(nowMs: number, leaseMs: number, limit: number): Promise<Array<{ payout: StoredPayout; bank: BankAccount | undefined }>> {
    const rows = await this.db.query(
      `UPDATE payouts SET lease_until_ms = $2 WHERE id IN (
         SELECT id FROM payouts WHERE status IN ('pending', 'processing') AND next_check_ms <= $1 AND (lease_until_ms IS NULL OR lease_until_ms <= $1)
          ORDER BY next_check_ms LIMIT $3 FOR UPDATE SKIP LOCKED)
       RETURNING *`,
      [nowMs, nowMs + leaseMs, limit],
    );
    const out = [];
    for (const row of rows) {
      const payout = payoutOf(row);
      await applyDue(this.db, payout.merchantId, payout.mode, nowMs);
      const [bank] = await this.db.query('SELECT * FROM bank_accounts WHERE id = $1', [row.bank_account_id]);
      out.push({ payout, bank: bank && bankOf(bank) });
    }
    return out;
  }

  /**
   * Sets a payout's status and when it is next looked at, its lease ended; the payout as it is now,
   * with the token and amount its reservation holds (none for a payout recorded before they were kept).
   */
  async setStatus(
    tx: Sql,
    id: string,
    next: { status: PayoutStatus; providerRef?: string; failure?: string; checkAtMs: number | null },
    nowMs: number,
  ): Promise<{ payout: StoredPayout; held?: { chainId: number; token: string; amount: bigint } }> {
    const [row] = await tx.query(
      `UPDATE payouts SET status = $2, provider_ref = COALESCE($3, provider_ref), failure = $4, next_check_ms = $5, lease_until_ms = NULL, updated_ms = $6
        WHERE id = $1 RETURNING *`,
      [id, next.status, next.providerRef ?? null, next.failure ?? null, next.checkAtMs, nowMs],
    );
    const payout = payoutOf(row!);
    if (row!.chain_id == null) return { payout };
    return { payout, held: { chainId: Number(row!.chain_id), token: row!.token as string, amount: BigInt(row!.token_units as string) } };
  }
}
