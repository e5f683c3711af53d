// The answers and events of the service's API that no other contract file describes: the
// webhook endpoint, the events feed, payouts, health, and each event's payload. With
// schemas.ts, payment-links.ts and payouts.ts they are the whole API as the OpenAPI document
// (GET /api/v1/openapi.json) gives it. For the service and merchant servers; the browser
// bundle never imports this file.
import * as z from 'zod/mini';
import { ERROR_CODES, type ErrorCode } from './error-codes.ts';
import { EVENT_TYPES, SECURITY_CHANGES, type ChainTransfer, type PayoutEventData } from './events.ts';
import { bool, int, is, later, nullable, oneOf, text, timestamp } from './fields.ts';
import { pageAnswer } from './paging.ts';
import { PAYOUT_CURRENCIES } from './payouts.ts';
import { Business, Coin, MerchantVerification, PaymentFee, Transaction, Verification } from './schemas.ts';
import { Swap, Withdrawal } from './balances.ts';
import { Refund } from './refunds.ts';
import { SubscriptionEventData } from './subscriptions.ts';

export const envelope = () => ({ status: oneOf(['success']), statusCode: int, message: z.optional(text) });
/** A success answer whose `data` is `data`. */
export const answer = <T extends z.core.$ZodType>(data: T) => z.object({ ...envelope(), data });
/** GET /api/v1/bank/payouts: a page of the bank accounts' ids, oldest first. */
export const BankAccountsPage = later(() => z.object({ ...envelope(), data: z.array(text), ...pageAnswer() }));
/** A success answer with a message and no data. */
export const Done = later(() => z.object(envelope()));

/**
 * GET /api/v1/coins and every error, as schemas.ts's CoinsResponse and ErrorBody, with a
 * list zod can describe (the browser's listOf is a check that JSON Schema cannot see into).
 */
export const CoinsAnswer = later(() =>
  z.object({
    ...envelope(),
    data: z.array(Coin),
    business: z.optional(Business),
    sandbox: z.optional(bool),
    rate: z.optional(z.object({ source: text, fixed: bool, at: timestamp })),
  }),
);

/** The rate a quote was made at (ours): exact fiat per coin, where it came from, when, and whether it is the operator's fixed table. */
export const QuotedRate = later(() =>
  z.object({
    fiatPerCoin: is<string>((v) => typeof v === 'string' && /^\d+(\.\d+)?$/.test(v), 'a decimal amount as text'),
    source: text,
    fixed: bool,
    at: timestamp,
  }),
);
/** Every error answer: `code` (contract/error-codes.ts) tells refusals apart; optional for clients, which may ignore it. */
export const ErrorEnvelope = later(() =>
  z.object({
    status: oneOf(['error']),
    statusCode: int,
    code: z.optional(oneOf(Object.keys(ERROR_CODES) as ErrorCode[])),
    message: text,
    errors: z.optional(z.array(z.object({ field: text, message: text }))),
  }),
);

/** POST /api/v1/transaction/initialize: the spec's transaction, the payment's state as verify gives it, the quote's rate, and (ours, optional for clients) the EIP-681 `uri` of what is still due, as the QR endpoint gives it. */
export const Initialized = later(() =>
  z.object({ ...Verification.shape, ...Transaction.shape, rate: z.optional(QuotedRate), uri: z.optional(text), fee: z.optional(PaymentFee) }),
);

/** PUT and GET /api/v1/webhook, POST /api/v1/webhook/rotate. */
export const WebhookEndpoint = later(() =>
  z.object({
    url: nullable<string>((v) => typeof v === 'string', 'text'),
    secret: text,
    /** During a rotation: until when the previous secret signs beside this one. */
    previousSecretValidUntil: z.optional(timestamp),
  }),
);

/** A new destination of a live key's money, waiting for the operator's delay (contract/events.ts's DestinationChangeData). */
export const DestinationChange = later(() =>
  z.object({
    id: text,
    kind: oneOf(['payout_address', 'bank_account', 'withdrawal_address']),
    state: oneOf(['pending', 'applied', 'cancelled']),
    chain_id: nullable<number>((v) => Number.isSafeInteger(v), 'a whole number'),
    address: nullable<string>((v) => typeof v === 'string', 'text'),
    bank_account_id: nullable<string>((v) => typeof v === 'string', 'text'),
    requested_at: timestamp,
    effective_at: timestamp,
  }),
);

/**
 * GET /api/v1/payout_address: the address in effect on each chain (`address`), and a live
 * key's new one still waiting (`pending`, until its `effective_at`), if any.
 */
export const PayoutAddress = later(() => z.object({ chain_id: int, address: text, pending: z.optional(DestinationChange) }));

/**
 * PUT /api/v1/payout_address: `address` is the one asked for; `pending` says whether it waits
 * (live keys, replacing an address) and `effective_at` from when new payments are bound to it.
 */
export const PayoutAddressSet = later(() =>
  z.object({ chain_id: int, address: text, pending: bool, effective_at: timestamp, change: z.optional(DestinationChange) }),
);

const amountText = is<string>((v) => typeof v === 'string' && /^\d+$/.test(v), 'a whole number as text');
const ChainTransferSchema = later(() =>
  z.object({ chainId: int, txHash: text, logIndex: int, token: text, from: text, to: text, amount: amountText, blockNumber: amountText }),
);

const eventOf = <T extends (typeof EVENT_TYPES)[number], D extends z.core.$ZodType>(type: T, data: D) =>
  later(() => z.object({ id: text, event: oneOf([type]), type: z.optional(oneOf([type])), created: int, data }));

/** Each event's body, as delivered to the webhook URL and listed in the feed's `payload`. */
export const EVENT_SCHEMAS = {
  DEPOSIT_TRANSACTION: eventOf('DEPOSIT_TRANSACTION', MerchantVerification),
  PAYOUT_UPDATED: eventOf(
    'PAYOUT_UPDATED',
    later(() => Payout),
  ),
  DEPOSIT_REVERSED: eventOf(
    'DEPOSIT_REVERSED',
    later(() => z.object({ ...MerchantVerification.shape, reversed: ChainTransferSchema })),
  ),
  DEPOSIT_UNMATCHED: eventOf(
    'DEPOSIT_UNMATCHED',
    later(() => z.object({ reason: oneOf(['late', 'unexpected', 'wrong_chain']), transfer: ChainTransferSchema, payment: z.optional(MerchantVerification) })),
  ),
  DEPOSIT_DISCREPANCY: eventOf(
    'DEPOSIT_DISCREPANCY',
    later(() => z.object({ reference: text, address: text, token: text, chainId: int, atBlock: amountText, ledger: amountText, onChain: amountText })),
  ),
  SWAP_UPDATED: eventOf('SWAP_UPDATED', Swap),
  WITHDRAWAL_UPDATED: eventOf('WITHDRAWAL_UPDATED', Withdrawal),
  REFUND_UPDATED: eventOf('REFUND_UPDATED', Refund),
  PAYOUT_ADDRESS_PENDING: eventOf('PAYOUT_ADDRESS_PENDING', DestinationChange),
  BANK_ACCOUNT_PENDING: eventOf('BANK_ACCOUNT_PENDING', DestinationChange),
  WITHDRAWAL_ADDRESS_PENDING: eventOf('WITHDRAWAL_ADDRESS_PENDING', DestinationChange),
  ACCOUNT_EMAIL_CHANGED: eventOf(
    'ACCOUNT_EMAIL_CHANGED',
    later(() => z.object({ previous_email: text, business_email: text })),
  ),
  SECURITY_CHANGED: eventOf(
    'SECURITY_CHANGED',
    later(() =>
      z.object({
        change: oneOf(SECURITY_CHANGES),
        detail: text,
        actor: z.object({ kind: oneOf(['owner', 'member', 'key', 'operator']), id: text, label: text }),
        target: nullable<string>((v) => typeof v === 'string', 'text'),
        at: timestamp,
      }),
    ),
  ),
  SUBSCRIPTION_UPDATED: eventOf('SUBSCRIPTION_UPDATED', SubscriptionEventData),
  SUBSCRIPTION_PAYMENT_FAILED: eventOf('SUBSCRIPTION_PAYMENT_FAILED', SubscriptionEventData),
} satisfies Record<(typeof EVENT_TYPES)[number], unknown>;

const {
  DEPOSIT_TRANSACTION,
  PAYOUT_UPDATED,
  DEPOSIT_REVERSED,
  DEPOSIT_UNMATCHED,
  DEPOSIT_DISCREPANCY,
  SWAP_UPDATED,
  WITHDRAWAL_UPDATED,
  REFUND_UPDATED,
  PAYOUT_ADDRESS_PENDING,
  BANK_ACCOUNT_PENDING,
  WITHDRAWAL_ADDRESS_PENDING,
  ACCOUNT_EMAIL_CHANGED,
  SECURITY_CHANGED,
  SUBSCRIPTION_UPDATED,
  SUBSCRIPTION_PAYMENT_FAILED,
} = EVENT_SCHEMAS;
export const EventPayload = later(() =>
  z.union([
    DEPOSIT_TRANSACTION,
    PAYOUT_UPDATED,
    DEPOSIT_REVERSED,
    DEPOSIT_UNMATCHED,
    DEPOSIT_DISCREPANCY,
    SWAP_UPDATED,
    WITHDRAWAL_UPDATED,
    REFUND_UPDATED,
    PAYOUT_ADDRESS_PENDING,
    BANK_ACCOUNT_PENDING,
    WITHDRAWAL_ADDRESS_PENDING,
    ACCOUNT_EMAIL_CHANGED,
    SECURITY_CHANGED,
    SUBSCRIPTION_UPDATED,
    SUBSCRIPTION_PAYMENT_FAILED,
  ]),
);

/** GET /api/v1/events: one event, its payload and its delivery attempts. */
export const EventRecord = later(() =>
  z.object({
    id: text,
    seq: int,
    type: oneOf(EVENT_TYPES),
    state: oneOf(['pending', 'delivered', 'failed', 'no_endpoint']),
    created: timestamp,
    nextAttemptAt: nullable<string>((v) => typeof v === 'string', 'an ISO 8601 time'),
    payload: EventPayload,
    attempts: z.array(
      z.object({ attempt: int, url: text, status: int, error: nullable<string>((v) => typeof v === 'string', 'text'), durationMs: int, at: timestamp }),
    ),
  }),
);
/** The feed's page: `next` is never null (the feed goes on: the cursor to follow it from), `has_more` says whether more events are already there. */
export const EventsAnswer = later(() => z.object({ ...envelope(), data: z.array(EventRecord), ...pageAnswer(), next: text }));

const payoutCurrency = oneOf(PAYOUT_CURRENCIES);
const fieldText = z.optional(text);

/** A registered bank account: its currency, the write fields it was given, and whether it is the default. */
export const BankPayout = later(() =>
  z.object({
    id: text,
    currency: payoutCurrency,
    bank_name: fieldText,
    bank_code: fieldText,
    account_name: fieldText,
    account_number: fieldText,
    country: fieldText,
    account_type: fieldText,
    routing_number: fieldText,
    city: fieldText,
    state: fieldText,
    address: fieldText,
    street: fieldText,
    postal_code: fieldText,
    default: bool,
    createdAt: timestamp,
    updatedAt: timestamp,
    /** Live keys: a new account is paid to only from this time (the operator's delay after it was added). */
    effectiveAt: z.optional(timestamp),
    /** Live keys: new details waiting for the delay; until `effective_at`, payouts go to the details above. */
    pending: z.optional(DestinationChange),
  }),
);

/** A payout to a bank account and its state. */
export const Payout = later(() =>
  z.object({
    id: text,
    payout_bank_id: text,
    coin: text,
    amount: is<number>((v) => typeof v === 'number' && v >= 0, 'a number of at least 0'),
    currency: payoutCurrency,
    fiat_amount: is<number>((v) => typeof v === 'number' && v >= 0, 'a number of at least 0'),
    reference: text,
    metadata: nullable<Record<string, unknown>>((v) => !!v && typeof v === 'object' && !Array.isArray(v), 'an object'),
    status: oneOf(['pending', 'processing', 'paid', 'failed']),
    failure: nullable<string>((v) => typeof v === 'string', 'text'),
    createdAt: timestamp,
    updatedAt: timestamp,
  }),
);

/** GET /api/v1/bank/payouts/withdrawals: a page of the payouts, newest first. */
export const PayoutsPage = later(() => z.object({ ...envelope(), data: z.array(Payout), ...pageAnswer() }));

export const Country = later(() => z.object({ country: text, currency: payoutCurrency }));
export const Bank = later(() => z.object({ name: text, code: text }));
export const Rate = later(() =>
  z.object({ coin: text, currency: payoutCurrency, rate: is<number>((v) => typeof v === 'number' && v > 0, 'a number greater than 0') }),
);
export const Deleted = later(() => z.object({ deleted: z.array(text) }));

export const Alive = later(() => z.object({ status: oneOf(['ok']) }));
/** GET /readyz: each check, 200 when all pass and 503 naming those that do not. */
export const Readiness = later(() =>
  z.object({ status: oneOf(['success', 'error']), statusCode: int, message: text, data: z.array(z.object({ name: text, ok: bool, detail: text })) }),
);

// The schemas and the types the SDK exports say the same.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const agree: [Same<z.output<typeof ChainTransferSchema>, ChainTransfer>, z.output<typeof Payout> extends PayoutEventData ? true : false] = [true, true];
void agree;
