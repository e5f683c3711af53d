// How the dashboard writes amounts, times and statuses.
import type { PaymentSummary } from '../contract/dashboard.ts';
import { lang, t } from './words.ts';

export const when = (iso: string | null): string =>
  iso ? new Date(iso).toLocaleString(lang.value, { dateStyle: 'medium', timeStyle: 'short' }) : t('time not recorded');

export const money = (amount: number, currency: string): string => {
  try {
    return new Intl.NumberFormat(lang.value, { style: 'currency', currency }).format(amount);
  } catch {
    return `${amount} ${currency}`;
  }
};

export const coins = (amount: number | string, coin: string): string => `${amount} ${coin}`;

/** A figure (not money) in the language shown, at most `digits` decimals. */
export const figure = (n: number, digits = 6): string => n.toLocaleString(lang.value, { maximumFractionDigits: digits });

const STATUS_WORDS: Record<PaymentSummary['status'], string> = {
  pending: 'Waiting for payment',
  incomplete: 'Partly paid',
  confirmed: 'Paid',
  settled: 'Settled (partial)',
  expired: 'Expired',
  failed: 'Failed',
};
export const statusWords = (status: PaymentSummary['status']): string => t(STATUS_WORDS[status]);

/** A payment needs the merchant's attention: partly paid, paid more than due, or expired with money on it. */
export const needsAttention = (p: PaymentSummary): boolean =>
  p.status === 'incomplete' || (p.status === 'expired' && p.amountPaid > 0) || (p.status === 'confirmed' && p.amountPaid > p.actualAmount);
