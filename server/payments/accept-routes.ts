// The merchant resolves a payment's case by accepting it (payments/accept.ts): late
// money counted, an expired partial settled with what arrived, an excess kept, money in another
// coin or on another chain kept as the merchant's, or credited toward the payment at the rate of
// its arrival (`as: "credit"`). Sending it back instead: refunds/exception-routes.ts.
import * as z from 'zod/mini';
import { answer } from '../../contract/api.ts';
import { AcceptBody, AttentivePayment } from '../../contract/attention.ts';
import { is, REFERENCE_PATTERN } from '../../contract/fields.ts';
import { ok } from '../http/respond.ts';
import { acceptCase } from './accept.ts';
import { attentionView, caseOf, overpaidText } from './attention-rules.ts';
import { paymentSummary } from './list-views.ts';
import { depositReport } from './views.ts';
import type { Handler as AnyHandler, Schemas } from '../api/context.ts';
import { route } from '../api/route.ts';

/** The parts of the service these routes use: their handlers are given these alone. */
type Uses = 'acceptTransactions' | 'attention' | 'catalog' | 'closeEnoughCents' | 'now' | 'rateHistory';
type Handler<S extends Schemas = {}> = AnyHandler<S, Uses>;

const ByReference = z.object({ reference: is<string>((v) => typeof v === 'string' && REFERENCE_PATTERN.test(v), '1 to 64 letters, digits or . _ : -') });

export const accept: Handler<{ params: typeof ByReference; body: typeof AcceptBody }> = async ({ params, body, account, service }) => {
  const nowMs = service.now();
  const coinOf = (chainId: number, token: string) =>
    service.catalog.coins(account.mode).find((c) => c.chainId === chainId && c.contractAddress.toLowerCase() === token.toLowerCase());
  const pricing = { coinOf, maxAgeMs: service.rateHistory.maxAgeMs, closeEnoughCents: service.closeEnoughCents };
  const as = body.as ?? 'keep';
  const { payment, accepted } = await acceptCase(service.acceptTransactions, account, params.reference, nowMs, depositReport(service.now), as, pricing);
  // The payment as it is now, with what it still needs of the merchant (another case may be open).
  const facts = (await service.attention.facts([payment])).get(payment.id)!;
  const attention = attentionView(caseOf(facts.payment, facts.open, nowMs), coinOf);
  const summary = { ...paymentSummary(payment, nowMs), overpaid: overpaidText(payment), attention };
  const { amount, coin } = attentionView(accepted, coinOf)!;
  return ok(200, summary, `${as === 'credit' ? 'Credited' : 'Accepted'}: ${accepted.reason.replace('_', ' ')} of ${amount} ${coin}`);
};

export const routes = [
  route({
    method: 'POST',
    path: '/api/v1/payments/:reference/accept',
    auth: 'merchant',
    permission: 'balances.write',
    handler: accept,
    tag: 'Payments',
    summary: 'accept what a payment needs your attention for, as it arrived',
    description:
      'Resolves the payment\'s `attention` (GET /api/v1/payments?needs_attention=true) by keeping the money: `late` (money after it expired, settled or was paid) is counted toward it, and it is `settled` with what arrived when that is still short of due; `partial` (expired with part of its amount) is `settled` with what arrived; each is told by a `DEPOSIT_TRANSACTION` event with the amount that arrived, as a payment\'s success is. `overpaid`: the excess kept. `wrong_coin` / `wrong_chain`: the money is yours in the coin and on the chain it came in (on `balance` settlement it is in your balance already, journaled when it was swept), the payment itself unchanged, unless the body says `{ "as": "credit" }`: then each transfer is credited toward the payment at the rate of its arrival (the newest rate the service fetched at or before its block\'s time, no older than the rates\' maximum age then; the same coin on another chain 1:1), its value in the payment\'s coin rounded down, counted as paid and told by `DEPOSIT_TRANSACTION` (an excess then shows as `overpaid`); the transfer keeps its own amount and coin, and the payment\'s timeline shows what arrived, the rates and their time, and what was credited. No usable rate at its arrival: 409 `no_rate_at_arrival` naming `reference` (send it back instead); `credit` for another reason: 409 `not_creditable` naming `as`. Without a body, or `{ "as": "keep" }`, nothing is credited. Answers the payment, with its next `attention` if it has another. Nothing to resolve (resolved already, by a second accept at once on any instance too): 409 `nothing_to_resolve`. Send it back instead: POST /api/v1/payments/{reference}/send_back.',
    params: ByReference,
    body: AcceptBody,
    optionalBody: true,
    responses: { 200: answer(AttentivePayment) },
    errors: [404, 'nothing_to_resolve', 'wrong_mode', 'no_rate_at_arrival', 'not_creditable'],
  }),
];
