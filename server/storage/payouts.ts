// Registered bank accounts and the payouts made to them. A payout is checked against the
// balance under an advisory lock per account, so two at once cannot overdraw it.
import { randomUUID } from 'node:crypto';
import { formatUnits } from '../../contract/money.ts';
import type { PayoutCurrency } from '../../contract/payouts.ts';
import type { Account } from '../domain/account.ts';
import { Conflict, NotFound } from '../domain/errors.ts';
import { PAYOUT_COIN, PAYOUT_DECIMALS, fiatCentsOf, type BankAccount, type Fields, type Payout, type PayoutStatus } from '../domain/payouts.ts';
import type { Database, Row, Sql } from './db.ts';
import type { EventStore } from './events.ts';
import type { PaymentStore } from './payments.ts';

const iso = (ms: unknown) => new Date(Number(ms)).toISOString();

const bankOf = (r: Row): BankAccount => ({
  id: r.id as string,
  currency: r.currency as PayoutCurrency,
  ...(r.fields as Fields),
  default: r.is_default as boolean,
  createdAt: iso(r.created_ms),
  updatedAt: iso(r.updated_ms),
});

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

export class PayoutStore {
  constructor(
    private readonly db: Database,
    private readonly payments: PaymentStore,
    private readonly events: EventStore,
  ) {}

  async addBank(account: Account, currency: PayoutCurrency, fields: Fields, isDefault: boolean | undefined, nowMs: number): Promise<BankAccount> {
    return this.db.transaction(async (tx) => {
      await this.lockAccount(tx, account);
      const [{ count }] = await tx.query('SELECT count(*) AS count FROM bank_accounts WHERE merchant_id = $1 AND mode = $2', owner(account));
      const makeDefault = isDefault ?? Number(count) === 0;
      if (makeDefault) await tx.query('UPDATE bank_accounts SET is_default = false WHERE merchant_id = $1 AND mode = $2', owner(account));
      const [row] = await tx.query(
        `INSERT INTO bank_accounts (id, merchant_id, mode, currency, fields, is_default, created_ms, updated_ms) VALUES ($1, $2, $3, $4, $5, $6, $7, $7) RETURNING *`,
        [randomUUID(), ...owner(account), currency, JSON.stringify(fields), makeDefault, nowMs],
      );
      return bankOf(row);
    });
  }

  async banks(account: Account): Promise<BankAccount[]> {
    return (await this.db.query('SELECT * FROM bank_accounts WHERE merchant_id = $1 AND mode = $2 ORDER BY created_ms, id', owner(account))).map(bankOf);
  }

  async bank(account: Pick<Account, 'merchant' | 'mode'>, id: string, sql: Sql = this.db): Promise<BankAccount> {
    const [row] = await sql.query('SELECT * FROM bank_accounts WHERE merchant_id = $1 AND mode = $2 AND id::text = $3', [...owner(account), id]);
    if (!row) throw new NotFound(`No bank payout ${id}`);
    return bankOf(row);
  }

  async updateBank(account: Account, id: string, fields: Fields, makeDefault: boolean, nowMs: number): Promise<BankAccount> {
    return this.db.transaction(async (tx) => {
      await this.lockAccount(tx, account);
      await this.bank(account, id, tx);
      if (makeDefault) await tx.query('UPDATE bank_accounts SET is_default = false WHERE merchant_id = $1 AND mode = $2', owner(account));
      const [row] = await tx.query(
        `UPDATE bank_accounts SET fields = $2, is_default = is_default OR $3, updated_ms = $4 WHERE id = $1 RETURNING *`,
        [id, JSON.stringify(fields), makeDefault, nowMs],
      );
      return bankOf(row);
    });
  }

  /** All or nothing: an unknown id deletes none. */
  async deleteBanks(account: Account, ids: string[]): Promise<string[]> {
    return this.db.transaction(async (tx) => {
      for (const id of ids) await this.bank(account, id, tx);
      await tx.query('DELETE FROM bank_accounts WHERE merchant_id = $1 AND mode = $2 AND id::text = ANY($3::text[])', [...owner(account), ids]);
      return ids;
    });
  }

  private lockAccount = (tx: Sql, account: Pick<Account, 'merchant' | 'mode'>) =>
    tx.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`payouts/${account.merchant.id}/${account.mode}`]);

  /** Collected USDT less every payout that has not failed, in payout units. */
  async balance(account: Pick<Account, 'merchant' | 'mode'>, sql: Sql = this.db): Promise<bigint> {
    const collected = await this.payments.collected(sql, account, PAYOUT_COIN, PAYOUT_DECIMALS);
    const [{ out }] = await sql.query<{ out: string | null }>(
      `SELECT COALESCE(sum(units), 0)::text AS out FROM payouts WHERE merchant_id = $1 AND mode = $2 AND status <> 'failed'`,
      owner(account),
    );
    return collected - BigInt(out ?? '0');
  }

  async initiate(
    account: Account,
    request: { bankId: string; units: bigint; reference: string | undefined; metadata: Record<string, unknown> | null },
    nowMs: number,
    report: (payout: Payout) => unknown,
  ): Promise<Payout> {
    return this.db.transaction(async (tx) => {
      await this.lockAccount(tx, account);
      const bank = await this.bank(account, request.bankId, tx);
      const available = await this.balance(account, tx);
      if (request.units > available) {
        throw new Conflict(`amount: ${formatUnits(request.units, PAYOUT_DECIMALS)} ${PAYOUT_COIN} is more than the balance of ${formatUnits(available, PAYOUT_DECIMALS)} ${PAYOUT_COIN}`, [
          { field: 'amount', message: `expected at most ${formatUnits(available, PAYOUT_DECIMALS)}` },
        ]);
      }
      const reference = request.reference ?? 'po_' + randomUUID().replaceAll('-', '').slice(0, 20);
      const [taken] = await tx.query('SELECT 1 FROM payouts WHERE merchant_id = $1 AND mode = $2 AND reference = $3', [...owner(account), reference]);
      if (taken) throw new Conflict(`reference: a payout with reference ${reference} exists already`, [{ field: 'reference', message: 'expected a new reference' }]);
      const [row] = await tx.query(
        `INSERT INTO payouts (id, merchant_id, mode, bank_account_id, coin, units, currency, fiat_minor, reference, metadata, status, next_check_ms, created_ms, updated_ms)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 'pending', $11, $11, $11) RETURNING *`,
        [
          randomUUID(), ...owner(account), bank.id, PAYOUT_COIN, String(request.units), bank.currency, String(fiatCentsOf(request.units, bank.currency)),
          reference, request.metadata === null ? null : JSON.stringify(request.metadata), nowMs,
        ],
      );
      const payout = payoutView(payoutOf(row));
      await this.events.add(tx, account, 'PAYOUT_UPDATED', report(payout), nowMs);
      await tx.query(`SELECT pg_notify('payouts_due', $1)`, [payout.id]);
      return payout;
    });
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
      const [bank] = await this.db.query('SELECT * FROM bank_accounts WHERE id = $1', [row.bank_account_id]);
      out.push({ payout, bank: bank && bankOf(bank) });
    }
    return out;
  }

  /** Moves a payout on; a change of status writes its event in the same transaction. */
  async advance(
    payout: StoredPayout,
    next: { status: PayoutStatus; providerRef?: string; failure?: string; checkAtMs: number | null },
    nowMs: number,
    report: (payout: Payout) => unknown,
  ): Promise<void> {
    await this.db.transaction(async (tx) => {
      const [row] = await tx.query(
        `UPDATE payouts SET status = $2, provider_ref = COALESCE($3, provider_ref), failure = $4, next_check_ms = $5, lease_until_ms = NULL, updated_ms = $6
          WHERE id = $1 RETURNING *`,
        [payout.id, next.status, next.providerRef ?? null, next.failure ?? null, next.checkAtMs, nowMs],
      );
      if (next.status !== payout.status) {
        const account = { merchant: { id: payout.merchantId } as Account['merchant'], mode: payout.mode as Account['mode'] };
        await this.events.add(tx, account, 'PAYOUT_UPDATED', report(payoutView(payoutOf(row))), nowMs);
      }
    });
  }
}
