// The sandbox's transactions: quotes, their expiry, and simulated deposits. In memory.
import { randomBytes } from 'node:crypto';
import type { KeyMode } from '../../src/options/keys.ts';
import { FIAT_DECIMALS, type Currency } from '../../src/wire/fields.ts';
import { formatUnits, toUnits, unitsToNumber } from '../../src/wire/money.ts';
import { paymentVersion, type Coin, type DepositKind, type PaymentStatus, type Transaction, type Verification } from '../../src/wire/schemas.ts';
import { NETWORK, type Merchant } from './catalog.ts';
import { HttpError } from './http.ts';
import { quote, QUOTE_DECIMALS, type Quote } from './quote.ts';

export interface InitializeRequest {
  reference: string;
  coin: Coin;
  currency: Currency;
  amount: string | number;
  acceptPartialPayment: boolean;
  customerName: string;
  customerEmail: string;
  metadata: Record<string, unknown> | null;
}

interface Payment {
  merchant: Merchant;
  mode: KeyMode;
  request: InitializeRequest;
  fiatMinor: bigint;
  address: string;
  quote: Quote;
  paid: bigint;
  hash: string | null;
  expiresAt: number;
}

const hex = (bytes: number) => '0x' + randomBytes(bytes).toString('hex');

export interface StoreOptions {
  /** How long a quote stays open. */
  quoteMs: number;
  now?: () => number;
}

export class PaymentStore {
  private readonly payments = new Map<string, Payment>();
  private readonly watchers = new Map<string, Set<() => void>>();
  private readonly now: () => number;

  constructor(private readonly options: StoreOptions) {
    this.now = options.now ?? Date.now;
  }

  private key(merchant: Merchant, mode: KeyMode, reference: string) {
    return `${merchant.id}/${mode}/${reference}`;
  }

  status(payment: Payment): PaymentStatus {
    if (payment.paid >= payment.quote.due) return 'confirmed';
    if (this.now() >= payment.expiresAt) return 'expired';
    return payment.paid > 0n ? 'incomplete' : 'pending';
  }

  /**
   * Idempotent per reference: the same request while the quote is open answers the same
   * transaction; a reference that has received nothing may be re-quoted (another coin, a
   * fresh expiry, the same address); one that has received funds never is: 409.
   */
  initialize(merchant: Merchant, mode: KeyMode, request: InitializeRequest): { transaction: Transaction; created: boolean } {
    const key = this.key(merchant, mode, request.reference);
    const existing = this.payments.get(key);
    const fiatMinor = toUnits(request.amount, FIAT_DECIMALS)!;
    if (existing) {
      if (existing.paid > 0n) {
        throw new HttpError(
          409,
          `Reference ${request.reference} has already received ${formatUnits(existing.paid, existing.quote.decimals)} ${existing.request.coin.symbol}; it cannot be quoted again. Verify it instead.`,
        );
      }
      const same =
        existing.request.coin.symbol === request.coin.symbol &&
        existing.request.currency === request.currency &&
        existing.fiatMinor === fiatMinor &&
        existing.request.acceptPartialPayment === request.acceptPartialPayment;
      if (same && this.status(existing) === 'pending') return { transaction: this.transaction(existing), created: false };
    }
    const payment: Payment = {
      merchant,
      mode,
      request,
      fiatMinor,
      address: existing?.address ?? hex(20),
      quote: quote(request.amount, request.currency, request.coin.decimals),
      paid: 0n,
      hash: null,
      expiresAt: this.now() + this.options.quoteMs,
    };
    this.payments.set(key, payment);
    if (existing) this.changed(payment);
    return { transaction: this.transaction(payment), created: true };
  }

  private find(merchant: Merchant, mode: KeyMode, reference: string): Payment {
    const payment = this.payments.get(this.key(merchant, mode, reference));
    if (!payment) throw new HttpError(404, `No transaction with reference ${reference}`);
    return payment;
  }

  verify(merchant: Merchant, mode: KeyMode, reference: string): Verification {
    return this.verification(this.find(merchant, mode, reference));
  }

  /**
   * Long poll: resolves with the verification once it differs from `since` (a
   * paymentVersion), when the quote expires, or after `waitMs` unchanged.
   */
  waitForChange(merchant: Merchant, mode: KeyMode, reference: string, since: string, waitMs: number, signal: AbortSignal): Promise<Verification> {
    const payment = this.find(merchant, mode, reference);
    const current = this.verification(payment);
    if (paymentVersion(current) !== since || signal.aborted) return Promise.resolve(current);
    const key = this.key(merchant, mode, reference);
    const untilExpiry = payment.expiresAt - this.now() + 20;
    return new Promise((resolve) => {
      const watchers = this.watchers.get(key) ?? new Set();
      this.watchers.set(key, watchers);
      const done = () => {
        clearTimeout(timer);
        watchers.delete(done);
        if (watchers.size === 0) this.watchers.delete(key);
        signal.removeEventListener('abort', done);
        resolve(this.verification(payment));
      };
      const timer = setTimeout(done, untilExpiry > 0 ? Math.min(waitMs, untilExpiry) : waitMs);
      watchers.add(done);
      signal.addEventListener('abort', done);
    });
  }

  /** What a merchant's payments in `symbol` have brought in, in units at QUOTE_DECIMALS. */
  collected(merchant: Merchant, mode: KeyMode, symbol: string): bigint {
    let total = 0n;
    for (const payment of this.payments.values()) {
      if (payment.merchant === merchant && payment.mode === mode && payment.request.coin.symbol === symbol) {
        total += payment.paid * 10n ** BigInt(QUOTE_DECIMALS - payment.quote.decimals);
      }
    }
    return total;
  }

  /** Long polls being held now. */
  get waiting(): number {
    let count = 0;
    this.watchers.forEach((set) => (count += set.size));
    return count;
  }

  private changed(payment: Payment) {
    const watchers = this.watchers.get(this.key(payment.merchant, payment.mode, payment.request.reference));
    watchers?.forEach((wake) => wake());
  }

  /** Sandbox: the customer sends what is due, about half of it, or a tenth more. */
  deposit(merchant: Merchant, mode: KeyMode, reference: string, kind: DepositKind): Verification {
    const payment = this.find(merchant, mode, reference);
    const status = this.status(payment);
    if (status !== 'pending' && status !== 'incomplete') {
      throw new HttpError(409, `Transaction ${reference} is ${status}; it takes no more deposits`);
    }
    const remaining = payment.quote.due - payment.paid;
    const sent =
      kind === 'exact' ? remaining
      : kind === 'partial' ? (remaining / 2n > 0n ? remaining / 2n : 1n)
      : remaining + (remaining + 9n) / 10n;
    payment.paid += sent;
    payment.hash = hex(32);
    this.changed(payment);
    return this.verification(payment);
  }

  private transaction(payment: Payment): Transaction {
    const { merchant, request, quote: q } = payment;
    return {
      reference: request.reference,
      businessName: merchant.businessName,
      businessEmail: merchant.businessEmail,
      businessLogo: merchant.businessLogo,
      customerName: request.customerName,
      customerEmail: request.customerEmail,
      address: payment.address,
      coin: request.coin.symbol,
      cryptoAmount: unitsToNumber(q.due, q.decimals),
      currency: request.currency,
      fiatAmount: unitsToNumber(payment.fiatMinor, FIAT_DECIMALS),
      feeInCrypto: unitsToNumber(q.fee, q.decimals),
      fiatRate: Number(q.fiatRate),
      cryptoRate: Number(q.cryptoRate),
      network: NETWORK[payment.mode],
      acceptPartialPayment: request.acceptPartialPayment,
      expiresAt: new Date(payment.expiresAt).toISOString(),
    };
  }

  private verification(payment: Payment): Verification {
    const { request, quote: q } = payment;
    const remaining = q.due > payment.paid ? q.due - payment.paid : 0n;
    return {
      reference: request.reference,
      address: payment.address,
      coin: request.coin.symbol,
      network: NETWORK[payment.mode],
      status: this.status(payment),
      actualAmount: unitsToNumber(q.due, q.decimals),
      amountPaid: unitsToNumber(payment.paid, q.decimals),
      amountRemaining: unitsToNumber(remaining, q.decimals),
      fiatAmount: unitsToNumber(payment.fiatMinor, FIAT_DECIMALS),
      currency: request.currency,
      feeInCrypto: unitsToNumber(q.fee, q.decimals),
      acceptPartialPayment: request.acceptPartialPayment,
      hash: payment.hash,
      expiresAt: new Date(payment.expiresAt).toISOString(),
      customer: { name: request.customerName, email: request.customerEmail },
      metadata: request.metadata,
    };
  }
}
