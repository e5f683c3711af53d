// Bank payouts: the merchant's registered bank accounts, and withdrawals of collected USDT
// to them. Required fields follow the spec's table per currency; each missing one is named.
import { randomUUID } from 'node:crypto';
import type * as z from 'zod/mini';
import type { KeyMode } from '../../src/options/keys.ts';
import { formatUnits, toUnits } from '../../src/wire/money.ts';
import {
  PAYOUT_CURRENCIES,
  REQUIRED_FIELDS,
  WRITE_FIELDS,
  type InitiatePayoutBody,
  type PayoutBody,
  type PayoutCurrency,
  type PayoutFields,
} from '../../src/wire/payouts.ts';
import type { Merchant } from './catalog.ts';
import { HttpError } from './http.ts';
import { QUOTE_DECIMALS } from './quote.ts';
import type { PaymentStore } from './store.ts';

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
const PAYOUT_COIN = 'USDT';

type Fields = Partial<Record<(typeof WRITE_FIELDS)[number], string>>;

export interface BankPayout extends Fields {
  id: string;
  currency: PayoutCurrency;
  default: boolean;
  createdAt: string;
  updatedAt: string;
}

interface Owned {
  merchant: Merchant;
  mode: KeyMode;
  record: BankPayout;
}

export interface Withdrawal {
  id: string;
  payout_bank_id: string;
  coin: string;
  amount: number;
  currency: PayoutCurrency;
  fiat_amount: number;
  reference: string;
  metadata: Record<string, unknown> | null;
  status: 'processing';
  createdAt: string;
}

const missing = (field: string, currency: string) => ({ field, message: `expected ${field} for a ${currency} payout, received nothing` });

export class PayoutStore {
  private readonly banks = new Map<string, Owned>();
  private readonly withdrawals: Array<Withdrawal & { owner: string }> = [];

  constructor(private readonly payments: PaymentStore) {}

  private owner = (merchant: Merchant, mode: KeyMode) => `${merchant.id}/${mode}`;

  /** Every required field present, nothing another currency's, country and bank consistent. */
  private check(currency: PayoutCurrency, fields: Fields) {
    const required = REQUIRED_FIELDS[currency];
    const errors = required.filter((name) => !fields[name as keyof Fields]).map((name) => missing(name, currency));
    for (const name of WRITE_FIELDS) {
      if (fields[name] !== undefined && !required.includes(name)) errors.push({ field: name, message: `expected nothing: ${name} is not used for ${currency} payouts` });
    }
    const country = COUNTRIES.find((c) => c.country === fields.country);
    if (fields.country && country?.currency !== currency) {
      errors.push({ field: 'country', message: `expected ${COUNTRIES.find((c) => c.currency === currency)!.country} for ${currency}, received ${JSON.stringify(fields.country)}` });
    }
    if (fields.bank_code && country && !BANKS[country.country].some((b) => b.code === fields.bank_code)) {
      errors.push({ field: 'bank_code', message: `expected a bank code of ${country.country} (GET /api/v1/bank?country=${encodeURIComponent(country.country)}), received ${JSON.stringify(fields.bank_code)}` });
    }
    if (currency === 'USD' && fields.account_type && fields.account_type !== 'personal' && fields.account_type !== 'business') {
      errors.push({ field: 'account_type', message: `expected personal or business, received ${JSON.stringify(fields.account_type)}` });
    }
    if (errors.length) throw new HttpError(400, 'Invalid bank payout: ' + errors.map((e) => `${e.field}: ${e.message}`).join('; '), errors);
  }

  add(merchant: Merchant, mode: KeyMode, body: z.output<typeof PayoutBody>): BankPayout {
    const { currency, default: isDefault, ...fields } = body;
    this.check(currency, fields);
    const stamp = new Date().toISOString();
    const record: BankPayout = { id: randomUUID(), currency, ...fields, default: isDefault ?? this.list(merchant, mode).length === 0, createdAt: stamp, updatedAt: stamp };
    if (record.default) this.list(merchant, mode).forEach((other) => (other.default = false));
    this.banks.set(record.id, { merchant, mode, record });
    return record;
  }

  list(merchant: Merchant, mode: KeyMode): BankPayout[] {
    const owner = this.owner(merchant, mode);
    return [...this.banks.values()].filter((b) => this.owner(b.merchant, b.mode) === owner).map((b) => b.record);
  }

  get(merchant: Merchant, mode: KeyMode, id: string): BankPayout {
    const found = this.banks.get(id);
    if (!found || this.owner(found.merchant, found.mode) !== this.owner(merchant, mode)) throw new HttpError(404, `No bank payout ${id}`);
    return found.record;
  }

  update(merchant: Merchant, mode: KeyMode, id: string, body: z.output<typeof PayoutFields>): BankPayout {
    const record = this.get(merchant, mode, id);
    const { default: isDefault, ...changes } = body;
    const next = { ...record, ...Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined)) };
    const { id: _id, currency, default: _d, createdAt: _c, updatedAt: _u, ...fields } = next;
    this.check(currency, fields);
    Object.assign(record, next, { updatedAt: new Date().toISOString() });
    if (isDefault) {
      this.list(merchant, mode).forEach((other) => (other.default = false));
      record.default = true;
    }
    return record;
  }

  /** All or nothing: an unknown id deletes none. */
  delete(merchant: Merchant, mode: KeyMode, ids: string[]): string[] {
    ids.forEach((id) => this.get(merchant, mode, id));
    ids.forEach((id) => this.banks.delete(id));
    return ids;
  }

  /** Collected USDT less what was already paid out, in units at QUOTE_DECIMALS. */
  balance(merchant: Merchant, mode: KeyMode): bigint {
    const owner = this.owner(merchant, mode);
    const out = this.withdrawals
      .filter((w) => w.owner === owner)
      .reduce((sum, w) => sum + toUnits(w.amount, QUOTE_DECIMALS)!, 0n);
    return this.payments.collected(merchant, mode, PAYOUT_COIN) - out;
  }

  initiate(merchant: Merchant, mode: KeyMode, body: z.output<typeof InitiatePayoutBody>): Withdrawal {
    const bank = this.get(merchant, mode, body.payout_bank_id);
    if (body.coin !== PAYOUT_COIN) {
      throw new HttpError(400, `coin: only ${PAYOUT_COIN} is paid out; swap your ${body.coin} to ${PAYOUT_COIN} first`, [
        { field: 'coin', message: `expected ${PAYOUT_COIN}, received ${JSON.stringify(body.coin)}` },
      ]);
    }
    const units = toUnits(body.amount, QUOTE_DECIMALS);
    if (units === undefined) {
      throw new HttpError(400, `amount: expected at most ${QUOTE_DECIMALS} decimal places, received ${body.amount}`, [{ field: 'amount', message: 'too many decimals' }]);
    }
    const available = this.balance(merchant, mode);
    if (units > available) {
      throw new HttpError(409, `amount: ${body.amount} ${PAYOUT_COIN} is more than the balance of ${formatUnits(available, QUOTE_DECIMALS)} ${PAYOUT_COIN}`, [
        { field: 'amount', message: `expected at most ${formatUnits(available, QUOTE_DECIMALS)}` },
      ]);
    }
    const owner = this.owner(merchant, mode);
    const reference = body.reference ?? 'po_' + randomUUID().replaceAll('-', '').slice(0, 20);
    if (this.withdrawals.some((w) => w.owner === owner && w.reference === reference)) {
      throw new HttpError(409, `reference: a payout with reference ${reference} exists already`, [{ field: 'reference', message: 'expected a new reference' }]);
    }
    const rate = toUnits(PAYOUT_RATES[bank.currency], 2)!;
    const fiatCents = (units * rate) / 10n ** BigInt(QUOTE_DECIMALS); // rounded down: never promise more than is sent
    const withdrawal: Withdrawal & { owner: string } = {
      owner,
      id: randomUUID(),
      payout_bank_id: bank.id,
      coin: PAYOUT_COIN,
      amount: body.amount,
      currency: bank.currency,
      fiat_amount: Number(formatUnits(fiatCents, 2)),
      reference,
      metadata: body.metadata ?? null,
      status: 'processing',
      createdAt: new Date().toISOString(),
    };
    this.withdrawals.push(withdrawal);
    const { owner: _owner, ...out } = withdrawal;
    return out;
  }
}

export const isPayoutCurrency = (v: string): v is PayoutCurrency => (PAYOUT_CURRENCIES as readonly string[]).includes(v);
