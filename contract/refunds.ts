// The wire shapes of refunds (issue 35): money of a payment sent back to an address the merchant
// names. Amounts are the coin's base units as decimal text (what arrived is counted in those),
// never a float; `amount_exact` beside it is the same in coins.
import * as z from 'zod/mini';
import { int, is, later, nullable, oneOf, text, timestamp } from './fields.ts';
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

/** `amount`: base units (a whole number as text, such as "1500000"), or "rest": all that arrived and is not refunded yet. */
export const REFUND_REST = 'rest';

const baseUnits = is<string>((v) => typeof v === 'string' && (v === REFUND_REST || (/^\d{1,78}$/.test(v) && /[1-9]/.test(v))), 'base units as a whole number in text (such as "1500000"), or "rest"');
const reference = is<string>((v) => typeof v === 'string' && /^[A-Za-z0-9._:-]{1,64}$/.test(v), '1 to 64 letters, digits or . _ : -');
const address = is<string>((v) => typeof v === 'string' && /^0x[0-9a-fA-F]{40}$/.test(v) && !/^0x0{40}$/.test(v), 'a 0x address of 40 hex digits, not the zero address');

/** POST /api/v1/refunds */
export const RefundBody = later(() =>
  z.object({
    reference,
    amount: baseUnits,
    /** Why, for the merchant's books and the customer (up to 500 characters). */
    reason: is<string>((v) => typeof v === 'string' && v.trim().length > 0 && v.length <= 500, 'a reason of 1 to 500 characters'),
    /**
     * The customer's wallet, as the merchant knows it: EIP-55 mixed case, or all lower case.
     * Left out: the refund waits for the customer, who names it through `claim_url`.
     */
    address: z.optional(address),
  }),
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
    amount: is<string>((v) => typeof v === 'string' && /^\d+$/.test(v), 'a whole number as text'),
    amount_exact: is<string>((v) => typeof v === 'string' && /^\d+(\.\d+)?$/.test(v), 'a decimal amount as text'),
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
    transfer: z.nullable(z.object({ uri: text, token: text, chain_id: int, to: text, amount: is<string>((v) => typeof v === 'string' && /^\d+$/.test(v), 'a whole number as text') })),
    createdAt: timestamp,
    updatedAt: timestamp,
  }),
);
export type RefundView = z.infer<typeof Refund>;

export const RefundsPage = later(() => z.object({ status: oneOf(['success']), statusCode: int, message: z.optional(text), data: z.array(Refund), ...pageAnswer() }));
