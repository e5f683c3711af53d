// The use cases that spend or settle a merchant's balance (swaps and withdrawals), each in one
// transaction: take the merchant's lock, read, check the rules (balances/ledger-rules.ts), write the
// journal entry and the row, write the event. Storage is behind the BalanceWrites port (SQL in
// storage/balance-writes.ts and the stores it binds), so the rule reads top to bottom here.
import { formatUnits } from '../../contract/money.ts';
import type { Account } from '../domain/account.ts';
import { NotFound, TreasuryHeld } from '../domain/errors.ts';
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
  type Posting,
  type StoredSwap,
  type StoredWithdrawal,
} from './ledger-rules.ts';

export type Owner = Pick<Account, 'merchant' | 'mode'>;
/** A coin as the balance rules name it: where it is, and how its amounts read. */
export interface BalanceCoin {
  chainId: number;
  token: string;
  symbol: string;
  format: (units: bigint) => string;
}
/** A withdrawal asked for: the coin, where to, how much (base units). */
export interface WithdrawalRequest {
  chainId: number;
  symbol: string;
  token: string;
  decimals: number;
  address: string;
  amount: bigint;
  /** The network's fee charged to the merchant beside `amount` (its token's `withdrawalFee`), kept by the operator; 0: none. */
  networkFee: bigint;
  format: (units: bigint) => string;
  /** What one of the coin is worth in US dollars now (units at RATE_DECIMALS), to count it against the daily limit. */
  usdPerCoin: bigint;
}

/** What the balance use cases need of storage, inside one transaction (at one time, `nowMs`). */
export interface BalanceWrites {
  /** The merchant's balance lock, until the transaction ends: whatever spends its balance takes it first. */
  lock(owner: Owner): Promise<void>;
  /** Journals money that became the merchant's balance and is not journaled yet. */
  catchUp(owner: Owner): Promise<void>;
  /** The merchant's available balance of a coin. */
  available(owner: Owner, chainId: number, token: string): Promise<bigint>;
  /** The operator's hold on a chain's money movements, if one is active. */
  held(chainId: number): Promise<{ reason: string; sinceMs: number } | undefined>;
  /** Writes one balanced entry; false when one of its (kind, ref) exists already. */
  post(entry: { kind: EntryKind; ref: string; owner?: Owner; memo: string }, postings: Posting[]): Promise<boolean>;
  /** Writes the merchant's event, delivered once the transaction commits. */
  event(owner: Owner, type: 'SWAP_UPDATED' | 'WITHDRAWAL_UPDATED', data: unknown): Promise<void>;
  /** Wakes the chain's treasury sender once the transaction commits. */
  treasuryDue(chainId: number): Promise<void>;
  swaps: {
    /** A swap locked until the transaction ends (the merchant's own, where `owner` is given). */
    lock(id: string, owner?: Owner): Promise<StoredSwap | undefined>;
    pending(id: string): Promise<StoredSwap>;
    /** Completed, counted in `block` (looked at again until that block is final). */
    completed(id: string, out: bigint, fee: bigint, block?: { number: bigint; hash: string }): Promise<StoredSwap>;
    failed(id: string, failure: string): Promise<StoredSwap>;
    /** Pending again, to be sent again at its recorded transaction (its approval first where `approveRound` > 0). */
    reopened(id: string, approveRound: number): Promise<StoredSwap>;
    /** How many times the swap's counting was undone (its `swap_unsent` entries). */
    unsentTimes(id: string): Promise<number>;
  };
  withdrawals: {
    /** The merchant's daily withdrawal limit in the mode, US dollars as decimal text. */
    limit(owner: Owner): Promise<string>;
    /** What left the merchant's balance in the mode since `sinceMs`, in US cents as valued when it left: withdrawals and bank payouts of every coin and chain, failed ones not counted. */
    spentSince(owner: Owner, sinceMs: number): Promise<bigint>;
    insert(owner: Owner, id: string, w: WithdrawalRequest, usdCents: bigint): Promise<StoredWithdrawal>;
    lock(id: string): Promise<StoredWithdrawal | undefined>;
    /** Completed, counted in `block` (looked at again until that block is final). */
    completed(id: string, block?: { number: bigint; hash: string }): Promise<StoredWithdrawal>;
    failed(id: string, failure: string): Promise<StoredWithdrawal>;
    /** Pending again, to be sent again at its recorded transaction (a reorganisation took it off the chain). */
    reopened(id: string): Promise<StoredWithdrawal>;
    /** How many times the send's counting was undone (its `withdrawal_unsent` entries). */
    unsentTimes(id: string): Promise<number>;
    /** Another feature's send moved (a refund's): that feature told, in this transaction. */
    followed(send: StoredWithdrawal): Promise<void>;
  };
}

export interface BalanceTransactions {
  inTransaction<T>(nowMs: number, work: (writes: BalanceWrites) => Promise<T>): Promise<T>;
}

const ownerOf = (merchantId: string, mode: string): Owner => ({ merchant: { id: merchantId } as Account['merchant'], mode: mode as Account['mode'] });

/**
 * Takes `amount` from the merchant's available balance into reserved, or refuses naming what
 * there is; refused too while the operator holds the chain's money movements (its treasury holds
 * less than the journal owes, or counted money left the chain). Call inside the merchant's lock.
 */
export async function reserveFromBalance(
  w: Pick<BalanceWrites, 'catchUp' | 'available' | 'post' | 'held'>,
  owner: Owner,
  coin: BalanceCoin,
  amount: bigint,
  entry: { kind: EntryKind; ref: string; memo: string },
  field = 'amount',
): Promise<void> {
  const hold = await w.held(coin.chainId);
  if (hold) {
    throw new TreasuryHeld(
      `Money movements on chain ${coin.chainId} are held by the operator since ${new Date(hold.sinceMs).toISOString()} (${hold.reason === 'deep_reorganisation' ? 'a reorganisation took counted money off the chain' : 'the treasury holds less than the balances it owes'}); nothing was moved: try again once the operator has resolved it`,
    );
  }
  await w.catchUp(owner);
  checkBalance(amount, await w.available(owner, coin.chainId, coin.token), coin, field);
  await w.post(
    { ...entry, owner },
    move(
      merchantAccount(owner.merchant.id, owner.mode, 'available'),
      merchantAccount(owner.merchant.id, owner.mode, 'reserved'),
      coin.chainId,
      coin.token,
      amount,
    ),
  );
}

/** Accepts a quote: its amount reserved from the balance (or refused), the swap pending, its event written. */
export function acceptQuote(store: BalanceTransactions, owner: Owner, id: string, nowMs: number, view: (s: StoredSwap) => unknown): Promise<StoredSwap> {
  return store.inTransaction(nowMs, async (w) => {
    await w.lock(owner);
    const quoted = await w.swaps.lock(id, owner);
    if (!quoted) throw new NotFound(`quote_id: no quote ${id}`, [{ field: 'quote_id', message: 'expected a quote id from POST /api/v1/swaps/quote' }]);
    checkQuoteUsable(quoted, nowMs);
    await reserveFromBalance(
      w,
      owner,
      { chainId: quoted.chainId, token: quoted.fromToken, symbol: quoted.fromSymbol, format: (u) => formatUnits(u, quoted.fromDecimals) },
      quoted.amountIn,
      { kind: 'swap_reserved', ref: quoted.id, memo: `swap ${quoted.fromSymbol} to ${quoted.toSymbol}` },
    );
    const swap = await w.swaps.pending(quoted.id);
    await w.event(owner, 'SWAP_UPDATED', view(swap));
    await w.treasuryDue(swap.chainId);
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
  return store.inTransaction(nowMs, async (w) => {
    const swap = (await w.swaps.lock(id))!;
    if (swap.state !== 'pending') return swap;
    const owner = ownerOf(swap.merchantId, swap.mode);
    const { fee, postings } = swapOutcome(swap, result);
    // Counted again after a reorganisation undid it: an entry of its own beside the one undone.
    const ref = sentRef(id, await w.swaps.unsentTimes(id));
    const done =
      'out' in result
        ? (await w.post({ kind: 'swap_completed', ref, owner, memo: `swap ${swap.fromSymbol} to ${swap.toSymbol} in ${swap.txHash}` }, postings),
          await w.swaps.completed(id, result.out, fee, result.block))
        : (await w.post({ kind: 'swap_returned', ref: id, owner, memo: `swap failed: ${result.failure}` }, postings), await w.swaps.failed(id, result.failure));
    await w.event(owner, 'SWAP_UPDATED', view(done));
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
  return store.inTransaction(nowMs, async (w) => {
    const swap = await w.swaps.lock(id);
    if (swap?.state !== 'completed' || swap.txHash !== txHash || swap.amountOut === null) return undefined;
    const owner = ownerOf(swap.merchantId, swap.mode);
    const why = 'resend' in result ? 'its transaction is sent again' : result.failure;
    await w.post(
      {
        kind: 'swap_unsent',
        ref: sentRef(id, await w.swaps.unsentTimes(id)),
        owner,
        memo: `swap ${swap.fromSymbol} to ${swap.toSymbol} in ${txHash} left the chain in a reorganisation deeper than the confirmations: ${why}`,
      },
      swapOutcome(swap, { out: swap.amountOut }).postings.map((p) => ({ ...p, amount: -p.amount })),
    );
    let done: StoredSwap;
    if ('resend' in result) done = await w.swaps.reopened(id, result.approveRound);
    else {
      await w.post({ kind: 'swap_returned', ref: id, owner, memo: `swap failed: ${result.failure}` }, swapOutcome(swap, result).postings);
      done = await w.swaps.failed(id, result.failure);
    }
    await w.event(owner, 'SWAP_UPDATED', view(done));
    await w.treasuryDue(done.chainId);
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
  return store.inTransaction(nowMs, async (w) => {
    await w.lock(owner);
    const usdCents = usdCentsOf(request.amount, request.decimals, request.usdPerCoin);
    const limit = configuredUnits(await w.withdrawals.limit(owner), LIMIT_DECIMALS);
    checkWithdrawalLimit(usdCents, limit, await w.withdrawals.spentSince(owner, nowMs - WITHDRAWAL_WINDOW_MS), {
      symbol: request.symbol,
      text: request.format(request.amount),
    });
    // The amount and the network's fee are reserved together: the balance must cover both.
    await reserveFromBalance(w, owner, request, request.amount + request.networkFee, {
      kind: 'withdrawal_reserved',
      ref: newId,
      memo: `withdrawal to ${request.address}${request.networkFee > 0n ? ` (network fee ${request.format(request.networkFee)} ${request.symbol})` : ''}`,
    });
    const withdrawal = await w.withdrawals.insert(owner, newId, request, usdCents);
    await w.event(owner, 'WITHDRAWAL_UPDATED', view(withdrawal));
    await w.treasuryDue(request.chainId);
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
  return store.inTransaction(nowMs, async (w) => {
    const withdrawal = (await w.withdrawals.lock(id))!;
    if (withdrawal.state !== 'pending') return withdrawal;
    const owner = ownerOf(withdrawal.merchantId, withdrawal.mode);
    const reserved = merchantAccount(withdrawal.merchantId, withdrawal.mode, 'reserved');
    let done: StoredWithdrawal;
    if ('sent' in result) {
      // Counted again after a reorganisation undid it: an entry of its own beside the one undone.
      const ref = sentRef(id, await w.withdrawals.unsentTimes(id));
      await w.post({ kind: 'withdrawal_sent', ref, owner, memo: `to ${withdrawal.address} in ${withdrawal.txHash}` }, withdrawalSent(withdrawal, reserved));
      done = await w.withdrawals.completed(id, result.block);
    } else {
      await w.post(
        { kind: 'withdrawal_returned', ref: id, owner, memo: `withdrawal failed: ${result.failure}` },
        move(
          reserved,
          merchantAccount(withdrawal.merchantId, withdrawal.mode, 'available'),
          withdrawal.chainId,
          withdrawal.token,
          withdrawal.amount + withdrawal.networkFee,
        ),
      );
      done = await w.withdrawals.failed(id, result.failure);
    }
    if (done.purpose === 'withdrawal') await w.event(owner, 'WITHDRAWAL_UPDATED', view(done));
    else await w.withdrawals.followed(done);
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
  return store.inTransaction(nowMs, async (w) => {
    const sent = await w.withdrawals.lock(id);
    if (sent?.state !== 'completed' || sent.txHash !== txHash) return undefined;
    const owner = ownerOf(sent.merchantId, sent.mode);
    const reserved = merchantAccount(sent.merchantId, sent.mode, 'reserved');
    const why = 'resend' in result ? 'its transaction is sent again' : result.failure;
    await w.post(
      {
        kind: 'withdrawal_unsent',
        ref: sentRef(id, await w.withdrawals.unsentTimes(id)),
        owner,
        memo: `${txHash} to ${sent.address} left the chain in a reorganisation deeper than the confirmations: ${why}`,
      },
      withdrawalUnsent(sent, reserved),
    );
    let done: StoredWithdrawal;
    if ('resend' in result) done = await w.withdrawals.reopened(id);
    else {
      await w.post(
        { kind: 'withdrawal_returned', ref: id, owner, memo: `withdrawal failed: ${result.failure}` },
        move(reserved, merchantAccount(sent.merchantId, sent.mode, 'available'), sent.chainId, sent.token, sent.amount + sent.networkFee),
      );
      done = await w.withdrawals.failed(id, result.failure);
    }
    if (done.purpose === 'withdrawal') await w.event(owner, 'WITHDRAWAL_UPDATED', view(done));
    else await w.withdrawals.followed(done);
    await w.treasuryDue(done.chainId);
    return done;
  });
}
