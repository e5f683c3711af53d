// Bank payouts: which fields each currency needs (the spec's table), the banks and rates the
// sandbox knows, what a withdrawal converts to, and the states a payout moves through.
import type { z } from 'zod/mini';
import { fractionDigits, toUnits } from '../../contract/money.ts';
import { PAYOUT_CURRENCIES, REQUIRED_FIELDS, WRITE_FIELDS, type PayoutCurrency, type PayoutFields } from '../../contract/payouts.ts';
import { invalidField, invalidFields } from '../domain/errors.ts';

export const COUNTRIES: Array<{ country: string; currency: PayoutCurrency }> = [
  { country: 'united states', currency: 'USD' },
  { country: 'nigeria', currency: 'NGN' },
  { country: 'ghana', currency: 'GHS' },
];

export const BANKS: Record<string, Array<{ name: string; code: string }>> = {
  'united states': [
    { name: 'JPMorgan Chase Bank', code: '021000021' },
    { name: 'Bank of America', code: '026009593' },
  ],
  nigeria: [
    { name: 'Access Bank', code: '044' },
    { name: 'Guaranty Trust Bank', code: '058' },
    { name: 'Zenith Bank', code: '057' },
  ],
  ghana: [
    { name: 'GCB Bank', code: 'GH040100' },
    { name: 'Ecobank Ghana', code: 'GH130100' },
  ],
};

/** Units of each payout currency one USDT buys. */
export const PAYOUT_RATES: Record<PayoutCurrency, string> = { USD: '1', NGN: '1550', GHS: '15.40' };
export const PAYOUT_COIN = 'USDT';
/** Payout amounts are counted at this precision (micro-USDT). */
export const PAYOUT_DECIMALS = 6;

export type Fields = Partial<Record<(typeof WRITE_FIELDS)[number], string>>;
export type PayoutStatus = 'pending' | 'processing' | 'paid' | 'failed';

export interface BankAccount extends Fields {
  id: string;
  currency: PayoutCurrency;
  default: boolean;
  createdAt: string;
  updatedAt: string;
  /** Live keys: paid to only from this time (the operator's delay after it was added). */
  effectiveAt?: string;
}

export interface Payout {
  id: string;
  payout_bank_id: string;
  coin: string;
  amount: number;
  currency: PayoutCurrency;
  fiat_amount: number;
  reference: string;
  metadata: Record<string, unknown> | null;
  status: PayoutStatus;
  failure: string | null;
  createdAt: string;
  updatedAt: string;
}

/** Where a payout goes after it is made: a bank partner's API, or the sandbox's stand-in. */
export interface PayoutProvider {
  /** Hands the payout over; answers the provider's reference for it. */
  submit(payout: Payout, bank: BankAccount): Promise<string>;
  /** Where the payout stands at the provider now. */
  check(providerRef: string, payout: Payout, bank: BankAccount | undefined): Promise<{ status: 'processing' | 'paid' } | { status: 'failed'; reason: string }>;
}

export const isPayoutCurrency = (v: string): v is PayoutCurrency => (PAYOUT_CURRENCIES as readonly string[]).includes(v);

/** Every required field present, nothing another currency's, country and bank consistent. */
export function checkBankFields(currency: PayoutCurrency, fields: Fields): void {
  const required = REQUIRED_FIELDS[currency];
  const errors = required
    .filter((name) => !fields[name as keyof Fields])
    .map((field) => ({ field, message: `expected ${field} for a ${currency} payout, received nothing` }));
  for (const name of WRITE_FIELDS) {
    if (fields[name] !== undefined && !required.includes(name))
      errors.push({ field: name, message: `expected nothing: ${name} is not used for ${currency} payouts` });
  }
  const country = COUNTRIES.find((c) => c.country === fields.country);
  if (fields.country && country?.currency !== currency) {
    errors.push({
      field: 'country',
      message: `expected ${COUNTRIES.find((c) => c.currency === currency)!.country} for ${currency}, received ${JSON.stringify(fields.country)}`,
    });
  }
  if (fields.bank_code && country && !BANKS[country.country].some((b) => b.code === fields.bank_code)) {
    errors.push({
      field: 'bank_code',
      message: `expected a bank code of ${country.country} (GET /api/v1/bank?country=${encodeURIComponent(country.country)}), received ${JSON.stringify(fields.bank_code)}`,
    });
  }
  if (currency === 'USD' && fields.account_type && fields.account_type !== 'personal' && fields.account_type !== 'business') {
    errors.push({ field: 'account_type', message: `expected personal or business, received ${JSON.stringify(fields.account_type)}` });
  }
  const invalid = invalidFields(errors, 'Invalid bank payout: ');
  if (invalid) throw invalid;
}

/** An update applied to a stored account: the merged fields, checked as a whole. */
export function mergeBankUpdate(record: BankAccount, body: z.output<typeof PayoutFields>): { fields: Fields; makeDefault: boolean } {
  const { default: isDefault, ...changes } = body;
  const { id: _id, currency, default: _d, createdAt: _c, updatedAt: _u, ...current } = record;
  const fields = { ...current, ...Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined)) } as Fields;
  checkBankFields(currency, fields);
  return { fields, makeDefault: isDefault === true };
}

/** The withdrawal's amount in payout units, checked: USDT only, at most 6 decimals. */
export function payoutUnits(coin: string, amount: number): bigint {
  if (coin !== PAYOUT_COIN)
    throw invalidField(
      'coin',
      `expected ${PAYOUT_COIN}, received ${JSON.stringify(coin)}; only ${PAYOUT_COIN} is paid out, so swap your ${coin} to ${PAYOUT_COIN} first (POST /api/v1/swaps/quote, then POST /api/v1/swaps)`,
    );
  const units = toUnits(amount, PAYOUT_DECIMALS);
  if (units === undefined) throw invalidField('amount', `expected at most ${PAYOUT_DECIMALS} decimal places, received ${amount}`);
  return units;
}

/**
 * What the bank receives, in cents, rounded down: never promise more than is sent. `rate`:
 * units of the currency one USDT buys, as decimal text (the rate provider's, or the table's).
 */
export const fiatCentsOf = (units: bigint, currency: PayoutCurrency, rate: string = PAYOUT_RATES[currency]): bigint => {
  const digits = fractionDigits(rate);
  return (units * toUnits(rate, digits)! * 100n) / 10n ** BigInt(PAYOUT_DECIMALS + digits);
};
