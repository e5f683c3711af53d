// The rules of a refund, without I/O: how much a payment can give back, where money may
// not go back to, and how a refund's state follows the treasury's transaction. Storage runs these
// inside its transaction, under the merchant's balance lock, so two refunds at once (on any
// instance) are counted against each other.
import type { RefundState } from '../../contract/refunds.ts';
import { formatUnits, toUnits } from '../../contract/money.ts';
import {
  invalidField,
  NothingReceived,
  PermissionDenied,
  RefundExceedsReceived,
  RefundLinkExpired,
  RefundLinkUsed,
  RefundState as RefundStateError,
} from '../domain/errors.ts';

export interface StoredRefund {
  id: string;
  merchantId: string;
  mode: string;
  paymentId: string;
  reference: string;
  coin: string;
  chainId: number;
  token: string;
  decimals: number;
  /** Null while it waits for the customer to claim it. */
  address: string | null;
  /** Base units of the payment's coin. */
  amount: bigint;
  reason: string;
  settlement: 'balance' | 'wallet';
  state: RefundState;
  txHash: string | null;
  failure: string | null;
  /** When its claim link stops working (null: made with an address). */
  claimExpiresMs: number | null;
  /** What it was worth in US cents when asked for: counted toward the daily withdrawal limit. */
  usdCents: bigint;
  createdMs: number;
  updatedMs: number;
}

/** A payment as a refund reads it: what arrived for it (base units, counted), and what it was due. */
export interface RefundablePayment {
  id: string;
  reference: string;
  coin: string;
  chainId: number;
  token: string;
  decimals: number;
  /** What arrived and was counted for it: an overpayment's whole amount included. */
  paid: bigint;
  due: bigint;
  settlement: 'balance' | 'wallet';
}

/**
 * The amount a refund is asked for, as the request wrote it: exact decimal text of the payment's
 * coin (`coins`), `rest` (all that arrived and is not refunded yet), or base units (`baseUnits`:
 * the deprecated `amount_base_units`, and the service's own callers, which count in them).
 */
export type AskedAmount = 'rest' | { coins: string } | { baseUnits: bigint };

/**
 * Decimal text of a coin to its base units, exactly: 400 naming `field` when it has more
 * decimals than the coin (it cannot be sent) or is not above 0.
 */
export function coinUnits(text: string, coin: { symbol: string; decimals: number }, field = 'amount'): bigint {
  const units = toUnits(text, coin.decimals);
  if (units === undefined)
    throw invalidField(field, `expected at most ${coin.decimals} decimals: ${coin.symbol} here has ${coin.decimals}, received ${JSON.stringify(text)}`);
  if (units <= 0n) throw invalidField(field, `expected an amount of ${coin.symbol} greater than 0, received ${JSON.stringify(text)}`);
  return units;
}

/**
 * The amount a refund gives back, in base units: `asked` (see AskedAmount), or `rest`. Refused
 * naming the field the request used when the payment received nothing, or when it would take the
 * payment's refunds past what arrived (`refunded`: its refunds not failed), the amounts said in
 * coins, as the API writes them.
 */
export function refundAmount(payment: RefundablePayment, refunded: bigint, asked: AskedAmount | bigint): bigint {
  const field = typeof asked === 'object' && 'baseUnits' in asked ? 'amount_base_units' : 'amount';
  const coins = (units: bigint) => `${formatUnits(units, payment.decimals)} ${payment.coin}`;
  if (payment.paid <= 0n) {
    throw new NothingReceived(`reference: payment ${payment.reference} has received nothing yet; there is nothing to refund`, [
      { field: 'reference', message: 'expected a payment that received money' },
    ]);
  }
  const left = payment.paid > refunded ? payment.paid - refunded : 0n;
  if (left === 0n) {
    throw new RefundExceedsReceived(
      `${field}: payment ${payment.reference} is refunded in full already (${coins(refunded)} of ${coins(payment.paid)} received)`,
      [{ field, message: 'expected nothing more: the payment is refunded in full' }],
    );
  }
  const amount =
    asked === 'rest'
      ? left
      : typeof asked === 'bigint'
        ? asked
        : 'coins' in asked
          ? coinUnits(asked.coins, { symbol: payment.coin, decimals: payment.decimals }, field)
          : asked.baseUnits;
  if (amount <= 0n) throw invalidField(field, `expected more than 0 ${payment.coin}`);
  if (amount > left) {
    throw new RefundExceedsReceived(
      `${field}: ${coins(amount)} is more than payment ${payment.reference} can give back: ${coins(payment.paid)} received, ${coins(refunded)} refunded already, so at most ${coins(left)}`,
      [
        {
          field,
          message: `expected at most ${field === 'amount' ? `"${formatUnits(left, payment.decimals)}" (${coins(left)})` : `${left} base units (${coins(left)})`}`,
        },
      ],
    );
  }
  return amount;
}

/** What an overpaid payment received past what it was due (base units): the excess a refund of "the excess" gives back. */
export const excessOf = (payment: Pick<RefundablePayment, 'paid' | 'due'>): bigint => (payment.paid > payment.due ? payment.paid - payment.due : 0n);

/**
 * Money never goes back to the service's own addresses: a deposit address (of any payment, any
 * merchant: it would be counted as a payment, or swept to someone), or `own`: what the address
 * is of the configured ones (a treasury, the gas wallet, the operator's fee address;
 * chain/own-addresses.ts): it would be no one's. 400 naming `address`.
 */
export function checkDestination(found: { own: string | undefined; isDepositAddress: boolean }): void {
  if (found.own) throw invalidField('address', `expected the customer's wallet, not ${found.own}`);
  if (found.isDepositAddress)
    throw invalidField('address', "expected the customer's wallet, not a deposit address of this service (money sent there would count as a payment)");
}

/** The treasury's send paying a refund (of purpose `refund` and the same id), as it is now. */
export interface Sending {
  state: 'pending' | 'completed' | 'failed';
  txHash: string | null;
  failure: string | null;
}

/**
 * The state a refund moves to as its treasury transaction moves on, or undefined when it stays:
 * ready until a transaction is recorded (sent), confirmed once counted, failed when it failed
 * (its amount back in the balance, by the treasury's own entry). A refund goes back only from
 * confirmed, when a reorganisation deeper than the confirmations took its transaction off the
 * chain: sent again (its send pending, its recorded transaction sent again), or failed (it can
 * never be mined: its amount back in the balance).
 */
export function nextState(
  refund: Pick<StoredRefund, 'state'>,
  sending: Sending,
): { state: RefundState; txHash: string | null; failure: string | null } | undefined {
  if (refund.state === 'waiting_for_address' || refund.state === 'canceled') return undefined;
  if (refund.state === 'confirmed' && sending.state !== 'completed')
    return { state: sending.state === 'failed' ? 'failed' : 'sent', txHash: sending.txHash, failure: sending.failure };
  const order: Record<RefundState, number> = { waiting_for_address: 0, ready: 0, sent: 1, confirmed: 2, failed: 2, canceled: 2 };
  const to: RefundState = sending.state === 'completed' ? 'confirmed' : sending.state === 'failed' ? 'failed' : sending.txHash ? 'sent' : 'ready';
  if (order[to] <= order[refund.state]) return undefined;
  return { state: to, txHash: sending.txHash, failure: sending.failure };
}

/** How long a claim link works (7 days): past it the refund is canceled and its amount back in the balance. */
export const CLAIM_LINK_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * Whether a claim link's refund may still be claimed: once only (409 `refund_link_used` when it
 * has an address already, or was canceled), and before it expires (409 `refund_link_expired`).
 */
export function checkClaimable(refund: Pick<StoredRefund, 'state' | 'claimExpiresMs'>, nowMs: number): void {
  if (refund.state !== 'waiting_for_address') {
    throw new RefundLinkUsed(
      refund.state === 'canceled'
        ? 'token: this refund link was canceled by the merchant or has expired; ask the merchant for a new one'
        : 'token: this refund link was used already: the refund is on its way to the address named then',
      [{ field: 'token', message: 'expected a refund link not used yet' }],
    );
  }
  if (refund.claimExpiresMs === null || nowMs >= refund.claimExpiresMs) {
    throw new RefundLinkExpired(`token: this refund link expired at ${new Date(refund.claimExpiresMs ?? 0).toISOString()}; ask the merchant for a new one`, [
      { field: 'token', message: 'expected a refund link that has not expired' },
    ]);
  }
}

/**
 * Whether the merchant may cancel a refund: before it is sent only (waiting for its address,
 * or ready and no transaction recorded for it). `recorded`: the treasury recorded a transaction.
 */
export function checkCancelable(refund: Pick<StoredRefund, 'id' | 'state'>, recorded: boolean): void {
  if (refund.state === 'waiting_for_address' || (refund.state === 'ready' && !recorded)) return;
  throw new RefundStateError(
    `Refund ${refund.id} is ${refund.state === 'ready' ? 'being sent (its transaction is signed)' : refund.state}: only a refund not sent yet can be canceled`,
  );
}

/**
 * Where a support member's claim link may go: to the payment's customer by e-mail
 * only, never into support's own answer (support would claim it with a wallet of its own). So a
 * support member's refund without an address needs e-mail on and the payment's customer e-mail.
 */
export function checkSupportClaim(role: string | undefined, request: { hasAddress: boolean; reachesCustomer: boolean }): void {
  if (role !== 'support' || request.hasAddress || request.reachesCustomer) return;
  throw new PermissionDenied(
    "customer_email: a support member's refund link goes to the payment's customer by e-mail only, and this payment has no customer_email (or the service sends no e-mail): an owner, admin or finance member can refund it",
    [{ field: 'customer_email', message: "expected a payment with the customer's e-mail, and e-mail on (SMTP_URL)" }],
  );
}

/**
 * A support member's refunds (the attack review's open point: refunds.write could
 * send to any wallet): never to an address the member types (the customer names it through the
 * claim link), and no more than the merchant's limit for support in US cents over the last day,
 * this one counted. Other callers pass through.
 */
export function checkSupportRefund(
  role: string | undefined,
  request: { hasAddress: boolean; usdCents: bigint },
  limit: { cents: bigint; spentCents: bigint },
): void {
  if (role !== 'support') return;
  if (request.hasAddress) {
    throw new PermissionDenied(
      "A support member refunds through the customer's claim link only: leave address out, and the link is e-mailed to the payment's customer (an owner, admin or finance member may name an address)",
      [{ field: 'address', message: 'expected no address: the customer names it through the claim link' }],
    );
  }
  if (limit.spentCents + request.usdCents > limit.cents) {
    const usd = (c: bigint) => `${c / 100n}.${String(c % 100n).padStart(2, '0')} USD`;
    throw new PermissionDenied(
      `amount: a support member may refund up to ${usd(limit.cents)} a day for this business; ${usd(limit.spentCents)} refunded by support in the last 24 hours, this one ${usd(request.usdCents)}. An owner, admin or finance member can refund it, or raise the limit`,
      [{ field: 'amount', message: `expected at most ${usd(limit.cents - (limit.spentCents > limit.cents ? limit.cents : limit.spentCents))} more today` }],
    );
  }
}
