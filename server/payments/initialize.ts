// Initialize, as a use case: the quote's rates and the deposit address fetched (startPayment), then
// lock the reference, decide (planInitialize), write, tell the long polls. Storage is behind the
// PaymentWrites port, run inside one transaction, so the rule reads top to bottom here and the
// SQL stays in payments/store.ts.
import type { Account } from '../domain/account.ts';
import type { Currency, CoinSymbol } from '../../contract/fields.ts';
import type { KeyMode } from '../../contract/keys.ts';
import type { QuotedRates } from '../domain/rates.ts';
import { ReferenceInUse } from '../domain/errors.ts';
import { planInitialize, quoteFields, type Creator, type Payment, type QuoteRequest } from './rules.ts';
import type { FeeTerms } from '../domain/fees.ts';

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

/** What initialize needs of storage, inside one transaction. */
export interface PaymentWrites {
  /** The reference's payment, locked until the transaction ends. */
  lock(account: Account, reference: string): Promise<Payment | undefined>;
  /** Whether a transfer in the payment's token is on the chain, still confirming (counted ones show in `paid`). */
  onChain(payment: Payment): Promise<boolean>;
  /** Whether any transfer at all (another token, dust) was recorded to the payment's deposit address. */
  received(payment: Payment): Promise<boolean>;
  /** Whether anything was recorded against the payment: any transfer (whatever its state) or any refund. */
  hasHistory(payment: Payment): Promise<boolean>;
  /** Inserts; undefined when another request created the reference first. */
  insert(account: Account, payment: NewPayment, nowMs: number): Promise<Payment | undefined>;
  requote(existing: Payment, changes: Requote, nowMs: number): Promise<Payment>;
  /** Wakes the long polls on this payment, on every instance, when the transaction commits. */
  notify(payment: Payment): Promise<void>;
}

export interface PaymentTransactions {
  /**
   * Inserts a new reference's payment in one statement, outside any transaction; undefined
   * when the reference exists (then the locked path decides).
   */
  insertNew(account: Account, payment: NewPayment, nowMs: number): Promise<Payment | undefined>;
  inTransaction<T>(work: (writes: PaymentWrites) => Promise<T>): Promise<T>;
}

/** What starting a payment needs of the service: its store, the quote's rates, the deposit addresses, the quote's length and the clock. */
export interface StartParts {
  payments: PaymentTransactions;
  rates: { forQuote(currency: Currency, coin: CoinSymbol): Promise<QuotedRates> };
  catalog: { depositAddress(merchantId: string, mode: KeyMode, reference: string, chainId: number): Promise<Deposit> };
  config: { quoteMs: number };
  now(): number;
}

/**
 * Starts a payment (or answers its reference again, or re-quotes it): priced at the rates for a
 * quote of its currency and coin, at its deposit address on the coin's chain. Initialize and a
 * link's page start theirs so.
 */
export async function startPayment(
  service: StartParts,
  account: Account,
  request: Omit<QuoteRequest, 'rates'>,
): Promise<{ payment: Payment; created: boolean }> {
  const rates = await service.rates.forQuote(request.currency, request.coin.symbol as CoinSymbol);
  const deposit = await service.catalog.depositAddress(account.merchant.id, account.mode, request.reference, request.coin.chainId);
  return initializePayment(service.payments, account, { ...request, rates }, service.now(), service.config.quoteMs, deposit);
}

/**
 * Creates, answers again, or re-quotes the payment for a reference, as planInitialize decides.
 * Safe under concurrent requests: the unique reference and the row lock make every concurrent
 * initialize of one reference see one payment. `deposit`: a new payment's deposit address and
 * the payout address it is bound to.
 */
export function initializePayment(
  store: PaymentTransactions,
  account: Account,
  request: QuoteRequest,
  nowMs: number,
  quoteMs: number,
  deposit: Deposit,
): Promise<{ payment: Payment; created: boolean }> {
  const fields = quoteFields(request, nowMs, quoteMs, deposit.feeTerms);
  const { reference, paymentLinkId, customerName, customerEmail, metadata } = request;
  const { address, payout, settlement, feeTo } = deposit;
  const fresh = (createdBy: Creator): NewPayment => ({
    ...fields,
    reference,
    paymentLinkId,
    customerName,
    customerEmail,
    metadata,
    createdBy,
    address,
    payout,
    settlement,
    feeTo,
  });
  // Most references are new: one INSERT … ON CONFLICT DO NOTHING, no transaction. Only a
  // reference that exists takes the locked path below, where the plan decides against it.
  const plan = planInitialize(undefined, account, request, nowMs);
  if (plan.kind !== 'create') throw new Error('initialize: a new reference must be created');
  return store
    .insertNew(account, fresh(plan.createdBy), nowMs)
    .then((created) => (created ? { payment: created, created: true } : existingPayment(store, account, request, nowMs, quoteMs, fields, deposit, fresh)));
}

/** A reference that exists (or did a moment ago): lock it, decide, answer it as is or re-quote it. */
function existingPayment(
  store: PaymentTransactions,
  account: Account,
  request: QuoteRequest,
  nowMs: number,
  quoteMs: number,
  fields: ReturnType<typeof quoteFields>,
  deposit: Deposit,
  fresh: (createdBy: Creator) => NewPayment,
): Promise<{ payment: Payment; created: boolean }> {
  return store.inTransaction(async (writes) => {
    const decide = async (payment: Payment | undefined) => planInitialize(payment, account, request, nowMs, !!payment && (await writes.onChain(payment)));
    let existing = await writes.lock(account, request.reference);
    let plan = await decide(existing);
    const { reference, paymentLinkId, customerName, customerEmail, metadata } = request;
    if (plan.kind === 'create') {
      // Gone since the insert above found it (not done today: payments are never deleted).
      const created = await writes.insert(account, fresh(plan.createdBy), nowMs);
      if (created) return { payment: created, created: true };
      // Another request created it a moment ago: decide again against that one.
      existing = await writes.lock(account, reference);
      plan = await decide(existing);
    }
    if (plan.kind === 'same') return { payment: existing!, created: false };
    if (plan.kind === 'create') throw new Error('initialize: the payment vanished under its lock');
    // A page (public key) may change only the coin of a payment its merchant made: the
    // customer and metadata the merchant's server or link gave stay as they were.
    const keep = account.via === 'public' && existing!.createdBy !== 'public';
    // Another chain is another deposit address (that chain's factory, the payout address the
    // merchant named for it). What was recorded at the old address stays bound to it, so a
    // payment that received anything there stays on its chain. (A sandbox-only address, bound
    // to nothing and never watched, stays as it is.)
    const moved = fields.chainId !== existing!.chainId && deposit.payout !== null;
    // The fee terms are bound into the deposit address: a payment that keeps its address keeps its terms.
    const priced = moved ? fields : quoteFields(request, nowMs, quoteMs, { bps: existing!.feeBps, bearer: existing!.feeBearer });
    if (moved && (await writes.received(existing!))) {
      throw new ReferenceInUse(
        `Reference ${existing!.reference} has received a transfer on chain ${existing!.chainId}; it stays on that chain. Start a new reference to pay on chain ${fields.chainId}`,
        [{ field: 'chain_id', message: `expected ${existing!.chainId}, the chain this payment received money on` }],
      );
    }
    // The customer's e-mail is where a refund's claim link goes (refunds/routes.ts): a public
    // key only adds one where none was, never replaces it; and once a transfer or refund is
    // recorded against the payment nobody changes it, or whoever could re-initialize (a page, a
    // support member) would steer the claim link of money already sent to their own address.
    const email = keep || (account.via === 'public' && existing!.customerEmail) ? existing!.customerEmail : customerEmail || existing!.customerEmail;
    if ((email ?? '').toLowerCase() !== (existing!.customerEmail ?? '').toLowerCase() && (await writes.hasHistory(existing!))) {
      throw new ReferenceInUse(
        `Reference ${existing!.reference} has a transfer or refund recorded; its customer's e-mail, where a refund's claim link goes, no longer changes`,
        [
          {
            field: 'customer_email',
            message: existing!.customerEmail
              ? `expected ${existing!.customerEmail}, as the payment has it`
              : 'expected none: the payment has none, and a transfer or refund is recorded',
          },
        ],
      );
    }
    const payment = await writes.requote(
      existing!,
      {
        ...priced,
        paymentLinkId,
        createdBy: plan.createdBy,
        customerName: (!keep && customerName) || existing!.customerName,
        customerEmail: email,
        metadata: keep ? existing!.metadata : (metadata ?? existing!.metadata),
        ...(moved ? { moved: deposit } : {}),
      },
      nowMs,
    );
    await writes.notify(existing!);
    return { payment, created: true };
  });
}
