// The double-entry journal, the settlement choice, swaps and withdrawals: SQL only. Every
// movement of a merchant's money is an entry of postings that sum to zero per coin (checked
// before it is written), written once by its (kind, ref); a balance is a sum of postings.
// Whatever spends a balance takes the merchant's lock first (balance/<merchant>/<mode>), so
// payouts, swaps and withdrawals at once never overdraw it.
import { randomUUID } from 'node:crypto';
import type { Settlement } from '../../contract/balances.ts';
import type { Account } from '../domain/account.ts';
import { Conflict, NotFound } from '../domain/errors.ts';
import {
  assertBalanced, checkWithdrawalLimit, configuredUnits, DEFAULT_WITHDRAWAL_DAILY_LIMIT, EXTERNAL, FEES, GAS, merchantAccount, move, NATIVE, PAYOUT_PAYABLE, swapTerms, WITHDRAWAL_WINDOW_MS,
  type EntryKind, type Posting, type StoredSwap, type StoredWithdrawal,
} from '../domain/ledger.ts';

export type { StoredSwap, StoredWithdrawal };
import type { Database, Row, Sql } from './db.ts';
import type { EventStore } from './events.ts';
import { releaseLease, takeLease } from './leases.ts';
import { notifyAccountChange } from './account-cache.ts';

type Owner = Pick<Account, 'merchant' | 'mode'>;

export interface Entry {
  id: number;
  kind: EntryKind;
  ref: string;
  merchantId: string | null;
  memo: string;
  createdMs: number;
  postings: Posting[];
}

const big = (v: unknown) => BigInt(v as string);
/** What every row the treasury sends from keeps of its sending: the transaction, why it failed, when. */
const sentOf = (r: Row) => ({
  txHash: (r.tx_hash as string | null) ?? null,
  rawTx: (r.raw_tx as string | null) ?? null,
  failure: (r.failure as string | null) ?? null,
  createdMs: Number(r.created_ms),
  updatedMs: Number(r.updated_ms),
});
const swapOf = (r: Row): StoredSwap => ({
  id: r.id as string,
  merchantId: r.merchant_id as string,
  mode: r.mode as string,
  chainId: Number(r.chain_id),
  fromSymbol: r.from_symbol as string,
  toSymbol: r.to_symbol as string,
  fromToken: r.from_token as string,
  toToken: r.to_token as string,
  fromDecimals: Number(r.from_decimals),
  toDecimals: Number(r.to_decimals),
  amountIn: big(r.amount_in),
  poolOut: big(r.pool_out),
  fee: big(r.fee),
  minimumOut: big(r.minimum_out),
  amountOut: r.amount_out == null ? null : big(r.amount_out),
  state: r.state as StoredSwap['state'],
  expiresMs: Number(r.expires_ms),
  ...sentOf(r),
});
/** A transfer of what is owed to the payout partner, as stored. */
export type PartnerTransfer = Omit<StoredWithdrawal, 'merchantId' | 'mode' | 'symbol' | 'decimals'>;
const partnerOf = (r: Row): PartnerTransfer => ({
  id: r.id as string,
  chainId: Number(r.chain_id),
  token: r.token as string,
  address: r.address as string,
  amount: big(r.amount),
  state: r.state as PartnerTransfer['state'],
  ...sentOf(r),
});
const withdrawalOf = (r: Row): StoredWithdrawal => ({
  ...partnerOf(r),
  merchantId: r.merchant_id as string,
  mode: r.mode as string,
  symbol: r.symbol as string,
  decimals: Number(r.decimals),
});

/** The tables whose rows the treasury pays by one transaction each. */
export type TreasuryTable = 'swaps' | 'withdrawals' | 'partner_transfers';
/** A treasury transaction signed: its hash, its bytes, and the nonce it was signed at. */
export interface SignedTx {
  hash: string;
  raw: string;
  nonce: number;
}
/** A treasury row as stored now: pending or decided, and the transaction recorded for it, if any. */
export interface RecordedTx {
  state: 'quoted' | 'pending' | 'completed' | 'failed';
  txHash: string | null;
  rawTx: string | null;
}

const ownerOf = (merchantId: string, mode: string): Owner => ({ merchant: { id: merchantId } as Account['merchant'], mode: mode as Account['mode'] });

export class LedgerStore {
  constructor(
    private readonly db: Database,
    private readonly events: EventStore,
    /** The daily withdrawal limit per coin (whole tokens) where the operator set none for a merchant. */
    private readonly defaultDailyLimit: string = DEFAULT_WITHDRAWAL_DAILY_LIMIT,
    /** Told a merchant's settlement changed, once committed (the account cache). */
    private readonly changed: (merchantId: string) => void = () => {},
  ) {}

  // ---- settlement ------------------------------------------------------------------------

  async settlement(merchantId: string, mode: string): Promise<Settlement> {
    const [row] = await this.db.query('SELECT settlement FROM settlements WHERE merchant_id = $1 AND mode = $2', [merchantId, mode], 'settlement_of');
    return (row?.settlement as Settlement | undefined) ?? 'wallet';
  }

  async setSettlement(account: Owner, settlement: Settlement, nowMs: number): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.query(
        `INSERT INTO settlements (merchant_id, mode, settlement, updated_ms) VALUES ($1, $2, $3, $4)
         ON CONFLICT (merchant_id, mode) DO UPDATE SET settlement = $3, updated_ms = $4`,
        [account.merchant.id, account.mode, settlement, nowMs],
      );
      await notifyAccountChange(tx, account.merchant.id);
    });
    this.changed(account.merchant.id);
  }

  // ---- the journal -----------------------------------------------------------------------

  /** The merchant's lock for the rest of the transaction: whatever spends its balance takes it first. */
  lock = (tx: Sql, account: Owner) => tx.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`balance/${account.merchant.id}/${account.mode}`]);

  /**
   * Writes one entry, balanced or not at all; false when an entry of this (kind, ref) exists
   * already (a retry, or another instance got there first), and nothing is written then.
   */
  async post(tx: Sql, entry: { kind: EntryKind; ref: string; owner?: Owner; memo?: string }, postings: Posting[], nowMs: number): Promise<boolean> {
    assertBalanced(postings);
    const [row] = await tx.query(
      `INSERT INTO journal_entries (kind, ref, merchant_id, mode, memo, created_ms) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (kind, ref) DO NOTHING RETURNING id`,
      [entry.kind, entry.ref, entry.owner?.merchant.id ?? null, entry.owner?.mode ?? null, entry.memo ?? '', nowMs],
    );
    if (!row) return false;
    for (const p of postings) {
      await tx.query('INSERT INTO postings (entry_id, account, chain_id, token, amount) VALUES ($1, $2, $3, $4, $5)', [row.id, p.account, p.chainId, p.token.toLowerCase(), String(p.amount)]);
    }
    return true;
  }

  /** An account's balance in one coin: the sum of its postings. */
  async sum(sql: Sql, account: string, chainId: number, token: string): Promise<bigint> {
    const [row] = await sql.query(`SELECT COALESCE(sum(amount), 0)::text AS s FROM postings WHERE account = $1 AND chain_id = $2 AND token = $3`, [account, chainId, token.toLowerCase()]);
    return big(row!.s);
  }

  /**
   * Journals money that became the merchant's balance and is not journaled yet: deposits of
   * balance-settled payments once a sweep moved them into the treasury and its block has its
   * confirmations (a sweep a reorganisation can still take away is not money held; every transfer swept,
   * late, another token or dust too: it is all in the treasury now, and all the merchant's),
   * and, where no chain is configured (the sandbox's simulated coins), credits of such payments.
   * Safe to run anywhere, any number of times: each is written once.
   */
  async catchUp(sql: Sql, nowMs: number, owner?: Owner): Promise<number> {
    const mine = owner ? ` AND p.merchant_id = $1 AND p.mode = $2` : '';
    const params = owner ? [owner.merchant.id, owner.mode] : [];
    const swept = await sql.query(
      `SELECT t.chain_id, t.tx_hash, t.log_index, t.token, t.amount::text AS amount, p.merchant_id, p.mode, p.reference, t.swept_hash
         FROM chain_transfers t JOIN payments p ON p.id = t.payment_id
        WHERE p.settlement = 'balance' AND t.swept_hash IS NOT NULL AND t.sweep_final AND t.state <> 'orphaned'${mine}
          AND NOT EXISTS (SELECT 1 FROM journal_entries e WHERE e.kind = 'deposit' AND e.ref = t.chain_id || '/' || t.tx_hash || '/' || t.log_index)
        ORDER BY t.block_number, t.log_index`,
      params,
    );
    let written = 0;
    for (const r of swept) {
      const o = ownerOf(r.merchant_id as string, r.mode as string);
      const posted = await this.post(
        sql,
        { kind: 'deposit', ref: `${r.chain_id}/${r.tx_hash}/${r.log_index}`, owner: o, memo: `payment ${r.reference}, swept in ${r.swept_hash}` },
        move(EXTERNAL.deposits, merchantAccount(o.merchant.id, o.mode, 'available'), Number(r.chain_id), r.token as string, big(r.amount)),
        nowMs,
      );
      if (posted) written++;
    }
    const simulated = await sql.query(
      `SELECT tr.id, tr.chain_id, p.token, tr.amount::text AS amount, p.merchant_id, p.mode, p.reference
         FROM transfers tr JOIN payments p ON p.id = tr.payment_id
        WHERE p.settlement = 'balance' AND p.payout IS NULL AND p.mode = 'test'${mine}
          AND NOT EXISTS (SELECT 1 FROM journal_entries e WHERE e.kind = 'sandbox_deposit' AND e.ref = tr.id::text)
        ORDER BY tr.id`,
      params,
    );
    for (const r of simulated) {
      const o = ownerOf(r.merchant_id as string, r.mode as string);
      const posted = await this.post(
        sql,
        { kind: 'sandbox_deposit', ref: String(r.id), owner: o, memo: `payment ${r.reference} (simulated)` },
        move(EXTERNAL.sandbox, merchantAccount(o.merchant.id, o.mode, 'available'), Number(r.chain_id), r.token as string, big(r.amount)),
        nowMs,
      );
      if (posted) written++;
    }
    return written;
  }

  /** Takes `amount` from the merchant's available balance into reserved, or refuses naming what there is. Inside the merchant's lock. */
  async reserve(tx: Sql, account: Owner, coin: { chainId: number; token: string; symbol: string; format: (units: bigint) => string }, amount: bigint, entry: { kind: EntryKind; ref: string; memo: string }, nowMs: number, field = 'amount'): Promise<void> {
    await this.catchUp(tx, nowMs, account);
    const available = await this.sum(tx, merchantAccount(account.merchant.id, account.mode, 'available'), coin.chainId, coin.token);
    if (amount > available) {
      throw new Conflict(`${field}: ${coin.format(amount)} ${coin.symbol} is more than the balance of ${coin.format(available)} ${coin.symbol}`, [
        { field, message: `expected at most ${coin.format(available)}` },
      ]);
    }
    await this.post(tx, { ...entry, owner: account }, move(merchantAccount(account.merchant.id, account.mode, 'available'), merchantAccount(account.merchant.id, account.mode, 'reserved'), coin.chainId, coin.token, amount), nowMs);
  }

  /** A merchant's balances: every coin it ever had postings in, and what is on its way. */
  async balances(account: Owner, nowMs: number): Promise<Array<{ chainId: number; token: string; available: bigint; reserved: bigint; pending: bigint }>> {
    await this.db.transaction((tx) => this.catchUp(tx, nowMs, account));
    const available = merchantAccount(account.merchant.id, account.mode, 'available');
    const reserved = merchantAccount(account.merchant.id, account.mode, 'reserved');
    const rows = await this.db.query(
      `SELECT chain_id, token, COALESCE(sum(amount) FILTER (WHERE account = $1), 0)::text AS available, COALESCE(sum(amount) FILTER (WHERE account = $2), 0)::text AS reserved
         FROM postings WHERE account IN ($1, $2) GROUP BY chain_id, token`,
      [available, reserved],
    );
    const pending = await this.db.query(
      `SELECT t.chain_id, lower(t.token) AS token, sum(t.amount)::text AS pending FROM chain_transfers t JOIN payments p ON p.id = t.payment_id
        WHERE p.merchant_id = $1 AND p.mode = $2 AND p.settlement = 'balance' AND NOT t.sweep_final AND t.state IN ('credited', 'late', 'unexpected', 'dust')
        GROUP BY t.chain_id, lower(t.token)`,
      [account.merchant.id, account.mode],
    );
    const lines = new Map<string, { chainId: number; token: string; available: bigint; reserved: bigint; pending: bigint }>();
    const line = (chainId: number, token: string) => {
      const key = `${chainId}/${token}`;
      if (!lines.has(key)) lines.set(key, { chainId, token, available: 0n, reserved: 0n, pending: 0n });
      return lines.get(key)!;
    };
    for (const r of rows) Object.assign(line(Number(r.chain_id), r.token as string), { available: big(r.available), reserved: big(r.reserved) });
    for (const r of pending) line(Number(r.chain_id), r.token as string).pending = big(r.pending);
    return [...lines.values()];
  }

  /** Every coin's postings summed over the whole journal: each must be zero. */
  async journalSums(): Promise<Array<{ chainId: number; token: string; sum: bigint }>> {
    const rows = await this.db.query(`SELECT chain_id, token, sum(amount)::text AS s FROM postings GROUP BY chain_id, token`);
    return rows.map((r) => ({ chainId: Number(r.chain_id), token: r.token as string, sum: big(r.s) }));
  }

  /**
   * What the journal says the treasury holds of a coin: every account that is not the world
   * outside (merchants' available and reserved, the operator's fees, what is owed to a payout
   * partner), which is minus the sum of the external accounts.
   */
  async held(chainId: number, token: string, sql: Sql = this.db): Promise<{ merchants: bigint; fees: bigint; payable: bigint; gas: bigint; external: bigint }> {
    const [r] = await sql.query(
      `SELECT COALESCE(sum(amount) FILTER (WHERE account LIKE 'merchant:%'), 0)::text AS merchants,
              COALESCE(sum(amount) FILTER (WHERE account = $3), 0)::text AS fees,
              COALESCE(sum(amount) FILTER (WHERE account LIKE 'payable:%'), 0)::text AS payable,
              COALESCE(sum(amount) FILTER (WHERE account = $4), 0)::text AS gas,
              COALESCE(sum(amount) FILTER (WHERE account LIKE 'external:%'), 0)::text AS external
         FROM postings WHERE chain_id = $1 AND token = $2`,
      [chainId, token.toLowerCase(), FEES, GAS],
    );
    return { merchants: big(r!.merchants), fees: big(r!.fees), payable: big(r!.payable), gas: big(r!.gas), external: big(r!.external) };
  }

  /** The journal, oldest first: every entry of a merchant (or all), with its postings. */
  async entries(merchantId?: string): Promise<Entry[]> {
    const rows = await this.db.query(
      `SELECT e.id, e.kind, e.ref, e.merchant_id, e.memo, e.created_ms, p.account, p.chain_id, p.token, p.amount::text AS amount
         FROM journal_entries e JOIN postings p ON p.entry_id = e.id ${merchantId ? 'WHERE e.merchant_id = $1' : ''} ORDER BY e.id, p.id`,
      merchantId ? [merchantId] : [],
    );
    const out: Entry[] = [];
    for (const r of rows) {
      if (out.at(-1)?.id !== Number(r.id)) out.push({ id: Number(r.id), kind: r.kind as EntryKind, ref: r.ref as string, merchantId: (r.merchant_id as string | null) ?? null, memo: r.memo as string, createdMs: Number(r.created_ms), postings: [] });
      out.at(-1)!.postings.push({ account: r.account as string, chainId: Number(r.chain_id), token: r.token as string, amount: big(r.amount) });
    }
    return out;
  }

  // ---- swaps -------------------------------------------------------------------------------

  async quote(
    account: Owner,
    q: { chainId: number; fromSymbol: string; toSymbol: string; fromToken: string; toToken: string; fromDecimals: number; toDecimals: number; amountIn: bigint; poolOut: bigint; expiresMs: number },
    nowMs: number,
  ): Promise<StoredSwap> {
    const { fee, minimumOut } = swapTerms(q.poolOut);
    const [row] = await this.db.query(
      `INSERT INTO swaps (id, merchant_id, mode, chain_id, from_symbol, to_symbol, from_token, to_token, from_decimals, to_decimals, amount_in, pool_out, fee, minimum_out, state, expires_ms, created_ms, updated_ms)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, 'quoted', $15, $16, $16) RETURNING *`,
      [
        randomUUID(), account.merchant.id, account.mode, q.chainId, q.fromSymbol, q.toSymbol, q.fromToken.toLowerCase(), q.toToken.toLowerCase(), q.fromDecimals, q.toDecimals,
        String(q.amountIn), String(q.poolOut), String(fee), String(minimumOut), q.expiresMs, nowMs,
      ],
    );
    return swapOf(row!);
  }

  async swap(account: Owner, id: string): Promise<StoredSwap> {
    const [row] = await this.db.query(`SELECT * FROM swaps WHERE merchant_id = $1 AND mode = $2 AND id::text = $3`, [account.merchant.id, account.mode, id]);
    if (!row) throw new NotFound(`No swap ${id}`);
    return swapOf(row);
  }

  /** Accepts a quote: its amount reserved from the balance (or refused), the swap pending, its event written. */
  async acceptQuote(account: Owner, id: string, coin: { symbol: string; format: (units: bigint) => string }, nowMs: number, view: (s: StoredSwap) => unknown): Promise<StoredSwap> {
    return this.db.transaction(async (tx) => {
      await this.lock(tx, account);
      const [row] = await tx.query(`SELECT * FROM swaps WHERE merchant_id = $1 AND mode = $2 AND id::text = $3 FOR UPDATE`, [account.merchant.id, account.mode, id]);
      if (!row) throw new NotFound(`quote_id: no quote ${id}`, [{ field: 'quote_id', message: 'expected a quote id from POST /api/v1/swaps/quote' }]);
      const quoted = swapOf(row);
      if (quoted.state !== 'quoted') throw new Conflict(`quote_id: quote ${id} was used already (its swap is ${quoted.state})`, [{ field: 'quote_id', message: 'expected a quote not used yet' }]);
      if (quoted.expiresMs <= nowMs) throw new Conflict(`quote_id: quote ${id} expired at ${new Date(quoted.expiresMs).toISOString()}; ask for a new one`, [{ field: 'quote_id', message: 'expected a quote that has not expired' }]);
      await this.reserve(tx, account, { chainId: quoted.chainId, token: quoted.fromToken, ...coin }, quoted.amountIn, { kind: 'swap_reserved', ref: id, memo: `swap ${quoted.fromSymbol} to ${quoted.toSymbol}` }, nowMs);
      const [updated] = await tx.query(`UPDATE swaps SET state = 'pending', updated_ms = $2 WHERE id = $1 RETURNING *`, [id, nowMs]);
      const swap = swapOf(updated!);
      await this.events.add(tx, account, 'SWAP_UPDATED', view(swap), nowMs);
      await tx.query(`SELECT pg_notify('treasury_due', $1)`, [String(swap.chainId)]);
      return swap;
    });
  }

  async pendingSwaps(chainId: number): Promise<StoredSwap[]> {
    return (await this.db.query(`SELECT * FROM swaps WHERE chain_id = $1 AND state = 'pending' ORDER BY created_ms, id`, [chainId])).map(swapOf);
  }

  /**
   * Notes the transaction a swap is sent in, before it is sent: a restart sends the same one
   * again, never a second. Answers what the row holds after: when another instance recorded its
   * transaction first, that one, which is the one to send and follow (see `recordSigned`).
   */
  swapSigned(id: string, signed: SignedTx, nowMs: number): Promise<RecordedTx> {
    return this.recordSigned('swaps', id, signed, nowMs);
  }

  /**
   * A swap done: what the pool gave, less the operator's fee, into the merchant's balance of
   * the coin bought; or failed: the reserved amount back. One entry, the state and its event, at once.
   */
  async finishSwap(id: string, result: { out: bigint } | { failure: string }, nowMs: number, view: (s: StoredSwap) => unknown): Promise<StoredSwap> {
    return this.db.transaction(async (tx) => {
      const [row] = await tx.query(`SELECT * FROM swaps WHERE id = $1 FOR UPDATE`, [id]);
      const swap = swapOf(row!);
      if (swap.state !== 'pending') return swap;
      const owner = ownerOf(swap.merchantId, swap.mode);
      const available = merchantAccount(swap.merchantId, swap.mode, 'available');
      const reserved = merchantAccount(swap.merchantId, swap.mode, 'reserved');
      let updated: Row;
      if ('out' in result) {
        const { fee } = swapTerms(result.out);
        await this.post(
          tx,
          { kind: 'swap_completed', ref: id, owner, memo: `swap ${swap.fromSymbol} to ${swap.toSymbol} in ${swap.txHash}` },
          [
            ...move(reserved, EXTERNAL.pool, swap.chainId, swap.fromToken, swap.amountIn),
            { account: EXTERNAL.pool, chainId: swap.chainId, token: swap.toToken, amount: -result.out },
            { account: available, chainId: swap.chainId, token: swap.toToken, amount: result.out - fee },
            ...(fee > 0n ? [{ account: FEES, chainId: swap.chainId, token: swap.toToken, amount: fee }] : []),
          ],
          nowMs,
        );
        [updated] = await tx.query(`UPDATE swaps SET state = 'completed', amount_out = $2, fee = $3, updated_ms = $4 WHERE id = $1 RETURNING *`, [id, String(result.out), String(fee), nowMs]);
      } else {
        await this.post(tx, { kind: 'swap_returned', ref: id, owner, memo: `swap failed: ${result.failure}` }, move(reserved, available, swap.chainId, swap.fromToken, swap.amountIn), nowMs);
        [updated] = await tx.query(`UPDATE swaps SET state = 'failed', failure = $2, updated_ms = $3 WHERE id = $1 RETURNING *`, [id, result.failure, nowMs]);
      }
      const done = swapOf(updated!);
      await this.events.add(tx, owner, 'SWAP_UPDATED', view(done), nowMs);
      return done;
    });
  }

  // ---- withdrawals ---------------------------------------------------------------------------

  /** The merchant's daily withdrawal limit of a coin in a mode, in whole tokens: the operator's for it, else the service's default. */
  async withdrawalLimit(account: Owner, symbol: string, sql: Sql = this.db): Promise<{ daily: string; set: boolean }> {
    const [row] = await sql.query(`SELECT daily FROM withdrawal_limits WHERE merchant_id = $1 AND mode = $2 AND coin = $3`, [account.merchant.id, account.mode, symbol]);
    return row ? { daily: row.daily as string, set: true } : { daily: this.defaultDailyLimit, set: false };
  }

  /** Sets (or, with null, clears back to the default) a merchant's daily withdrawal limit of a coin; false for an unknown merchant. */
  async setWithdrawalLimit(account: Owner, symbol: string, daily: string | null, nowMs: number): Promise<boolean> {
    const [known] = await this.db.query(`SELECT 1 FROM merchants WHERE id::text = $1`, [account.merchant.id]);
    if (!known) return false;
    if (daily === null) await this.db.query(`DELETE FROM withdrawal_limits WHERE merchant_id = $1 AND mode = $2 AND coin = $3`, [account.merchant.id, account.mode, symbol]);
    else {
      await this.db.query(
        `INSERT INTO withdrawal_limits (merchant_id, mode, coin, daily, updated_ms) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (merchant_id, mode, coin) DO UPDATE SET daily = $4, updated_ms = $5`,
        [account.merchant.id, account.mode, symbol, daily, nowMs],
      );
    }
    return true;
  }

  /**
   * A withdrawal to a wallet: refused past the merchant's daily limit of the coin (what was
   * withdrawn in the last 24 hours, failed ones not counted) or past its balance; else its
   * amount reserved and the withdrawal pending. Both checks inside the merchant's lock, so
   * withdrawals at once, on any instance, are counted against one another.
   */
  async withdraw(account: Owner, w: { chainId: number; symbol: string; token: string; decimals: number; address: string; amount: bigint; format: (units: bigint) => string }, nowMs: number, view: (w: StoredWithdrawal) => unknown): Promise<StoredWithdrawal> {
    return this.db.transaction(async (tx) => {
      await this.lock(tx, account);
      const limit = configuredUnits((await this.withdrawalLimit(account, w.symbol, tx)).daily, w.decimals);
      const [recent] = await tx.query(
        `SELECT COALESCE(sum(amount), 0)::text AS s FROM withdrawals WHERE merchant_id = $1 AND mode = $2 AND chain_id = $3 AND token = $4 AND state <> 'failed' AND created_ms > $5`,
        [account.merchant.id, account.mode, w.chainId, w.token.toLowerCase(), nowMs - WITHDRAWAL_WINDOW_MS],
      );
      checkWithdrawalLimit(w.amount, limit, big(recent!.s), w);
      const id = randomUUID();
      await this.reserve(tx, account, { chainId: w.chainId, token: w.token, symbol: w.symbol, format: w.format }, w.amount, { kind: 'withdrawal_reserved', ref: id, memo: `withdrawal to ${w.address}` }, nowMs);
      const [row] = await tx.query(
        `INSERT INTO withdrawals (id, merchant_id, mode, chain_id, symbol, token, decimals, address, amount, state, created_ms, updated_ms) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'pending', $10, $10) RETURNING *`,
        [id, account.merchant.id, account.mode, w.chainId, w.symbol, w.token.toLowerCase(), w.decimals, w.address, String(w.amount), nowMs],
      );
      const withdrawal = withdrawalOf(row!);
      await this.events.add(tx, account, 'WITHDRAWAL_UPDATED', view(withdrawal), nowMs);
      await tx.query(`SELECT pg_notify('treasury_due', $1)`, [String(w.chainId)]);
      return withdrawal;
    });
  }

  async withdrawal(account: Owner, id: string): Promise<StoredWithdrawal> {
    const [row] = await this.db.query(`SELECT * FROM withdrawals WHERE merchant_id = $1 AND mode = $2 AND id::text = $3`, [account.merchant.id, account.mode, id]);
    if (!row) throw new NotFound(`No withdrawal ${id}`);
    return withdrawalOf(row);
  }

  async pendingWithdrawals(chainId: number): Promise<StoredWithdrawal[]> {
    return (await this.db.query(`SELECT * FROM withdrawals WHERE chain_id = $1 AND state = 'pending' ORDER BY created_ms, id`, [chainId])).map(withdrawalOf);
  }

  /** Notes the transaction a withdrawal is sent in, before it is sent; answers the one recorded (see `recordSigned`). */
  withdrawalSigned(id: string, signed: SignedTx, nowMs: number): Promise<RecordedTx> {
    return this.recordSigned('withdrawals', id, signed, nowMs);
  }

  async finishWithdrawal(id: string, result: { sent: true } | { failure: string }, nowMs: number, view: (w: StoredWithdrawal) => unknown): Promise<StoredWithdrawal> {
    return this.db.transaction(async (tx) => {
      const [row] = await tx.query(`SELECT * FROM withdrawals WHERE id = $1 FOR UPDATE`, [id]);
      const w = withdrawalOf(row!);
      if (w.state !== 'pending') return w;
      const owner = ownerOf(w.merchantId, w.mode);
      const reserved = merchantAccount(w.merchantId, w.mode, 'reserved');
      let updated: Row;
      if ('sent' in result) {
        await this.post(tx, { kind: 'withdrawal_sent', ref: id, owner, memo: `to ${w.address} in ${w.txHash}` }, move(reserved, EXTERNAL.wallets, w.chainId, w.token, w.amount), nowMs);
        [updated] = await tx.query(`UPDATE withdrawals SET state = 'completed', updated_ms = $2 WHERE id = $1 RETURNING *`, [id, nowMs]);
      } else {
        await this.post(tx, { kind: 'withdrawal_returned', ref: id, owner, memo: `withdrawal failed: ${result.failure}` }, move(reserved, merchantAccount(w.merchantId, w.mode, 'available'), w.chainId, w.token, w.amount), nowMs);
        [updated] = await tx.query(`UPDATE withdrawals SET state = 'failed', failure = $2, updated_ms = $3 WHERE id = $1 RETURNING *`, [id, result.failure, nowMs]);
      }
      const done = withdrawalOf(updated!);
      await this.events.add(tx, owner, 'WITHDRAWAL_UPDATED', view(done), nowMs);
      return done;
    });
  }

  // ---- the treasury's gas --------------------------------------------------------------------

  /** The native coin a mined treasury transaction cost (reverted ones too): the operator's, paid to the network. Once per transaction. */
  async gasSpent(chainId: number, hash: string, fee: bigint, memo: string, nowMs: number): Promise<boolean> {
    if (fee <= 0n) return false;
    return this.post(this.db, { kind: 'gas', ref: `${chainId}/${hash.toLowerCase()}`, memo }, move(GAS, EXTERNAL.gas, chainId, NATIVE, fee), nowMs);
  }

  /**
   * The treasury's native coin on chain at `block` against the journal's, while none of its
   * transactions is under way: more on chain is the operator's funding (only the operator sends
   * the treasury native coin) and is journaled; less is a difference, answered and never booked.
   */
  async gasFunding(chainId: number, block: bigint, onChain: bigint, nowMs: number): Promise<{ funded: bigint; short: bigint }> {
    const { gas } = await this.held(chainId, NATIVE);
    if (onChain > gas) {
      await this.post(this.db, { kind: 'gas_funded', ref: `${chainId}/${block}`, memo: `native coin sent to the treasury, seen at block ${block}` }, move(EXTERNAL.operator, GAS, chainId, NATIVE, onChain - gas), nowMs);
      return { funded: onChain - gas, short: 0n };
    }
    return { funded: 0n, short: gas - onChain };
  }

  /** Whether any treasury transaction of a chain is signed and not yet counted (swaps, withdrawals, partner transfers). */
  async inFlight(chainId: number): Promise<boolean> {
    const [row] = await this.db.query(
      `SELECT (EXISTS (SELECT 1 FROM swaps WHERE chain_id = $1 AND state = 'pending' AND tx_hash IS NOT NULL)
            OR EXISTS (SELECT 1 FROM withdrawals WHERE chain_id = $1 AND state = 'pending' AND tx_hash IS NOT NULL)
            OR EXISTS (SELECT 1 FROM partner_transfers WHERE chain_id = $1 AND state = 'pending' AND tx_hash IS NOT NULL)) AS busy`,
      [chainId],
    );
    return Boolean(row!.busy);
  }

  // ---- what is owed to the payout partner ------------------------------------------------------

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
    return (await this.db.query(`SELECT * FROM partner_transfers ${chainId === undefined ? '' : 'WHERE chain_id = $1'} ORDER BY created_ms, id`, chainId === undefined ? [] : [chainId])).map(partnerOf);
  }

  /** The last failed transfer's time (a failure waits a minute before the next try). */
  async lastPartnerFailureMs(chainId: number, token: string): Promise<number | null> {
    const [row] = await this.db.query(`SELECT max(updated_ms) AS t FROM partner_transfers WHERE chain_id = $1 AND token = $2 AND state = 'failed'`, [chainId, token.toLowerCase()]);
    return row?.t == null ? null : Number(row.t);
  }

  /**
   * Records a transfer of `amount` to the partner, before anything is signed: at most one
   * pending per coin (a unique index), so a second instance or a retry makes none. Undefined
   * when one is pending already.
   */
  async startPartnerTransfer(chainId: number, token: string, address: string, amount: bigint, nowMs: number): Promise<PartnerTransfer | undefined> {
    const [row] = await this.db.query(
      `INSERT INTO partner_transfers (id, chain_id, token, address, amount, state, created_ms, updated_ms) VALUES ($1, $2, $3, $4, $5, 'pending', $6, $6)
       ON CONFLICT (chain_id, token) WHERE state = 'pending' DO NOTHING RETURNING *`,
      [randomUUID(), chainId, token.toLowerCase(), address, String(amount), nowMs],
    );
    return row && partnerOf(row);
  }

  /** Notes the transaction a partner transfer is sent in, before it is sent; answers the one recorded (see `recordSigned`). */
  partnerSigned(id: string, signed: SignedTx, nowMs: number): Promise<RecordedTx> {
    return this.recordSigned('partner_transfers', id, signed, nowMs);
  }

  /** A partner transfer mined: what was owed moves out to the partner (one entry); failed: nothing moves, it is still owed. */
  async finishPartnerTransfer(id: string, result: { sent: true } | { failure: string }, nowMs: number): Promise<PartnerTransfer> {
    return this.db.transaction(async (tx) => {
      const [row] = await tx.query(`SELECT * FROM partner_transfers WHERE id = $1 FOR UPDATE`, [id]);
      const t = partnerOf(row!);
      if (t.state !== 'pending') return t;
      if ('sent' in result) {
        await this.post(tx, { kind: 'partner_sent', ref: id, memo: `to the payout partner ${t.address} in ${t.txHash}` }, move(PAYOUT_PAYABLE, EXTERNAL.partner, t.chainId, t.token, t.amount), nowMs);
        const [done] = await tx.query(`UPDATE partner_transfers SET state = 'completed', updated_ms = $2 WHERE id = $1 RETURNING *`, [id, nowMs]);
        return partnerOf(done!);
      }
      const [done] = await tx.query(`UPDATE partner_transfers SET state = 'failed', failure = $2, updated_ms = $3 WHERE id = $1 RETURNING *`, [id, result.failure, nowMs]);
      return partnerOf(done!);
    });
  }

  // ---- the treasury's sender -----------------------------------------------------------------

  /**
   * Records the transaction a treasury row (swap, withdrawal, partner transfer) is paid by, once:
   * the first recorded stays, whoever signed later. Answers the row as it is afterwards, read
   * again (a statement of its own, so it sees another instance's write that made this one a
   * no-op): its state, and the transaction to send and follow, which is the caller's own only
   * when `txHash` equals it. Anything else signed for the row must never be sent. A
   * transaction recorded for another row already is not recorded (two withdrawals of one amount
   * to one address signed at one nonce are one transaction: one payment would count for both).
   */
  private async recordSigned(table: TreasuryTable, id: string, signed: SignedTx, nowMs: number): Promise<RecordedTx> {
    await this.db.query(
      `UPDATE ${table} SET tx_hash = $2, raw_tx = $3, tx_nonce = $4, updated_ms = $5 WHERE id = $1 AND state = 'pending' AND tx_hash IS NULL
          AND NOT EXISTS (SELECT 1 FROM swaps WHERE tx_hash = $2) AND NOT EXISTS (SELECT 1 FROM withdrawals WHERE tx_hash = $2)
          AND NOT EXISTS (SELECT 1 FROM partner_transfers WHERE tx_hash = $2)`,
      [id, signed.hash, signed.raw, signed.nonce, nowMs],
    );
    return this.recordedTx(table, id);
  }

  /** A treasury row's state and recorded transaction, as stored now (not as a list read earlier said). */
  async recordedTx(table: TreasuryTable, id: string): Promise<RecordedTx> {
    const [row] = await this.db.query(`SELECT state, tx_hash, raw_tx FROM ${table} WHERE id = $1`, [id]);
    if (!row) throw new NotFound(`No ${table} row ${id}`);
    return { state: row.state as RecordedTx['state'], txHash: (row.tx_hash as string | null) ?? null, rawTx: (row.raw_tx as string | null) ?? null };
  }

  /** The lowest nonce a new treasury transaction of a chain may take: past every one recorded and still under way. */
  async nonceFloor(chainId: number): Promise<number> {
    const [row] = await this.db.query(
      `SELECT COALESCE(max(n) + 1, 0)::text AS floor FROM (
         SELECT tx_nonce AS n FROM swaps WHERE chain_id = $1 AND state = 'pending'
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
       UNION SELECT tx_hash FROM partner_transfers WHERE chain_id = $1 AND tx_nonce = $2`,
      [chainId, nonce],
    );
    return rows.map((r) => r.tx_hash as string);
  }

  /** Takes (or renews) the lease on sending from a chain's treasury; false while another instance holds it. */
  leaseTreasury(chainId: number, holder: string, nowMs: number, leaseMs: number): Promise<boolean> {
    return takeLease(this.db, `treasury/${chainId}`, holder, nowMs, leaseMs);
  }

  releaseTreasury(chainId: number, holder: string): Promise<void> {
    return releaseLease(this.db, `treasury/${chainId}`, holder);
  }
}
