// Initialize, as a use case: the quote's rates and the deposit address fetched (startPayment), then
// lock the reference, decide (planInitialize), write, tell the long polls, in the transaction opened
// here, so the rule reads top to bottom here and the SQL stays in payments/store.ts.
import type { Account } from '../domain/account.ts';
import type { Currency, CoinSymbol } from '../../contract/fields.ts';
import type { KeyMode } from '../../contract/keys.ts';
import type { QuotedRates } from '../domain/rates.ts';
import { ReferenceInUse } from '../domain/errors.ts';
import { planInitialize, quoteFields, type Creator, type Deposit, type NewPayment, type Payment, type QuoteRequest } from './rules.ts';
import type { PaymentStore } from './store.ts';

/** What initialize runs in: the payments' store, each call in the transaction initialize opens on it. */
export type PaymentTransactions = Pick<PaymentStore, 'insertNew' | 'transaction' | 'lock' | 'onChain' | 'received' | 'hasHistory' | 'requote' | 'notify'>;

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
  return store.transaction(async (tx) => {
    const decide = async (payment: Payment | undefined) => planInitialize(payment, account, request, nowMs, !!payment && (await store.onChain(tx, payment)));
    let existing = await store.lock(tx, account, request.reference);
    let plan = await decide(existing);
    const { reference, paymentLinkId, customerName, customerEmail, metadata } = request;
    if (plan.kind === 'create') {
      // Gone since the insert above found it (not done today: payments are never deleted).
      const created = await store.insertNew(account, fresh(plan.createdBy), nowMs, tx);
      if (created) return { payment: created, created: true };
      // Another request created it a moment ago: decide again against that one.
      existing = await store.lock(tx, account, reference);
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
    if (moved && (await store.received(tx, existing!))) {
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
    if ((email ?? '').toLowerCase() !== (existing!.customerEmail ?? '').toLowerCase() && (await store.hasHistory(tx, existing!))) {
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
    const payment = await store.requote(
      tx,
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
    await store.notify(tx, existing!);
    return { payment, created: true };
  });
}
