// A payment's exceptions (money that did not count as asked) sent back in one step: whatever a payment's case is (payments/attention-rules.ts),
// the amount owed back refunded in its own coin on its own chain, through the refunds' one path
// (reserved from the balance, sent by the treasury as a withdrawal of the same id, each state a
// REFUND_UPDATED event), in the refund's transaction with the payment row locked, the case marked
// resolved by the refund's id. An overpayment's excess and an expired partial come out of what the
// payment counted (never past what arrived less what is refunded already); money that never
// counted (late, another coin, another chain) is refunded apart from it, whole. Should the refund
// end failed or canceled, the case opens again with it (the attention store's reopen, in the transaction that ends it: refunds/use-cases.ts).
import { randomBytes } from 'node:crypto';
import { formatUnits } from '../../contract/money.ts';
import { auditedTransaction } from '../storage/audit.ts';
import { BalanceSettlementRequired, PaymentState } from '../domain/errors.ts';
import { reserveFromBalance } from '../balances/use-cases.ts';
import { checkWithdrawalLimit, configuredUnits, LIMIT_DECIMALS, usdCentsOf, WITHDRAWAL_WINDOW_MS } from '../balances/ledger-rules.ts';
import { lockedCase } from '../payments/accept.ts';
import { checkDestination, checkSupportRefund, CLAIM_LINK_MS, refundAmount, type StoredRefund } from './rules.ts';
import { claimHashOf, feeMemo, refundFee, type Owner, type RefundContext, type RefundTransactions } from './use-cases.ts';

export interface SendBackPorts {
  /** A listed coin by chain and token (its symbol and decimals), or undefined. */
  coinOf(chainId: number, token: string): { symbol: string; decimals: number } | undefined;
}

export async function sendBack(
  store: RefundTransactions,
  ports: SendBackPorts,
  owner: Owner,
  /** `checkedOn`: the chain on which the route found `address` past the destination delay (the case's, read before the lock). */
  request: { reference: string; reason: string; address?: string; role?: string; checkedOn?: number },
  context: RefundContext,
  nowMs: number,
  view: (r: StoredRefund) => unknown,
): Promise<{ refund: StoredRefund; claimToken?: string }> {
  const id = crypto.randomUUID();
  const claimToken = request.address ? undefined : randomBytes(32).toString('base64url');
  const refund = await auditedTransaction(store.db, async (tx) => {
    await store.journal.lock(tx, owner);
    const { payment, found } = await lockedCase(store.attention, tx, owner, request.reference, nowMs);
    // Money goes back on the chain it arrived on: the address was let through on that chain only.
    if (request.checkedOn !== undefined && request.checkedOn !== found.chainId)
      throw new PaymentState(
        `reference: payment ${payment.reference}'s case moved to chain ${found.chainId} while it was asked; nothing was reserved or sent: ask again`,
        [{ field: 'reference', message: 'expected the case the address was checked for: ask again' }],
      );
    if (request.address)
      checkDestination({ own: context.ownAddress(request.address), isDepositAddress: await store.payments.isDepositAddress(tx, request.address) });
    const listed = found.transfers.length === 0 ? { symbol: payment.coin, decimals: payment.decimals } : ports.coinOf(found.chainId, found.token);
    if (!listed)
      throw new BalanceSettlementRequired(
        `Payment ${payment.reference} received ${found.token} on chain ${found.chainId}, a token this service does not list: it cannot send it back; the operator can`,
      );
    // The payment's own case comes out of what it counted; money that never counted, apart from it.
    const refundable = { ...payment, token: payment.token.toLowerCase(), settlement: payment.settlement as 'balance' | 'wallet' };
    const amount =
      found.reason === 'overpaid'
        ? refundAmount(refundable, await store.refunds.refundedFor(tx, payment.id), found.amount)
        : found.reason === 'partial'
          ? refundAmount(refundable, await store.refunds.refundedFor(tx, payment.id), 'rest')
          : found.amount;
    const coin = {
      chainId: found.chainId,
      token: found.token,
      symbol: listed.symbol,
      decimals: listed.decimals,
      format: (u: bigint) => formatUnits(u, listed.decimals),
    };
    const usdCents = usdCentsOf(amount, coin.decimals, await context.usdPerCoin(coin.symbol));
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
      coin: coin.symbol,
      chainId: coin.chainId,
      token: coin.token,
      decimals: coin.decimals,
      address: request.address ?? null,
      amount,
      reason: request.reason,
      usdCents,
      claim,
      role: request.role,
    };
    let made: StoredRefund;
    if (payment.settlement !== 'balance') {
      // Wallet settlement (refunds/wallet.ts): the merchant's own wallet sends it, in that coin on
      // that chain; nothing is reserved, journaled or counted toward the withdrawal limit.
      made = await store.refunds.insert(tx, owner, { ...row, settlement: 'wallet' }, nowMs);
    } else {
      const limit = configuredUnits((await store.withdrawals.withdrawalLimit(owner, tx)).daily, LIMIT_DECIMALS);
      checkWithdrawalLimit(usdCents, limit, await store.withdrawals.spentSince(tx, owner, since), { symbol: coin.symbol, text: coin.format(amount) });
      // The treasury's one rule for what it sends: the case's amount below the token's
      // minimum is refused naming the payment (keep it instead: accept); the fee is the merchant's.
      const networkFee = refundFee(context, coin, amount, 'reference', 'send-back');
      await reserveFromBalance(store.journal, tx, nowMs, owner, coin, amount + networkFee, {
        kind: 'withdrawal_reserved',
        ref: id,
        memo: `refund of payment ${payment.reference}'s ${found.reason.replace('_', ' ')} ${request.address ? `to ${request.address}` : 'to the address its customer claims'}${feeMemo(networkFee, coin)}`,
      });
      if (request.address)
        await store.withdrawals.insert(tx, owner, id, { ...coin, address: request.address, amount, networkFee, usdPerCoin: 0n }, usdCents, nowMs, 'refund');
      made = await store.refunds.insert(tx, owner, { ...row, settlement: 'balance' }, nowMs);
    }
    if (found.transfers.length > 0) {
      await store.attention.outsidePayment(tx, id);
      await store.attention.resolveTransfers(tx, found.transfers, 'refunded', nowMs, id);
    } else await store.attention.resolvePayment(tx, payment.id, 'refunded', nowMs, id);
    await store.events.add(tx, owner, 'REFUND_UPDATED', view(made), nowMs);
    if (request.address && made.settlement === 'balance') await store.withdrawals.treasuryDue(tx, coin.chainId);
    return made;
  });
  return { refund, claimToken };
}
