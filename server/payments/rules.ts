// The rules of a payment: its status, who may quote or re-quote it and how, and what a
// sandbox deposit sends. No I/O: storage runs these inside its transactions.
import { FIAT_DECIMALS, type CoinSymbol, type Currency } from '../../contract/fields.ts';
import { formatUnits } from '../../contract/money.ts';
import type { Coin, DepositKind, PaymentStatus } from '../../contract/schemas.ts';
import type { Account } from '../domain/account.ts';
import { Conflict, NotItsToken, PaymentState, ReferenceInUse } from '../domain/errors.ts';
import { quote, QUOTE_DECIMALS } from '../domain/quote.ts';
import { feeOf, type FeeBearer, type FeeTerms } from '../domain/fees.ts';
import type { QuotedRates } from '../domain/rates.ts';

export type Creator = 'public' | 'secret' | 'link';

export interface Payment {
  id: string;
  merchantId: string;
  mode: string;
  reference: string;
  /** Who set the price: the page (public key), the merchant's server, or a payment link. */
  createdBy: Creator;
  paymentLinkId: string | null;
  coin: CoinSymbol;
  chainId: number;
  token: string;
  decimals: number;
  currency: Currency;
  fiatMinor: bigint;
  /**
   * Token base units: what is due (a fee the customer bears included), what the customer pays
   * on top of the price (that fee as quoted; 0 when there is none or the merchant bears it),
   * and what has arrived.
   */
  due: bigint;
  fee: bigint;
  /** The operator's fee terms the payment was made with (bound into its deposit address on `wallet` settlement); 0 bps: none. */
  feeBps: number;
  feeBearer: FeeBearer;
  /** Where the deposit contract sends the fee (`wallet` settlement), or null: journaled (`balance`), or none. */
  feeTo: string | null;
  paid: bigint;
  fiatRate: string;
  cryptoRate: string;
  /** The rates it was quoted at, their source and time (null for payments made before they were kept). */
  rates: QuotedRates | null;
  address: string;
  acceptPartial: boolean;
  customerName: string;
  customerEmail: string;
  metadata: Record<string, unknown> | null;
  lastHash: string | null;
  /** When an accepted partial payment was settled (finished with what arrived), or null. */
  settledMs: number | null;
  expiresMs: number;
  createdMs: number;
  updatedMs: number;
}

export interface QuoteRequest {
  reference: string;
  coin: Coin;
  currency: Currency;
  /** The price in the currency's minor units, parsed once at the edge. */
  fiatMinor: bigint;
  acceptPartial: boolean;
  customerName: string;
  customerEmail: string;
  metadata: Record<string, unknown> | null;
  paymentLinkId: string | null;
  /** The rates to price it at: fresh, or a fixed table's (domain/rates.ts decides). */
  rates: QuotedRates;
}

export function statusOf(payment: Pick<Payment, 'paid' | 'due' | 'expiresMs' | 'settledMs'>, nowMs: number): PaymentStatus {
  if (payment.paid >= payment.due) return 'confirmed';
  if (payment.settledMs !== null) return 'settled';
  if (nowMs >= payment.expiresMs) return 'expired';
  return payment.paid > 0n ? 'incomplete' : 'pending';
}

/**
 * The operator's fee out of a payment paid in full, and what the merchant receives of it: the
 * deposit contract's (or the journal's) split of exactly `due` (domain/fees.ts).
 */
export function feeSplit(payment: Pick<Payment, 'due' | 'feeBps' | 'feeBearer'>): { fee: bigint; merchant: bigint } {
  const fee = feeOf(payment.due, { bps: payment.feeBps, bearer: payment.feeBearer });
  return { fee, merchant: payment.due - fee };
}

/** The priced fields of a fresh quote at the operator's fee terms, in the coin's base units. */
export function quoteFields(request: QuoteRequest, nowMs: number, quoteMs: number, terms: FeeTerms) {
  const q = quote(request.fiatMinor, request.rates.fiatPerCoin, request.coin.decimals, terms);
  const scale = 10n ** BigInt(request.coin.decimals - q.decimals);
  return {
    coin: request.coin.symbol,
    chainId: request.coin.chainId,
    token: request.coin.contractAddress,
    decimals: request.coin.decimals,
    currency: request.currency,
    fiatMinor: request.fiatMinor,
    due: q.due * scale,
    fee: q.fee * scale,
    feeBps: terms.bps,
    feeBearer: terms.bearer,
    fiatRate: q.fiatRate,
    cryptoRate: q.cryptoRate,
    rates: request.rates,
    acceptPartial: request.acceptPartial,
    expiresMs: nowMs + quoteMs,
  };
}

export type InitializePlan = { kind: 'create'; createdBy: Creator } | { kind: 'same' } | { kind: 'requote'; createdBy: Creator };

const creatorOf = (account: Account, request: QuoteRequest): Creator => (request.paymentLinkId ? 'link' : account.via);

/**
 * What initialize does with a reference. Idempotent: the same request while the quote is
 * open answers the same payment. A reference that has received nothing may be re-quoted
 * (another coin, a fresh expiry, the same address; on another chain, that chain's address),
 * never at another price: another amount, currency or partial-payment choice is a 409 naming
 * the field (a page changing a merchant-priced payment is told so). A reference that received
 * funds is never re-quoted.
 */
export function planInitialize(existing: Payment | undefined, account: Account, request: QuoteRequest, nowMs: number, onChain = false): InitializePlan {
  const creator = creatorOf(account, request);
  if (!existing) return { kind: 'create', createdBy: creator };
  if (existing.paid > 0n) {
    throw new ReferenceInUse(
      `Reference ${existing.reference} has already received ${formatUnits(existing.paid, existing.decimals)} ${existing.coin}; it cannot be quoted again. Verify it instead.`,
    );
  }
  // A transfer still confirming counts in the coin it was sent in: changing the coin now would
  // credit its raw amount at another token's decimals (6e-10 USDT read as 600 USDC).
  if (onChain) {
    throw new ReferenceInUse(
      `Reference ${existing.reference} has a transfer on the chain in ${existing.coin}, still confirming; it cannot be quoted again. Verify it instead.`,
    );
  }
  const price = `${formatUnits(existing.fiatMinor, FIAT_DECIMALS, FIAT_DECIMALS)} ${existing.currency}`;
  if (existing.createdBy !== 'public' && account.via === 'public' && (existing.currency !== request.currency || existing.fiatMinor !== request.fiatMinor)) {
    throw new ReferenceInUse(
      `Reference ${existing.reference} was priced by the merchant (${price}); a page may change its coin, never its amount or currency.`,
      [{ field: 'amount', message: `expected ${price}, as the merchant priced it` }],
    );
  }
  // A reference is one payment: the same reference at another price was re-quoted
  // silently (201). Another amount, currency or partial-payment choice is a new payment's.
  const differs =
    existing.currency !== request.currency
      ? { field: 'currency', message: `expected ${existing.currency}, the currency reference ${existing.reference} was made in` }
      : existing.fiatMinor !== request.fiatMinor
        ? { field: 'amount', message: `expected ${price}, the amount reference ${existing.reference} was made for` }
        : existing.acceptPartial !== request.acceptPartial
          ? { field: 'accept_partial_payment', message: `expected ${existing.acceptPartial}, as reference ${existing.reference} was made` }
          : undefined;
  if (differs) {
    throw new ReferenceInUse(
      `Reference ${existing.reference} is a payment of ${price} already; ${differs.field} differs. A reference names one payment: use a new reference for another price (only the coin may change)`,
      [differs],
    );
  }
  if (existing.coin === request.coin.symbol && existing.chainId === request.coin.chainId && statusOf(existing, nowMs) === 'pending') return { kind: 'same' };
  // The strongest creator stays: a page re-quoting a server's payment keeps it server-priced.
  const createdBy = existing.createdBy === 'public' ? creator : existing.createdBy;
  return { kind: 'requote', createdBy };
}

/** The most one sandbox press sends, in whole tokens: a test payment, not a way to move a dev chain's money. */
export const SANDBOX_MAX_TOKENS = 100_000n;

/** Sandbox: what the customer "sends" for each kind, at the quote's precision; refused above SANDBOX_MAX_TOKENS. */
export function sandboxAmount(payment: Pick<Payment, 'reference' | 'coin' | 'due' | 'paid' | 'decimals'>, kind: DepositKind): bigint {
  const scale = 10n ** BigInt(payment.decimals - Math.min(QUOTE_DECIMALS, payment.decimals));
  const remaining = (payment.due - payment.paid) / scale;
  const sent = kind === 'exact' ? remaining : kind === 'partial' ? (remaining / 2n > 0n ? remaining / 2n : 1n) : remaining + (remaining + 9n) / 10n;
  if (sent * scale > SANDBOX_MAX_TOKENS * 10n ** BigInt(payment.decimals)) {
    throw new Conflict(
      `The sandbox sends at most ${SANDBOX_MAX_TOKENS} ${payment.coin} a press; transaction ${payment.reference} would need ${formatUnits(sent * scale, payment.decimals)}. Test with a smaller amount`,
    );
  }
  return sent * scale;
}

/**
 * A transfer counts only in its own token, on its own chain, toward a payment that asked for
 * that token: anything else is unexpected money, recorded and told, never credited.
 */
export function assertCountsToward(payment: Pick<Payment, 'reference' | 'token' | 'chainId' | 'coin'>, transfer: { token: string; chainId: number }): void {
  if (transfer.token.toLowerCase() !== payment.token.toLowerCase() || transfer.chainId !== payment.chainId) {
    throw new NotItsToken(
      `Transaction ${payment.reference} asked for ${payment.coin} (${payment.token} on chain ${payment.chainId}); a transfer of ${transfer.token} on chain ${transfer.chainId} does not count toward it`,
    );
  }
}

/** Money may arrive only while the payment is open. */
export function assertTakesDeposits(payment: Payment, nowMs: number): void {
  const status = statusOf(payment, nowMs);
  if (status !== 'pending' && status !== 'incomplete') {
    throw new PaymentState(`Transaction ${payment.reference} is ${status}; it takes no more deposits`);
  }
}

/**
 * Whether an accepted partial payment may be settled now: something arrived, less than due,
 * and the merchant accepts partial payments. Settling twice is harmless (answered as is).
 */
export function assertSettles(payment: Payment, nowMs: number): 'settle' | 'already' {
  const status = statusOf(payment, nowMs);
  if (status === 'settled') return 'already';
  if (!payment.acceptPartial) throw new PaymentState(`Transaction ${payment.reference} does not accept partial payments: it is paid in full or not at all`);
  if (payment.paid === 0n || status === 'confirmed' || status === 'failed') {
    throw new PaymentState(
      `Transaction ${payment.reference} is ${status}${payment.paid === 0n ? ' with nothing received' : ''}; only a partly paid payment can be finished with what arrived`,
    );
  }
  return 'settle';
}

/** A new payment's row: the quote's priced fields and who it is for. */
export type NewPayment = ReturnType<typeof quoteFields> &
  Pick<QuoteRequest, 'reference' | 'paymentLinkId' | 'customerName' | 'customerEmail' | 'metadata'> & {
    createdBy: Creator;
    address: string;
    payout: string | null;
    settlement?: 'wallet' | 'balance';
    feeTo: string | null;
  };

/**
 * A re-quote: fresh prices and expiry, the strongest creator, the customer as it now stands; on
 * another chain, that chain's deposit address and what it is bound to (`moved`).
 */
export type Requote = ReturnType<typeof quoteFields> &
  Pick<QuoteRequest, 'paymentLinkId' | 'customerName' | 'customerEmail' | 'metadata'> & { createdBy: Creator; moved?: Deposit };

/**
 * A payment's deposit address on its chain, where it is bound to send what arrives, and the
 * operator's fee terms a new payment there is priced at (on `wallet` settlement bound into the
 * address too, with `feeTo`, where the contract sends the fee).
 */
export interface Deposit {
  address: string;
  payout: string | null;
  settlement?: 'wallet' | 'balance';
  feeTerms: FeeTerms;
  feeTo: string | null;
}
