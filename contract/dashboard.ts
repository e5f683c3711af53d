// The merchant's dashboard and the API it stands on: the payments list, one payment with its
// timeline, a rolled secret key (public API: secret key or a dashboard session), and the
// dashboard's own session. Read by the service and by the dashboard in the browser; the
// bodies and queries only the service reads are in dashboard-requests.ts, out of the bundle.
import * as z from 'zod/mini';
import { bool, int, later, nullable, oneOf, text, timestamp } from './fields.ts';
import { MerchantVerification } from './schemas.ts';

const envelope = () => ({ status: oneOf(['success']), statusCode: int, message: z.optional(text) });

/** A payment in the list: as verify answers the secret key, and when it was made. */
export const PaymentSummary = later(() => z.object({ ...MerchantVerification.shape, createdAt: timestamp }));
export type PaymentSummary = z.infer<typeof PaymentSummary>;

export const PaymentsPage = later(() =>
  z.object({ ...envelope(), data: z.array(PaymentSummary), next: nullable<string>((v) => typeof v === 'string', 'text') }),
);
export type PaymentsPage = z.infer<typeof PaymentsPage>;

export const TIMELINE_KINDS = ['created', 'transfer', 'confirmed', 'settled', 'expired', 'swept', 'event', 'attempt'] as const;

/**
 * One step of a payment's life, oldest first. `transfer`: money seen (state `seen` while it
 * confirms; `credited` once counted; `orphaned`, `late`, `unexpected`, `dust`); `swept`: moved
 * to the payout address (or the treasury, on `balance` settlement), `at` the time of the block
 * the sweep was mined in (null for a sweep recorded before that time was kept). A transfer's
 * `amount` is in the payment's coin, unless `coin` and `chainId` name another (money in another
 * coin or on another chain: that coin's amount; a token the service does not list: base units
 * and `coin` its address); `relayed` true: paid by the customer's signature, brought on chain by the
 * service's gas wallet in `txHash` (paying with one signature). `event`: told to the webhook URL; `attempt`:
 * one delivery of that event, with the endpoint's answer.
 */
export const TimelineEntry = later(() =>
  z.object({
    kind: oneOf(TIMELINE_KINDS),
    at: nullable<string>((v) => typeof v === 'string', 'an ISO 8601 time'),
    txHash: z.optional(text),
    amount: z.optional(text),
    coin: z.optional(text),
    chainId: z.optional(int),
    state: z.optional(text),
    blockNumber: z.optional(int),
    relayed: z.optional(bool),
    eventId: z.optional(text),
    eventType: z.optional(text),
    httpStatus: z.optional(int),
    error: z.optional(nullable<string>((v) => typeof v === 'string', 'text')),
  }),
);
export type TimelineEntry = z.infer<typeof TimelineEntry>;

/** GET /api/v1/payments/:reference. */
/**
 * How much of a payment went back: its refunds not failed, as exact decimal text of
 * the coin (`amount_exact` the same, and base units under their own name, both
 * deprecated; the document says so: api-doc.ts); `refunded` once all that arrived.
 */
export const PaymentRefunds = later(() =>
  z.object({ status: oneOf(['none', 'partly_refunded', 'refunded']), amount: text, amount_exact: text, amount_base_units: text }),
);
export const PaymentDetail = later(() =>
  z.object({
    payment: PaymentSummary,
    timeline: z.array(TimelineEntry),
    explorer: nullable<string>((v) => typeof v === 'string', 'text'),
    refunds: z.optional(PaymentRefunds),
  }),
);
export type PaymentDetail = z.infer<typeof PaymentDetail>;

/**
 * POST /api/v1/keys/roll: the mode's new secret key, shown this once; the old one is refused
 * from now, or from `oldKeyValidUntil` when the roll gave a delay.
 */
export const RolledKey = later(() =>
  z.object({ mode: oneOf(['test', 'live']), secretKey: text, oldKeyValidUntil: nullable<string>((v) => typeof v === 'string', 'an ISO 8601 time') }),
);
export type RolledKey = z.infer<typeof RolledKey>;

// The session's shapes live in session.ts: the dashboard's first load carries them, and not the screens' shapes here.
export { DashboardSession, SessionAnswer, SessionProbe } from './session.ts';

/** GET/PATCH /api/v1/account: the business as customers see it (its logo's URL on this service, or ""). */
export const Business = later(() => z.object({ businessName: text, businessEmail: text, businessLogo: text }));
export type Business = z.infer<typeof Business>;
export const BusinessAnswer = later(() => z.object({ ...envelope(), data: Business }));

// GET /api/v1/account/warnings' shapes are in warnings.ts: only Home reads them.
