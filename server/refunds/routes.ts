// Refunds of a merchant's payments (issue 35), secret key only: ask for one (the payment's
// reference, base units or "rest", a reason, the customer's address), read one, list them.
// Each key sees and refunds only its own merchant's payments of its own mode.
import { getAddress, isAddress } from 'viem';
import { answer } from '../../contract/api.ts';
import { Refund, RefundBody, RefundsPage, RefundsQuery } from '../../contract/refunds.ts';
import type { CoinSymbol } from '../../contract/fields.ts';
import { DestinationPending, invalidField } from '../domain/errors.ts';
import { cursorText, keysetOf, pageOf, UUID } from '../http/cursor.ts';
import { ok } from '../http/respond.ts';
import { requestRefund } from './use-cases.ts';
import { refundView } from './views.ts';
import type { Handler as AnyHandler, Schemas } from '../routes/context.ts';
import { route } from '../routes/route.ts';

/** The parts of the service these routes use: their handlers are given these alone. */
type Uses = 'destinations' | 'now' | 'payments' | 'rates' | 'refunds' | 'treasury';
type Handler<S extends Schemas = {}> = AnyHandler<S, Uses>;


export const createRefund: Handler<{ body: typeof RefundBody }> = async ({ body, account, service }) => {
  if (!isAddress(body.address, { strict: true }) && body.address.slice(2) !== body.address.slice(2).toLowerCase()) {
    throw invalidField('address', `expected a valid EIP-55 checksum (mixed case), or all lower case; did you mean ${getAddress(body.address.toLowerCase())}?`);
  }
  const address = getAddress(body.address.toLowerCase());
  const asked = body.amount === 'rest' ? ('rest' as const) : BigInt(body.amount);
  // A live key's wallet never sent to from the balance waits the operator's delay, as a
  // withdrawal's does: a stolen key must not send the balance, payment by payment, to a wallet
  // of its own at once. (A payment not found is refused by the use case, naming it.)
  const payment = await service.payments.find(account, body.reference);
  if (payment) {
    const wallet = await service.destinations.withdrawalAddress(account, payment.chainId, address, service.now());
    if (!wallet.ready) {
      const at = new Date(wallet.change.effectiveMs).toISOString();
      throw new DestinationPending(
        `address: ${address} has never received money of your live balance on chain ${payment.chainId}; it is registered now and can receive from ${at} (new wallets wait ${Math.round(service.destinations.delayMs / 60_000)} minutes, so the owner can cancel one they did not add: change ${wallet.change.id}). Ask again from then; nothing was reserved or sent`,
        [{ field: 'address', message: `expected a wallet registered at least the delay ago; this one can receive from ${at}` }],
      );
    }
  }
  const context = {
    treasuryOf: (chainId: number) => service.treasury(account.mode, chainId)?.treasury.address ?? null,
    usdPerCoin: (symbol: string) => service.rates.usdPerCoin(symbol as CoinSymbol),
  };
  const refund = await requestRefund(service.refunds, account, { reference: body.reference, amount: asked, reason: body.reason.trim(), address }, context, service.now(), refundView);
  return ok(201, refundView(refund), 'Refund ready: the treasury sends it');
};

export const getRefund: Handler = async ({ params, account, service }) => ok(200, refundView(await service.refunds.refund(account, params.id)), 'Refund');

export const listRefunds: Handler<{ query: typeof RefundsQuery }> = async ({ query: q, account, service }) => {
  const limit = q.limit === undefined ? 25 : Number(q.limit);
  const fromMs = q.from === undefined ? undefined : Date.parse(q.from);
  const toMs = q.to === undefined ? undefined : Date.parse(q.to);
  if (fromMs !== undefined && toMs !== undefined && toMs <= fromMs) throw invalidField('to', 'expected a time after from');
  // The cursor holds (created, id) of the page's last refund: the next page starts below it.
  const after = q.cursor === undefined ? undefined : keysetOf('refunds', q.cursor, UUID);
  const rows = await service.refunds.list(account, { after, limit: limit + 1, state: q.status, reference: q.reference, fromMs, toMs });
  const { page, ...paging } = pageOf(rows, limit, (r) => cursorText('refunds', r.createdMs, r.id));
  return ok(200, page.map(refundView), 'Refunds', paging);
};

const tag = 'Refunds' as const;

export const routes = [
  route({
    method: 'POST', path: '/api/v1/refunds', auth: 'merchant', permission: 'refunds.write', stepUp: 'live', handler: createRefund, tag,
    summary: 'send money of a payment back to the customer',
    description: '`reference` (the payment), `amount` (base units of its coin as text, or `"rest"`: all that arrived and is not refunded yet; an overpayment\'s excess is `amount_paid − amount_due`), `reason`, and `address` (the customer\'s wallet, as you know it; EIP-55 or all lower case). A payment\'s refunds (failed ones not counted) never add up to more than arrived for it: 409 `refund_exceeds_received` naming `amount`; 409 `nothing_received` for a payment that received nothing; 409 `wrong_mode` naming `reference` for the other mode\'s payment; 400 naming `address` for the service\'s treasury or any deposit address. Balance settlement: the amount is reserved from the balance (409 past it, or past the daily withdrawal limit, which refunds count toward) and the treasury sends it: 201 `ready`, then `sent` (with `tx_hash`), `confirmed` once its block has the network\'s confirmations, or `failed` (the amount back in the balance), each change a `REFUND_UPDATED` event and a line in the payment\'s timeline. Wallet settlement: 409 (the service holds none of it).',
    body: RefundBody, responses: { 201: answer(Refund) },
    errors: [404, 'destination_pending', 'nothing_received', 'refund_exceeds_received', 'wrong_mode', 'insufficient_balance', 'withdrawal_limit_exceeded', 'balance_settlement_required'], limits: { movesMoney: true },
  }),
  route({
    method: 'GET', path: '/api/v1/refunds', auth: 'merchant', permission: 'payments.read', handler: listRefunds, tag,
    summary: 'the refunds, newest first: cursor, limit, status, reference, from, to',
    description: 'Newest first. `cursor` is `next` of the page before (opaque; `next` is null and `has_more` false on the last page); `limit` 1–100 (25); `status` (ready, sent, confirmed, failed), `reference` (a payment\'s), `from` and `to` (ISO 8601 times, `to` excluded) filter.',
    query: RefundsQuery, responses: { 200: RefundsPage },
  }),
  route({ method: 'GET', path: '/api/v1/refunds/:id', auth: 'merchant', permission: 'payments.read', handler: getRefund, tag, summary: 'one refund and its state', description: 'The refund by the id its `POST /api/v1/refunds` answer gave: payment, coin, address, amount, its transaction once sent, and where it stands; each change is also a `REFUND_UPDATED` event.', responses: { 200: answer(Refund) } }),
];
