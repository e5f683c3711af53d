// The checkout's endpoints: coins, initialize, verify (with its long poll), and the sandbox.
import { clientOf } from '../http/client.ts';
import * as z from 'zod/mini';
import { answer, CoinsAnswer, Initialized } from '../../contract/api.ts';
import { FIAT_DECIMALS, is, jsonObject, REFERENCE_PATTERN } from '../../contract/fields.ts';
import { DepositBody, InitializeBody, MerchantVerification, Qr, Verification } from '../../contract/schemas.ts';
import { toUnits } from '../../contract/money.ts';
import { startPayment } from './initialize.ts';
import { offeredCoins } from './coins.ts';
import { paymentStatus } from './status.ts';
import { depositInSandbox } from './sandbox.ts';
import { CoinsQuery, VerifyQuery } from '../http/queries.ts';
import { CoinUnavailable, LinkInactive, NotFound, invalidField } from '../domain/errors.ts';
import type { Payment } from './rules.ts';
import { ok } from '../http/respond.ts';
import { depositReport, transactionView, verificationView } from './views.ts';
import { qrView } from './qr.ts';
import { paymentUriOfUnits } from '../../contract/payment-uri.ts';
import type { Handler as AnyHandler, Schemas, ServiceParts } from '../api/context.ts';
import type { Account } from '../domain/account.ts';
import type { Coin } from '../../contract/schemas.ts';
import { faultable, rateLimited, type RateLimit } from '../api/checks.ts';
import { route } from '../api/route.ts';

/** The parts of the service these routes use: their handlers are given these alone. */
type Uses =
  | 'catalog'
  | 'chain'
  | 'changes'
  | 'config'
  | 'devChain'
  | 'links'
  | 'log'
  | 'metrics'
  | 'now'
  | 'payments'
  | 'crediting'
  | 'publicInitializes'
  | 'rates'
  | 'relayer';
type Handler<S extends Schemas = {}> = AnyHandler<S, Uses>;

/** A payment's reference in the path. */
const ByReference = z.object({ reference: is<string>((v) => typeof v === 'string' && REFERENCE_PATTERN.test(v), '1 to 64 letters, digits or . _ : -') });
type ByReference = { params: typeof ByReference };

/**
 * The key's coins. With ?amount&currency (both or neither), each coin also says what the
 * customer would send for that price, fee included, so the coin list can show it before
 * anyone picks. Beside the data: the business the key belongs to, for the checkout's header.
 */
export const coins: Handler<{ query: typeof CoinsQuery }> = async ({ query, account, service }) => {
  const { list, rate, sandbox } = await offeredCoins(service, account, query);
  const { businessName: name, businessEmail: email, businessLogo: logo } = account.merchant;
  return ok(200, list, 'Coins retrieved', { business: { name, email, logo }, sandbox, ...(rate ? { rate } : {}) });
};

export const initialize: Handler<{ body: typeof InitializeBody }> = async ({ account, service, body }) => {
  const paymentLinkId = body.payment_link === undefined ? null : await ownActiveLink(service, account, body.payment_link);
  const coin = activeCoin(service, account, body.coin, body.chain_id);
  const { payment, created } = await startPayment(service, account, {
    reference: String(body.reference),
    coin,
    currency: body.currency,
    fiatMinor: toUnits(body.amount, FIAT_DECIMALS)!,
    acceptPartial: body.accept_partial_payment ?? false,
    customerName: body.customer_name?.trim() ?? '',
    customerEmail: body.customer_email?.trim() ?? '',
    metadata: body.metadata === undefined ? null : (jsonObject(body.metadata) ?? null),
    paymentLinkId,
  });
  if (created && account.via === 'public') await countPublicInitialize(service, account);
  // A public key holder (anyone) may ask for any reference: only the customer it sent comes back.
  const asSent = account.via === 'public' ? { name: body.customer_name?.trim() ?? '', email: body.customer_email?.trim() ?? '' } : undefined;
  const view = { ...transactionView(payment, account.merchant, service.now(), asSent, account.via === 'secret'), uri: uriOf(service, account, payment, coin) };
  return ok(created ? 201 : 200, view, created ? 'Transaction initialized' : 'Transaction already initialized');
};

/** The payment link a payment is made for: the account's own, and active; its id. */
async function ownActiveLink(service: Pick<ServiceParts, 'links'>, account: Account, id: string): Promise<string> {
  const link = await service.links.find(id);
  if (!link || link.merchantId !== account.merchant.id || link.mode !== account.mode) {
    throw new NotFound(`payment_link: no payment link ${id}`, [{ field: 'payment_link', message: 'expected a payment link of yours' }]);
  }
  if (!link.isActive) throw new LinkInactive(`Payment link ${link.slug} is deactivated: it cannot receive payments`);
  return link.id;
}

/** A coin is a symbol on a chain: chain_id names it where the mode takes the symbol on several; one not active now is refused naming `coin`. */
function activeCoin(service: Pick<ServiceParts, 'catalog'>, account: Account, symbol: string, chainId: number | undefined) {
  const coin = service.catalog.choose(account.mode, symbol, chainId);
  if (coin.status !== 'active') throw invalidField('coin', `expected an active coin, received ${symbol}; ${symbol} is not available on ${coin.network} now`);
  return coin;
}

/** The public key's payments a minute are counted, not refused: past the ceiling, an alert. */
async function countPublicInitialize(service: Pick<ServiceParts, 'publicInitializes' | 'metrics' | 'log'>, account: Account): Promise<void> {
  if (!(await service.publicInitializes.perKey.crossed(`${account.merchant.id}/${account.mode}`))) return;
  service.metrics.ceilingPassed('public_initialize', account.mode);
  service.log.warn(
    { merchant: account.merchant.id, mode: account.mode, ceiling: service.publicInitializes.perKey.max },
    "payments started with the public key passed the minute's ceiling (alerted, not refused)",
  );
}

/** The EIP-681 URI of what is still due, as the QR endpoint gives it: a server can show it without asking again. */
function uriOf(service: Pick<ServiceParts, 'catalog'>, account: Account, payment: Payment, asked: Coin): string {
  const paid = service.catalog.coin(account.mode, payment.coin, payment.chainId) ?? asked;
  return paymentUriOfUnits(paid, payment.address, payment.due > payment.paid ? payment.due - payment.paid : 0n);
}

/** ?wait=<1..30>&since=<paymentVersion>, both or neither (VerifyQuery holds them). */
const longPollOf = (query: z.output<typeof VerifyQuery>): { seconds: number; since: string } | undefined =>
  query.wait === undefined || query.since === undefined ? undefined : { seconds: Number(query.wait), since: query.since };

/**
 * The payment's QR code: the EIP-681 URI of what is still due, made by the same function the
 * checkout uses (it shows the code only when the URI is the one it computed itself), drawn as
 * one SVG path.
 */
export const qr: Handler<ByReference> = async (ctx) => {
  const { account, service } = ctx;
  const reference = ctx.params.reference;
  const payment = await service.payments.get(account, reference);
  const coin = service.catalog.coin(account.mode, payment.coin, payment.chainId);
  if (!coin) throw new CoinUnavailable(`Transaction ${reference} is in ${payment.coin} on chain ${payment.chainId}, a coin this service no longer takes there`);
  // From base units: what is still due can be one base unit, which a JSON number writes as 1e-18.
  const remaining = payment.due > payment.paid ? payment.due - payment.paid : 0n;
  return ok(200, qrView(paymentUriOfUnits(coin, payment.address, remaining)), 'QR code');
};

export const verify: Handler<ByReference & { query: typeof VerifyQuery }> = async ({ params, query, res, account, service }) => {
  const gone = new AbortController();
  res.on('close', () => gone.abort()); // the client went away: stop waiting for it
  const answer = await paymentStatus(service, account, params.reference, longPollOf(query), gone.signal);
  return answer && ok(200, answer, 'Transaction status');
};

export const sandboxDeposit: Handler<{ body: typeof DepositBody }> = async ({ account, service, body }) => {
  const { payment, sent } = await depositInSandbox(service, account, String(body.reference), body.kind);
  return ok(
    200,
    verificationView(payment, service.now(), account.via === 'secret'),
    sent === 'on chain' ? 'Deposit sent on the dev chain' : 'Deposit simulated',
  );
};

/** Finishes an accepted partial payment with what arrived: the checkout's "Finish with what I sent". */
export const settle: Handler<ByReference> = async ({ params, account, service }) => {
  const reference = params.reference;
  const payment = await service.crediting.finish(account, reference, service.now(), depositReport(service.now));
  return ok(200, verificationView(payment, service.now(), account.via === 'secret'), 'Transaction settled with what arrived');
};

/**
 * Anyone holds the public key (it is in every checkout page): each client address may start a
 * few payments a minute (counted before the body is read). The merchant's own server, with the
 * secret key, is not limited. The key's own count is not a refusal: it counts payments made and
 * alerts past its ceiling (initialize), so junk from many addresses never spends what real
 * customers share.
 */
const perClientInitializes: RateLimit = {
  limiter: (service) => service.publicInitializes.perClient,
  key: ({ req, account, service }) => (account.via === 'public' ? clientOf(req, service.config.trustProxies) : undefined),
  message: (wait) => `Too many payments started with this public key from this address; try again in ${wait} s`,
};
const verification = answer(z.union([MerchantVerification, Verification]));

export const routes = [
  route({
    method: 'GET',
    path: '/api/v1/coins',
    auth: 'public',
    handler: coins,
    tag: 'Payments',
    summary: "the coins of the key's network",
    description:
      "Testnet for `pk_test_`, mainnet for `pk_live_`. With `amount` and `currency` (both or neither) each coin also says what the customer would send for that price, fee included. Beside the data: the business the key belongs to, for the checkout's header.",
    query: CoinsQuery,
    responses: { 200: CoinsAnswer },
    errors: ['not_configured', 'coin_unavailable', 503],
    checks: [faultable('coins')],
  }),
  route({
    method: 'POST',
    path: '/api/v1/transaction/initialize',
    auth: 'either',
    permission: 'payments.write',
    handler: initialize,
    tag: 'Payments',
    summary: 'create, answer again, or re-quote a payment',
    description:
      "201 with the payment transaction and `expiresAt`, and beside them the payment's state as verify gives it; the same request again answers 200 with the same transaction. A reference that received nothing may be re-quoted in another coin (or with a fresh expiry), never at another price: another `amount`, `currency` or `accept_partial_payment` is a 409 naming the field (a reference is one payment); one that received funds gets 409. `payment_link` (an id or slug) ties the payment to a link; a deactivated link refuses it with 409. A coin is a symbol on a chain: the coin list has one entry per (symbol, network), each with its `chainId`. `chain_id` names the chain to pay on; without it, the one chain of the key's mode that takes the coin. Where the mode takes the coin on several chains, `chain_id` is required (400 naming it and the chains that take the coin): the service never guesses a chain, since a customer who sends on another chain than the payment's pays nothing toward it. A chain the mode does not take the coin on is a 400 naming `chain_id`. Re-quoting a reference on another chain gives it that chain's deposit address, unless something already arrived at its address (409). With the public key, each client address may start 30 a minute (429 with Retry-After); payments made with the key past its ceiling alert the operator (a warning and `service_public_payments_ceiling_passed_total`) and refuse nobody, so junk from many addresses never spends what real customers share.",
    body: InitializeBody,
    responses: { 200: answer(Initialized), 201: answer(Initialized) },
    errors: ['reference_in_use', 'link_inactive', 'coin_unavailable', 'not_configured', 'payout_address_required', 429, 503],
    checks: [rateLimited(perClientInitializes), faultable('initialize')],
  }),
  route({
    method: 'GET',
    path: '/api/v1/transaction/verify/:reference',
    auth: 'either',
    permission: 'payments.read',
    handler: verify,
    tag: 'Payments',
    summary: "a payment's state; ?wait&since long-polls",
    description:
      'Status `pending`, `incomplete`, `confirmed`, `settled` (an accepted partial payment, finished), `expired` or `failed`, with amounts due, paid and remaining. With the public key the answer has no customer, metadata or exact amounts (Verification); with the secret key it has them (MerchantVerification), every amount also as exact decimal text (compare these, not the numbers). `confirming` (amount, confirmations so far and needed) while a transfer on the chain is not yet deep enough. `wait` (1–30 s) with `since` (the version last seen: `status:amountPaid:coin:expiresAt[:confirmingAmount:confirmations]`) holds the request until the payment changes; an instance holds at most 20 per public key, 4 of them on one payment, 20 per secret key apart from those, and 1,000 in all (429 with Retry-After naming which).',
    params: ByReference,
    query: VerifyQuery,
    responses: { 200: verification },
    errors: [429],
    checks: [faultable('verify')],
  }),
  route({
    method: 'GET',
    path: '/api/v1/transaction/qr/:reference',
    auth: 'either',
    permission: 'payments.read',
    handler: qr,
    tag: 'Payments',
    summary: "a payment's EIP-681 QR code, as an SVG path",
    description:
      '`{ uri, size, path }`: the EIP-681 URI of what is still due (the same the checkout computes) and its QR code (byte mode, level M) as one SVG path of dark modules; the checkout draws it only when `uri` is the one it computed.',
    params: ByReference,
    responses: { 200: answer(Qr) },
    errors: ['coin_unavailable'],
  }),
  route({
    method: 'POST',
    path: '/api/v1/transaction/settle/:reference',
    auth: 'either',
    permission: 'payments.write',
    handler: settle,
    tag: 'Payments',
    summary: 'finish an accepted partial payment with what arrived',
    description:
      'For a partly paid payment whose `acceptPartialPayment` is true: status `settled`, told once by a `DEPOSIT_TRANSACTION` event (an expired one is settled by the service itself); again answers it as it is; 409 for anything else.',
    params: ByReference,
    responses: { 200: verification },
    errors: ['payment_state'],
  }),
  route({
    method: 'POST',
    path: '/api/v1/sandbox/deposit',
    auth: 'either',
    permission: 'payments.write',
    handler: sandboxDeposit,
    tag: 'Payments',
    summary: 'test keys: simulate a deposit',
    description:
      "Test keys only (the page's public key, or a server's or the CLI's secret key); 403 for a live key or with the sandbox off. On a dev chain, a real transfer the watcher finds; without a network, a simulated credit.",
    body: DepositBody,
    responses: { 200: verification },
    errors: ['sandbox_unavailable', 'chain_not_offered', 'payment_state', 409],
  }),
];
