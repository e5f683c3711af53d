// Bank accounts' fields per currency (USD, NGN, GHS), exactly as the spec's table says: the
// service checks them (server/payouts/rules.ts) and the dashboard's form asks for them. No
// schema here, so the dashboard's bundle carries the table alone.
export const PAYOUT_CURRENCIES = ['USD', 'NGN', 'GHS'] as const;
export type PayoutCurrency = (typeof PAYOUT_CURRENCIES)[number];

/** Which write fields each currency requires, exactly as the spec's table says. */
export const REQUIRED_FIELDS: Record<PayoutCurrency, readonly string[]> = {
  USD: ['bank_name', 'account_name', 'account_number', 'country', 'account_type', 'routing_number', 'city', 'state', 'address', 'postal_code'],
  NGN: ['bank_name', 'bank_code', 'account_name', 'account_number', 'country', 'state'],
  GHS: ['bank_name', 'bank_code', 'account_name', 'account_number', 'country', 'city', 'address', 'street', 'postal_code'],
};
export const WRITE_FIELDS = [
  'bank_name',
  'bank_code',
  'account_name',
  'account_number',
  'country',
  'account_type',
  'routing_number',
  'city',
  'state',
  'address',
  'street',
  'postal_code',
] as const;
