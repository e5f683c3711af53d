// Bank payouts on the wire: the spec's write fields per currency (USD, NGN, GHS), and what
// the sandbox answers where the spec shows nothing. For the stub API and merchant servers.
import * as z from 'zod/mini';
import { bool, is, text } from './fields.ts';

// The currencies and their fields live in payout-fields.ts, which the dashboard's bundle imports
// without this file's schemas.
export { PAYOUT_CURRENCIES, REQUIRED_FIELDS, WRITE_FIELDS, type PayoutCurrency } from './payout-fields.ts';
import { WRITE_FIELDS, PAYOUT_CURRENCIES, type PayoutCurrency } from './payout-fields.ts';

const filled = is<string>((v) => typeof v === 'string' && v.trim().length > 0 && v.length <= 200, 'text of 1 to 200 characters');

/** The shape any payout body may have; which fields are required is checked per currency. */
export const PayoutFields = z.object({
  ...Object.fromEntries(WRITE_FIELDS.map((name) => [name, z.optional(filled)])),
  country: z.optional(is<string>((v) => typeof v === 'string' && /^[a-z][a-z ]{1,59}$/.test(v), 'a lower-case country name such as nigeria')),
  default: z.optional(bool),
}) as z.ZodMiniObject<Record<(typeof WRITE_FIELDS)[number], z.ZodMiniOptional<typeof filled>> & { default: z.ZodMiniOptional<typeof bool> }>;

export const PayoutBody = z.extend(PayoutFields, {
  currency: is<PayoutCurrency>((v) => PAYOUT_CURRENCIES.includes(v as PayoutCurrency), `one of ${PAYOUT_CURRENCIES.join(', ')}`),
});

export const DeletePayoutsBody = z.object({
  ids: z
    .array(is<string>((v) => typeof v === 'string' && v.length > 0, 'a payout id'))
    .check(z.minLength(1, 'from 1 to 100 payout ids'), z.maxLength(100, 'from 1 to 100 payout ids')),
});

export const InitiatePayoutBody = z.object({
  payout_bank_id: is<string>((v) => typeof v === 'string' && v.length > 0, 'the id of a registered bank payout'),
  coin: text,
  amount: is<number>((v) => typeof v === 'number' && Number.isFinite(v) && v > 0, 'an amount greater than 0'),
  reference: z.optional(is<string>((v) => typeof v === 'string' && /^[A-Za-z0-9._:-]{1,64}$/.test(v), '1 to 64 letters, digits or . _ : -')),
  metadata: z.optional(is<Record<string, unknown>>((v) => !!v && typeof v === 'object' && !Array.isArray(v), 'an object')),
});
