// The events the service sends to a merchant's webhook URL and lists in its events feed: one
// list, read by the service (what it may record), the SDK (what verifyWebhook accepts) and
// the docs. A new type is added here, and every side learns of it.
import type { MerchantVerification } from './schemas.ts';
import type { SwapView, WithdrawalView } from './balances.ts';
import type { RefundView } from './refunds.ts';

/**
 * DEPOSIT_TRANSACTION: a payment changed (money counted, settled).
 * PAYOUT_UPDATED: a bank payout moved on (processing, paid, failed).
 * DEPOSIT_REVERSED: a credited transfer left the chain in a reorganisation and was taken back.
 * DEPOSIT_UNMATCHED: money reached a deposit address when its payment took no more (late, or
 * after it was paid), in a token it did not ask for, or on another chain of the mode than the
 * payment's (`wrong_chain`: its address is the same there; `transfer.chainId` names that chain):
 * recorded, not counted, swept, never dropped.
 * DEPOSIT_DISCREPANCY: reconciliation found a deposit address holding other than what its
 * transfers say (a token that takes a fee its events do not show, say): reported, not guessed at.
 * SWAP_UPDATED: a swap between two coins of the balance moved on (pending, completed, failed).
 * WITHDRAWAL_UPDATED: a withdrawal from the balance to a wallet moved on (pending, completed, failed).
 * REFUND_UPDATED: a refund of a payment moved on (ready, sent, confirmed, failed); `reference` names the payment.
 * PAYOUT_ADDRESS_PENDING, BANK_ACCOUNT_PENDING, WITHDRAWAL_ADDRESS_PENDING: a live key asked for
 * money to go somewhere new (a chain's payout address, a bank account or new bank details, a
 * wallet never withdrawn to); it takes effect at `effective_at` unless the owner cancels it
 * (the dashboard's Settings, or DELETE /api/v1/destination_changes/:id). Sent when it is asked.
 * ACCOUNT_EMAIL_CHANGED: the owner's sign-in e-mail changed (from the dashboard, with the
 * password); it names the previous address, to be told, and the new one. In both modes' feeds.
 * SECURITY_CHANGED: a change of who may do what, told when it is made (and e-mailed to
 * the owner and the person concerned): `change` names it (SECURITY_CHANGES), `detail` says what
 * changed (never a secret), `actor` who did it, `target` the key or member it is about. A key's
 * change is in its mode's feed; a person's or the team's (a role, a second factor) in both.
 * SUBSCRIPTION_UPDATED: a subscription's state changed (active, past_due, canceled: docs/subscriptions.md).
 * SUBSCRIPTION_PAYMENT_FAILED: a period's charge failed (`period`, `reason`: the allowance or balance short, or reverted); it is retried.
 */
export const EVENT_TYPES = [
  'DEPOSIT_TRANSACTION',
  'PAYOUT_UPDATED',
  'DEPOSIT_REVERSED',
  'DEPOSIT_UNMATCHED',
  'DEPOSIT_DISCREPANCY',
  'SWAP_UPDATED',
  'WITHDRAWAL_UPDATED',
  'REFUND_UPDATED',
  'PAYOUT_ADDRESS_PENDING',
  'BANK_ACCOUNT_PENDING',
  'WITHDRAWAL_ADDRESS_PENDING',
  'ACCOUNT_EMAIL_CHANGED',
  'SECURITY_CHANGED',
  'SUBSCRIPTION_UPDATED',
  'SUBSCRIPTION_PAYMENT_FAILED',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** What a SECURITY_CHANGED event tells of (and its e-mail says, in words per language: server/email/messages-rules.ts). */
export const SECURITY_CHANGES = [
  'key_created',
  'key_revoked',
  'key_rolled',
  'role_changed',
  'member_removed',
  'support_limit',
  'passkey_added',
  'totp_added',
  'factor_removed',
  'recovery_codes',
  'recovery_code_used',
  'step_up_locked',
  'step_up_unlocked',
] as const;
export type SecurityChange = (typeof SECURITY_CHANGES)[number];

export const isEventType = (value: unknown): value is EventType => (EVENT_TYPES as readonly unknown[]).includes(value);

interface Envelope<T extends EventType, D> {
  /** Unique per event: a merchant handles each id once, however often it arrives. */
  id: string;
  event: T;
  /** The same as `event`, named as the events feed names it (absent on events made before it was added). */
  type?: T;
  /** Unix seconds when the service created the event. */
  created: number;
  data: D;
}

/** A transfer as the chain watcher saw it; amounts in the token's base units, as decimal text. */
export interface ChainTransfer {
  chainId: number;
  txHash: string;
  logIndex: number;
  token: string;
  from: string;
  to: string;
  amount: string;
  blockNumber: string;
}

/** The payout as GET /api/v1/bank/payouts/withdrawals/:id answers it. */
export interface PayoutEventData {
  id: string;
  payout_bank_id: string;
  reference: string;
  status: 'pending' | 'processing' | 'paid' | 'failed';
  amount: number;
  coin: string;
  currency: string;
  fiat_amount: number;
  failure: string | null;
  metadata: Record<string, unknown> | null;
  createdAt: string;
  updatedAt: string;
}

/** A new destination of a live key's money, waiting for the operator's delay (GET /api/v1/destination_changes answers these). */
export interface DestinationChangeData {
  id: string;
  kind: 'payout_address' | 'bank_account' | 'withdrawal_address';
  /** pending until effective_at; applied from then; cancelled by the owner. */
  state: 'pending' | 'applied' | 'cancelled';
  /** The chain of a payout or withdrawal address; null for a bank account. */
  chain_id: number | null;
  /** The new address; null for a bank account. */
  address: string | null;
  /** The bank account (new, or given new details); null for an address. */
  bank_account_id: string | null;
  requested_at: string;
  effective_at: string;
}

export type DepositEvent = Envelope<'DEPOSIT_TRANSACTION', MerchantVerification>;
export type PayoutEvent = Envelope<'PAYOUT_UPDATED', PayoutEventData>;
export type ReversedEvent = Envelope<'DEPOSIT_REVERSED', MerchantVerification & { reversed: ChainTransfer }>;
export type UnmatchedEvent = Envelope<
  'DEPOSIT_UNMATCHED',
  { reason: 'late' | 'unexpected' | 'wrong_chain'; transfer: ChainTransfer; payment?: MerchantVerification }
>;
/** Amounts in the token's base units, as decimal text, at the block `atBlock`. */
export type DiscrepancyEvent = Envelope<
  'DEPOSIT_DISCREPANCY',
  { reference: string; address: string; token: string; chainId: number; atBlock: string; ledger: string; onChain: string }
>;
export type SwapEvent = Envelope<'SWAP_UPDATED', SwapView>;
export type WithdrawalEvent = Envelope<'WITHDRAWAL_UPDATED', WithdrawalView>;
export type RefundEvent = Envelope<'REFUND_UPDATED', RefundView>;
export type PayoutAddressPendingEvent = Envelope<'PAYOUT_ADDRESS_PENDING', DestinationChangeData>;
export type BankAccountPendingEvent = Envelope<'BANK_ACCOUNT_PENDING', DestinationChangeData>;
export type WithdrawalAddressPendingEvent = Envelope<'WITHDRAWAL_ADDRESS_PENDING', DestinationChangeData>;
export type EmailChangedEvent = Envelope<'ACCOUNT_EMAIL_CHANGED', { previous_email: string; business_email: string }>;
export type SecurityChangedEvent = Envelope<
  'SECURITY_CHANGED',
  {
    change: SecurityChange;
    detail: string;
    actor: { kind: 'owner' | 'member' | 'key' | 'operator'; id: string; label: string };
    target: string | null;
    at: string;
  }
>;
export type ServiceEvent =
  | DepositEvent
  | PayoutEvent
  | ReversedEvent
  | UnmatchedEvent
  | DiscrepancyEvent
  | SwapEvent
  | WithdrawalEvent
  | RefundEvent
  | PayoutAddressPendingEvent
  | BankAccountPendingEvent
  | WithdrawalAddressPendingEvent
  | EmailChangedEvent
  | SecurityChangedEvent;
