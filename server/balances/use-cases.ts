// The use cases that spend or settle a merchant's balance (swaps and withdrawals), each in one
// transaction: take the merchant's lock, read, check the rules (balances/ledger-rules.ts), write the
// journal entry and the row, write the event. The transaction is opened here; the SQL is the owners'
// stores', each handed it, so the rule reads top to bottom here.
import { formatUnits } from '../../contract/money.ts';
import type { Account } from '../domain/account.ts';
import { NotFound, TreasuryHeld } from '../domain/errors.ts';
import { auditedTransaction } from '../storage/audit.ts';
import type { Database, Sql } from '../storage/db.ts';
import type { EventStore } from '../storage/events.ts';
import type { JournalStore } from './journal-store.ts';
import type { SwapStore } from './swap-store.ts';
import type { WithdrawalStore } from './withdrawal-store.ts';
import {
  checkBalance,
  checkQuoteUsable,
  checkWithdrawalLimit,
  configuredUnits,
  LIMIT_DECIMALS,
  merchantAccount,
  move,
  sentRef,
  swapOutcome,
  usdCentsOf,
  WITHDRAWAL_WINDOW_MS,
  withdrawalSent,
  withdrawalUnsent,
  type EntryKind,
  type StoredSwap,
  type StoredWithdrawal,
  type WithdrawalRequest,
} from './ledger-rules.ts';

export type Owner = Pick<Account, 'merchant' | 'mode'>;
/** A coin as the balance rules name it: where it is, and how its amounts read. */
export interface BalanceCoin {
  chainId: number;
  token: string;
  symbol: string;
  format: (units: bigint) => string;
}
/**
 * The owners' stores a balance use case writes, each call in the transaction the use case opens
 * (with its audit row: storage/audit.ts): the journal (the merchant's lock, balances, entries, the
 * operator's holds), the swaps and the treasury's sends, and the outbox of events.
 */
export interface BalanceTransactions {
  db: Database;
  journal: Pick<JournalStore, 'lock' | 'catchUp' | 'available' | 'holdOn' | 'post'>;
  swaps: Pick<SwapStore, 'lock' | 'pending' | 'completed' | 'failed' | 'reopened' | 'unsentTimes'>;
  withdrawals: Pick<
    WithdrawalStore,
    'withdrawalLimit' | 'spentSince' | 'insert' | 'lock' | 'completed' | 'failed' | 'reopened' | 'unsentTimes' | 'followed' | 'treasuryDue'
  >;
  events: Pick<EventStore, 'add'>;
}

const ownerOf = (merchantId: string, mode: string): Owner => ({ merchant: { id: merchantId } as Account['merchant'], mode: mode as Account['mode'] });

/**
 * Takes `amount` from the merchant's available balance into reserved, or refuses naming what
 * there is; refused too while the operator holds the chain's money movements (its treasury holds
 * less than the journal owes, or counted money left the chain). Call inside the merchant's lock.
 */
export async function reserveFromBalance(
  journal: Pick<JournalStore, 'catchUp' | 'available' | 'post' | 'holdOn'>,
  tx: Sql,
  nowMs: number,
  owner: Owner,
  coin: BalanceCoin,
  amount: bigint,
  entry: { kind: EntryKind; ref: string; memo: string },
  field = 'amount',
): Promise<void> {
  const hold = await journal.holdOn(tx, coin.chainId);
  if (hold) {
    throw new TreasuryHeld(
      `Money movements on chain ${coin.chainId} are held by the operator since ${new Date(hold.sinceMs).toISOString()} (${hold.reason === 'deep_reorganisation' ? 'a reorganisation took counted money off the chain' : 'the treasury holds less than the balances it owes'}); nothing was moved: try again once the operator has resolved it`,
    );
  }
  await journal.catchUp(tx, nowMs, owner);
  checkBalance(amount, await journal.available(tx, owner, coin.chainId, coin.token), coin, field);
  await journal.post(
    tx,
    { ...entry, owner },
    move(
      merchantAccount(owner.merchant.id, owner.mode, 'available'),
      merchantAccount(owner.merchant.id, owner.mode, 'reserved'),
      coin.chainId,
      coin.token,
      amount,
    ),
    nowMs,
  );
}

/** Accepts a quote: its amount reserved from the balance (or refused), the swap pending, its event written. */
export function acceptQuote(store: BalanceTransactions, owner: Owner, id: string, nowMs: number, view: (s: StoredSwap) => unknown): Promise<StoredSwap> {
  return auditedTransaction(store.db, async (tx) => {
    await store.journal.lock(tx, owner);
    const quoted = await store.swaps.lock(tx, id, owner);
    if (!quoted) throw new NotFound(`quote_id: no quote ${id}`, [{ field: 'quote_id', message: 'expected a quote id from POST /api/v1/swaps/quote' }]);
    checkQuoteUsable(quoted, nowMs);
    await reserveFromBalance(
      store.journal,
      tx,
      nowMs,
      owner,
      { chainId: quoted.chainId, token: quoted.fromToken, symbol: quoted.fromSymbol, format: (u) => formatUnits(u, quoted.fromDecimals) },
      quoted.amountIn,
      { kind: 'swap_reserved', ref: quoted.id, memo: `swap ${quoted.fromSymbol} to ${quoted.toSymbol}` },
    );
    const swap = await store.swaps.pending(tx, quoted.id, nowMs);
    await store.events.add(tx, owner, 'SWAP_UPDATED', view(swap), nowMs);
    await store.withdrawals.treasuryDue(tx, swap.chainId);
    return swap;
  });
}

/**
 * A swap done: what the pool gave, less the operator's fee, into the merchant's balance of the
 * coin bought; or failed: the reserved amount back. One entry, the state and its event, at once.
 */
export function finishSwap(
  store: BalanceTransactions,
  id: string,
  result: { out: bigint; block?: { number: bigint; hash: string } } | { failure: string },
  nowMs: number,
  view: (s: StoredSwap) => unknown,
): Promise<StoredSwap> {
  return auditedTransaction(store.db, async (tx) => {
    const swap = (await store.swaps.lock(tx, id))!;
    if (swap.state !== 'pending') return swap;
    const owner = ownerOf(swap.merchantId, swap.mode);
    const { fee, postings } = swapOutcome(swap, result);
    // Counted again after a reorganisation undid it: an entry of its own beside the one undone.
    const ref = sentRef(id, await store.swaps.unsentTimes(tx, id));
    const done =
      'out' in result
        ? (await store.journal.post(
            tx,
            { kind: 'swap_completed', ref, owner, memo: `swap ${swap.fromSymbol} to ${swap.toSymbol} in ${swap.txHash}` },
            postings,
            nowMs,
          ),
          await store.swaps.completed(tx, id, result.out, fee, nowMs, result.block ?? null))
        : (await store.journal.post(tx, { kind: 'swap_returned', ref: id, owner, memo: `swap failed: ${result.failure}` }, postings, nowMs),
          await store.swaps.failed(tx, id, result.failure, nowMs));
    await store.events.add(tx, owner, 'SWAP_UPDATED', view(done), nowMs);
    return done;
  });
}

/**
 * A completed swap whose transaction a reorganisation deeper than the confirmations took off the
 * chain, paid by `txHash` as its row still says (else nothing moves: another look decided it
 * first). Its `swap_completed` entry is undone by a balancing `swap_unsent` (the coin sent back in
 * reserved, the coin received and the operator's fee taken back), then either `resend`: pending
 * again, its recorded transaction sent again (its approval first where `approveRound` > 0); or
 * `failure`: it can never be mined, the reserved coin back in the available balance
 * (`swap_returned`). In one transaction, told by the swap's own event (SWAP_UPDATED).
 */
export function undoSwap(
  store: BalanceTransactions,
  id: string,
  txHash: string,
  result: { resend: true; approveRound: number } | { failure: string },
  nowMs: number,
  view: (s: StoredSwap) => unknown,
): Promise<StoredSwap | undefined> {
  return auditedTransaction(store.db, async (tx) => {
    const swap = await store.swaps.lock(tx, id);
    if (swap?.state !== 'completed' || swap.txHash !== txHash || swap.amountOut === null) return undefined;
    const owner = ownerOf(swap.merchantId, swap.mode);
    const why = 'resend' in result ? 'its transaction is sent again' : result.failure;
    await store.journal.post(
      tx,
      {
        kind: 'swap_unsent',
        ref: sentRef(id, await store.swaps.unsentTimes(tx, id)),
        owner,
        memo: `swap ${swap.fromSymbol} to ${swap.toSymbol} in ${txHash} left the chain in a reorganisation deeper than the confirmations: ${why}`,
      },
      swapOutcome(swap, { out: swap.amountOut }).postings.map((p) => ({ ...p, amount: -p.amount })),
      nowMs,
    );
    let done: StoredSwap;
    if ('resend' in result) done = await store.swaps.reopened(tx, id, result.approveRound, nowMs);
    else {
      await store.journal.post(
        tx,
        { kind: 'swap_returned', ref: id, owner, memo: `swap failed: ${result.failure}` },
        swapOutcome(swap, result).postings,
        nowMs,
      );
      done = await store.swaps.failed(tx, id, result.failure, nowMs);
    }
    await store.events.add(tx, owner, 'SWAP_UPDATED', view(done), nowMs);
    await store.withdrawals.treasuryDue(tx, done.chainId);
    return done;
  });
}

/**
 * A withdrawal to a wallet: refused past the merchant's one daily limit (in US dollars: what
 * left its balance in the last 24 hours, withdrawals and bank payouts in every coin on every
 * chain, failed ones not counted, plus this one at the coin's rate) or past its balance; else
 * its amount reserved and the withdrawal pending. Both checks inside the merchant's lock, so
 * withdrawals and payouts at once, on any instance, are counted against one another.
 */
export function withdraw(
  store: BalanceTransactions,
  owner: Owner,
  request: WithdrawalRequest,
  nowMs: number,
  view: (w: StoredWithdrawal) => unknown,
): Promise<StoredWithdrawal> {
  const newId = crypto.randomUUID();
  return auditedTransaction(store.db, async (tx) => {
    await store.journal.lock(tx, owner);
    const usdCents = usdCentsOf(request.amount, request.decimals, request.usdPerCoin);
    const limit = configuredUnits((await store.withdrawals.withdrawalLimit(owner, tx)).daily, LIMIT_DECIMALS);
    checkWithdrawalLimit(usdCents, limit, await store.withdrawals.spentSince(tx, owner, nowMs - WITHDRAWAL_WINDOW_MS), {
      symbol: request.symbol,
      text: request.format(request.amount),
    });
    // The amount and the network's fee are reserved together: the balance must cover both.
    await reserveFromBalance(store.journal, tx, nowMs, owner, request, request.amount + request.networkFee, {
      kind: 'withdrawal_reserved',
      ref: newId,
      memo: `withdrawal to ${request.address}${request.networkFee > 0n ? ` (network fee ${request.format(request.networkFee)} ${request.symbol})` : ''}`,
    });
    const withdrawal = await store.withdrawals.insert(tx, owner, newId, request, usdCents, nowMs);
    await store.events.add(tx, owner, 'WITHDRAWAL_UPDATED', view(withdrawal), nowMs);
    await store.withdrawals.treasuryDue(tx, request.chainId);
    return withdrawal;
  });
}

/**
 * A withdrawal mined: the reserved money leaves to the wallet; failed: it goes back to the
 * balance. One entry, the state and its event, at once. A send of another purpose (a refund's)
 * is not a withdrawal: its feature is told instead, in the same transaction.
 */
export function finishWithdrawal(
  store: BalanceTransactions,
  id: string,
  result: { sent: true; block?: { number: bigint; hash: string } } | { failure: string },
  nowMs: number,
  view: (w: StoredWithdrawal) => unknown,
): Promise<StoredWithdrawal> {
  return auditedTransaction(store.db, async (tx) => {
    const withdrawal = (await store.withdrawals.lock(tx, id))!;
    if (withdrawal.state !== 'pending') return withdrawal;
    const owner = ownerOf(withdrawal.merchantId, withdrawal.mode);
    const reserved = merchantAccount(withdrawal.merchantId, withdrawal.mode, 'reserved');
    let done: StoredWithdrawal;
    if ('sent' in result) {
      // Counted again after a reorganisation undid it: an entry of its own beside the one undone.
      const ref = sentRef(id, await store.withdrawals.unsentTimes(tx, id));
      await store.journal.post(
        tx,
        { kind: 'withdrawal_sent', ref, owner, memo: `to ${withdrawal.address} in ${withdrawal.txHash}` },
        withdrawalSent(withdrawal, reserved),
        nowMs,
      );
      done = await store.withdrawals.completed(tx, id, nowMs, result.block ?? null);
    } else {
      await store.journal.post(
        tx,
        { kind: 'withdrawal_returned', ref: id, owner, memo: `withdrawal failed: ${result.failure}` },
        move(
          reserved,
          merchantAccount(withdrawal.merchantId, withdrawal.mode, 'available'),
          withdrawal.chainId,
          withdrawal.token,
          withdrawal.amount + withdrawal.networkFee,
        ),
        nowMs,
      );
      done = await store.withdrawals.failed(tx, id, result.failure, nowMs);
    }
    if (done.purpose === 'withdrawal') await store.events.add(tx, owner, 'WITHDRAWAL_UPDATED', view(done), nowMs);
    else await store.withdrawals.followed(tx, done, nowMs);
    return done;
  });
}

/**
 * A completed send (a withdrawal, or a refund's) whose transaction a reorganisation deeper than
 * the confirmations took off the chain, paid by `txHash` as its row still says (else nothing
 * moves: another look decided it first). Its `withdrawal_sent` entry is undone by a balancing
 * `withdrawal_unsent` (its money back in reserved), then either `resend`: pending again, its
 * recorded transaction sent again (its nonce is still free); or `failure`: it can never be
 * mined (its nonce taken by another transaction), the reserved money back in the available
 * balance (`withdrawal_returned`). In one transaction, told as the send's own: WITHDRAWAL_UPDATED
 * for a withdrawal, its feature for another's (a refund's REFUND_UPDATED).
 */
export function undoSent(
  store: BalanceTransactions,
  id: string,
  txHash: string,
  result: { resend: true } | { failure: string },
  nowMs: number,
  view: (w: StoredWithdrawal) => unknown,
): Promise<StoredWithdrawal | undefined> {
  return auditedTransaction(store.db, async (tx) => {
    const sent = await store.withdrawals.lock(tx, id);
    if (sent?.state !== 'completed' || sent.txHash !== txHash) return undefined;
    const owner = ownerOf(sent.merchantId, sent.mode);
    const reserved = merchantAccount(sent.merchantId, sent.mode, 'reserved');
    const why = 'resend' in result ? 'its transaction is sent again' : result.failure;
    await store.journal.post(
      tx,
      {
        kind: 'withdrawal_unsent',
        ref: sentRef(id, await store.withdrawals.unsentTimes(tx, id)),
        owner,
        memo: `${txHash} to ${sent.address} left the chain in a reorganisation deeper than the confirmations: ${why}`,
      },
      withdrawalUnsent(sent, reserved),
      nowMs,
    );
    let done: StoredWithdrawal;
    if ('resend' in result) done = await store.withdrawals.reopened(tx, id, nowMs);
    else {
      await store.journal.post(
        tx,
        { kind: 'withdrawal_returned', ref: id, owner, memo: `withdrawal failed: ${result.failure}` },
        move(reserved, merchantAccount(sent.merchantId, sent.mode, 'available'), sent.chainId, sent.token, sent.amount + sent.networkFee),
        nowMs,
      );
      done = await store.withdrawals.failed(tx, id, result.failure, nowMs);
    }
    if (done.purpose === 'withdrawal') await store.events.add(tx, owner, 'WITHDRAWAL_UPDATED', view(done), nowMs);
    else await store.withdrawals.followed(tx, done, nowMs);
    await store.withdrawals.treasuryDue(tx, done.chainId);
    return done;
  });
}
