// What other features ask of the payments as their deposits' owners (the chain's watcher, sweeper
// and reconciliation; the balances' journal): reads that take the caller's connection or
// transaction, and SQL fragments for the queries whose point is a join of their own rows with a
// payment's (a sweep's claim, a deposit's holdings, what is journaled). Handed to them as a port
// (ChainStore, JournalStore and TreasuryHoldStore are given it by app.ts), so the tables' names
// are written only in payments/. SQL only.
import type { Sql } from '../storage/db.ts';

/** The payment a deposit address belongs to, as the watcher needs it. */
export interface Watched {
  id: string;
  merchantId: string;
  mode: string;
  reference: string;
  token: string;
  chainId: number;
  address: string;
}

/** A payment's columns another feature's join reads: who it is for, its deposit and coin, where its money goes and on what terms. */
const DEPOSIT_COLUMNS = 'id, merchant_id, mode, reference, address, chain_id, token, settlement, payout, fee_to, fee_bps, fee_bearer';

export const depositViews = {
  /** SQL: the payments as a derived table named `alias` (DEPOSIT_COLUMNS), for another store's FROM (an UPDATE's too). */
  deposits: (alias: string): string => `(SELECT ${DEPOSIT_COLUMNS} FROM payments) ${alias}`,

  /** SQL: joins the payment `alias` whose id is the column `paymentId` (DEPOSIT_COLUMNS). */
  joinDeposit: (alias: string, paymentId: string): string => `JOIN (SELECT ${DEPOSIT_COLUMNS} FROM payments) ${alias} ON ${alias}.id = ${paymentId}`,

  /** SQL: joins the ledger line `alias` (a transfer credited toward a payment: id, payment_id, chain_id, tx_hash, log_index, amount) matching `on`. */
  joinCredit: (alias: string, on: string): string => `JOIN (SELECT id, payment_id, chain_id, tx_hash, log_index, amount FROM transfers) ${alias} ON ${on}`,

  /** SQL: the credited ledger lines as a derived table named `alias` (id, payment_id, chain_id, tx_hash, log_index, amount). */
  credits: (alias: string): string => `(SELECT id, payment_id, chain_id, tx_hash, log_index, amount FROM transfers) ${alias}`,

  /** SQL: wakes the long polls of the payments whose ids the subquery `ids` selects (their paymentKey from realtime/keys.ts, in SQL). */
  notify: (ids: string): string => `SELECT pg_notify('changes', p.merchant_id || '/' || p.mode || '/' || p.reference) FROM payments p WHERE p.id IN (${ids})`,

  /**
   * Deposit addresses of payments on a chain (lower-case hex), up to `limit` of them; with
   * `others`, those of that mode's payments on those chains too (their addresses are this
   * chain's as well: money sent on the wrong chain). One query, whatever their number.
   */
  async depositAddresses(sql: Sql, chainId: number, limit: number, others?: { mode: string; chainIds: number[] }): Promise<string[]> {
    const rows = others?.chainIds.length
      ? await sql.query(`SELECT DISTINCT lower(address) AS address FROM payments WHERE chain_id = $1 OR (chain_id = ANY($3::int[]) AND mode = $4) LIMIT $2`, [
          chainId,
          limit,
          others.chainIds,
          others.mode,
        ])
      : await sql.query(`SELECT lower(address) AS address FROM payments WHERE chain_id = $1 LIMIT $2`, [chainId, limit]);
    return rows.map((r) => r.address as string);
  },

  /** The payments whose deposit addresses these are (lower-case hex). */
  async watched(sql: Sql, addresses: string[]): Promise<Watched[]> {
    if (addresses.length === 0) return [];
    const rows = await sql.query(`SELECT id, merchant_id, mode, reference, token, chain_id, address FROM payments WHERE lower(address) = ANY($1)`, [
      addresses.map((a) => a.toLowerCase()),
    ]);
    return rows.map((r) => ({
      id: String(r.id),
      merchantId: r.merchant_id as string,
      mode: r.mode as string,
      reference: r.reference as string,
      token: r.token as string,
      chainId: Number(r.chain_id),
      address: (r.address as string).toLowerCase(),
    }));
  },
};

export type DepositViews = typeof depositViews;
