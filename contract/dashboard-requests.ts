// The bodies and queries of the dashboard's API that only the service reads (the browser sends
// plain objects and the service checks them here, once, at its edge): kept apart from
// dashboard.ts so that the dashboard's bundle does not carry them.
import * as z from 'zod/mini';
import { businessName, COINS, email, is, later, oneOf, timestamp } from './fields.ts';
import { pageAnswer, pageQuery } from './paging.ts';
import { PaymentsPage } from './dashboard.ts';
import { AttentivePayment } from './attention.ts';
import { STATUSES } from './schemas.ts';

/** GET /api/v1/payments: its query. `cursor` is `next` of the page before. */
export const PaymentsQuery = later(() =>
  z.object({
    ...pageQuery(),
    status: z.optional(oneOf(STATUSES)),
    coin: z.optional(oneOf(COINS)),
    from: z.optional(timestamp),
    to: z.optional(timestamp),
    q: z.optional(is<string>((v) => typeof v === 'string' && v.length <= 254, 'a reference, e-mail, deposit address or transaction hash')),
    /** `true`: only payments that need the merchant's attention (contract/attention.ts). */
    needs_attention: z.optional(oneOf(['true', 'false'] as const)),
  }),
);

/** GET /api/v1/payments: its answer, with every list's paging fields (the dashboard reads PaymentsPage, the fields it shows). */
export const PaymentsList = later(() => z.object({ ...PaymentsPage.shape, data: z.array(AttentivePayment), ...pageAnswer() }));

/** At most a week: a rolled key's old one keeps working that long at most. */
export const MAX_REVOKE_DELAY_SECONDS = 604_800;

/** POST /api/v1/keys/roll's body (optional): how long the old key keeps working, in seconds (0, the default: it is refused now). */
export const RollKeyBody = later(() =>
  z.object({
    revoke_old_after: z.optional(
      is<number>((v) => Number.isSafeInteger(v) && (v as number) >= 0 && (v as number) <= MAX_REVOKE_DELAY_SECONDS, 'whole seconds from 0 to 604800 (a week)'),
    ),
  }),
);

const password = is<string>((v) => typeof v === 'string' && v.length >= 1 && v.length <= 200, 'a password of at most 200 characters');
export const SignInBody = later(() => z.object({ email, password }));
export const SetPasswordBody = later(() =>
  z.object({
    token: is<string>((v) => typeof v === 'string' && /^[A-Za-z0-9_-]{20,100}$/.test(v), 'the token of a sign-in link'),
    password: is<string>((v) => typeof v === 'string' && v.length >= 10 && v.length <= 200, 'a password of 10 to 200 characters'),
  }),
);

/** PATCH /api/v1/account: a new name or e-mail (the e-mail the owner signs in with, too). */
export const BusinessBody = later(() =>
  z.object({
    business_name: z.optional(businessName),
    business_email: z.optional(email),
    /** The owner's current password: a new sign-in e-mail needs it (and the dashboard's session). */
    current_password: z.optional(password),
  }),
);
