// The merchant's payments (secret key or dashboard session): a list that pages by cursor and
// filters, one payment with its timeline, and their CSV export.
import * as z from 'zod/mini';
import { answer } from '../../contract/api.ts';
import { AttentivePaymentDetail } from '../../contract/attention.ts';
import { PaymentsList, PaymentsQuery } from '../../contract/dashboard-requests.ts';
import { is, REFERENCE_PATTERN, text } from '../../contract/fields.ts';
import { invalidField } from '../domain/errors.ts';
import { ExportQuery } from '../http/queries.ts';
import { exportPages } from './export.ts';
import { paymentDetail, paymentsPage } from './detail.ts';
import { ok, pacedWriter } from '../http/respond.ts';
import { CSV_COLUMNS, csvField, csvLine } from './list-views.ts';
import type { Handler as AnyHandler, Schemas } from '../api/context.ts';
import { route } from '../api/route.ts';

/** The parts of the service these routes use: their handlers are given these alone. */
type Uses = 'attention' | 'catalog' | 'ids' | 'journal' | 'now' | 'paymentList' | 'payments' | 'refunds';
type Handler<S extends Schemas = {}> = AnyHandler<S, Uses>;

const ByReference = z.object({ reference: is<string>((v) => typeof v === 'string' && REFERENCE_PATTERN.test(v), '1 to 64 letters, digits or . _ : -') });

export const listPayments: Handler<{ query: typeof PaymentsQuery }> = async ({ query, account, service }) => {
  const { payments, paging } = await paymentsPage(service, account, query);
  return ok(200, payments, 'Payments', paging);
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

export const getPayment: Handler<{ params: typeof ByReference }> = async ({ params, account, service }) =>
  ok(200, await paymentDetail(service, account, params.reference), 'Payment');

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
