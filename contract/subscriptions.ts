// Subscriptions from ordinary wallets (secret key or the dashboard's session): a plan is a price
// in one coin on one chain for a number of periods; a subscription is a customer's wallet on a
// plan. The customer approves the service's charging address (`approve.spender`) once for
// price × periods of the coin (one ERC-20 approve); the service charges each period at or after
// its start, as an ordinary payment. Amounts are exact decimal text of the coin, as refunds' are.
import * as z from 'zod/mini';
import { uuid } from './payment-links.ts';
import { pageAnswer, pageQuery } from './paging.ts';
import { chainId, coin, int, is, later, nullable, oneOf, text, timestamp } from './fields.ts';

const envelope = () => ({ status: oneOf(['success']), statusCode: int, message: z.optional(text) });

/** How long a period is: a day, a week, a calendar month or a calendar year (UTC). */
export const PERIODS = ['day', 'week', 'month', 'year'] as const;
export type Period = (typeof PERIODS)[number];

/**
 * A subscription's states: `pending` (made, its first period not charged yet), `active` (its
 * last charge went through), `past_due` (a charge failed past the grace period; still retried),
 * `canceled` (by the merchant, or a charge still failing past the cancel period; never charged again).
 */
export const SUBSCRIPTION_STATES = ['pending', 'active', 'past_due', 'canceled'] as const;
export type SubscriptionState = (typeof SUBSCRIPTION_STATES)[number];

/** A price per period: exact decimal text of the coin, greater than 0 (its decimals checked by the service against the coin's). */
export const planPrice = is<string>(
  (v) => typeof v === 'string' && /^\d{1,18}(\.\d{1,36})?$/.test(v) && /[1-9]/.test(v),
  'an amount greater than 0 as decimal text, such as "12.5"',
);
const name = is<string>((v) => typeof v === 'string' && v.trim().length > 0 && v.length <= 120, 'a title of 1 to 120 characters');
const periods = is<number>((v) => Number.isSafeInteger(v) && (v as number) >= 1 && (v as number) <= 1000, 'a whole number from 1 to 1000');
/** The customer's wallet (its EIP-55 checksum, when in mixed case, checked by the service). */
const wallet = is<string>(
  (v) => typeof v === 'string' && /^0x[0-9a-fA-F]{40}$/.test(v) && !/^0x0{40}$/.test(v),
  'a 0x address of 40 hex digits, not the zero address',
);
const exact = is<string>((v) => typeof v === 'string' && /^\d+(\.\d+)?$/.test(v), 'a decimal amount as text');

/** POST /api/v1/plans. */
export const PlanBody = later(() => z.object({ name, coin, chain_id: z.optional(chainId), price: planPrice, period: oneOf(PERIODS), periods }));
export const Plan = later(() =>
  z.object({ id: text, name: text, coin: text, chainId: int, price: exact, period: oneOf(PERIODS), periods: int, createdAt: timestamp }),
);
export type Plan = z.infer<typeof Plan>;
export const PlansQuery = later(() => z.object(pageQuery()));
export const PlansPage = later(() => z.object({ ...envelope(), data: z.array(Plan), ...pageAnswer() }));

/** POST /api/v1/subscriptions: a customer's wallet on a plan; its first period starts now. */
export const SubscriptionBody = later(() => z.object({ plan_id: uuid, wallet }));

/** What a subscription and its events both say: which it is, whose, its state, and the periods charged so far (of the plan's `periods`). */
const subscriptionFields = () => ({ id: text, planId: text, wallet: text, status: oneOf(SUBSCRIPTION_STATES), charged: int });

/** A subscription, with what its customer must approve: `amount` (decimal text) of `token` to `spender`. */
export const Subscription = later(() =>
  z.object({
    ...subscriptionFields(),
    /** When the next period's charge is due (or retried), or null once none is left. */
    nextChargeAt: nullable<string>((v) => typeof v === 'string', 'an ISO 8601 time'),
    failures: int,
    approve: z.object({ chainId: int, token: text, spender: text, amount: exact }),
    canceledAt: nullable<string>((v) => typeof v === 'string', 'an ISO 8601 time'),
    createdAt: timestamp,
  }),
);
export type Subscription = z.infer<typeof Subscription>;
export const SubscriptionsQuery = later(() => z.object(pageQuery()));
export const SubscriptionsPage = later(() => z.object({ ...envelope(), data: z.array(Subscription), ...pageAnswer() }));

/** SUBSCRIPTION_UPDATED and SUBSCRIPTION_PAYMENT_FAILED's data: the subscription, and for a failure the period (0 the first) and why. */
export const SubscriptionEventData = later(() =>
  z.object({
    ...subscriptionFields(),
    period: z.optional(int),
    reason: z.optional(text),
  }),
);
export type SubscriptionEvent = z.infer<typeof SubscriptionEventData>;
