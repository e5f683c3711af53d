// The names of what changed, as storage NOTIFYs them on the 'changes' channel and long polls
// wait on them: one definition for both sides (chain/store.ts builds the payment key in SQL
// too, held equal by a test).

/** A payment: `<merchant>/<mode>/<reference>`. */
export const paymentKey = (merchantId: string, mode: string, reference: string) => `${merchantId}/${mode}/${reference}`;

/** An account's events feed. */
export const eventsKey = (merchantId: string, mode: string) => `events/${merchantId}/${mode}`;

/** A merchant's keys, profile, settlement or payout addresses: what instances cache (storage/account-cache.ts). */
export const merchantKey = (merchantId: string) => `merchant/${merchantId}`;
export const MERCHANT_KEY_PREFIX = 'merchant/';
