// The merchant's payments (secret key or dashboard session): a list that pages by cursor and
// filters, one payment with its timeline, and their CSV export.
import * as z from 'zod/mini';
import { answer } from '../../contract/api.ts';
import { AttentivePaymentDetail } from '../../contract/attention.ts';
import { PaymentsList, PaymentsQuery } from '../../contract/dashboard-requests.ts';
import { is, REFERENCE_PATTERN, text } from '../../contract/fields.ts';
import { invalidField } from '../domain/errors.ts';
import { cursorParts, cursorText, pageOf } from '../http/cursor.ts';
import { ExportQuery } from '../http/queries.ts';
import { exportPages } from './export.ts';
import { ok, pacedWriter } from '../http/respond.ts';
import { attentionView, caseOf, overpaidText } from './attention-rules.ts';
import { creditView } from './credit-rules.ts';
import type { Payment } from './rules.ts';
import { CSV_COLUMNS, csvField, csvLine, paymentSummary, refundsView, timelineView } from './list-views.ts';
import type { Handler as AnyHandler, Schemas } from '../api/context.ts';
import { route } from '../api/route.ts';

/** The parts of the service these routes use: their handlers are given these alone. */
type Uses = 'attention' | 'catalog' | 'ids' | 'journal' | 'now' | 'paymentList' | 'payments' | 'refunds';
type Handler<S extends Schemas = {}> = AnyHandler<S, Uses>;

const ByReference = z.object({ reference: is<string>((v) => typeof v === 'string' && REFERENCE_PATTERN.test(v), '1 to 64 letters, digits or . _ : -') });

/** The (created, id) a payments cursor holds; the 400 naming `cursor` for any other text. */
function paymentsKeyset(ids: { number(list: string, text: string): number | undefined }, cursor: string): { createdMs: number; id: string } {
  const [createdMs, id] = cursorParts('payments', cursor, [/^\d{1,16}$/, /^[A-Za-z0-9_-]{22}$/]);
  const n = ids.number('payments', id!);
  if (n === undefined) throw invalidField('cursor', 'expected a cursor this list answered as next');
  return { createdMs: Number(createdMs), id: String(n) };
}

export const listPayments: Handler<{ query: typeof PaymentsQuery }> = async ({ query: q, account, service }) => {
  const limit = q.limit === undefined ? 25 : Number(q.limit);
  const fromMs = q.from === undefined ? undefined : Date.parse(q.from);
  const toMs = q.to === undefined ? undefined : Date.parse(q.to);
  if (fromMs !== undefined && toMs !== undefined && toMs <= fromMs) throw invalidField('to', 'expected a time after from');
  // The cursor holds (created, id) of the page's last payment: the next page starts below it.
  // The id opaque: a payment's row number counts every merchant's payments.
  const after = q.cursor === undefined ? undefined : paymentsKeyset(service.ids, q.cursor);
  const nowMs = service.now();
  // One more than asked says whether there is a next page.
  const rows = await service.paymentList.list(
    account,
    { after, limit: limit + 1, status: q.status, coin: q.coin, fromMs, toMs, q: q.q, needsAttention: q.needs_attention === 'true' },
    nowMs,
  );
  const { page, ...paging } = pageOf(rows, limit, (p) => cursorText('payments', p.createdMs, service.ids.text('payments', Number(p.id))));
  const attention = await attentionOf(service, account.mode, page, nowMs);
  return ok(
    200,
    page.map((p) => ({ ...paymentSummary(p, nowMs), ...attention(p) })),
    'Payments',
    paging,
  );
};

/**
 * The list as CSV, with the list's filters (no cursor, no limit): newest first, read from the
 * database a thousand at a time (keyset), written as it is read, at the pace the client reads.
 */
export const exportCsv: Handler<{ query: typeof ExportQuery }> = async ({ query: q, res, account, service }) => {
  const fromMs = q.from === undefined ? undefined : Date.parse(q.from);
  const toMs = q.to === undefined ? undefined : Date.parse(q.to);
  if (fromMs !== undefined && toMs !== undefined && toMs <= fromMs) throw invalidField('to', 'expected a time after from');
  const nowMs = service.now();
  const headers = {
    'content-disposition': `attachment; filename="payments-${account.mode}.csv"`,
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  };
  res.writeHead(200, { 'content-type': 'text/csv; charset=utf-8', ...headers });
  const send = pacedWriter(res);
  await send(CSV_COLUMNS.map(csvField).join(',') + '\r\n');
  const filter = { status: q.status, coin: q.coin, fromMs, toMs, q: q.q };
  for await (const rows of exportPages(service.paymentList, account, filter, nowMs, () => res.destroyed))
    await send(rows.map((p) => csvLine(p, nowMs) + '\r\n').join(''));
  res.end();
  return undefined;
};

export const getPayment: Handler<{ params: typeof ByReference }> = async ({ params, account, service }) => {
  const reference = params.reference;
  const payment = await service.payments.get(account, reference);
  const facts = await service.paymentList.timeline(account, payment);
  // Which of its transfers the gas wallet relayed (paid by signature): the journal's sponsored gas says.
  const relayed = await service.journal.relayedAmong(
    payment.chainId,
    facts.transfers.filter((t) => (t.chainId ?? payment.chainId) === payment.chainId).map((t) => t.txHash),
  );
  const timeline = { ...facts, transfers: facts.transfers.map((t) => ({ ...t, relayed: relayed.has(t.txHash.toLowerCase()) })) };
  const network = service.catalog.network(account.mode, payment.chainId);
  const refunded = (await service.refunds.refundedOf([payment.id])).get(payment.id) ?? 0n;
  const coins = service.catalog.coins(account.mode);
  const coinOf = (chainId: number, token: string) => coins.find((x) => x.chainId === chainId && x.contractAddress.toLowerCase() === token);
  const detail = timelineView(payment, timeline, service.now(), network?.explorer ?? null, coinOf);
  const attention = await attentionOf(service, account.mode, [payment], service.now());
  const credits = (await service.attention.credits(payment.id)).map((c) =>
    creditView(
      c,
      coins.find((x) => x.chainId === c.chainId && x.contractAddress.toLowerCase() === c.token),
      c.token,
      payment.decimals,
    ),
  );
  return ok(
    200,
    { ...detail, payment: { ...detail.payment, ...attention(payment) }, refunds: refundsView(payment, refunded), ...(credits.length ? { credits } : {}) },
    'Payment',
  );
};

/** Each payment's `overpaid` and `attention` (money that did not count as asked), from one read for the page. */
async function attentionOf(service: Parameters<Handler>[0]['service'], mode: 'test' | 'live', page: Payment[], nowMs: number) {
  const facts = await service.attention.facts(page);
  const coins = service.catalog.coins(mode);
  const coinOf = (chainId: number, token: string) => coins.find((c) => c.chainId === chainId && c.contractAddress.toLowerCase() === token);
  return (p: Payment) => {
    const f = facts.get(p.id)!;
    return { overpaid: overpaidText(p), attention: attentionView(caseOf(f.payment, f.open, nowMs), coinOf) };
  };
}

/**
 * A new secret key for the caller's mode (a test key never touches live keys): shown this once;
 * the old one is refused from now on. Public keys stay.
 */
export const routes = [
  route({
    method: 'GET',
    path: '/api/v1/payments',
    auth: 'merchant',
    permission: 'payments.read',
    handler: listPayments,
    tag: 'Payments',
    summary: 'the payments, newest first: cursor, limit, status, coin, from, to, needs_attention, q',
    description:
      "Newest first, each payment as verify answers the secret key, with `createdAt`, `overpaid` (the excess as exact decimal text when more arrived than due, else null) and `attention`: null, or what it needs of you (`reason` overpaid, partial (expired with part of its amount), late, wrong_coin or wrong_chain; `amount` owed back as exact decimal text of `coin` on `chain_id`) until you accept it (POST /api/v1/payments/{reference}/accept) or send it back (POST /api/v1/payments/{reference}/send_back). `cursor` is `next` of the page before (opaque; `next` is null and `has_more` false on the last page); `limit` 1–100 (25); `status`, `coin`, `from` and `to` (ISO 8601 times, `to` excluded) filter; `needs_attention=true` keeps the payments whose `attention` is not null; `q` finds a reference, a customer's e-mail, a deposit address or a transaction hash (exactly, not by part). Keyset paging on an index of (merchant, mode, created, id).",
    query: PaymentsQuery,
    responses: { 200: PaymentsList },
  }),
  route({
    method: 'GET',
    path: '/api/v1/payments/export.csv',
    auth: 'merchant',
    permission: 'payments.read',
    handler: exportCsv,
    tag: 'Payments',
    summary: "the payments as CSV, with the list's filters",
    description:
      "The list's filters (`status`, `coin`, `from`, `to`, `q`; no cursor), newest first, at most 100,000 payments (narrow by date for more): RFC 4180 CSV with a header line (reference, status, created_at, coin, chain_id, amount_due, amount_paid, fiat_amount, currency, customer_name, customer_email, deposit_address, last_tx_hash, expires_at; amounts as exact decimal text). A field a spreadsheet would run as a formula (=, +, -, @ first) starts with an apostrophe.",
    query: ExportQuery,
    mediaType: 'text/csv',
    responses: { 200: text },
  }),
  route({
    method: 'GET',
    path: '/api/v1/payments/:reference',
    auth: 'merchant',
    permission: 'payments.read',
    handler: getPayment,
    tag: 'Payments',
    summary: 'one payment and its timeline',
    description:
      "The payment as verify answers the secret key, and its timeline, oldest first: created, each transfer (seen while confirming, then credited; or orphaned, late, unexpected, dust), confirmed, settled or expired, swept (`at`: the time of the block the sweep was mined in; null for one recorded before that was kept), each event told (a refund's REFUND_UPDATED among them) and each delivery attempt with the endpoint's answer. `refunds`: none, partly_refunded or refunded, and how much (its refunds not failed). `explorer` is the network's explorer, for `${explorer}/tx/${hash}`. `credits` (only when there are some): each transfer in another coin or on another chain credited toward it (POST /api/v1/payments/{reference}/accept with `{ \"as\": \"credit\" }`): its coin, chain and amount as it arrived and when, both coins' dollar rates used and when they were fetched, their source, and the amount credited in the payment's coin.",
    params: ByReference,
    responses: { 200: answer(AttentivePaymentDetail) },
  }),
];
