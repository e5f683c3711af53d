// The double-entry journal and the settlement choice: SQL only. Every movement of a merchant's
// money is an entry of postings that sum to zero per coin (checked before it is written),
// written once by its (kind, ref); a balance is a sum of postings. Whatever spends a balance
// takes the merchant's lock first (balance/<merchant>/<mode>), so payouts, swaps and
// withdrawals at once never overdraw it (the rules: balances/use-cases.ts).
import type { Settlement } from '../../contract/balances.ts';
import type { Account } from '../domain/account.ts';
import {
  assertBalanced,
  EXTERNAL,
  FEES,
  GAS,
  GAS_WALLET,
  merchantAccount,
  move,
  NATIVE,
  sponsoredGasAccount,
  type EntryKind,
  type Posting,
  type StatementLine,
} from './ledger-rules.ts';
import { notifyAccountChange } from '../storage/account-cache.ts';
import { feeOf, type FeeBearer } from '../domain/fees.ts';
import type { Database, Sql } from '../storage/db.ts';
import type { TransferViews } from '../chain/transfer-views-store.ts';
import type { DepositViews } from '../payments/deposit-views-store.ts';

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

/**
 * SQL: the ref of the deposit entry a chain transfer (`c`, a row of chain_transfers) is
 * journaled under now: `chain/tx/log`, and `chain/tx/log#n` once it was reversed n times (a deep
 * reorganisation took it away, treasury-hold-store.ts) and its transaction was mined again: the
 * money is the merchant's again, journaled once more beside the reversal. Its n-th
 * reversal carries the same ref as the deposit it reverses.
 */
export const depositRefOf = (c: string) => {
  const base = `${c}.chain_id || '/' || ${c}.tx_hash || '/' || ${c}.log_index`;
  return `(${base} || COALESCE((SELECT '#' || count(*) FROM journal_entries r WHERE r.kind = 'deposit_reversed' AND (r.ref = ${base} OR r.ref LIKE ${base} || '#%') HAVING count(*) > 0), ''))`;
};
/**
 * Money of a balance-settled payment that reached the treasury: the operator's fee (the
 * payment's terms, split as the deposit contract would: domain/fees.ts) to its fee account,
 * the rest to the merchant's available balance.
 */
const depositPostings = (from: string, o: Owner, chainId: number, token: string, amount: bigint, r: Record<string, unknown>): Posting[] => {
  const fee = feeOf(amount, { bps: Number(r.fee_bps), bearer: r.fee_bearer as FeeBearer });
  const merchant = merchantAccount(o.merchant.id, o.mode, 'available');
  if (fee === 0n) return move(from, merchant, chainId, token, amount);
  return [
    { account: from, chainId, token, amount: -amount },
    { account: merchant, chainId, token, amount: amount - fee },
    { account: FEES, chainId, token, amount: fee },
  ];
};
const ownerOf = (merchantId: string, mode: string): Owner => ({ merchant: { id: merchantId } as Account['merchant'], mode: mode as Account['mode'] });

export class JournalStore {
  constructor(
    private readonly db: Database,
    /** Told a merchant's settlement changed, once committed (the account cache). */
    private readonly changed: (merchantId: string) => void,
    /** The chain's transfers and the payments as the catch-up and pending figures join them to the entries: their owners' fragments (service/app.ts). */
    private readonly views: { chain: Pick<TransferViews, 'transfersAs'>; payments: Pick<DepositViews, 'joinDeposit' | 'credits'> },
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
    // Handed the database (the gas entries): one transaction still, never an entry with one posting of two.
    if ('transaction' in tx) return (tx as Database).transaction((inner) => this.post(inner, entry, postings, nowMs));
    const [row] = await tx.query(
      `INSERT INTO journal_entries (kind, ref, merchant_id, mode, memo, created_ms) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (kind, ref) DO NOTHING RETURNING id`,
      [entry.kind, entry.ref, entry.owner?.merchant.id ?? null, entry.owner?.mode ?? null, entry.memo ?? '', nowMs],
    );
    if (!row) return false;
    for (const p of postings) {
      await tx.query('INSERT INTO postings (entry_id, account, chain_id, token, amount) VALUES ($1, $2, $3, $4, $5)', [
        row.id,
        p.account,
        p.chainId,
        p.token.toLowerCase(),
        String(p.amount),
      ]);
    }
    return true;
  }

  /**
   * What one entry (its kind and ref) put into the merchant's `reserved` account: a send's
   * reservation, its amount and its network fee together, so what goes back or out
   * later is what was reserved, whatever the network file says by then. 0 when there is none.
   */
  async reservedBy(sql: Sql, kind: EntryKind, ref: string): Promise<bigint> {
    const [row] = await sql.query(
      `SELECT COALESCE(sum(p.amount), 0)::text AS s FROM journal_entries e JOIN postings p ON p.entry_id = e.id WHERE e.kind = $1 AND e.ref = $2 AND p.account LIKE 'merchant:%:reserved'`,
      [kind, ref],
    );
    return big(row!.s);
  }

  /** An account's balance in one coin: the sum of its postings. */
  async sum(sql: Sql, account: string, chainId: number, token: string): Promise<bigint> {
    const [row] = await sql.query(`SELECT COALESCE(sum(amount), 0)::text AS s FROM postings WHERE account = $1 AND chain_id = $2 AND token = $3`, [
      account,
      chainId,
      token.toLowerCase(),
    ]);
    return big(row!.s);
  }

  /**
   * Journals money that became the merchant's balance and is not journaled yet: deposits of
   * balance-settled payments once a sweep moved them into the treasury and its block has its
   * confirmations (a sweep a reorganisation can still take away is not money held; every transfer swept,
   * late, another token or dust too: it is all in the treasury now, and all the merchant's; of a
   * token with a fee on transfer, what the treasury gained of it, `swept_received`),
   * and, where no chain is configured (the sandbox's simulated coins), credits of such payments.
   * Safe to run anywhere, any number of times: each is written once.
   */
  async catchUp(sql: Sql, nowMs: number, owner?: Owner): Promise<number> {
    const mine = owner ? ` AND p.merchant_id = $1 AND p.mode = $2` : '';
    const params = owner ? [owner.merchant.id, owner.mode] : [];
    const swept = await sql.query(
      `SELECT * FROM (SELECT t.chain_id, t.tx_hash, t.log_index, t.token, COALESCE(t.swept_received, t.amount)::text AS amount, p.merchant_id, p.mode, p.reference, t.swept_hash, p.chain_id AS payment_chain, p.fee_bps, p.fee_bearer,
                t.block_number, ${depositRefOf('t')} AS ref
           FROM ${this.views.chain.transfersAs('t')} ${this.views.payments.joinDeposit('p', 't.payment_id')}
          WHERE p.settlement = 'balance' AND t.swept_hash IS NOT NULL AND t.sweep_final AND t.state <> 'orphaned'${mine}) d
        WHERE NOT EXISTS (SELECT 1 FROM journal_entries e WHERE e.kind = 'deposit' AND e.ref = d.ref)
        ORDER BY d.block_number, d.log_index`,
      params,
    );
    let written = 0;
    for (const r of swept) {
      const o = ownerOf(r.merchant_id as string, r.mode as string);
      const posted = await this.post(
        sql,
        {
          kind: 'deposit',
          ref: r.ref as string,
          owner: o,
          // Sent on another chain than the payment's: the merchant's money, never the payment's, to keep or send back.
          memo:
            (Number(r.payment_chain) === Number(r.chain_id)
              ? `payment ${r.reference}, swept in ${r.swept_hash}`
              : `payment ${r.reference}, swept in ${r.swept_hash}: sent on chain ${r.chain_id}, the payment is on chain ${r.payment_chain}; not counted toward it, the merchant's to resolve`) +
            ((r.ref as string).includes('#') ? ` (its transaction mined again after a deep reorganisation took it away and it was reversed)` : ''),
        },
        depositPostings(EXTERNAL.deposits, o, Number(r.chain_id), r.token as string, big(r.amount), r),
        nowMs,
      );
      if (posted) written++;
    }
    const simulated = await sql.query(
      `SELECT tr.id, tr.chain_id, p.token, tr.amount::text AS amount, p.merchant_id, p.mode, p.reference, p.fee_bps, p.fee_bearer
         FROM ${this.views.payments.credits('tr')} ${this.views.payments.joinDeposit('p', 'tr.payment_id')}
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
        depositPostings(EXTERNAL.sandbox, o, Number(r.chain_id), r.token as string, big(r.amount), r),
        nowMs,
      );
      if (posted) written++;
    }
    return written;
  }

  /** Why money movements on a chain are held now (the operator's hold), or undefined: read inside the spender's transaction. */
  async holdOn(sql: Sql, chainId: number): Promise<{ reason: string; detail: string; sinceMs: number } | undefined> {
    const [row] = await sql.query(`SELECT reason, detail, since_ms FROM treasury_holds WHERE chain_id = $1 AND resolved_ms IS NULL`, [chainId]);
    return row && { reason: row.reason as string, detail: row.detail as string, sinceMs: Number(row.since_ms) };
  }

  /** The merchant's available balance of a coin. */
  available(sql: Sql, account: Owner, chainId: number, token: string): Promise<bigint> {
    return this.sum(sql, merchantAccount(account.merchant.id, account.mode, 'available'), chainId, token);
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
      `SELECT t.chain_id, lower(t.token) AS token, sum(t.amount)::text AS pending FROM ${this.views.chain.transfersAs('t')} ${this.views.payments.joinDeposit('p', 't.payment_id')}
        WHERE p.merchant_id = $1 AND p.mode = $2 AND p.settlement = 'balance' AND NOT t.sweep_final AND t.state IN ('credited', 'late', 'unexpected', 'dust')
          AND NOT EXISTS (SELECT 1 FROM journal_entries e WHERE e.kind = 'deposit' AND e.ref = ${depositRefOf('t')})
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

  /**
   * The statement behind a merchant's available and reserved figures: each posting to them,
   * oldest first, after posting `afterId`, with its entry and the running balance of its
   * account and coin (the last of each is the figure GET /api/v1/balances shows).
   */
  async statement(account: Owner, nowMs: number, afterId = 0, limit = 1_000_000, coin?: { chainId: number; token: string }): Promise<StatementLine[]> {
    await this.db.transaction((tx) => this.catchUp(tx, nowMs, account));
    const available = merchantAccount(account.merchant.id, account.mode, 'available');
    const rows = await this.db.query(
      `SELECT * FROM (
         SELECT p.id, e.id AS entry_id, e.kind, e.ref, e.memo, e.created_ms, p.account, p.chain_id, p.token, p.amount::text AS amount,
                (sum(p.amount) OVER (PARTITION BY p.account, p.chain_id, p.token ORDER BY p.id))::text AS running
           FROM postings p JOIN journal_entries e ON e.id = p.entry_id WHERE p.account IN ($1, $2)${coin ? ' AND p.chain_id = $5 AND p.token = $6' : ''}) s
        WHERE s.id > $3 ORDER BY s.id LIMIT $4`,
      [available, merchantAccount(account.merchant.id, account.mode, 'reserved'), afterId, limit, ...(coin ? [coin.chainId, coin.token] : [])],
    );
    return rows.map((r) => ({
      id: Number(r.id),
      entryId: Number(r.entry_id),
      kind: r.kind as EntryKind,
      ref: r.ref as string,
      memo: r.memo as string,
      createdMs: Number(r.created_ms),
      purpose: r.account === available ? 'available' : 'reserved',
      chainId: Number(r.chain_id),
      token: r.token as string,
      amount: big(r.amount),
      running: big(r.running),
    }));
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
      if (out.at(-1)?.id !== Number(r.id))
        out.push({
          id: Number(r.id),
          kind: r.kind as EntryKind,
          ref: r.ref as string,
          merchantId: (r.merchant_id as string | null) ?? null,
          memo: r.memo as string,
          createdMs: Number(r.created_ms),
          postings: [],
        });
      out.at(-1)!.postings.push({ account: r.account as string, chainId: Number(r.chain_id), token: r.token as string, amount: big(r.amount) });
    }
    return out;
  }

  // ---- the treasury's gas --------------------------------------------------------------------

  /**
   * The native coin a mined treasury transaction cost (reverted ones too): the operator's, paid to
   * the network. Once per transaction and `round`: a send mined again after a reorganisation took
   * it off the chain (round n, `chain/hash#n`) pays its gas again; what the chain gave back of
   * the first is the operator's again, booked as funding (gasFunding).
   */
  async gasSpent(chainId: number, hash: string, fee: bigint, memo: string, nowMs: number, round = 0): Promise<boolean> {
    if (fee <= 0n) return false;
    const ref = `${chainId}/${hash.toLowerCase()}${round > 0 ? `#${round}` : ''}`;
    return this.post(this.db, { kind: 'gas', ref, memo }, move(GAS, EXTERNAL.gas, chainId, NATIVE, fee), nowMs);
  }

  /**
   * The treasury's native coin on chain at `block` against the journal's, while none of its
   * transactions is under way: more on chain is the operator's funding (only the operator sends
   * the treasury native coin) and is journaled; less is a difference, answered and never booked.
   */
  async gasFunding(chainId: number, block: bigint, onChain: bigint, nowMs: number): Promise<{ funded: bigint; short: bigint }> {
    const { gas } = await this.held(chainId, NATIVE);
    if (onChain > gas) {
      await this.post(
        this.db,
        { kind: 'gas_funded', ref: `${chainId}/${block}`, memo: `native coin sent to the treasury, seen at block ${block}` },
        move(EXTERNAL.operator, GAS, chainId, NATIVE, onChain - gas),
        nowMs,
      );
      return { funded: onChain - gas, short: 0n };
    }
    return { funded: 0n, short: gas - onChain };
  }

  // ---- sponsored gas: the relay of signed transfers ----------------------------------

  /**
   * What one relay transaction the gas wallet sent for a merchant's payment cost (a reverted one
   * too: its gas is spent all the same), from the gas wallet to the merchant's sponsored-gas
   * expense on that chain. Once per transaction (ref: chain/tx hash): false when journaled already.
   */
  async sponsoredGas(owner: Owner, chainId: number, hash: string, fee: bigint, memo: string, nowMs: number): Promise<boolean> {
    if (fee <= 0n) return false;
    return this.post(
      this.db,
      { kind: 'sponsored_gas', ref: `${chainId}/${hash.toLowerCase()}`, owner, memo },
      move(GAS_WALLET, sponsoredGasAccount(owner.merchant.id, owner.mode), chainId, NATIVE, fee),
      nowMs,
    );
  }

  /** The sponsored gas journaled on a chain since `sinceMs` (wei), for a merchant or (owner undefined) every one: what the daily caps are held to. */
  async sponsoredGasSince(owner: Owner | undefined, chainId: number, sinceMs: number): Promise<bigint> {
    const [row] = await this.db.query(
      `SELECT COALESCE(sum(p.amount), 0)::text AS s FROM postings p JOIN journal_entries e ON e.id = p.entry_id
        WHERE ($1::text IS NULL OR p.account = $1) AND p.amount > 0 AND p.chain_id = $2 AND p.token = $3 AND e.kind = 'sponsored_gas' AND e.created_ms >= $4`,
      [owner ? sponsoredGasAccount(owner.merchant.id, owner.mode) : null, chainId, NATIVE, sinceMs],
    );
    return big(row!.s);
  }

  /** Which of these transactions on a chain the gas wallet sent as relays (a sponsored_gas entry each), lower case. */
  async relayedAmong(chainId: number, hashes: string[]): Promise<Set<string>> {
    if (hashes.length === 0) return new Set();
    const refs = hashes.map((h) => `${chainId}/${h.toLowerCase()}`);
    const rows = await this.db.query(`SELECT ref FROM journal_entries WHERE kind = 'sponsored_gas' AND ref = ANY($1::text[])`, [refs]);
    return new Set(rows.map((r) => (r.ref as string).slice(String(chainId).length + 1)));
  }
}
