// Refunds (issue 35), each in one transaction under the merchant's balance lock: the payment read
// and locked, the rules checked (refunds/rules.ts: never past what arrived, never to the
// service's own addresses), then on `balance` settlement the amount reserved from the balance and
// handed to the treasury as a withdrawal of the same id (its one send path: signed, recorded,
// sent, counted once its block has the network's confirmations, its gas journaled), counted with
// withdrawals against the daily limit; the refund row and its REFUND_UPDATED event written with
// it. Storage is behind the RefundWrites port (refunds/store.ts).
import { formatUnits } from '../../contract/money.ts';
import type { Account } from '../domain/account.ts';
import { BalanceSettlementRequired, NotFound, WrongMode } from '../domain/errors.ts';
import { reserveFromBalance, type WithdrawalRequest } from '../balances/use-cases.ts';
import { checkWithdrawalLimit, configuredUnits, LIMIT_DECIMALS, usdCentsOf, WITHDRAWAL_WINDOW_MS, type EntryKind, type Posting } from '../balances/ledger-rules.ts';
import { checkDestination, nextState, refundAmount, type RefundablePayment, type Sending, type StoredRefund } from './rules.ts';

export type Owner = Pick<Account, 'merchant' | 'mode'>;

/** A refund asked for, as the route checked it. */
export interface RefundRequest {
  reference: string;
  amount: bigint | 'rest';
  reason: string;
  /** EIP-55 checksummed. */
  address: string;
}

/** What the refund use cases need of storage, inside one transaction. */
export interface RefundWrites {
  /** The merchant's balance lock (the one withdrawals, swaps and payouts take), until the transaction ends. */
  lock(owner: Owner): Promise<void>;
  /** The owner's payment by reference, locked until the transaction ends. */
  payment(owner: Owner, reference: string): Promise<RefundablePayment | undefined>;
  /** Whether the merchant has a payment of this reference in its other mode. */
  inOtherMode(owner: Owner, reference: string): Promise<boolean>;
  /** What the payment's refunds not failed add up to (base units). */
  refunded(paymentId: string): Promise<bigint>;
  /** Whether the address is a deposit address of any payment of this service. */
  isDepositAddress(address: string): Promise<boolean>;
  insert(owner: Owner, refund: Omit<StoredRefund, 'merchantId' | 'mode' | 'state' | 'txHash' | 'failure' | 'createdMs' | 'updatedMs'>): Promise<StoredRefund>;
  event(owner: Owner, data: unknown): Promise<void>;
  // The balance's, as balances/use-cases.ts's BalanceWrites names them.
  catchUp(owner: Owner): Promise<void>;
  available(owner: Owner, chainId: number, token: string): Promise<bigint>;
  post(entry: { kind: EntryKind; ref: string; owner?: Owner; memo: string }, postings: Posting[]): Promise<boolean>;
  treasuryDue(chainId: number): Promise<void>;
  /** The operator's hold on money movements of a chain (the treasury short of what it owes), if any. */
  held(chainId: number): Promise<{ reason: string; sinceMs: number } | undefined>;
  withdrawals: {
    limit(owner: Owner): Promise<string>;
    spentSince(owner: Owner, sinceMs: number): Promise<bigint>;
    insert(owner: Owner, id: string, w: WithdrawalRequest, usdCents: bigint): Promise<unknown>;
  };
  /** Refunds whose treasury transaction moved on (ready or sent, and their withdrawal not), locked. */
  moved(limit: number): Promise<Array<{ refund: StoredRefund; sending: Sending }>>;
  advance(id: string, to: { state: StoredRefund['state']; txHash: string | null; failure: string | null }): Promise<StoredRefund>;
}

export interface RefundTransactions {
  inTransaction<T>(nowMs: number, work: (writes: RefundWrites) => Promise<T>): Promise<T>;
}

/** What the route knows outside the transaction: the treasury of the payment's chain, and one coin's worth in US dollars. */
export interface RefundContext {
  treasuryOf(chainId: number): string | null;
  usdPerCoin(symbol: string): Promise<bigint>;
}

/**
 * A refund asked for: the payment found (404; 409 `wrong_mode` when it is the other mode's), the
 * address checked, the amount checked against what arrived less what is refunded already, then
 * on balance settlement reserved from the balance (409 past it, or past the daily limit counted
 * with withdrawals) and handed to the treasury. Wallet settlement: 409 (not yet: issue 35's later part).
 */
export async function requestRefund(store: RefundTransactions, owner: Owner, request: RefundRequest, context: RefundContext, nowMs: number, view: (r: StoredRefund) => unknown): Promise<StoredRefund> {
  const id = crypto.randomUUID();
  return store.inTransaction(nowMs, async (w) => {
    await w.lock(owner);
    const payment = await w.payment(owner, request.reference);
    if (!payment) {
      if (await w.inOtherMode(owner, request.reference)) {
        const other = owner.mode === 'test' ? 'live' : 'test';
        throw new WrongMode(`reference: payment ${request.reference} is a ${other} payment; a ${owner.mode} key refunds only ${owner.mode} money`, [{ field: 'reference', message: `expected a ${owner.mode} payment (use your ${other} key for a ${other} one)` }]);
      }
      throw new NotFound(`reference: no payment ${request.reference}`, [{ field: 'reference', message: 'expected a reference of one of your payments' }]);
    }
    checkDestination(request.address, { treasury: context.treasuryOf(payment.chainId), isDepositAddress: await w.isDepositAddress(request.address) });
    const amount = refundAmount(payment, await w.refunded(payment.id), request.amount);
    if (payment.settlement !== 'balance') {
      throw new BalanceSettlementRequired(`Refunds of payments settled to your own wallet are not sent by the service yet: payment ${request.reference} was swept to your wallet, so the service holds none of it. Send ${formatUnits(amount, payment.decimals)} ${payment.coin} from your wallet; balance-settled payments are refunded from the balance`);
    }
    const coin = { chainId: payment.chainId, token: payment.token, symbol: payment.coin, decimals: payment.decimals, format: (u: bigint) => formatUnits(u, payment.decimals) };
    const usdCents = usdCentsOf(amount, payment.decimals, await context.usdPerCoin(payment.coin));
    const limit = configuredUnits(await w.withdrawals.limit(owner), LIMIT_DECIMALS);
    checkWithdrawalLimit(usdCents, limit, await w.withdrawals.spentSince(owner, nowMs - WITHDRAWAL_WINDOW_MS), { symbol: coin.symbol, text: coin.format(amount) });
    await reserveFromBalance(w, owner, coin, amount, { kind: 'withdrawal_reserved', ref: id, memo: `refund of payment ${payment.reference} to ${request.address}` });
    // A refund returns the customer's money whole and is charged no network fee.
    await w.withdrawals.insert(owner, id, { ...coin, address: request.address, amount, networkFee: 0n, usdPerCoin: 0n }, usdCents);
    const refund = await w.insert(owner, { id, paymentId: payment.id, reference: payment.reference, coin: payment.coin, chainId: payment.chainId, token: payment.token, decimals: payment.decimals, address: request.address, amount, reason: request.reason, settlement: 'balance' });
    await w.event(owner, view(refund));
    await w.treasuryDue(payment.chainId);
    return refund;
  });
}

/**
 * Moves refunds on as their treasury transactions did (refunds/rules.ts's nextState), each change
 * with its REFUND_UPDATED event in the same transaction; answers how many moved. Safe on any
 * number of instances: each refund is locked, and moves once.
 */
export function followSending(store: RefundTransactions, nowMs: number, view: (r: StoredRefund) => unknown): Promise<StoredRefund[]> {
  return store.inTransaction(nowMs, async (w) => {
    const done: StoredRefund[] = [];
    for (const { refund, sending } of await w.moved(50)) {
      const to = nextState(refund, sending);
      if (!to) continue;
      const moved = await w.advance(refund.id, to);
      await w.event({ merchant: { id: refund.merchantId } as Owner['merchant'], mode: refund.mode as Owner['mode'] }, view(moved));
      done.push(moved);
    }
    return done;
  });
}
