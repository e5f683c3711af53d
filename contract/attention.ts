// The wire shapes of a payment's exceptions: a payment whose money did not count as asked (more
// than due, an expired partial, money after its expiry, another coin, another chain) carries
// `attention` until the merchant resolves it in one step: accept it, or send it back.
import * as z from 'zod/mini';
import { int, is, later, nullable, oneOf, text } from './fields.ts';
import { PaymentDetail, PaymentSummary } from './dashboard.ts';

/**
 * Why a payment needs the merchant: `overpaid` (more arrived than due: the excess), `partial`
 * (expired with part of its amount, partial payments not accepted), `late` (money after it
 * expired, settled or was paid), `wrong_coin` (a listed coin it did not ask for),
 * `wrong_chain` (its address on another chain of the mode).
 */
export const ATTENTION_REASONS = ['overpaid', 'late', 'partial', 'wrong_coin', 'wrong_chain'] as const;
export type AttentionReason = (typeof ATTENTION_REASONS)[number];

/** What is owed back if it is sent back: `amount` in coins as exact decimal text, of `coin` on `chain_id`. */
export const Attention = later(() => z.object({ reason: oneOf(ATTENTION_REASONS), amount: text, coin: text, chain_id: int }));
export type Attention = z.infer<typeof Attention>;

/**
 * What the dashboard's attention panel reads of `GET /api/v1/payments?needs_attention=true`: each
 * payment's reference and attention, nothing else (its helpers only those the first load has
 * already, so the panel's chunk adds nothing to the first load).
 */
export const AttentionPage = later(() => z.object({ data: z.array(z.object({ reference: text, attention: Attention })) }));
export type AttentionRow = z.infer<typeof AttentionPage>['data'][number];

/**
 * POST /api/v1/payments/{reference}/accept, optional: `as` "keep" (the default, and all an older
 * client sends: the money kept as it arrived) or "credit" (money in another coin or on another
 * chain credited toward the payment at the rate of its arrival).
 */
export const AcceptBody = later(() => z.object({ as: z.optional(oneOf(['keep', 'credit'] as const)) }));

/** POST /api/v1/payments/{reference}/send_back: why (for the merchant's books and the customer), and the customer's wallet or none (a claim link). */
export const SendBackBody = later(() =>
  z.object({
    reason: is<string>((v) => typeof v === 'string' && v.trim().length > 0 && v.length <= 500, 'a reason of 1 to 500 characters'),
    address: z.optional(
      is<string>((v) => typeof v === 'string' && /^0x[0-9a-fA-F]{40}$/.test(v) && !/^0x0{40}$/.test(v), 'a 0x address of 40 hex digits, not the zero address'),
    ),
  }),
);

/**
 * A payment in the list (and in one payment's detail) as the service answers it: the list's
 * summary, and `overpaid` (the excess as exact decimal text when more arrived than due, else
 * null) and `attention` (null when nothing needs the merchant). Kept out of dashboard.ts, so the
 * dashboard's first load does not carry them; the attention panel reads them in its own chunk.
 */
export const AttentivePayment = later(() =>
  z.object({ ...PaymentSummary.shape, overpaid: nullable<string>((v) => typeof v === 'string', 'text'), attention: z.nullable(Attention) }),
);
export type AttentivePayment = z.infer<typeof AttentivePayment>;
/**
 * Money in another coin or on another chain credited toward the payment: what
 * arrived (`arrived` of `coin` on `chain_id`, when the service first saw it), the dollar rates
 * of both coins used and when they were fetched, and `credited` in the payment's coin (rounded
 * down), each amount as exact decimal text.
 */
export const Credit = later(() =>
  z.object({
    tx_hash: text,
    chain_id: int,
    coin: text,
    arrived: text,
    arrived_at: text,
    usd_per_arrived_coin: text,
    usd_per_payment_coin: text,
    rate_at: text,
    rate_source: text,
    credited: text,
    credited_at: text,
  }),
);
export type Credit = z.infer<typeof Credit>;
export const AttentivePaymentDetail = later(() => z.object({ ...PaymentDetail.shape, payment: AttentivePayment, credits: z.optional(z.array(Credit)) }));
