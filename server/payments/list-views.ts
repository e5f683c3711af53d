// The payments list and a payment's timeline as the wire shows them (contract/dashboard.ts):
// shaping only, oldest step first.
import type { PaymentDetail, PaymentSummary, TimelineEntry } from '../../contract/dashboard.ts';
import { formatUnits } from '../../contract/money.ts';
import { statusOf, type Payment } from './rules.ts';
import { verificationView } from './views.ts';

/** What storage found of a payment's life (server/payments/list-store.ts's Timeline). */
export interface TimelineFacts {
  transfers: Array<{
    txHash: string;
    amount: bigint;
    state: string;
    chainId?: number | null;
    token?: string | null;
    atMs: number;
    blockNumber: number | null;
    sweptHash: string | null;
    sweptMs: number | null;
    /** Paid by signature: the transaction is one the gas wallet relayed (a sponsored_gas entry in the journal). */
    relayed?: boolean;
  }>;
  events: Array<{ id: string; type: string; state: string; createdMs: number }>;
  attempts: Array<{ eventId: string; status: number; error: string | null; atMs: number }>;
}

export const paymentSummary = (payment: Payment, nowMs: number): PaymentSummary => ({
  ...verificationView(payment, nowMs, true),
  createdAt: new Date(payment.createdMs).toISOString(),
});

const iso = (ms: number) => new Date(ms).toISOString();

/** How much of a payment its refunds not failed gave back: none, partly, or all that arrived. */
export const refundsView = (payment: Payment, refunded: bigint) => ({
  status: refunded <= 0n ? ('none' as const) : refunded >= payment.paid ? ('refunded' as const) : ('partly_refunded' as const),
  amount: formatUnits(refunded, payment.decimals),
  amount_exact: formatUnits(refunded, payment.decimals),
  amount_base_units: String(refunded),
});

/** A listed coin by chain and token: its symbol and decimals, or undefined. */
export type CoinOf = (chainId: number, token: string) => { symbol: string; decimals: number } | undefined;

/**
 * A transfer's amount in its own coin: the payment's decimals for the payment's coin; for money in
 * another coin or on another chain, that coin's decimals and its symbol (`coin`, `chainId` beside
 * the amount); for a token the service does not list, base units and the token's address.
 */
function amountOf(payment: Payment, t: TimelineFacts['transfers'][number], coinOf: CoinOf): Pick<TimelineEntry, 'amount' | 'coin' | 'chainId'> {
  if (t.token == null || t.chainId == null || (t.chainId === payment.chainId && t.token === payment.token.toLowerCase()))
    return { amount: formatUnits(t.amount, payment.decimals) };
  const listed = coinOf(t.chainId, t.token);
  return listed
    ? { amount: formatUnits(t.amount, listed.decimals), coin: listed.symbol, chainId: t.chainId }
    : { amount: String(t.amount), coin: t.token, chainId: t.chainId };
}

export function timelineView(payment: Payment, facts: TimelineFacts, nowMs: number, explorer: string | null, coinOf: CoinOf = () => undefined): PaymentDetail {
  const steps: Array<TimelineEntry & { ms: number }> = [{ kind: 'created', at: iso(payment.createdMs), ms: payment.createdMs }];
  for (const t of facts.transfers) {
    const amount = amountOf(payment, t, coinOf);
    steps.push({
      kind: 'transfer',
      at: iso(t.atMs),
      ms: t.atMs,
      txHash: t.txHash,
      ...amount,
      state: t.state,
      ...(t.blockNumber === null ? {} : { blockNumber: t.blockNumber }),
      ...(t.relayed ? { relayed: true } : {}),
    });
    // The sweep's block time, kept since migration 0039 (none for a sweep recorded before); ordered after its transfer whatever the two clocks say.
    if (t.sweptHash)
      steps.push({ kind: 'swept', at: t.sweptMs === null ? null : iso(t.sweptMs), ms: Math.max(t.sweptMs ?? 0, t.atMs + 0.5), txHash: t.sweptHash, ...amount });
  }
  const status = statusOf(payment, nowMs);
  const lastMoney = Math.max(payment.createdMs, ...facts.transfers.filter((t) => t.state === 'credited').map((t) => t.atMs));
  if (status === 'confirmed') steps.push({ kind: 'confirmed', at: iso(lastMoney), ms: lastMoney + 0.25 });
  if (status === 'settled' && payment.settledMs !== null) steps.push({ kind: 'settled', at: iso(payment.settledMs), ms: payment.settledMs });
  if (status === 'expired') steps.push({ kind: 'expired', at: iso(payment.expiresMs), ms: payment.expiresMs });
  for (const e of facts.events) {
    steps.push({ kind: 'event', at: iso(e.createdMs), ms: e.createdMs + 0.5, eventId: e.id, eventType: e.type, state: e.state });
    for (const a of facts.attempts.filter((x) => x.eventId === e.id)) {
      steps.push({ kind: 'attempt', at: iso(a.atMs), ms: a.atMs + 0.75, eventId: e.id, eventType: e.type, httpStatus: a.status, error: a.error });
    }
  }
  steps.sort((a, b) => a.ms - b.ms);
  return { payment: paymentSummary(payment, nowMs), timeline: steps.map(({ ms: _ms, ...step }) => step), explorer };
}

/** The export's columns, in order. */
export const CSV_COLUMNS = [
  'reference',
  'status',
  'created_at',
  'coin',
  'chain_id',
  'amount_due',
  'amount_paid',
  'fiat_amount',
  'currency',
  'customer_name',
  'customer_email',
  'deposit_address',
  'last_tx_hash',
  'expires_at',
];

/**
 * One CSV field (RFC 4180): quoted when it holds a comma, quote or line break. Text a
 * spreadsheet would run as a formula (=, +, -, @, a tab or carriage return first: a customer's
 * name is anyone's to choose) gets a leading apostrophe, so it is shown, never run.
 */
export function csvField(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

export function csvLine(payment: Payment, nowMs: number): string {
  const v = verificationView(payment, nowMs, true);
  return [
    payment.reference,
    statusOf(payment, nowMs),
    new Date(payment.createdMs).toISOString(),
    payment.coin,
    String(payment.chainId),
    v.actualAmountExact ?? '',
    v.amountPaidExact ?? '',
    v.fiatAmountExact ?? '',
    payment.currency,
    payment.customerName,
    payment.customerEmail,
    payment.address,
    payment.lastHash ?? '',
    new Date(payment.expiresMs).toISOString(),
  ]
    .map(csvField)
    .join(',');
}
