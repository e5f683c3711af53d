// Plans and subscriptions (secret key or the dashboard's session): make, list and read a plan;
// subscribe a customer's wallet to one (answering what the customer approves), list and read
// subscriptions, cancel one. The charges are the charge job's (charge-job.ts).
import * as z from 'zod/mini';
import { answer } from '../../contract/api.ts';
import { uuid } from '../../contract/payment-links.ts';
import { Plan, PlanBody, PlansPage, PlansQuery, Subscription, SubscriptionBody, SubscriptionsPage, SubscriptionsQuery } from '../../contract/subscriptions.ts';
import { NotFound } from '../domain/errors.ts';
import { cursorText, keysetOf, pageOf, UUID } from '../http/cursor.ts';
import { ok } from '../http/respond.ts';
import type { Handler as AnyHandler, Schemas } from '../api/context.ts';
import { route } from '../api/route.ts';
import { planView, subscriptionView } from './views.ts';

/** The parts of the service these routes use: their handlers are given these alone. */
type Uses = 'subscriptions';
type Handler<S extends Schemas = {}> = AnyHandler<S, Uses>;

const ById = z.object({
  id: z.pipe(
    uuid,
    z.transform((id: string) => id.toLowerCase()),
  ),
});
type ById = { params: typeof ById };

export const createPlan: Handler<{ body: typeof PlanBody }> = async ({ body, account, service }) =>
  ok(201, planView(await service.subscriptions.createPlan(account, body)), 'Plan created');

export const listPlans: Handler<{ query: typeof PlansQuery }> = async ({ query: q, account, service }) => {
  const limit = q.limit === undefined ? 25 : Number(q.limit);
  const after = q.cursor === undefined ? undefined : keysetOf('plans', q.cursor, UUID);
  const rows = await service.subscriptions.store.plans(account, after, limit + 1);
  const { page, ...paging } = pageOf(rows, limit, (p) => cursorText('plans', p.createdMs, p.id));
  return ok(200, page.map(planView), 'Plans', paging);
};

export const getPlan: Handler<ById> = async ({ params, account, service }) => {
  const plan = await service.subscriptions.store.plan(account, params.id);
  if (!plan) throw new NotFound(`No plan ${params.id}`);
  return ok(200, planView(plan), 'Plan');
};

export const subscribe: Handler<{ body: typeof SubscriptionBody }> = async ({ body, account, service }) =>
  ok(
    201,
    subscriptionView(await service.subscriptions.subscribe(account, body)),
    'Subscription created: the customer approves `approve.amount` to `approve.spender`',
  );

export const listSubscriptions: Handler<{ query: typeof SubscriptionsQuery }> = async ({ query: q, account, service }) => {
  const limit = q.limit === undefined ? 25 : Number(q.limit);
  const after = q.cursor === undefined ? undefined : keysetOf('subscriptions', q.cursor, UUID);
  const rows = await service.subscriptions.store.subscriptions(account, after, limit + 1);
  const { page, ...paging } = pageOf(rows, limit, (s) => cursorText('subscriptions', s.createdMs, s.id));
  return ok(200, page.map(subscriptionView), 'Subscriptions', paging);
};

export const getSubscription: Handler<ById> = async ({ params, account, service }) => {
  const found = await service.subscriptions.store.subscription(account, params.id);
  if (!found) throw new NotFound(`No subscription ${params.id}`);
  return ok(200, subscriptionView(found), 'Subscription');
};

export const cancelSubscription: Handler<ById> = async ({ params, account, service }) =>
  ok(200, subscriptionView(await service.subscriptions.cancel(account, params.id)), 'Subscription canceled: never charged again');

const merchant = { auth: 'merchant', tag: 'Subscriptions' } as const;

export const routes = [
  route({
    ...merchant,
    method: 'GET',
    path: '/api/v1/plans',
    permission: 'payments.read',
    handler: listPlans,
    summary: 'the subscription plans, newest first',
    description: 'Newest first; `cursor` is `next` of the page before (opaque); `limit` 1–100 (25).',
    query: PlansQuery,
    responses: { 200: PlansPage },
  }),
  route({
    ...merchant,
    method: 'POST',
    path: '/api/v1/plans',
    permission: 'payments.write',
    handler: createPlan,
    summary: 'make a subscription plan: a price in one coin per period, for a number of periods',
    description:
      'A coin on a chain (`chain_id` where the mode offers the symbol on several), `price` exact decimal text of the coin with at most 2 decimals (each charge is a payment priced in cents), `period` (day, week, month, year: calendar months and years in UTC) and `periods` (1–120). 400 naming the field otherwise.',
    body: PlanBody,
    responses: { 201: answer(Plan) },
  }),
  route({
    ...merchant,
    method: 'GET',
    path: '/api/v1/plans/:id',
    permission: 'payments.read',
    handler: getPlan,
    summary: 'one subscription plan',
    description: "The plan by its id; 404 for another merchant's or mode's.",
    params: ById,
    responses: { 200: answer(Plan) },
  }),
  route({
    ...merchant,
    method: 'GET',
    path: '/api/v1/subscriptions',
    permission: 'payments.read',
    handler: listSubscriptions,
    summary: 'the subscriptions, newest first',
    description: 'Newest first, each with its state, periods charged and next charge; `cursor` is `next` of the page before; `limit` 1–100 (25).',
    query: SubscriptionsQuery,
    responses: { 200: SubscriptionsPage },
  }),
  route({
    ...merchant,
    method: 'POST',
    path: '/api/v1/subscriptions',
    permission: 'payments.write',
    handler: subscribe,
    summary: "subscribe a customer's wallet to a plan",
    description:
      "`pending` until its first period is charged; its first period starts now by the chain's clock. The answer's `approve` is what the customer's wallet signs once: an ERC-20 `approve(spender, amount)` on `token`, `amount` the plan's price × its periods. Each period is charged at or after its start (never before, never twice, never above the price, never after a cancel) as an ordinary payment: confirmed, webhooked (DEPOSIT_TRANSACTION) and journaled as any. A charge that fails is retried and told (SUBSCRIPTION_PAYMENT_FAILED); past the grace period the subscription is `past_due`, then `canceled` (SUBSCRIPTION_UPDATED). 409 `not_configured` where the chain has no gas wallet.",
    body: SubscriptionBody,
    responses: { 201: answer(Subscription) },
    errors: ['not_configured', 404],
  }),
  route({
    ...merchant,
    method: 'GET',
    path: '/api/v1/subscriptions/:id',
    permission: 'payments.read',
    handler: getSubscription,
    summary: 'one subscription',
    description: "The subscription by its id; 404 for another merchant's or mode's.",
    params: ById,
    responses: { 200: answer(Subscription) },
  }),
  route({
    ...merchant,
    method: 'POST',
    path: '/api/v1/subscriptions/:id/cancel',
    permission: 'payments.write',
    handler: cancelSubscription,
    summary: 'cancel a subscription',
    description:
      'Never charged again, from now (SUBSCRIPTION_UPDATED). The allowance the customer gave stays on the chain until the customer revokes it (approve 0); the service never uses it again. 409 when canceled already.',
    params: ById,
    responses: { 200: answer(Subscription) },
    errors: [404, 409],
  }),
];
