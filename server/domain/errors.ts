// Errors of the domain, by what went wrong rather than by HTTP status; the edge maps each
// to a status code in one place (http/respond.ts). Stores and rules throw these only.
// Each kind has its stable `code` (contract/error-codes.ts), given once here as the class's
// static `code`; the code names its HTTP status. A subclass is a finer kind with its own code.
import type { ErrorCode } from '../../contract/error-codes.ts';
import type { FieldError } from '../../contract/field-errors.ts';

export class DomainError extends Error {
  static readonly code: ErrorCode = 'validation_failed';
  /** The kind's machine-readable code, answered beside the message. */
  readonly code: ErrorCode;
  constructor(
    message: string,
    readonly fields?: FieldError[],
  ) {
    super(message);
    this.code = (new.target as typeof DomainError).code;
  }
}
/** Input that breaks a rule: each broken field named. */
export class Invalid extends DomainError {}
/** No key, an unknown key, or the wrong kind of key. */
export class Unauthorized extends DomainError {
  static override readonly code: ErrorCode = 'unauthorized';
}
/** A known key that may not do this (a live key in the sandbox). */
export class Forbidden extends DomainError {
  static override readonly code: ErrorCode = 'forbidden';
}
/** A write from another origin, or a session's without its CSRF token. */
export class CsrfRejected extends Forbidden {
  static override readonly code: ErrorCode = 'csrf_rejected';
}
/** A member or a restricted key without the permission the route declares (its message names it). */
export class PermissionDenied extends Forbidden {
  static override readonly code: ErrorCode = 'permission_denied';
}
/** A live money move or a change of who may move money, from a session whose second factor is older than five minutes. */
export class StepUpRequired extends Forbidden {
  static override readonly code: ErrorCode = 'step_up_required';
}
/** The owner requires a second factor of every member, and this person has none yet: enrol first. */
export class SecondFactorRequired extends Forbidden {
  static override readonly code: ErrorCode = 'second_factor_required';
}
/** Too many wrong second-factor proofs of one kind in a row: locked until a recovery code or the owner's unlock. */
export class FactorLocked extends Forbidden {
  static override readonly code: ErrorCode = 'factor_locked';
}
/** The sandbox cannot pay here (a live key, the sandbox off, no dev chain). */
export class SandboxUnavailable extends Forbidden {
  static override readonly code: ErrorCode = 'sandbox_unavailable';
}
export class NotFound extends DomainError {
  static override readonly code: ErrorCode = 'not_found';
}
/** The request is fine but the state it meets refuses it. */
export class Conflict extends DomainError {
  static override readonly code: ErrorCode = 'conflict';
}
/** Money in a token (or on a chain) the payment did not ask for: it never counts toward it. */
export class NotItsToken extends Conflict {
  static override readonly code: ErrorCode = 'wrong_token';
}
/** A reference (a payment's, a payout's) already used in a way that refuses this request. */
export class ReferenceInUse extends Conflict {
  static override readonly code: ErrorCode = 'reference_in_use';
}
export class EmailInUse extends Conflict {
  static override readonly code: ErrorCode = 'email_in_use';
}
export class InsufficientBalance extends Conflict {
  static override readonly code: ErrorCode = 'insufficient_balance';
}
export class WithdrawalLimitExceeded extends Conflict {
  static override readonly code: ErrorCode = 'withdrawal_limit_exceeded';
}
export class QuoteUsed extends Conflict {
  static override readonly code: ErrorCode = 'quote_used';
}
export class QuoteExpired extends Conflict {
  static override readonly code: ErrorCode = 'quote_expired';
}
/** A payment whose status refuses this (no more deposits, not partly paid, still confirming). */
export class PaymentState extends Conflict {
  static override readonly code: ErrorCode = 'payment_state';
}
export class LinkInactive extends Conflict {
  static override readonly code: ErrorCode = 'link_inactive';
}
/** A coin not offered now (off its peg, no longer taken). */
export class CoinUnavailable extends Conflict {
  static override readonly code: ErrorCode = 'coin_unavailable';
}
/** A chain that is not one of the key's mode's networks. */
export class ChainNotOffered extends Conflict {
  static override readonly code: ErrorCode = 'chain_not_offered';
}
/** A new destination (a bank account) still in its waiting time. */
export class DestinationPending extends Conflict {
  static override readonly code: ErrorCode = 'destination_pending';
}
export class PayoutAddressRequired extends Conflict {
  static override readonly code: ErrorCode = 'payout_address_required';
}
/** What only balance settlement allows (swaps, withdrawals, bank payouts), asked on wallet settlement. */
export class BalanceSettlementRequired extends Conflict {
  static override readonly code: ErrorCode = 'balance_settlement_required';
}
/**
 * Money movements on a chain the operator has held: its treasury holds less than the journal
 * owes, or a reorganisation deeper than the confirmations took counted money away.
 */
export class TreasuryHeld extends Conflict {
  static override readonly code: ErrorCode = 'treasury_held';
}
/** A swap quote whose pool price is too far from the rate provider's (a thin or moved pool): not quoted. */
export class SwapRateDeviates extends Conflict {
  static override readonly code: ErrorCode = 'swap_rate_deviates';
}
/**
 * A signed transfer the service will not relay, though nothing is wrong with it: it would cost
 * the gas wallet more than one relay may (`gas.payment_cap`), the merchant's sponsored gas for
 * the day is spent (`gas.daily_cap`), or the gas wallet holds too little (`gas.wallet`). Nothing
 * was sent: the signature is unused, and the payment stays payable by transfer.
 */
export class RelayDeclined extends Conflict {
  static override readonly code: ErrorCode = 'relay_declined';
}
/** What the operator has not configured (a live network, a treasury, a swap router, a payout provider). */
export class NotConfigured extends Conflict {
  static override readonly code: ErrorCode = 'not_configured';
}
/** A refund of a payment that received nothing yet: nothing to give back. */
export class NothingReceived extends Conflict {
  static override readonly code: ErrorCode = 'nothing_received';
}
/** A refund past what arrived for its payment, less what is refunded already. */
export class RefundExceedsReceived extends Conflict {
  static override readonly code: ErrorCode = 'refund_exceeds_received';
}
/** A refund claim link used already (the refund has its address), or canceled. */
export class RefundLinkUsed extends Conflict {
  static override readonly code: ErrorCode = 'refund_link_used';
}
/** A refund claim link past its expiry. */
export class RefundLinkExpired extends Conflict {
  static override readonly code: ErrorCode = 'refund_link_expired';
}
/** A refund whose state refuses the request (canceling one already sent). */
export class RefundState extends Conflict {
  static override readonly code: ErrorCode = 'refund_state';
}
/** A payment with nothing needing the merchant's attention (resolved already, or nothing to resolve). */
export class NothingToResolve extends Conflict {
  static override readonly code: ErrorCode = 'nothing_to_resolve';
}
/** Money in another coin with no usable rate recorded at its arrival (none, or older than the rates' limit): it cannot be credited, only kept or sent back. */
export class NoRateAtArrival extends Conflict {
  static override readonly code: ErrorCode = 'no_rate_at_arrival';
}
/** A credit asked of a case that is not money in another coin or on another chain. */
export class NotCreditable extends Conflict {
  static override readonly code: ErrorCode = 'not_creditable';
}
/** A transaction named as a refund's that pays another refund already (one transaction pays one refund). */
export class RefundTransactionUsed extends Conflict {
  static override readonly code: ErrorCode = 'refund_transaction_used';
}
/** A key of one mode naming what belongs to the other (a test key and a live payment). */
export class WrongMode extends Conflict {
  static override readonly code: ErrorCode = 'wrong_mode';
}
export class TooLarge extends DomainError {
  static override readonly code: ErrorCode = 'payload_too_large';
}
/** Something the answer needs is not available now (a fresh exchange rate); try again later. */
export class Unavailable extends DomainError {
  static override readonly code: ErrorCode = 'service_unavailable';
}
/** The path exists, but not with this method: `allowed` are the methods it has. */
export class MethodNotAllowed extends DomainError {
  static override readonly code: ErrorCode = 'method_not_allowed';
  constructor(
    message: string,
    readonly allowed: string[],
  ) {
    super(message);
  }
}
export class TooMany extends DomainError {
  static override readonly code: ErrorCode = 'rate_limited';
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

/** An Invalid for one field, with the message also naming it. */
export const invalidField = (field: string, message: string): Invalid => new Invalid(`${field}: ${message}`, [{ field, message }]);

/** An Invalid for several fields at once, or nothing when the list is empty. */
export function invalidFields(errors: FieldError[], prefix = ''): Invalid | undefined {
  if (errors.length === 0) return undefined;
  return new Invalid(prefix + errors.map((e) => `${e.field}: ${e.message}`).join('; '), errors);
}
