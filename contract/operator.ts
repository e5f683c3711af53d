// The operator's endpoints (/operator/v1/…), which the service's own commands call with the
// operator token: a merchant to make, and what the service answers. Checked on both sides.
import * as z from 'zod/mini';
import { bool, businessName, email, is, later, oneOf, text } from './fields.ts';

/** POST /operator/v1/merchants: the business a new merchant is. */
export const MerchantCreateBody = later(() =>
  z.object({
    name: businessName,
    email,
    logo: z.optional(is<string>((v) => typeof v === 'string' && v.length <= 2048 && (v === '' || /^https:\/\/[^\s"<>]+$/.test(v)), 'an https:// URL')),
  }),
);
export type MerchantCreateBody = z.input<typeof MerchantCreateBody>;

const keyPair = later(() => z.object({ publicKey: text, secretKey: text }));

/** Its answer, the one time the secret keys are shown: the service keeps only their hashes. */
export const CreatedMerchant = later(() =>
  z.object({
    id: text,
    businessName: text,
    businessEmail: text,
    keys: z.object({ test: keyPair, live: keyPair }),
    webhookSecrets: z.object({ test: text, live: text }),
    /** The dashboard's one-time sign-in link (24 hours), where the owner sets a password. */
    signInUrl: z.optional(text),
  }),
);
export type CreatedMerchant = z.infer<typeof CreatedMerchant>;

/** POST /operator/v1/merchants/:id/secret-keys: new secret keys, shown this once; the old ones stop working. */
export const RolledKeys = later(() => z.object({ id: text, secretKeys: z.object({ test: text, live: text }) }));
export type RolledKeys = z.infer<typeof RolledKeys>;

/** POST /operator/v1/merchants/:id/sign-in-link: a new one-time sign-in link (a forgotten password). */
/** `emailed`: the link was also e-mailed to the owner's sign-in address (SMTP_URL set); absent from services before e-mail. */
export const SignInLink = later(() => z.object({ id: text, signInUrl: text, emailed: z.optional(bool) }));
export type SignInLink = z.infer<typeof SignInLink>;

/** GET /operator/v1/merchants: every business, oldest first. */
export const MerchantList = later(() => z.array(z.object({ id: text, businessName: text, businessEmail: text, businessLogo: text })));
export type MerchantList = z.infer<typeof MerchantList>;

/** A daily withdrawal limit: US dollars as decimal text, to the cent ("0" allows none). */
export const isDailyLimit = (v: unknown): v is string => typeof v === 'string' && /^\d{1,15}(\.\d{1,2})?$/.test(v);

/**
 * PUT /operator/v1/merchants/:id/withdrawal-limits: a merchant's ONE daily limit in a mode on money
 * leaving its balance (withdrawals to wallets and bank payouts, every coin on every network), in
 * US dollars; null: back to the service's default.
 */
export const WithdrawalLimitBody = later(() =>
  z.object({
    mode: oneOf(['test', 'live']),
    daily: z.nullable(is<string>(isDailyLimit, 'US dollars as decimal text, such as "5000" or "2500.50" ("0" allows no withdrawals)')),
  }),
);
export type WithdrawalLimitBody = z.input<typeof WithdrawalLimitBody>;

/** Its answer: the limit that now holds, and whether it is the merchant's own or the default. */
export const WithdrawalLimit = later(() =>
  z.object({ id: text, mode: oneOf(['test', 'live']), currency: z.literal('USD'), daily: text, default: z.boolean() }),
);
export type WithdrawalLimit = z.infer<typeof WithdrawalLimit>;

/** POST /operator/v1/treasury/holds/resolve: the operator lifts a chain's hold on money movements, saying who and why. */
export const TreasuryResolveBody = later(() =>
  z.object({
    chain_id: is<number>((v) => Number.isSafeInteger(v) && (v as number) > 0, 'a chain id (a positive whole number)'),
    by: is<string>((v) => typeof v === 'string' && v.trim().length > 0 && v.trim().length <= 100, 'who resolves it: 1 to 100 characters'),
    why: is<string>((v) => typeof v === 'string' && v.trim().length > 0 && v.trim().length <= 500, 'why it is resolved: 1 to 500 characters'),
  }),
);
export type TreasuryResolveBody = z.input<typeof TreasuryResolveBody>;

/**
 * PUT /operator/v1/merchants/:id/fees: the operator's fee on a merchant's new payments in a mode
 * `bps` basis points (100 is 1%, at most 1000) and who bears it (`customer`: added to
 * the price; `merchant`: deducted from what it receives; `customer` when not said); `bps` null:
 * back to the service's default (FEE_BPS, FEE_BEARER). Payments already made keep their terms.
 */
export const MerchantFeeBody = later(() =>
  z.object({
    mode: oneOf(['test', 'live']),
    bps: z.nullable(is<number>((v) => Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 1000, 'whole basis points from 0 to 1000 (100 is 1%)')),
    bearer: z.optional(oneOf(['customer', 'merchant'])),
  }),
);
export type MerchantFeeBody = z.input<typeof MerchantFeeBody>;

/** Its answer: the terms that now hold, and whether they are the service's default. */
export const MerchantFee = later(() =>
  z.object({ id: text, mode: oneOf(['test', 'live']), bps: z.number(), bearer: oneOf(['customer', 'merchant']), default: z.boolean() }),
);
export type MerchantFee = z.infer<typeof MerchantFee>;
