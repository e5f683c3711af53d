// The rules of a refund (issue 35), without I/O: how much a payment can give back, where money may
// not go back to, and how a refund's state follows the treasury's transaction. Storage runs these
// inside its transaction, under the merchant's balance lock, so two refunds at once (on any
// instance) are counted against each other.
import type { RefundState } from '../../contract/refunds.ts';
import { formatUnits } from '../../contract/money.ts';
import { invalidField, NothingReceived, RefundExceedsReceived } from '../domain/errors.ts';

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
  address: string;
  /** Base units of the payment's coin. */
  amount: bigint;
  reason: string;
  settlement: 'balance' | 'wallet';
  state: RefundState;
  txHash: string | null;
  failure: string | null;
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
 * The amount a refund gives back: `asked` base units, or `rest` (all that arrived and is not
 * refunded yet). Refused naming the field when the payment received nothing, or when it would
 * take the payment's refunds past what arrived (`refunded`: its refunds not failed).
 */
export function refundAmount(payment: RefundablePayment, refunded: bigint, asked: bigint | 'rest'): bigint {
  const coins = (units: bigint) => `${formatUnits(units, payment.decimals)} ${payment.coin}`;
  if (payment.paid <= 0n) {
    throw new NothingReceived(`reference: payment ${payment.reference} has received nothing yet; there is nothing to refund`, [{ field: 'reference', message: 'expected a payment that received money' }]);
  }
  const left = payment.paid > refunded ? payment.paid - refunded : 0n;
  if (left === 0n) {
    throw new RefundExceedsReceived(`amount: payment ${payment.reference} is refunded in full already (${coins(refunded)} of ${coins(payment.paid)} received)`, [{ field: 'amount', message: 'expected nothing more: the payment is refunded in full' }]);
  }
  const amount = asked === 'rest' ? left : asked;
  if (amount <= 0n) throw invalidField('amount', 'expected more than 0 base units');
  if (amount > left) {
    throw new RefundExceedsReceived(
      `amount: ${amount} base units (${coins(amount)}) is more than payment ${payment.reference} can give back: ${coins(payment.paid)} received, ${coins(refunded)} refunded already, so at most ${left} base units (${coins(left)})`,
      [{ field: 'amount', message: `expected at most ${left} base units (${coins(left)})` }],
    );
  }
  return amount;
}

/** What an overpaid payment received past what it was due (base units): the excess a refund of "the excess" gives back. */
export const excessOf = (payment: Pick<RefundablePayment, 'paid' | 'due'>): bigint => (payment.paid > payment.due ? payment.paid - payment.due : 0n);

/**
 * Money never goes back to the service's own addresses: a deposit address (of any payment, any
 * merchant: it would be counted as a payment, or swept to someone) or the network's treasury
 * (it would be no one's). 400 naming `address`.
 */
export function checkDestination(address: string, found: { treasury: string | null; isDepositAddress: boolean }): void {
  if (found.treasury && address.toLowerCase() === found.treasury.toLowerCase()) throw invalidField('address', 'expected the customer\'s wallet, not the service\'s treasury');
  if (found.isDepositAddress) throw invalidField('address', 'expected the customer\'s wallet, not a deposit address of this service (money sent there would count as a payment)');
}

/** The treasury's row paying a refund (its withdrawals row, of the same id), as stored now. */
export interface Sending {
  state: 'pending' | 'completed' | 'failed';
  txHash: string | null;
  failure: string | null;
}

/**
 * The state a refund moves to as its treasury transaction moves on, or undefined when it stays:
 * ready until a transaction is recorded (sent), confirmed once counted, failed when it failed
 * (its amount back in the balance, by the treasury's own entry). A refund never goes back.
 */
export function nextState(refund: Pick<StoredRefund, 'state'>, sending: Sending): { state: RefundState; txHash: string | null; failure: string | null } | undefined {
  const order: Record<RefundState, number> = { ready: 0, sent: 1, confirmed: 2, failed: 2 };
  const to: RefundState = sending.state === 'completed' ? 'confirmed' : sending.state === 'failed' ? 'failed' : sending.txHash ? 'sent' : 'ready';
  if (order[to] <= order[refund.state]) return undefined;
  return { state: to, txHash: sending.txHash, failure: sending.failure };
}
