// Refunds of a merchant's payments: ask for one (the payment's reference, base units
// or "rest", a reason, and the customer's address or none: then a claim link the customer names
// it on), read one, list them, cancel one not sent yet. Each key sees and refunds only its own
// merchant's payments of its own mode.
import * as z from 'zod/mini';
import { is, later } from '../../contract/fields.ts';
import { configuredUnits } from '../balances/ledger-rules.ts';
import { answer } from '../../contract/api.ts';
import { Refund, RefundBody, RefundsPage, RefundsQuery } from '../../contract/refunds.ts';
import { invalidField } from '../domain/errors.ts';
import { cursorText, keysetOf, pageOf, UUID } from '../http/cursor.ts';
import { ok } from '../http/respond.ts';
import type { AskedAmount } from './rules.ts';
import { cancelRefund, requestRefund } from './use-cases.ts';
import { refundView } from './views.ts';
import { askedAddress, asker, assertWalletReady, claimAnswer } from './asking.ts';
import type { Handler as AnyHandler, Schemas } from '../api/context.ts';
import { route } from '../api/route.ts';

/** The parts of the service these routes use: their handlers are given these alone. */
type Uses =
  | 'destinations'
  | 'mail'
  | 'now'
  | 'origin'
  | 'ownAddresses'
  | 'payments'
  | 'rates'
  | 'refunds'
  | 'refundTransactions'
  | 'treasury'
  | 'walletRefunds';
type Handler<S extends Schemas = {}> = AnyHandler<S, Uses>;

export const createRefund: Handler<{ body: typeof RefundBody }> = async ({ body, account, service }) => {
  const address = askedAddress(body.address);
  // One of the two, as the contract checked: the coin's decimal text, parsed once the payment's
  // coin is known (rules.ts's coinUnits), or the deprecated base units under their own name.
  const asked: AskedAmount =
    body.amount_base_units !== undefined ? { baseUnits: BigInt(body.amount_base_units) } : body.amount === 'rest' ? 'rest' : { coins: body.amount! };
  // On the payment's chain; on wallet settlement the merchant's own wallet sends it: no wallet of
  // the balance to protect. (A payment not found is refused by the use case, naming it.)
  const payment = address && (await service.payments.find(account, body.reference));
  if (address && payment && (await service.walletRefunds.settlementOf(account, body.reference)) !== 'wallet')
    await assertWalletReady(service, account, payment.chainId, address);
  const { role, context } = await asker(service, account, body.reference, address);
  const request = { reference: body.reference, amount: asked, reason: body.reason.trim(), address, role };
  const { refund, claimToken } = await requestRefund(service.refundTransactions, account, request, context, service.now(), refundView);
  const deprecated = body.amount_base_units !== undefined ? { headers: DEPRECATED_BASE_UNITS } : {};
  const sender = refund.settlement === 'wallet' ? 'send its transfer from your wallet' : 'the treasury sends it';
  if (!claimToken) return { ...ok(201, refundView(refund), `Refund ready: ${sender}`), ...deprecated };
  return { ...(await claimAnswer(service, account, refund, claimToken, role, 'Refund waiting for the customer')), ...deprecated };
};

/**
 * The answer to a request that wrote its amount the old way, `amount_base_units`: a
 * `Deprecation` header (RFC 9745: since when, as `@` Unix seconds: 2026-12-06;
 * docs/api.md, "How money is written").
 */
export const DEPRECATED_BASE_UNITS = { deprecation: '@1796515200' };

/** `{ daily }`: US dollars as decimal text (to the cent), "0" allows none, null returns to the operator's default. */
export const SupportLimitBody = later(() =>
  z.object({
    daily: z.nullable(is<string>((v) => typeof v === 'string' && /^\d{1,12}(\.\d{1,2})?$/.test(v), 'US dollars as decimal text, such as 50 or 25.50')),
  }),
);
export const SupportLimit = later(() =>
  z.object({ status: z.literal('success'), statusCode: z.number(), message: z.optional(z.string()), data: z.object({ daily: z.string() }) }),
);

export const setSupportLimit: Handler<{ body: typeof SupportLimitBody }> = async ({ body, account, service }) => {
  const cents = body.daily === null ? null : configuredUnits(body.daily, 2);
  // The caller's mode's only: a test key no longer sets what live support may refund.
  await service.refunds.setSupportLimit(account.merchant.id, account.mode, cents);
  const now = await service.refunds.supportLimitCents(account.merchant.id, account.mode);
  const daily = `${now / 100n}.${String(now % 100n).padStart(2, '0')}`;
  await service.mail.securityChanged(account.merchant, {
    change: 'support_limit',
    detail: `${account.mode} mode: ${daily} USD a day`,
    modes: [account.mode],
    by: account,
  });
  return ok(200, { daily }, `Support members' refund limit set for ${account.mode} mode`);
};

export const cancel: Handler = async ({ params, account, service }) =>
  ok(
    200,
    refundView(await cancelRefund(service.refundTransactions, account, params.id, service.now(), refundView)),
    'Refund canceled: its amount is back in the balance',
  );

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
    method: 'POST',
    path: '/api/v1/refunds',
    auth: 'merchant',
    permission: 'refunds.write',
    stepUp: 'live',
    handler: createRefund,
    tag,
    summary: 'send money of a payment back to the customer',
    description:
      "`reference` (the payment), `amount` (exact decimal text of its coin, as every amount of the API: `\"5\"` is five USDT, `\"0.5\"` half of one; more decimals than the coin has is a 400 naming `amount`; or `\"rest\"`: all that arrived and is not refunded yet; an overpayment's excess is the payment's `overpaid`; the deprecated `amount_base_units`, base units as text, is still taken in its place, answered with a `Deprecation` header), `reason`, and `address` (the customer's wallet, as you know it; EIP-55 or all lower case). Without `address` the refund is `waiting_for_address` and the answer carries `claim_url`, once: a single-use link (7 days) on which the customer names their wallet, the network and coin shown; it is then `ready`. When the service sends e-mail (SMTP_URL) and the payment has a `customer_email`, the link is e-mailed to it too, and the customer is sent a receipt (amount, coin, chain, transaction) once the refund is `confirmed`. A support member may only leave `address` out, never gets `claim_url` (the link is e-mailed to the payment's customer only; 403 `permission_denied` naming `customer_email` when the payment has none or e-mail is off), and refunds up to the business's support limit a day (403 `permission_denied`). A payment's refunds (failed ones not counted) never add up to more than arrived for it: 409 `refund_exceeds_received` naming `amount`; 409 `nothing_received` for a payment that received nothing; 409 `wrong_mode` naming `reference` for the other mode's payment; 400 naming `address` for the service's treasury or any deposit address. Balance settlement: the amount is reserved from the balance (409 past it, or past the daily withdrawal limit, which refunds count toward) and the treasury sends it: 201 `ready`, then `sent` (with `tx_hash`), `confirmed` once its block has the network's confirmations, or `failed` (the amount back in the balance), each change a `REFUND_UPDATED` event and a line in the payment's timeline. Wallet settlement (the service holds none of it): nothing is reserved or counted toward the limit; the answer's `transfer` (once the address is known) is the one transfer your own wallet sends (`uri`: EIP-681; `GET /api/v1/refunds/{id}/qr` as a QR code); the service finds it on chain (exactly that amount of that token to that address, from any sender) or you name its transaction (`POST /api/v1/refunds/{id}/transaction`); then `sent` and `confirmed` as above.",
    body: RefundBody,
    responses: { 201: answer(Refund) },
    errors: [
      404,
      'permission_denied',
      'destination_pending',
      'nothing_received',
      'refund_exceeds_received',
      'wrong_mode',
      'insufficient_balance',
      'withdrawal_limit_exceeded',
    ],
    movesMoney: true,
  }),
  route({
    method: 'GET',
    path: '/api/v1/refunds',
    auth: 'merchant',
    permission: 'payments.read',
    handler: listRefunds,
    tag,
    summary: 'the refunds, newest first: cursor, limit, status, reference, from, to',
    description:
      "Newest first. `cursor` is `next` of the page before (opaque; `next` is null and `has_more` false on the last page); `limit` 1–100 (25); `status` (waiting_for_address, ready, sent, confirmed, failed, canceled), `reference` (a payment's), `from` and `to` (ISO 8601 times, `to` excluded) filter.",
    query: RefundsQuery,
    responses: { 200: RefundsPage },
  }),
  route({
    method: 'PUT',
    path: '/api/v1/refunds/support_limit',
    auth: 'merchant',
    permission: 'team.write',
    stepUp: 'live',
    memberFactor: true,
    handler: setSupportLimit,
    tag,
    summary: 'how much the support members may refund a day',
    description:
      "`{ daily }`: US dollars as decimal text (to the cent; `\"0\"`: support may not refund), or `null` for the operator's default (`SUPPORT_REFUND_DAILY_LIMIT`, 100). Each mode has its own limit: the caller's mode's is set (a test key sets test mode's only; live mode's from a dashboard session asks for a second factor within five minutes, as other live money settings, and a member without one is refused until they add one). Counted over the last 24 hours, per mode, every support member's refunds not failed or canceled together. Support members refund only through the customer's claim link (no `address`). Answers the limit that now holds.",
    body: SupportLimitBody,
    responses: { 200: SupportLimit },
  }),
  route({
    method: 'POST',
    path: '/api/v1/refunds/:id/cancel',
    auth: 'merchant',
    permission: 'refunds.write',
    handler: cancel,
    tag,
    summary: 'cancel a refund not sent yet',
    description:
      "A refund `waiting_for_address`, or `ready` with no transaction signed for it yet, becomes `canceled`: its amount back in the balance in one journal entry, its claim link dead, a `REFUND_UPDATED` event. Once the treasury has signed its transaction it can no longer be canceled: 409 `refund_state` (a cancel and the treasury's send racing end in exactly one).",
    responses: { 200: answer(Refund) },
    errors: [404, 'refund_state'],
    movesMoney: true,
  }),
  route({
    method: 'GET',
    path: '/api/v1/refunds/:id',
    auth: 'merchant',
    permission: 'payments.read',
    handler: getRefund,
    tag,
    summary: 'one refund and its state',
    description:
      'The refund by the id its `POST /api/v1/refunds` answer gave: payment, coin, address, amount, its transaction once sent, and where it stands; each change is also a `REFUND_UPDATED` event.',
    responses: { 200: answer(Refund) },
  }),
];
