// The wire shapes of refunds: money of a payment sent back to an address the merchant
// names. Every amount is exact decimal text of the payment's coin ("5" is five USDT, "0.5" half
// of one), as every other amount of the API; the service counts in integer base units, parsed
// from that text with the coin's decimals. The old form, base units as text, is taken and shown
// only under its own name, `amount_base_units`, for a deprecation period.
import * as z from 'zod/mini';
import { exactlyOne, int, is, later, nullable, oneOf, says, text, timestamp } from './fields.ts';
import { pageAnswer, pageQuery } from './paging.ts';

/**
 * A refund's life, each change a REFUND_UPDATED event and a line in its payment's timeline:
 * `waiting_for_address` (made without an address: the amount reserved, the customer's claim
 * link handed out) → `ready` (the amount reserved from the balance, waiting for the treasury
 * to sign) → `sent` (its transaction signed and sent, `tx_hash` set) → `confirmed` (its block
 * has the network's confirmations); or `failed` (reverted, or never mined: the amount is back
 * in the balance); or `canceled` (by the merchant before it was sent, or its claim link
 * expired: the amount is back in the balance).
 */
export const REFUND_STATES = ['waiting_for_address', 'ready', 'sent', 'confirmed', 'failed', 'canceled'] as const;
export type RefundState = (typeof REFUND_STATES)[number];

/** `amount`: exact decimal text of the payment's coin (such as "5" or "0.5"), or "rest": all that arrived and is not refunded yet. */
export const REFUND_REST = 'rest';

/** Decimal text of a coin amount greater than 0: digits, and a fraction of up to 36 (the coin's own decimals are checked by the service). */
export const COIN_AMOUNT = /^\d{1,36}(\.\d{1,36})?$/;
const isCoinAmount = (v: unknown): v is string => typeof v === 'string' && COIN_AMOUNT.test(v) && /[1-9]/.test(v);
const isBaseUnits = (v: unknown): v is string => typeof v === 'string' && /^\d{1,78}$/.test(v) && /[1-9]/.test(v);

const coinAmount = is<string>(
  (v) => v === REFUND_REST || isCoinAmount(v),
  'an amount greater than 0 as exact decimal text of the coin (such as "5" or "0.5"), or "rest"',
);
const baseUnits = is<string>(isBaseUnits, 'base units greater than 0 as a whole number in text (such as "5000000")');
/** An amount in an answer: exact decimal text of the coin. */
const exact = is<string>((v) => typeof v === 'string' && /^\d+(\.\d+)?$/.test(v), 'a decimal amount as text');
const whole = is<string>((v) => typeof v === 'string' && /^\d+$/.test(v), 'a whole number as text');
const reference = is<string>((v) => typeof v === 'string' && /^[A-Za-z0-9._:-]{1,64}$/.test(v), '1 to 64 letters, digits or . _ : -');
const address = is<string>(
  (v) => typeof v === 'string' && /^0x[0-9a-fA-F]{40}$/.test(v) && !/^0x0{40}$/.test(v),
  'a 0x address of 40 hex digits, not the zero address',
);

/** What each amount field of a refund says of its form, in the API's document. */
export const REFUND_AMOUNT_WORDS = {
  amount:
    'Exact decimal text of the payment\'s coin (such as "5" for five USDT, "0.5" for half of one), at most as many decimals as the coin has; or "rest": all that arrived and is not refunded yet.',
  amountBaseUnits:
    'Deprecated (use `amount`): the same amount in base units of the payment\'s coin, a whole number in text ("5000000000000000000" is 5 USDT of 18 decimals). Accepted for a deprecation period, its answer marked with a `Deprecation` header; send `amount` or this, not both.',
  shown: 'Exact decimal text of the payment\'s coin (such as "0.5"): the form of every amount of the API.',
  shownExact: 'Deprecated: the same as `amount` (exact decimal text of the coin), kept for older clients.',
  shownBaseUnits: 'Deprecated: `amount` in base units of the coin, a whole number in text, kept for older clients during the deprecation period.',
  transferBaseUnits: "The same amount in base units of the token, a whole number in text: the `uint256` the token's transfer carries (as in `uri`).",
} as const;
/** POST /api/v1/refunds */
export const RefundBody = later(() =>
  z
    .object({
      reference,
      amount: z.optional(says(coinAmount, REFUND_AMOUNT_WORDS.amount)),
      amount_base_units: z.optional(says(baseUnits, REFUND_AMOUNT_WORDS.amountBaseUnits, true)),
      /** Why, for the merchant's books and the customer (up to 500 characters). */
      reason: is<string>((v) => typeof v === 'string' && v.trim().length > 0 && v.length <= 500, 'a reason of 1 to 500 characters'),
      /**
       * The customer's wallet, as the merchant knows it: EIP-55 mixed case, or all lower case.
       * Left out: the refund waits for the customer, who names it through `claim_url`.
       */
      address: z.optional(address),
    })
    .check(
      exactlyOne(
        ['amount', 'amount_base_units'],
        'the amount to refund: `amount` (exact decimal text of the payment\'s coin, or "rest") or, deprecated, `amount_base_units`; one of the two',
      ),
    ),
);

/** GET /api/v1/refunds: newest first, by cursor, filtered like the payments list. */
export const RefundsQuery = later(() =>
  z.object({
    ...pageQuery(),
    status: z.optional(oneOf(REFUND_STATES)),
    reference: z.optional(reference),
    from: z.optional(timestamp),
    to: z.optional(timestamp),
  }),
);

const maybeText = nullable<string>((v) => typeof v === 'string', 'text');

export const Refund = later(() =>
  z.object({
    id: text,
    reference: text,
    coin: text,
    chain_id: int,
    /** Null while the refund waits for the customer to claim it. */
    address: maybeText,
    amount: says(exact, REFUND_AMOUNT_WORDS.shown),
    amount_exact: says(exact, REFUND_AMOUNT_WORDS.shownExact, true),
    amount_base_units: says(whole, REFUND_AMOUNT_WORDS.shownBaseUnits, true),
    reason: text,
    settlement: oneOf(['balance', 'wallet']),
    status: oneOf(REFUND_STATES),
    tx_hash: maybeText,
    failure: maybeText,
    /** When the claim link stops working (null: a refund made with an address). */
    claim_expires_at: nullable<string>((v) => typeof v === 'string', 'an ISO 8601 time'),
    /**
     * The single-use link the customer names their address on: in the answer of the POST that
     * made the refund only (the service keeps its hash alone, so it cannot show it again).
     */
    claim_url: z.optional(text),
    /**
     * On `wallet` settlement, once the address is known: the one transfer that pays the refund,
     * for the merchant's own wallet to send (the service holds none of the money). `uri` is its
     * EIP-681 request (ethereum:<token>@<chain_id>/transfer?address=<to>&uint256=<amount>),
     * `GET /api/v1/refunds/{id}/qr` the same as a QR code. Null on `balance` settlement (the
     * treasury sends it) and while the refund waits for its address.
     */
    transfer: z.nullable(
      z.object({
        uri: text,
        token: text,
        chain_id: int,
        to: text,
        amount: says(exact, REFUND_AMOUNT_WORDS.shown),
        amount_base_units: says(whole, REFUND_AMOUNT_WORDS.transferBaseUnits),
      }),
    ),
    createdAt: timestamp,
    updatedAt: timestamp,
  }),
);
export type RefundView = z.infer<typeof Refund>;

export const RefundsPage = later(() =>
  z.object({ status: oneOf(['success']), statusCode: int, message: z.optional(text), data: z.array(Refund), ...pageAnswer() }),
);
