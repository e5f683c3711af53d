// Refunds, each in one transaction under the merchant's balance lock: the payment read
// and locked, the rules checked (refunds/rules.ts: never past what arrived, never to the
// service's own addresses), then on `balance` settlement the amount reserved from the balance and
// handed to the treasury as its send of purpose `refund` and the same id (the treasury's one send
// path: signed, recorded, sent, counted once its block has the network's confirmations, its gas
// journaled; never a withdrawal of the merchant's), counted with withdrawals against
// the daily limit; the refund row and its REFUND_UPDATED event written with it. The refund then
// moves with its send in the transaction that moves the send (sendMoved). The transaction is
// opened here; the SQL is the owners' stores' (RefundTransactions), each handed it.
import { createHash, randomBytes } from 'node:crypto';
import { formatUnits } from '../../contract/money.ts';
import type { Account } from '../domain/account.ts';
import { NotFound, WrongMode } from '../domain/errors.ts';
import { reserveFromBalance } from '../balances/use-cases.ts';
import type { JournalStore } from '../balances/journal-store.ts';
import type { SendFollower, WithdrawalStore } from '../balances/withdrawal-store.ts';
import type { AttentionStore } from '../payments/attention-store.ts';
import type { PaymentStore } from '../payments/store.ts';
import { auditedTransaction } from '../storage/audit.ts';
import type { Database, Sql } from '../storage/db.ts';
import type { EventStore } from '../storage/events.ts';
import type { RefundStore } from './store.ts';
import type { WalletRefundStore } from './wallet-store.ts';
import {
  checkWithdrawalLimit,
  configuredUnits,
  LIMIT_DECIMALS,
  merchantAccount,
  move,
  sendFee,
  usdCentsOf,
  WITHDRAWAL_WINDOW_MS,
  type SendTerms,
} from '../balances/ledger-rules.ts';
import {
  checkCancelable,
  checkClaimable,
  checkDestination,
  checkSupportRefund,
  CLAIM_LINK_MS,
  nextState,
  refundAmount,
  type AskedAmount,
  type Sending,
  type StoredRefund,
} from './rules.ts';

export type Owner = Pick<Account, 'merchant' | 'mode'>;

/** A refund asked for, as the route checked it. */
export interface RefundRequest {
  reference: string;
  /** As the request wrote it: decimal text of the coin (parsed with the payment's decimals once it is found), `rest`, or base units. */
  amount: AskedAmount | bigint;
  reason: string;
  /** EIP-55 checksummed; undefined: the customer names it through a claim link. */
  address?: string;
  /** The member's role asking (a support member's refunds are limited), if a member asks. */
  role?: string;
}

/** A claim link's token as the customer holds it, and as the service keeps it (its SHA-256, hex). */
export const claimHashOf = (token: string): string => createHash('sha256').update(token).digest('hex');

/**
 * The owners' stores a refund use case writes, each call in the transaction the use case opens
 * (with its audit row: storage/audit.ts), or in the treasury's when a refund moves with its send:
 * the refunds' rows, the payment given back, the balance's journal (the merchant's lock and the
 * reservation), the treasury's sends (a refund's is its send of purpose `refund`), the payment's
 * case a send-back resolves, and the outbox of events.
 */
export interface RefundTransactions {
  db: Database;
  refunds: Pick<RefundStore, 'refundedFor' | 'insert' | 'lock' | 'claimed' | 'canceled' | 'expired' | 'supportSince' | 'advance'>;
  /** Wallet refunds' transfers: where the watcher looks, and the transaction that paid each (refunds/wallet.ts). */
  wallet: Pick<WalletRefundStore, 'watched' | 'scanned' | 'used' | 'paid' | 'confirmed' | 'unpaid'>;
  payments: Pick<PaymentStore, 'refundable' | 'inOtherMode' | 'isDepositAddress'>;
  journal: Pick<JournalStore, 'lock' | 'catchUp' | 'available' | 'holdOn' | 'post' | 'reservedBy'>;
  withdrawals: Pick<WithdrawalStore, 'withdrawalLimit' | 'spentSince' | 'insert' | 'cancelUnsigned' | 'treasuryDue'>;
  attention: Pick<AttentionStore, 'lock' | 'inOtherMode' | 'open' | 'reopen' | 'outsidePayment' | 'resolveTransfers' | 'resolvePayment'>;
  events: Pick<EventStore, 'add'>;
}

/** What the route knows outside the transaction: the service's own configured addresses, and one coin's worth in US dollars. */
export interface RefundContext {
  /** What the address is of the service's own configured ones (a treasury, the gas wallet, the fee address), or undefined. */
  ownAddress(address: string): string | undefined;
  usdPerCoin(symbol: string): Promise<bigint>;
  /** The merchant's limit on its support members' refunds a day, in US cents. */
  supportLimitCents?: bigint;
  /** The treasury's terms for sending a token of a chain (its minimum and network fee); undefined: none (the sandbox's coins). */
  sendTerms?(chainId: number, token: string): SendTerms | undefined;
}

/**
 * The network fee of a refund the treasury sends: the one rule of every send, its
 * minimum (400 naming `field` below it) and its fee, charged to the merchant beside the amount;
 * the customer receives the amount whole.
 */
export const refundFee = (
  context: Pick<RefundContext, 'sendTerms'>,
  coin: { chainId: number; token: string; symbol: string; format: (u: bigint) => string },
  amount: bigint,
  field: string,
  what = 'refund',
): bigint => sendFee(amount, context.sendTerms?.(coin.chainId, coin.token), coin, field, `${what} on chain ${coin.chainId}`);

/**
 * A refund asked for: the payment found (404; 409 `wrong_mode` when it is the other mode's), the
 * address checked, the amount checked against what arrived less what is refunded already, then
 * on balance settlement reserved from the balance (409 past it, or past the daily limit counted
 * with withdrawals) and handed to the treasury. Wallet settlement: the refund only (ready, or waiting for
 * its address): the merchant's wallet sends it, the service follows it on chain (refunds/wallet.ts).
 */
export async function requestRefund(
  store: RefundTransactions,
  owner: Owner,
  request: RefundRequest,
  context: RefundContext,
  nowMs: number,
  view: (r: StoredRefund) => unknown,
): Promise<{ refund: StoredRefund; claimToken?: string }> {
  const id = crypto.randomUUID();
  const claimToken = request.address ? undefined : randomBytes(32).toString('base64url');
  const refund = await auditedTransaction(store.db, async (tx) => {
    await store.journal.lock(tx, owner);
    const payment = await store.payments.refundable(tx, owner, request.reference);
    if (!payment) {
      if (await store.payments.inOtherMode(tx, owner, request.reference)) {
        const other = owner.mode === 'test' ? 'live' : 'test';
        throw new WrongMode(`reference: payment ${request.reference} is a ${other} payment; a ${owner.mode} key refunds only ${owner.mode} money`, [
          { field: 'reference', message: `expected a ${owner.mode} payment (use your ${other} key for a ${other} one)` },
        ]);
      }
      throw new NotFound(`reference: no payment ${request.reference}`, [{ field: 'reference', message: 'expected a reference of one of your payments' }]);
    }
    if (request.address)
      checkDestination({ own: context.ownAddress(request.address), isDepositAddress: await store.payments.isDepositAddress(tx, request.address) });
    const amount = refundAmount(payment, await store.refunds.refundedFor(tx, payment.id), request.amount);
    const coin = {
      chainId: payment.chainId,
      token: payment.token,
      symbol: payment.coin,
      decimals: payment.decimals,
      format: (u: bigint) => formatUnits(u, payment.decimals),
    };
    const usdCents = usdCentsOf(amount, payment.decimals, await context.usdPerCoin(payment.coin));
    const since = nowMs - WITHDRAWAL_WINDOW_MS;
    checkSupportRefund(
      request.role,
      { hasAddress: Boolean(request.address), usdCents },
      { cents: context.supportLimitCents ?? 0n, spentCents: request.role === 'support' ? await store.refunds.supportSince(tx, owner, since) : 0n },
    );
    const claim = claimToken ? { hash: claimHashOf(claimToken), expiresMs: nowMs + CLAIM_LINK_MS } : undefined;
    const row = {
      id,
      paymentId: payment.id,
      reference: payment.reference,
      coin: payment.coin,
      chainId: payment.chainId,
      token: payment.token,
      decimals: payment.decimals,
      address: request.address ?? null,
      amount,
      reason: request.reason,
      usdCents,
      claim,
      role: request.role,
    };
    // Wallet settlement (refunds/wallet.ts): the merchant's own wallet sends it; nothing leaves
    // the balance, so nothing is reserved, journaled or counted toward the withdrawal limit.
    if (payment.settlement !== 'balance') {
      const made = await store.refunds.insert(tx, owner, { ...row, settlement: 'wallet' }, nowMs);
      await store.events.add(tx, owner, 'REFUND_UPDATED', view(made), nowMs);
      return made;
    }
    const limit = configuredUnits((await store.withdrawals.withdrawalLimit(owner, tx)).daily, LIMIT_DECIMALS);
    // Counted once, when asked for: spentSince counts a refund by its own row from then on, claimed or not.
    checkWithdrawalLimit(usdCents, limit, await store.withdrawals.spentSince(tx, owner, since), { symbol: coin.symbol, text: coin.format(amount) });
    // The customer receives the amount whole; the network's fee is the merchant's, reserved beside it.
    const networkFee = refundFee(context, coin, amount, typeof request.amount === 'object' && 'baseUnits' in request.amount ? 'amount_base_units' : 'amount');
    await reserveFromBalance(store.journal, tx, nowMs, owner, coin, amount + networkFee, {
      kind: 'withdrawal_reserved',
      ref: id,
      memo: `refund of payment ${payment.reference} ${request.address ? `to ${request.address}` : 'to the address its customer claims'}${feeMemo(networkFee, coin)}`,
    });
    // A refund with its address goes to the treasury now; one without waits for the customer's
    // claim (claimRefund), its amount and fee reserved meanwhile.
    if (request.address)
      await store.withdrawals.insert(tx, owner, id, { ...coin, address: request.address, amount, networkFee, usdPerCoin: 0n }, usdCents, nowMs, 'refund');
    const made = await store.refunds.insert(tx, owner, { ...row, settlement: 'balance' }, nowMs);
    await store.events.add(tx, owner, 'REFUND_UPDATED', view(made), nowMs);
    if (request.address) await store.withdrawals.treasuryDue(tx, payment.chainId);
    return made;
  });
  return { refund, claimToken };
}

/**
 * The customer names the address of a refund waiting for it, by the claim link's token alone
 * (the token is the only key: nothing else of the request picks the refund): once, before it
 * expires, never to the service's treasury or a deposit address. The refund's withdrawal goes to
 * the treasury (ready), its event written. Undefined token: 404.
 */
export async function claimRefund(
  store: RefundTransactions,
  found: StoredRefund | undefined,
  address: string,
  context: Pick<RefundContext, 'ownAddress' | 'sendTerms'>,
  nowMs: number,
  view: (r: StoredRefund) => unknown,
): Promise<StoredRefund> {
  if (!found)
    throw new NotFound('token: no refund has this link: check it was copied whole', [{ field: 'token', message: 'expected the token of a refund link' }]);
  const owner = ownerOf(found);
  return auditedTransaction(store.db, async (tx) => {
    await store.journal.lock(tx, owner);
    const refund = (await store.refunds.lock(tx, found.id))!;
    checkClaimable(refund, nowMs);
    checkDestination({ own: context.ownAddress(address), isDepositAddress: await store.payments.isDepositAddress(tx, address) });
    const coin = {
      chainId: refund.chainId,
      token: refund.token,
      symbol: refund.coin,
      decimals: refund.decimals,
      format: (u: bigint) => formatUnits(u, refund.decimals),
    };
    // On wallet settlement the merchant's wallet sends it (refunds/wallet.ts): no treasury withdrawal.
    const treasurySends = refund.settlement === 'balance';
    // Its network fee is what was reserved for it beyond the amount, when it was asked for.
    if (treasurySends)
      await store.withdrawals.insert(
        tx,
        owner,
        refund.id,
        { ...coin, address, amount: refund.amount, networkFee: (await reservedOf(store, tx, refund)) - refund.amount, usdPerCoin: 0n },
        refund.usdCents,
        nowMs,
        'refund',
      );
    const ready = await store.refunds.claimed(tx, refund.id, address, nowMs);
    await store.events.add(tx, owner, 'REFUND_UPDATED', view(ready), nowMs);
    if (treasurySends) await store.withdrawals.treasuryDue(tx, refund.chainId);
    return ready;
  });
}

const ownerOf = (r: Pick<StoredRefund, 'merchantId' | 'mode'>): Owner => ({
  merchant: { id: r.merchantId } as Owner['merchant'],
  mode: r.mode as Owner['mode'],
});

/** What a balance refund's reservation holds (its amount and network fee); a reservation older than fees, its amount. */
const reservedOf = async (store: RefundTransactions, tx: Sql, refund: StoredRefund): Promise<bigint> => {
  const reserved = await store.journal.reservedBy(tx, 'withdrawal_reserved', refund.id);
  return reserved >= refund.amount ? reserved : refund.amount;
};

/** A reservation's memo, naming the network fee reserved beside the amount, if any. */
export const feeMemo = (fee: bigint, coin: { symbol: string; format: (u: bigint) => string }) =>
  fee > 0n ? ` (network fee ${coin.format(fee)} ${coin.symbol})` : '';

/** Its reservation back in the balance (its amount and network fee): one balanced entry, reserved → available. */
const returned = async (store: RefundTransactions, tx: Sql, nowMs: number, refund: StoredRefund, memo: string) =>
  store.journal.post(
    tx,
    { kind: 'withdrawal_returned', ref: refund.id, owner: ownerOf(refund), memo },
    move(
      merchantAccount(refund.merchantId, refund.mode, 'reserved'),
      merchantAccount(refund.merchantId, refund.mode, 'available'),
      refund.chainId,
      refund.token,
      await reservedOf(store, tx, refund),
    ),
    nowMs,
  );

/**
 * The merchant cancels a refund not sent yet: waiting for its address, or ready with no
 * transaction recorded for it (the treasury records one only on a withdrawal still pending
 * without one, so under the withdrawal's row lock exactly one of cancel and send wins). The
 * reservation returned in one balanced entry, the refund canceled, its event written, and the
 * payment's case it resolved (a send-back) open again, in the same transaction.
 */
export function cancelRefund(store: RefundTransactions, owner: Owner, id: string, nowMs: number, view: (r: StoredRefund) => unknown): Promise<StoredRefund> {
  return auditedTransaction(store.db, async (tx) => {
    await store.journal.lock(tx, owner);
    const refund = await store.refunds.lock(tx, id);
    if (!refund || refund.merchantId !== owner.merchant.id || refund.mode !== owner.mode) throw new NotFound(`No refund ${id}`);
    // A wallet refund is the merchant's to send: cancelable while no transfer is seen for it, nothing reserved to return.
    const wallet = refund.settlement === 'wallet';
    // The treasury records a transaction only on a pending send without one (recordSigned): under
    // the send's row lock, either it recorded one first (too late to cancel) or it never will.
    checkCancelable(refund, refund.state === 'ready' && !wallet && !(await store.withdrawals.cancelUnsigned(tx, refund.id, nowMs)));
    if (!wallet) await returned(store, tx, nowMs, refund, `refund of payment ${refund.reference} canceled`);
    const done = await store.refunds.canceled(tx, refund.id, 'canceled by the merchant', nowMs);
    await store.attention.reopen(tx, done);
    await store.events.add(tx, owner, 'REFUND_UPDATED', view(done), nowMs);
    return done;
  });
}

/**
 * A refund moves with its send (refunds/rules.ts's nextState), inside the transaction that moves
 * the send (the treasury recording its transaction, or counting it completed or failed: its
 * journal entry in the same transaction), and is told: its REFUND_UPDATED event, and a failed
 * send-back's case open again (its money is back in the balance, so the case is owed again;
 * once: only while the case is still resolved by that refund). No job copies one into the
 * other. Undefined: the refund stays (canceled, or the send moved nowhere new for it).
 */
export async function sendMoved(
  store: RefundTransactions,
  tx: Sql,
  nowMs: number,
  sending: Sending & { id: string },
  view: (r: StoredRefund) => unknown,
): Promise<StoredRefund | undefined> {
  const refund = await store.refunds.lock(tx, sending.id);
  const to = refund && nextState(refund, sending);
  if (!refund || !to) return undefined;
  const moved = await store.refunds.advance(tx, refund.id, to, nowMs);
  if (moved.state === 'failed') await store.attention.reopen(tx, moved);
  await store.events.add(tx, ownerOf(refund), 'REFUND_UPDATED', view(moved), nowMs);
  return moved;
}

/**
 * Cancels the refunds whose claim link expired unclaimed, each with its REFUND_UPDATED event in
 * the same transaction: the reservation back in the balance, and a send-back's case open again
 * (once). Safe on any number of instances: each refund is locked, and moves once.
 */
export function expireClaimLinks(store: RefundTransactions, nowMs: number, view: (r: StoredRefund) => unknown): Promise<StoredRefund[]> {
  return auditedTransaction(store.db, async (tx) => {
    const done: StoredRefund[] = [];
    for (const refund of await store.refunds.expired(tx, nowMs, 50)) {
      if (refund.settlement === 'balance') await returned(store, tx, nowMs, refund, `refund of payment ${refund.reference}: its claim link expired unclaimed`);
      const gone = await store.refunds.canceled(tx, refund.id, 'the claim link expired unclaimed', nowMs);
      await store.attention.reopen(tx, gone);
      await store.events.add(tx, ownerOf(refund), 'REFUND_UPDATED', view(gone), nowMs);
      done.push(gone);
    }
    return done;
  });
}

/**
 * The refunds as the treasury's sends of purpose `refund` tell them (service/app.ts registers it
 * with the withdrawals' store): each refund moves with its send, and is told, in the transaction
 * that moves the send. Its row is locked before the send's, as a cancel takes them.
 */
export const refundFollower = (store: RefundTransactions, view: (r: StoredRefund) => unknown): SendFollower => ({
  lock: async (tx, id) => void (await store.refunds.lock(tx, id)),
  moved: async (tx, send, nowMs) => void (await sendMoved(store, tx, nowMs, send, view)),
});
