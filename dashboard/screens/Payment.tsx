// One payment: what was asked and received, and its timeline (created, each transfer seen and
// confirmed, swept, each event told and each delivery's answer), with resend for its events.
// biome-ignore lint/style/useImportType: h is the JSX factory (tsconfig's jsxFactory) as well as a type here: a value
import { h, Fragment } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { lazy, useRoute } from 'preact-iso';
import * as z from 'zod/mini';
import { PaymentDetail, type TimelineEntry } from '../../contract/dashboard.ts';
import { mode, request } from '../api.ts';
import { coins, money, statusWords, when } from '../format.ts';
import { useLive } from '../live.ts';
import { t } from '../words.ts';
import { Notes, useAct, useTitle } from './common.tsx';

// The refund form and the payment's refunds: fetched once a payment with money on it is shown.
const PaymentRefunds = lazy(() => import('./Refunds.tsx').then((m) => m.PaymentRefunds));

export const DetailAnswer = z.object({ data: PaymentDetail });

const TRANSFER_STATES: Record<string, string> = {
  seen: 'seen on the chain, confirming',
  credited: 'received and counted',
  orphaned: 'left the chain (its block was replaced)',
  late: 'arrived after the payment closed (not counted)',
  unexpected: 'in another token (not counted)',
  dust: 'too small to count',
};

function Step({ e, coin, explorer, onResend }: { e: TimelineEntry; coin: string; explorer: string | null; onResend: (id: string) => void }) {
  const tx = e.txHash && (explorer ? <a href={`${explorer}/tx/${e.txHash}`}>{e.txHash}</a> : <code>{e.txHash}</code>);
  let what: h.JSX.Element | string;
  switch (e.kind) {
    case 'created':
      what = t('Created');
      break;
    case 'transfer':
      what = (
        <span>
          {t('Transfer of {amount}', { amount: coins(e.amount ?? '', e.coin ?? coin) })}{' '}
          {TRANSFER_STATES[e.state ?? ''] ? t(TRANSFER_STATES[e.state ?? '']!) : e.state}
          {e.blockNumber !== undefined ? t(' (block {block})', { block: e.blockNumber }) : ''}: {e.relayed && `${t('paid by signature, relayed in tx')} `}
          <span class="hash">{tx}</span>
        </span>
      );
      break;
    case 'confirmed':
      what = t('Paid in full');
      break;
    case 'settled':
      what = t('Settled with what arrived');
      break;
    case 'expired':
      what = t('Quote expired');
      break;
    case 'swept':
      what = (
        <span>
          {t('Swept {amount} to the payout address', { amount: coins(e.amount ?? '', e.coin ?? coin) })}: <span class="hash">{tx}</span>
        </span>
      );
      break;
    case 'event':
      what = (
        <span>
          {t('Event {type} told to the webhook ({state})', { type: e.eventType, state: e.state === 'no_endpoint' ? t('no webhook URL yet') : e.state })}{' '}
          <button type="button" class="secondary small" onClick={() => onResend(e.eventId!)}>
            {t('Resend {type}', { type: e.eventType })}
          </button>
        </span>
      );
      break;
    default:
      what =
        t('Delivery attempt: {answer}', { answer: e.httpStatus ? t('answered {status}', { status: e.httpStatus }) : t('no answer') }) +
        (e.error ? ` (${e.error})` : '');
  }
  return (
    <li>
      <span class="when">{when(e.at)}</span> <span class="what">{what}</span>
    </li>
  );
}

export function Payment(_: { path?: string }) {
  const { params } = useRoute();
  const reference = params.reference ?? '';
  useTitle(t('Payment {reference}', { reference }));
  const [detail, setDetail] = useState<PaymentDetail | undefined>();
  const { note, error, setError, act } = useAct();
  const load = useCallback(async () => {
    try {
      setDetail((await request(`/api/v1/payments/${encodeURIComponent(reference)}`, DetailAnswer)).data);
      setError(null);
    } catch (e) {
      setError(e);
    }
  }, [reference, mode.value]);
  useEffect(() => void load(), [load]);
  useLive(load);
  const resend = (id: string) =>
    act(async () => {
      await request(`/api/v1/events/${encodeURIComponent(id)}/resend`, undefined, { method: 'POST' });
      await load();
      return t('Queued: the event will be delivered again.');
    });
  const p = detail?.payment;
  return (
    <section>
      <p>
        <a href="/dashboard/payments">{t('All payments')}</a>
      </p>
      <h1>{t('Payment {reference}', { reference })}</h1>
      <Notes note={note} error={error} />
      {p && (
        <dl class="facts">
          <dt>{t('Status')}</dt>
          <dd class={`status status-${p.status}`}>{statusWords(p.status)}</dd>
          <dt>{t('Price')}</dt>
          <dd>{money(p.fiatAmount, p.currency)}</dd>
          <dt>{t('Asked')}</dt>
          <dd>{coins(p.actualAmountExact ?? p.actualAmount, p.coin)}</dd>
          <dt>{t('Received')}</dt>
          <dd>{coins(p.amountPaidExact ?? p.amountPaid, p.coin)}</dd>
          <dt>{t('Customer')}</dt>
          <dd>{p.customer ? `${p.customer.name || t('no name')} · ${p.customer.email}` : t('not given')}</dd>
          <dt>{t('Deposit address')}</dt>
          <dd class="hash">{p.address}</dd>
          <dt>{t('Created')}</dt>
          <dd>{when(p.createdAt)}</dd>
          <dt>{t('Quote ends')}</dt>
          <dd>{when(p.expiresAt)}</dd>
        </dl>
      )}
      {p && p.amountPaid > 0 && <PaymentRefunds reference={reference} coin={p.coin} chainId={p.chainId} />}
      {detail && (
        <>
          <h2>{t('Timeline')}</h2>
          <ol class="timeline">
            {detail.timeline.map((e, i) => (
              <Step key={i} e={e} coin={p!.coin} explorer={detail.explorer} onResend={resend} />
            ))}
          </ol>
        </>
      )}
    </section>
  );
}

/** The router's lazy() takes a chunk's default export. */
export default Payment;
