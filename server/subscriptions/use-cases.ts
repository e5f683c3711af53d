// Subscriptions' use cases: plans and subscriptions made and canceled, and each period's charge.
// A charge is claimed (its key per subscription and period written, in `sending`) before anything
// is broadcast, so no period is charged twice whatever instance or tick asks; it is an ordinary
// payment (payments' initialize, at exactly the plan's price) that the gas wallet pays by
// transferFrom of the customer's approved allowance, and the watcher credits like any other
// (webhooks, journal). The chain's clock says when a period has started.
import { getAddress, isAddress, type Address } from 'viem';
import type { KeyMode } from '../../contract/keys.ts';
import { formatUnits, toUnits } from '../../contract/money.ts';
import type { Period } from '../../contract/subscriptions.ts';
import type { Account } from '../domain/account.ts';
import { Conflict, invalidField, NotConfigured, NotFound } from '../domain/errors.ts';
import type { Catalog } from '../chain/catalog.ts';
import type { Charger } from '../chain/charge.ts';
import { initializePayment, type PaymentTransactions } from '../payments/initialize.ts';
import { withLease } from '../storage/leases.ts';
import type { Database, Sql } from '../storage/db.ts';
import type { EventType } from '../../contract/events.ts';
import type { Logger } from '../service/log.ts';
import { afterCharge, afterFailure, chargeReference, duePeriod } from './rules.ts';
import type { Owner, StoredSubscription, SubscriptionStore } from './store.ts';
import { subscriptionEvent } from './views.ts';

export interface SubscriptionDeps {
  /** The use cases open their transactions on it, and call the stores with them. */
  db: Database;
  store: SubscriptionStore;
  /** The outbox: each change told in the transaction that makes it. */
  events: { add(tx: Sql, owner: Owner, type: EventType, data: unknown, nowMs: number): Promise<string> };
  catalog: Pick<Catalog, 'choose' | 'depositAddress'>;
  payments: PaymentTransactions;
  /** The chain's charger (its gas wallet), or undefined where the mode's network has none. */
  charger(mode: KeyMode, chainId: number): Charger | undefined;
  quoteMs: number;
  now(): number;
  log: Pick<Logger, 'info' | 'warn' | 'error'>;
}

/** What became of a due subscription: charged; failed (told, retried); skipped (not due, or another has it); busy (the gas wallet); unknown (sent, not seen mined); error (nothing sent). */
export type ChargeOutcome = 'charged' | 'failed' | 'skipped' | 'busy' | 'unknown' | 'error';

export class Subscriptions {
  constructor(private readonly deps: SubscriptionDeps) {}

  get store() {
    return this.deps.store;
  }

  /** The chain's charger, or undefined where the mode's network has no gas wallet. */
  charger(mode: KeyMode, chainId: number): Charger | undefined {
    return this.deps.charger(mode, chainId);
  }

  /** A plan: `price` exact decimal text of the coin, at most its decimals and at most 2 (a charge is a payment priced in cents). */
  createPlan(owner: Owner, body: { name: string; coin: string; chain_id?: number; price: string; period: Period; periods: number }) {
    const coin = this.deps.catalog.choose(owner.mode, body.coin, body.chain_id);
    const decimals = Math.min(coin.decimals, 2);
    const price = toUnits(body.price, decimals);
    if (price === undefined || price <= 0n) throw invalidField('price', `expected an amount of ${coin.symbol} with at most ${decimals} decimals`);
    return this.deps.store.createPlan(
      owner,
      {
        name: body.name.trim(),
        coin: coin.symbol,
        chainId: coin.chainId,
        token: coin.contractAddress,
        decimals: coin.decimals,
        price: price * 10n ** BigInt(coin.decimals - decimals),
        period: body.period,
        periods: body.periods,
      },
      this.deps.now(),
    );
  }

  /** A customer's wallet on a plan, pending; its first period starts at the chain's time now. */
  async subscribe(owner: Owner, body: { plan_id: string; wallet: string }) {
    if (!isAddress(body.wallet, { strict: true }) && body.wallet.slice(2) !== body.wallet.slice(2).toUpperCase())
      throw invalidField('wallet', `expected a valid EIP-55 checksum (mixed case), or all lower case; did you mean ${getAddress(body.wallet.toLowerCase())}?`);
    const plan = await this.deps.store.plan(owner, body.plan_id.toLowerCase());
    if (!plan) throw new NotFound(`plan_id: no plan ${body.plan_id}`, [{ field: 'plan_id', message: 'expected a plan of yours' }]);
    const charger = this.deps.charger(owner.mode, plan.chainId);
    if (!charger) throw new NotConfigured(`No gas wallet on chain ${plan.chainId}: nothing could charge a subscription there`);
    const startMs = await charger.clockMs();
    return this.deps.store.subscribe(owner, { planId: plan.id, wallet: body.wallet, spender: charger.gas.address, startMs }, this.deps.now());
  }

  /** Canceled by the merchant: never charged again (a charge claimed already asks again right before it is sent). 409 once canceled. */
  async cancel(owner: Owner, id: string): Promise<StoredSubscription> {
    const nowMs = this.deps.now();
    await this.deps.db.transaction(async (tx) => {
      const s = await this.deps.store.lock(tx, id);
      if (!s || s.merchantId !== owner.merchant.id || s.mode !== owner.mode) throw new NotFound(`No subscription ${id}`);
      if (s.status === 'canceled') throw new Conflict(`Subscription ${id} is canceled already`);
      await this.deps.store.cancel(tx, id, nowMs);
      await this.deps.events.add(tx, owner, 'SUBSCRIPTION_UPDATED', subscriptionEvent({ ...s, status: 'canceled' }), nowMs);
    });
    return (await this.deps.store.subscription(owner, id))!;
  }

  /** One tick on one chain of one mode: every subscription due by the chain's clock charged, under the chain's charge lease. */
  async chargeDue(mode: KeyMode, chainId: number, holder: string): Promise<ChargeOutcome[]> {
    const charger = this.charger(mode, chainId);
    if (!charger) return [];
    const name = `${mode}/${chainId}`;
    const run = await withLease(
      {
        take: () => this.deps.store.lease(name, holder, this.deps.now(), 60_000),
        release: () => this.deps.store.release(name, holder),
        ms: 60_000,
      },
      async () => {
        const clockMs = await charger.clockMs();
        const outcomes: ChargeOutcome[] = [];
        for (const s of await this.deps.store.due(mode, chainId, clockMs, 50)) {
          // One subscription that cannot be charged now (its merchant's payout address gone, say) holds none of the others back.
          outcomes.push(
            await this.chargeOne(charger, s, holder, clockMs).catch((error: unknown) => {
              this.deps.log.error({ err: error, subscription: s.id }, 'a subscription charge could not be made; tried again next tick');
              return 'error' as const;
            }),
          );
        }
        return outcomes;
      },
    );
    return run.held ? run.value : [];
  }

  /** Period `n`'s charge of `s`, if due: claimed, its payment made, checked on chain, sent; or the failure recorded. */
  async chargeOne(charger: Charger, s: StoredSubscription, holder: string, clockMs: number): Promise<ChargeOutcome> {
    const n = duePeriod(s, s.plan, clockMs);
    if (n === undefined) return 'skipped';
    const reference = chargeReference(s.id, n);
    const claimed = await this.deps.db.transaction(async (tx) => {
      const locked = await this.deps.store.lock(tx, s.id);
      if (!locked || duePeriod(locked, locked.plan, clockMs) !== n) return false;
      return this.deps.store.claim(tx, s.id, n, reference, locked.plan.price, holder, this.deps.now());
    });
    if (!claimed) return 'skipped';
    const owner: Owner = { merchant: { id: s.merchantId }, mode: s.mode };
    const back = () => this.deps.db.transaction((tx) => this.deps.store.chargeEnded(tx, s.id, n, 'due', {}, this.deps.now()));
    let transfer: { token: Address; from: Address; to: Address; amount: bigint };
    let refused: string | undefined;
    try {
      const payment = await this.payment(owner, s, reference);
      // Never above the plan's price: the payment asks exactly the price, or nothing is sent.
      if (payment.due !== s.plan.price) throw new Error(`charge ${reference} would ask ${payment.due}, not the plan's price ${s.plan.price}`);
      transfer = { token: s.plan.token as Address, from: s.wallet as Address, to: payment.address as Address, amount: s.plan.price };
      refused = await charger.refusal(transfer);
    } catch (error) {
      // Nothing was broadcast (the payment not made, the node not answering): the period is due again.
      await back();
      throw error;
    }
    if (refused) return this.failed(s, n, refused, clockMs);
    const live = async () => (await this.deps.store.subscription(owner, s.id))?.status !== 'canceled';
    let sent: Awaited<ReturnType<Charger['send']>>;
    try {
      sent = await charger.send(transfer, live);
    } catch (error) {
      // Sent, perhaps, and not seen mined: left `sending`, never sent again on its own; the watcher credits it if it was mined.
      this.deps.log.error({ err: error, subscription: s.id, period: n }, 'a subscription charge was not seen mined; left for the operator');
      return 'unknown';
    }
    if (!('receipt' in sent)) {
      await back();
      return 'busy' in sent ? 'busy' : 'skipped';
    }
    if (sent.receipt.status !== 'success') return this.failed(s, n, `reverted in ${sent.receipt.transactionHash}`, clockMs);
    const nowMs = this.deps.now();
    await this.deps.db.transaction(async (tx) => {
      const locked = (await this.deps.store.lock(tx, s.id))!;
      await this.deps.store.chargeEnded(tx, s.id, n, 'sent', { txHash: sent.receipt.transactionHash }, nowMs);
      const next = afterCharge(locked, locked.plan, n);
      await this.deps.store.update(tx, s.id, next, nowMs);
      if (next.status !== locked.status) await this.deps.events.add(tx, owner, 'SUBSCRIPTION_UPDATED', subscriptionEvent({ ...locked, ...next }), nowMs);
    });
    this.deps.log.info({ subscription: s.id, period: n, tx: sent.receipt.transactionHash }, 'a subscription period charged');
    return 'charged';
  }

  /** Period `n` not charged: recorded, told (SUBSCRIPTION_PAYMENT_FAILED), retried on the schedule; past_due, then canceled (told). */
  private async failed(s: StoredSubscription, n: number, reason: string, clockMs: number): Promise<ChargeOutcome> {
    const nowMs = this.deps.now();
    const owner: Owner = { merchant: { id: s.merchantId }, mode: s.mode };
    await this.deps.db.transaction(async (tx) => {
      const locked = (await this.deps.store.lock(tx, s.id))!;
      await this.deps.store.chargeEnded(tx, s.id, n, 'failed', { error: reason }, nowMs);
      const next = afterFailure(locked, locked.plan, n, clockMs);
      await this.deps.store.update(tx, s.id, next, nowMs);
      if (next.status === 'canceled') await this.deps.store.cancel(tx, s.id, nowMs);
      const now = { ...locked, ...next };
      await this.deps.events.add(tx, owner, 'SUBSCRIPTION_PAYMENT_FAILED', { ...subscriptionEvent(now), period: n, reason }, nowMs);
      if (next.status !== locked.status) await this.deps.events.add(tx, owner, 'SUBSCRIPTION_UPDATED', subscriptionEvent(now), nowMs);
    });
    this.deps.log.warn({ subscription: s.id, period: n, reason }, 'a subscription charge failed');
    return 'failed';
  }

  /** The period's payment: initialize's, at the plan's price (a fixed rate of 1 to the coin, the fee the merchant's), the same reference on every retry. */
  private async payment(owner: Owner, s: StoredSubscription, reference: string) {
    const { plan } = s;
    const coin = this.deps.catalog.choose(owner.mode, plan.coin, plan.chainId);
    const deposit = await this.deps.catalog.depositAddress(owner.merchant.id, owner.mode, reference, plan.chainId);
    const cents = Math.min(plan.decimals, 2);
    const nowMs = this.deps.now();
    // Initialize reads the merchant's id, the mode and `via` of the account alone.
    const account = { merchant: { id: owner.merchant.id }, mode: owner.mode, via: 'secret' } as unknown as Account;
    const { payment } = await initializePayment(
      this.deps.payments,
      account,
      {
        reference,
        coin,
        currency: plan.coin.startsWith('EUR') ? 'EUR' : 'USD',
        fiatMinor: plan.price / 10n ** BigInt(plan.decimals - cents),
        acceptPartial: false,
        customerName: '',
        customerEmail: '',
        metadata: { subscription: s.id, period: Number(reference.split('_').at(-1)), price: formatUnits(plan.price, plan.decimals) },
        paymentLinkId: null,
        rates: { fiatPerCoin: '1', fiatPerUsd: '1', usdPerCoin: '1', source: 'subscription plan (priced in its coin)', fixed: true, atMs: nowMs },
      },
      nowMs,
      this.deps.quoteMs,
      { ...deposit, feeTerms: { ...deposit.feeTerms, bearer: 'merchant' } },
    );
    return payment;
  }
}
