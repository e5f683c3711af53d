// The merchant's dashboard and the API it stands on: the payments list, one payment with its
// timeline, a rolled secret key (public API: secret key or a dashboard session), and the
// dashboard's own sign-in (its session, set-password and sign-in bodies). Read by the service
// and by the dashboard in the browser.
import * as z from 'zod/mini';
import { COINS, email, int, is, later, nullable, oneOf, text, timestamp } from './fields.ts';
import { MerchantVerification, STATUSES } from './schemas.ts';

const envelope = () => ({ status: oneOf(['success']), statusCode: int, message: z.optional(text) });

/** GET /api/v1/payments: its query. `cursor` is `next` of the page before. */
export const PaymentsQuery = later(() =>
  z.object({
    cursor: z.optional(is<string>((v) => typeof v === 'string' && /^\d{1,16}\.\d{1,19}$/.test(v), 'a cursor: next of the page before')),
    limit: z.optional(is<string>((v) => typeof v === 'string' && /^\d+$/.test(v) && Number(v) >= 1 && Number(v) <= 100, 'a whole number from 1 to 100')),
    status: z.optional(oneOf(STATUSES)),
    coin: z.optional(oneOf(COINS)),
    from: z.optional(timestamp),
    to: z.optional(timestamp),
    q: z.optional(is<string>((v) => typeof v === 'string' && v.length <= 254, 'a reference, e-mail, deposit address or transaction hash')),
  }),
);

/** A payment in the list: as verify answers the secret key, and when it was made. */
export const PaymentSummary = later(() => z.object({ ...MerchantVerification.shape, createdAt: timestamp }));
export type PaymentSummary = z.infer<typeof PaymentSummary>;

export const PaymentsPage = later(() => z.object({ ...envelope(), data: z.array(PaymentSummary), next: nullable<string>((v) => typeof v === 'string', 'text') }));
export type PaymentsPage = z.infer<typeof PaymentsPage>;

export const TIMELINE_KINDS = ['created', 'transfer', 'confirmed', 'settled', 'expired', 'swept', 'event', 'attempt'] as const;

/**
 * One step of a payment's life, oldest first. `transfer`: money seen (state `seen` while it
 * confirms; `credited` once counted; `orphaned`, `late`, `unexpected`, `dust`); `swept`: moved
 * to the payout address (no time is kept for it); `event`: told to the webhook URL; `attempt`:
 * one delivery of that event, with the endpoint's answer.
 */
export const TimelineEntry = later(() =>
  z.object({
    kind: oneOf(TIMELINE_KINDS),
    at: nullable<string>((v) => typeof v === 'string', 'an ISO 8601 time'),
    txHash: z.optional(text),
    amount: z.optional(text),
    state: z.optional(text),
    blockNumber: z.optional(int),
    eventId: z.optional(text),
    eventType: z.optional(text),
    httpStatus: z.optional(int),
    error: z.optional(nullable<string>((v) => typeof v === 'string', 'text')),
  }),
);
export type TimelineEntry = z.infer<typeof TimelineEntry>;

/** GET /api/v1/payments/:reference. */
export const PaymentDetail = later(() => z.object({ payment: PaymentSummary, timeline: z.array(TimelineEntry), explorer: nullable<string>((v) => typeof v === 'string', 'text') }));
export type PaymentDetail = z.infer<typeof PaymentDetail>;

/** At most a week: a rolled key's old one keeps working that long at most. */
export const MAX_REVOKE_DELAY_SECONDS = 604_800;

/** POST /api/v1/keys/roll's body (optional): how long the old key keeps working, in seconds (0, the default: it is refused now). */
export const RollKeyBody = later(() =>
  z.object({
    revoke_old_after: z.optional(is<number>((v) => Number.isSafeInteger(v) && (v as number) >= 0 && (v as number) <= MAX_REVOKE_DELAY_SECONDS, 'whole seconds from 0 to 604800 (a week)')),
  }),
);

/**
 * POST /api/v1/keys/roll: the mode's new secret key, shown this once; the old one is refused
 * from now, or from `oldKeyValidUntil` when the roll gave a delay.
 */
export const RolledKey = later(() => z.object({ mode: oneOf(['test', 'live']), secretKey: text, oldKeyValidUntil: nullable<string>((v) => typeof v === 'string', 'an ISO 8601 time') }));
export type RolledKey = z.infer<typeof RolledKey>;

const network = nullable<{ chainId: number; name: string }>(
  (v) => !!v && typeof v === 'object' && Number.isSafeInteger((v as { chainId: unknown }).chainId) && typeof (v as { name: unknown }).name === 'string',
  'a network: { chainId, name }',
);

/**
 * The dashboard's session: who is signed in, the token its state-changing requests carry, the
 * public keys, and each mode's network (null: none configured; the dashboard opens in live
 * mode when live has one).
 */
export const DashboardSession = later(() =>
  z.object({
    merchant: z.object({ id: text, businessName: text, businessEmail: text }),
    csrfToken: text,
    expiresAt: timestamp,
    publicKeys: z.object({ test: text, live: text }),
    networks: z.object({ test: network, live: network }),
  }),
);
export type DashboardSession = z.infer<typeof DashboardSession>;

const password = is<string>((v) => typeof v === 'string' && v.length >= 1 && v.length <= 200, 'a password of at most 200 characters');
export const SignInBody = later(() => z.object({ email, password }));
export const SetPasswordBody = later(() =>
  z.object({
    token: is<string>((v) => typeof v === 'string' && /^[A-Za-z0-9_-]{20,100}$/.test(v), 'the token of a sign-in link'),
    password: is<string>((v) => typeof v === 'string' && v.length >= 10 && v.length <= 200, 'a password of 10 to 200 characters'),
  }),
);

/** The answer of every dashboard session endpoint. */
export const SessionAnswer = later(() => z.object({ ...envelope(), data: DashboardSession }));

/** GET/PATCH /api/v1/account: the business as customers see it (its logo's URL on this service, or ""). */
export const Business = later(() => z.object({ businessName: text, businessEmail: text, businessLogo: text }));
export type Business = z.infer<typeof Business>;
export const BusinessAnswer = later(() => z.object({ ...envelope(), data: Business }));

/** PATCH /api/v1/account: a new name or e-mail (the e-mail the owner signs in with, too). */
export const BusinessBody = later(() =>
  z.object({
    business_name: z.optional(is<string>((v) => typeof v === 'string' && v.trim().length >= 1 && v.length <= 100, 'a name of 1 to 100 characters')),
    business_email: z.optional(email),
  }),
);

/** GET /api/v1/account/warnings: what blocks the merchant's money in the mode, each with a code and a sentence. */
export const WARNING_CODES = ['no_webhook_url', 'no_payout_address', 'webhook_failing', 'not_ready'] as const;
export const MoneyWarning = later(() => z.object({ code: oneOf(WARNING_CODES), message: text }));
export type MoneyWarning = z.infer<typeof MoneyWarning>;
export const WarningsAnswer = later(() => z.object({ ...envelope(), data: z.array(MoneyWarning) }));
