// What the API and the events show of plans and subscriptions: amounts as exact decimal text of the coin.
import { formatUnits } from '../../contract/money.ts';
import type { SubscriptionEvent } from '../../contract/subscriptions.ts';
import { approvalOf, type StoredPlan, type StoredSubscription } from './rules.ts';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export const planView = (p: StoredPlan) => ({
  id: p.id,
  name: p.name,
  coin: p.coin,
  chainId: p.chainId,
  price: formatUnits(p.price, p.decimals),
  period: p.period,
  periods: p.periods,
  createdAt: iso(p.createdMs)!,
});

export const subscriptionView = (s: StoredSubscription) => ({
  id: s.id,
  planId: s.planId,
  wallet: s.wallet,
  status: s.status,
  charged: s.charged,
  nextChargeAt: s.status === 'canceled' ? null : iso(s.nextMs),
  failures: s.failures,
  approve: { chainId: s.plan.chainId, token: s.plan.token, spender: s.spender, amount: formatUnits(approvalOf(s.plan), s.plan.decimals) },
  canceledAt: iso(s.canceledMs),
  createdAt: iso(s.createdMs)!,
});

export const subscriptionEvent = (s: Pick<StoredSubscription, 'id' | 'planId' | 'wallet' | 'status' | 'charged'>): SubscriptionEvent => ({
  id: s.id,
  planId: s.planId,
  wallet: s.wallet,
  status: s.status,
  charged: s.charged,
});
