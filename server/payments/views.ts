// A payment as the wire shows it: the spec's transaction (initialize) and verify data. No
// rules beyond formatting: integer units become the JSON numbers the contract carries.
import { FIAT_DECIMALS } from '../../contract/fields.ts';
import { formatUnits, unitsToNumber } from '../../contract/money.ts';
import type { MerchantVerification, Transaction, Verification } from '../../contract/schemas.ts';
import type { Merchant } from '../domain/account.ts';
import { NETWORK } from '../domain/defaults.ts';
import { feeSplit, statusOf, type Payment } from './rules.ts';

const network = (payment: Payment) => NETWORK[payment.mode as 'test' | 'live'];

/**
 * Initialize's answer: the spec's transaction, and beside it (ours) the payment's state as
 * verify gives it to a public key (status, actualAmount, amountPaid, amountRemaining, hash),
 * so a checkout reads one shape of payment whichever call answered.
 */
export function transactionView(
  payment: Payment,
  merchant: Merchant,
  nowMs: number,
  customer?: { name: string; email: string },
  withFee = false,
): Transaction & Verification & { rate?: QuotedRateView; fee?: FeeView } {
  return {
    ...verificationView(payment, nowMs, false),
    // The operator's fee terms and split are the merchant's business: its server's answer (secret key) carries them, a page's does not.
    ...(withFee ? { fee: feeView(payment) } : {}),
    businessName: merchant.businessName,
    businessEmail: merchant.businessEmail,
    businessLogo: merchant.businessLogo,
    // `customer`: what a page (public key) sent itself; the customer the merchant's server named is not a page's to read.
    customerName: customer ? customer.name : payment.customerName,
    customerEmail: customer ? customer.email : payment.customerEmail,
    cryptoAmount: unitsToNumber(payment.due, payment.decimals),
    fiatRate: Number(payment.fiatRate),
    cryptoRate: Number(payment.cryptoRate),
    ...(payment.rates ? { rate: rateView(payment.rates) } : {}),
  };
}

/** Ours: the rate a quote was made at, exact, where it came from, when, and whether it is the operator's fixed table. */
export interface QuotedRateView {
  fiatPerCoin: string;
  source: string;
  fixed: boolean;
  at: string;
}
const rateView = (rates: NonNullable<Payment['rates']>): QuotedRateView => ({
  fiatPerCoin: rates.fiatPerCoin,
  source: rates.source,
  fixed: rates.fixed,
  at: new Date(rates.atMs).toISOString(),
});

/** The operator's fee on a payment, as the merchant's answers carry it (contract/schemas.ts: PaymentFee). */
export interface FeeView {
  bps: number;
  bearer: 'customer' | 'merchant';
  amount: string;
  merchantAmount: string;
}
export function feeView(payment: Payment): FeeView {
  const split = feeSplit(payment);
  return {
    bps: payment.feeBps,
    bearer: payment.feeBearer,
    amount: formatUnits(split.fee, payment.decimals),
    merchantAmount: formatUnits(split.merchant, payment.decimals),
  };
}

/** The event of a change to a payment: DEPOSIT_TRANSACTION with the merchant's verify data, as of the change. */
export const depositReport = (now: () => number) => ({
  type: 'DEPOSIT_TRANSACTION' as const,
  data: (payment: Payment) => verificationView(payment, now(), true),
});

/**
 * Verify data. The customer's name, e-mail and the merchant's metadata are personal or
 * private: they go to the merchant's server (secret key, webhooks), never to a page that
 * holds only the public key.
 */
export function verificationView(
  payment: Payment,
  nowMs: number,
  withPrivate: boolean,
  confirming?: { amount: bigint; confirmations: number; required: number },
): MerchantVerification {
  const remaining = payment.due > payment.paid ? payment.due - payment.paid : 0n;
  return {
    reference: payment.reference,
    address: payment.address,
    coin: payment.coin,
    network: network(payment),
    chainId: payment.chainId,
    status: statusOf(payment, nowMs),
    actualAmount: unitsToNumber(payment.due, payment.decimals),
    amountPaid: unitsToNumber(payment.paid, payment.decimals),
    amountRemaining: unitsToNumber(remaining, payment.decimals),
    fiatAmount: unitsToNumber(payment.fiatMinor, FIAT_DECIMALS),
    currency: payment.currency,
    feeInCrypto: unitsToNumber(payment.fee, payment.decimals),
    acceptPartialPayment: payment.acceptPartial,
    hash: payment.lastHash,
    expiresAt: new Date(payment.expiresMs).toISOString(),
    ...(confirming && {
      confirming: {
        amount: unitsToNumber(confirming.amount, payment.decimals),
        confirmations: Math.min(confirming.confirmations, confirming.required),
        required: confirming.required,
      },
    }),
    ...(withPrivate && {
      customer: { name: payment.customerName, email: payment.customerEmail },
      metadata: payment.metadata,
      actualAmountExact: formatUnits(payment.due, payment.decimals),
      amountPaidExact: formatUnits(payment.paid, payment.decimals),
      amountRemainingExact: formatUnits(remaining, payment.decimals),
      feeInCryptoExact: formatUnits(payment.fee, payment.decimals),
      fiatAmountExact: formatUnits(payment.fiatMinor, FIAT_DECIMALS, FIAT_DECIMALS),
      fee: feeView(payment),
    }),
  };
}
