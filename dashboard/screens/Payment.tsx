// One payment: what was asked and received, and its timeline (created, each transfer seen and
// confirmed, swept, each event told and each delivery's answer), with resend for its events.
import { h, Fragment } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { useRoute } from 'preact-iso';
import * as z from 'zod/mini';
import { PaymentDetail, type TimelineEntry } from '../../contract/dashboard.ts';
import { mode, request } from '../api.ts';
import { coins, money, statusWords, when } from '../format.ts';
import { useLive } from '../live.ts';
import { Notes, useAct, useTitle } from './common.tsx';

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
      what = 'Created';
      break;
    case 'transfer':
      what = (
        <span>
          Transfer of {coins(e.amount ?? '', coin)} {TRANSFER_STATES[e.state ?? ''] ?? e.state}
          {e.blockNumber !== undefined ? ` (block ${e.blockNumber})` : ''}: <span class="hash">{tx}</span>
        </span>
      );
      break;
    case 'confirmed':
      what = 'Paid in full';
      break;
    case 'settled':
      what = 'Settled with what arrived';
      break;
    case 'expired':
      what = 'Quote expired';
      break;
    case 'swept':
      what = (
        <span>
          Swept {coins(e.amount ?? '', coin)} to the payout address: <span class="hash">{tx}</span>
        </span>
      );
      break;
    case 'event':
      what = (
        <span>
          Event {e.eventType} told to the webhook ({e.state === 'no_endpoint' ? 'no webhook URL yet' : e.state}){' '}
          <button type="button" class="secondary small" onClick={() => onResend(e.eventId!)}>
            Resend {e.eventType}
          </button>
        </span>
      );
      break;
    default:
      what = `Delivery attempt: ${e.httpStatus ? `answered ${e.httpStatus}` : 'no answer'}${e.error ? ` (${e.error})` : ''}`;
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
  useTitle(`Payment ${reference}`);
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
      return 'Queued: the event will be delivered again.';
    });
  const p = detail?.payment;
  return (
    <section>
      <p>
        <a href="/dashboard/payments">All payments</a>
      </p>
      <h1>Payment {reference}</h1>
      <Notes note={note} error={error} />
      {p && (
        <dl class="facts">
          <dt>Status</dt>
          <dd class={`status status-${p.status}`}>{statusWords(p.status)}</dd>
          <dt>Price</dt>
          <dd>{money(p.fiatAmount, p.currency)}</dd>
          <dt>Asked</dt>
          <dd>{coins(p.actualAmountExact ?? p.actualAmount, p.coin)}</dd>
          <dt>Received</dt>
          <dd>{coins(p.amountPaidExact ?? p.amountPaid, p.coin)}</dd>
          <dt>Customer</dt>
          <dd>{p.customer ? `${p.customer.name || 'no name'} · ${p.customer.email}` : 'not given'}</dd>
          <dt>Deposit address</dt>
          <dd class="hash">{p.address}</dd>
          <dt>Created</dt>
          <dd>{when(p.createdAt)}</dd>
          <dt>Quote ends</dt>
          <dd>{when(p.expiresAt)}</dd>
        </dl>
      )}
      {detail && (
        <>
          <h2>Timeline</h2>
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
