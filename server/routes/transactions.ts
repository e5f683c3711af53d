// The checkout's endpoints: coins, initialize, verify (with its long poll), and the sandbox.
import { clientOf } from '../http/client.ts';
import { FIAT_DECIMALS, jsonObject, REFERENCE_PATTERN } from '../../contract/fields.ts';
import { DepositBody, InitializeBody, MAX_WAIT_SECONDS, paymentVersion } from '../../contract/schemas.ts';
import { quote } from '../domain/quote.ts';
import { toUnits, unitsToNumber } from '../../contract/money.ts';
import { initializePayment } from '../domain/initialize.ts';
import { CoinsQuery } from '../http/queries.ts';
import { Conflict, Forbidden, invalidField, NotFound, TooMany } from '../domain/errors.ts';
import { assertTakesDeposits, sandboxAmount, type Payment } from '../domain/payments.ts';
import type { Call } from '../http/faults.ts';
import { readJson } from '../http/body.ts';
import { ok } from '../http/respond.ts';
import { parse } from '../http/validate.ts';
import { paymentKey } from '../realtime/keys.ts';
import { depositReport, transactionView, verificationView } from '../views/payments.ts';
import { qrView } from '../views/qr.ts';
import { paymentUriOfUnits } from '../../contract/payment-uri.ts';
import { noLiveNetwork } from '../chain/catalog.ts';
import { randomBytes } from 'node:crypto';
import type { Ctx, Handler } from './context.ts';

/** True when an injected fault answered instead of the route (tests, test keys only). */
const faulted = (ctx: Ctx, call: Call) =>
  ctx.service.faults && ctx.account.mode === 'test' ? ctx.service.faults.apply(call, ctx.req, ctx.res) : Promise.resolve(false);

/**
 * The key's coins. With ?amount&currency (both or neither), each coin also says what the
 * customer would send for that price, fee included, so the coin list can show it before
 * anyone picks. Beside the data: the business the key belongs to, for the checkout's header.
 */
export const coins: Handler = async (ctx) => {
  const { query, account } = ctx;
  const price = parse(CoinsQuery, Object.fromEntries(query), 'query');
  if (await faulted(ctx, 'coins')) return;
  if (account.mode === 'live' && ctx.service.catalog.networks('live').length === 0) throw noLiveNetwork();
  // Priced at each coin's rates, fresh or fixed (a stale one refuses the list, naming it); an
  // inactive coin (off its peg, or not offered) is listed unpriced.
  let rate: { source: string; fixed: boolean; at: string } | undefined;
  const list = await Promise.all(ctx.service.catalog.coins(account.mode).map(async (coin) => {
    if (price.amount === undefined || price.currency === undefined || coin.status !== 'active') return coin;
    const rates = await ctx.service.rates.forQuote(price.currency, coin.symbol);
    rate ??= { source: rates.source, fixed: rates.fixed, at: new Date(rates.atMs).toISOString() };
    const q = quote(toUnits(price.amount, FIAT_DECIMALS)!, rates.fiatPerCoin, coin.decimals);
    return { ...coin, due: unitsToNumber(q.due, q.decimals), fee: unitsToNumber(q.fee, q.decimals) };
  }));
  const { businessName: name, businessEmail: email, businessLogo: logo } = account.merchant;
  // The sandbox's buttons are offered only where a press can pay: test keys, the sandbox on,
  // and a dev chain among the mode's (or no chain at all). On a public testnet payments are
  // real transfers, and a press for a payment there is refused.
  const networks = ctx.service.catalog.networks(account.mode);
  const sandbox = account.mode === 'test' && ctx.service.config.sandbox && (networks.length === 0 || networks.some((n) => !!n.dev));
  return ok(200, list, 'Coins retrieved', { business: { name, email, logo }, sandbox, ...(rate ? { rate } : {}) });
};

export const initialize: Handler = async (ctx) => {
  const { account, service } = ctx;
  // Anyone holds the public key (it is in every checkout page): each client's requests are
  // counted and refused past its allowance. The merchant's own server (secret key) is not.
  // The key's count takes only payments made, and refuses nobody: a stranger's junk from many
  // addresses never spends what real customers share; past the ceiling the operator is
  // alerted (a warning and a metric), once a minute per merchant and mode.
  if (account.via === 'public') {
    const wait = service.publicInitializes.perClient.hit(clientOf(ctx.req, service.config.trustProxies));
    if (wait !== undefined) throw new TooMany(`Too many payments started with this public key from this address; try again in ${wait} s`, wait);
  }
  const body = parse(InitializeBody, await readJson(ctx.req));
  if (await faulted(ctx, 'initialize')) return;
  let paymentLinkId: string | null = null;
  if (body.payment_link !== undefined) {
    const link = await service.links.find(body.payment_link);
    if (!link || link.merchantId !== account.merchant.id || link.mode !== account.mode) {
      throw new NotFound(`payment_link: no payment link ${body.payment_link}`, [{ field: 'payment_link', message: 'expected a payment link of yours' }]);
    }
    if (!link.isActive) throw new Conflict(`Payment link ${link.slug} is deactivated: it cannot receive payments`);
    paymentLinkId = link.id;
  }
  // A coin is a symbol on a chain: chain_id names it where the mode takes the symbol on several.
  const coin = service.catalog.choose(account.mode, body.coin, body.chain_id);
  if (coin.status !== 'active') throw invalidField('coin', `expected an active coin, received ${body.coin}; ${body.coin} is not available on ${coin.network} now`);
  const rates = await service.rates.forQuote(body.currency, coin.symbol);
  const now = service.now();
  const { payment, created } = await initializePayment(
    service.payments,
    account,
    {
      reference: String(body.reference),
      coin,
      currency: body.currency,
      fiatMinor: toUnits(body.amount, FIAT_DECIMALS)!,
      acceptPartial: body.accept_partial_payment ?? false,
      customerName: body.customer_name?.trim() ?? '',
      customerEmail: body.customer_email?.trim() ?? '',
      metadata: body.metadata === undefined ? null : (jsonObject(body.metadata) ?? null),
      paymentLinkId,
      rates,
    },
    now,
    service.config.quoteMs,
    await service.catalog.depositAddress(account.merchant.id, account.mode, String(body.reference), coin.chainId),
  );
  if (created && account.via === 'public' && service.publicInitializes.perKey.crossed(`${account.merchant.id}/${account.mode}`)) {
    service.metrics.ceilingPassed('public_initialize', account.mode);
    service.log.warn({ merchant: account.merchant.id, mode: account.mode, ceiling: service.publicInitializes.perKey.max }, 'payments started with the public key passed the minute\'s ceiling (alerted, not refused)');
  }
  return ok(created ? 201 : 200, transactionView(payment, account.merchant, now), created ? 'Transaction initialized' : 'Transaction already initialized');
};

/** ?wait=<1..30>&since=<paymentVersion>, both or neither. */
function longPollOf(query: URLSearchParams): { seconds: number; since: string } | undefined {
  if (!query.has('wait') && !query.has('since')) return undefined;
  const seconds = Number(query.get('wait'));
  const since = query.get('since') ?? '';
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > MAX_WAIT_SECONDS) {
    throw invalidField('wait', `expected whole seconds from 1 to ${MAX_WAIT_SECONDS}, received ${JSON.stringify(query.get('wait'))}`);
  }
  if (!/^[a-z]+:[\d.]+:[A-Z]{2,6}:[\dT:.Z+-]{10,40}(:[\d.e-]+:\d+)?$/.test(since)) {
    throw invalidField('since', `expected a status, amount paid, coin and expiry such as pending:0:USDT:2026-01-01T00:00:00.000Z, received ${JSON.stringify(since.slice(0, 60))}`);
  }
  return { seconds, since };
}

/**
 * The payment's QR code: the EIP-681 URI of what is still due, made by the same function the
 * checkout uses (it shows the code only when the URI is the one it computed itself), drawn as
 * one SVG path.
 */
export const qr: Handler = async (ctx) => {
  const { account, service } = ctx;
  const reference = ctx.params.reference;
  if (!REFERENCE_PATTERN.test(reference)) throw invalidField('reference', `${JSON.stringify(reference.slice(0, 70))} is not a valid reference`);
  const payment = await service.payments.get(account, reference);
  const coin = service.catalog.coin(account.mode, payment.coin, payment.chainId);
  if (!coin) throw new Conflict(`Transaction ${reference} is in ${payment.coin} on chain ${payment.chainId}, a coin this service no longer takes there`);
  // From base units: what is still due can be one base unit, which a JSON number writes as 1e-18.
  const remaining = payment.due > payment.paid ? payment.due - payment.paid : 0n;
  return ok(200, qrView(paymentUriOfUnits(coin, payment.address, remaining)), 'QR code');
};

export const verify: Handler = async (ctx) => {
  const { account, service } = ctx;
  const reference = ctx.params.reference;
  if (!REFERENCE_PATTERN.test(reference)) throw invalidField('reference', `${JSON.stringify(reference.slice(0, 70))} is not a valid reference`);
  const wait = longPollOf(ctx.query);
  if (await faulted(ctx, 'verify')) return;
  const withPrivate = account.via === 'secret';
  const payment = await service.payments.get(account, reference);
  // Money seen on the chain but not yet deep enough is shown as confirming, never as paid.
  // Without a network for the payment's chain nothing is watched, and nothing is asked.
  const network = service.catalog.network(account.mode, payment.chainId);
  const view = async (p: Payment) => {
    const seen = network && (await service.chain.confirming(p.id));
    return verificationView(p, service.now(), withPrivate, seen ? { ...seen, required: network.confirmations } : undefined);
  };
  let answer = await view(payment);
  if (wait && service.config.longPoll && paymentVersion(answer) === wait.since) {
    const pools = service.changes.pools(`${account.merchant.id}/${account.mode}`, account.via, reference);
    const full = service.changes.full(pools);
    if (full) throw new TooMany(`Too many status checks held open ${full.whose} (at most ${full.max}); try again shortly, or check without wait`, 2);
    const gone = new AbortController();
    ctx.res.on('close', () => gone.abort()); // the client went away: stop waiting for it
    const untilExpiry = payment.expiresMs - service.now() + 20;
    const waitMs = untilExpiry > 0 ? Math.min(wait.seconds * 1000, untilExpiry) : wait.seconds * 1000;
    await service.changes.wait(paymentKey(account.merchant.id, account.mode, reference), pools, waitMs, gone.signal);
    if (gone.signal.aborted) return;
    // Woken by a change on any instance, or by time: answer what is true now.
    answer = await view(await service.payments.get(account, reference));
  }
  return ok(200, answer, 'Transaction status');
};

export const sandboxDeposit: Handler = async (ctx) => {
  const { account, service } = ctx;
  if (account.mode !== 'test') throw new Forbidden('The sandbox only takes test keys (pk_test_…): a live payment needs a real transfer');
  if (!service.config.sandbox) throw new Forbidden('The sandbox is switched off on this service: send a real transfer on the test network');
  const body = parse(DepositBody, await readJson(ctx.req));
  const quoted = await service.payments.get(account, String(body.reference));
  if (service.catalog.networks(account.mode).length > 0) {
    // A real transfer on the payment's dev chain, found by the watcher like any other; its answer
    // is the payment as it stands (still pending until the transfer has its confirmations).
    const network = service.catalog.network(account.mode, quoted.chainId);
    if (!network) throw new Conflict(`Transaction ${quoted.reference} is on chain ${quoted.chainId}, which this service no longer watches: start a new payment`);
    if (!network.dev) throw new Forbidden(`The sandbox sends nothing on ${network.name}: pay with a real transfer there`);
    if (!service.devChain) throw new Forbidden(`The sandbox has no funded account on ${network.name}: start the dev chain with npm run demo, or pay with a real transfer`);
    const payment = quoted;
    assertTakesDeposits(payment, service.now());
    await service.devChain.transfer(network, payment.token as `0x${string}`, payment.address as `0x${string}`, sandboxAmount(payment, body.kind));
    return ok(200, verificationView(payment, service.now(), account.via === 'secret'), 'Deposit sent on the dev chain');
  }
  const payment = await service.payments.credit(
    account,
    String(body.reference),
    // Simulated in the payment's own token as it stands: a coin changed in between does not count it.
    { chainId: quoted.chainId, token: quoted.token, txHash: '0x' + randomBytes(32).toString('hex'), logIndex: 0, amount: (p) => sandboxAmount(p, body.kind) },
    service.now(),
    depositReport(service.now),
  );
  return ok(200, verificationView(payment, service.now(), account.via === 'secret'), 'Deposit simulated');
};

/** Finishes an accepted partial payment with what arrived: the checkout's "Finish with what I sent". */
export const settle: Handler = async ({ params, account, service }) => {
  const reference = params.reference;
  if (!REFERENCE_PATTERN.test(reference)) throw invalidField('reference', `${JSON.stringify(reference.slice(0, 70))} is not a valid reference`);
  const payment = await service.payments.settle(account, reference, service.now(), depositReport(service.now));
  return ok(200, verificationView(payment, service.now(), account.via === 'secret'), 'Transaction settled with what arrived');
};
