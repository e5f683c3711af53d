// A merchant's payments as the list and a payment's page read them: a page of the list by cursor
// and filters, and one payment with its timeline (each transfer, and whether the gas wallet
// relayed it), what was refunded of it, what it needs of the merchant (money that did not count
// as asked), and money in another coin or chain credited toward it.
import { cursorParts, cursorText, pageOf } from '../http/cursor.ts';
import type { KeyMode } from '../../contract/keys.ts';
import type { PaymentStatus } from '../../contract/schemas.ts';
import type { Account } from '../domain/account.ts';
import { invalidField } from '../domain/errors.ts';
import type { Catalog } from '../chain/catalog.ts';
import type { JournalStore } from '../balances/journal-store.ts';
import type { OpaqueIds } from '../http/opaque-ids.ts';
import type { RefundStore } from '../refunds/store.ts';
import { attentionView, caseOf, overpaidText } from './attention-rules.ts';
import type { AttentionStore } from './attention-store.ts';
import { creditView } from './credit-rules.ts';
import type { PaymentList } from './list-store.ts';
import { paymentSummary, refundsView, timelineView } from './list-views.ts';
import type { Payment } from './rules.ts';
import type { PaymentStore } from './store.ts';

/** What the list and a payment's page need of the service. */
export interface DetailParts {
  attention: Pick<AttentionStore, 'facts' | 'credits'>;
  catalog: Pick<Catalog, 'coins' | 'network'>;
  ids: Pick<OpaqueIds, 'number' | 'text'>;
  journal: Pick<JournalStore, 'relayedAmong'>;
  paymentList: Pick<PaymentList, 'list' | 'timeline'>;
  payments: Pick<PaymentStore, 'get'>;
  refunds: Pick<RefundStore, 'refundedOf'>;
  now(): number;
}

/** The list's query as its schema checked each value's form. */
export interface ListQuery {
  limit?: number | string;
  cursor?: string;
  from?: string;
  to?: string;
  status?: PaymentStatus;
  coin?: string;
  q?: string;
  needs_attention?: string;
}

/** The (created, id) a payments cursor holds; the 400 naming `cursor` for any other text. */
function paymentsKeyset(ids: Pick<OpaqueIds, 'number'>, cursor: string): { createdMs: number; id: string } {
  const [createdMs, id] = cursorParts('payments', cursor, [/^\d{1,16}$/, /^[A-Za-z0-9_-]{22}$/]);
  const n = ids.number('payments', id!);
  if (n === undefined) throw invalidField('cursor', 'expected a cursor this list answered as next');
  return { createdMs: Number(createdMs), id: String(n) };
}

/** Each payment's `overpaid` and `attention` (money that did not count as asked), from one read for the page. */
async function attentionOf(service: DetailParts, mode: KeyMode, page: Payment[], nowMs: number) {
  const facts = await service.attention.facts(page);
  const coins = service.catalog.coins(mode);
  const coinOf = (chainId: number, token: string) => coins.find((c) => c.chainId === chainId && c.contractAddress.toLowerCase() === token);
  return (p: Payment) => {
    const f = facts.get(p.id)!;
    return { overpaid: overpaidText(p), attention: attentionView(caseOf(f.payment, f.open, nowMs), coinOf) };
  };
}

/** A page of the list, newest first, each payment as verify answers it with what it needs of the merchant; and how to page on. */
export async function paymentsPage(service: DetailParts, account: Account, q: ListQuery) {
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
  return { payments: page.map((p) => ({ ...paymentSummary(p, nowMs), ...attention(p) })), paging };
}

/** One payment with its timeline, refunds, what it needs of the merchant and its credits in another coin. */
export async function paymentDetail(service: DetailParts, account: Account, reference: string) {
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
  const credits = (await service.attention.credits(payment.id)).map((c) => creditView(c, coinOf(c.chainId, c.token), c.token, payment.decimals));
  return { ...detail, payment: { ...detail.payment, ...attention(payment) }, refunds: refundsView(payment, refunded), ...(credits.length ? { credits } : {}) };
}
