// The events feed: the latest events told to the webhook URL, newest first, each with every
// delivery attempt and the endpoint's answer, and resend. Live: new events show as they come.
// Older events a page of PAGE at a time (the feed's `before`), and back to the newest. Each
// names the payment it concerns (a link to its page) and opens its body, the JSON the webhook
// was sent, as text.
import { h, Fragment } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import * as z from 'zod/mini';
import { int, nullable, text } from '../../contract/fields.ts';
import { mode, request } from '../api.ts';
import { when } from '../format.ts';
import { useLive } from '../live.ts';
import { t } from '../words.ts';
import { Notes, useAct, useTitle } from './common.tsx';

export const Attempt = z.object({ attempt: int, status: int, error: nullable<string>((v) => typeof v === 'string', 'text'), at: text });
// The payload is kept whole (a schema would drop what it does not name): the body is shown as it was sent.
export const Event = z.object({ id: text, seq: int, type: text, state: text, created: text, payload: z.unknown(), attempts: z.array(Attempt) });
export const Feed = z.object({ data: z.array(Event) });
const PAGE = 50;
const STATES: Record<string, string> = { pending: 'Pending', delivered: 'Delivered', failed: 'Gave up', no_endpoint: 'No webhook URL' };
type Body = { event?: string; data?: { reference?: unknown; payment?: { reference?: unknown } } } | null;

/** The payment an event concerns: its `data.reference` (a payout's names the payout, not a payment), or an unmatched deposit's payment. */
export function paymentOf(payload: unknown): string | undefined {
  const body = payload as Body;
  const reference = body?.event === 'PAYOUT_UPDATED' ? undefined : (body?.data?.reference ?? body?.data?.payment?.reference);
  return typeof reference === 'string' ? reference : undefined;
}

export function Events(_: { path?: string }) {
  useTitle(t('Events'));
  const [rows, setRows] = useState<Array<z.infer<typeof Event>> | undefined>();
  // null: the newest page; else the seq the page shown ends before.
  const [before, setBefore] = useState<number | null>(null);
  useEffect(() => setBefore(null), [mode.value]);
  // A page change gives the list the focus (the button pressed may be gone); the list itself stays, its rows change.
  const list = useRef<HTMLUListElement>(null);
  const page = (to: number | null) => {
    setBefore(to);
    list.current?.focus();
  };
  const load = useCallback(
    async () => setRows((await request(`/api/v1/events?${before === null ? 'after=recent' : `before=${before}`}&limit=${PAGE}`, Feed)).data.reverse()),
    [mode.value, before],
  );
  const { note, error, setError, act } = useAct(load);
  useEffect(() => void load().catch(setError), [load]);
  useLive(load);
  return (
    <section>
      <h1>{t('Events')}</h1>
      <Notes note={note} error={error} />
      {rows?.length === 0 && <p>{before === null ? t('No events yet.') : t('No older events.')}</p>}
      <ul class="payments" aria-label={before === null ? t('Events, newest first') : t('Older events, newest first')} ref={list} tabIndex={-1}>
        {rows?.map((e) => {
          const reference = paymentOf(e.payload);
          return (
            <li key={e.id} class="product">
              <p class="ref">
                {e.type}{' '}
                <span class={`status status-${e.state === 'delivered' ? 'confirmed' : 'failed'}`}>{STATES[e.state] ? t(STATES[e.state]!) : e.state}</span>
              </p>
              <p class="meta">
                {e.id}, {when(e.created)}
                {reference && (
                  <>
                    {', '}
                    <a href={`/dashboard/payments/${encodeURIComponent(reference)}`}>{t('Payment {reference}', { reference })}</a>
                  </>
                )}
              </p>
              <details>
                <summary>{t('Body of {type} as sent', { type: e.type })}</summary>
                <pre class="hash" style={{ whiteSpace: 'pre-wrap', margin: 0 }}>
                  {JSON.stringify(e.payload, null, 2)}
                </pre>
              </details>
              {e.attempts.length > 0 && (
                <ol class="timeline">
                  {e.attempts.map((a) => (
                    <li key={a.attempt}>
                      {a.status
                        ? t('Attempt {n}: answered {status}', { n: a.attempt, status: a.status })
                        : t('Attempt {n}: no answer ({error})', { n: a.attempt, error: a.error })}{' '}
                      <span class="when">{when(a.at)}</span>
                    </li>
                  ))}
                </ol>
              )}
              <button
                type="button"
                class="secondary small"
                onClick={() =>
                  act(
                    async () => (
                      await request(`/api/v1/events/${e.id}/resend`, undefined, { method: 'POST' }), t('Queued {type} {id} again.', { type: e.type, id: e.id })
                    ),
                  )
                }
              >
                {t('Resend {type}', { type: e.type })}
              </button>
            </li>
          );
        })}
      </ul>
      {before !== null && (
        <button type="button" class="secondary" onClick={() => page(null)}>
          {t('Newest events')}
        </button>
      )}
      {rows?.length === PAGE && (
        <button type="button" class="secondary" onClick={() => page(rows[rows.length - 1]!.seq)}>
          {t('Older events')}
        </button>
      )}
    </section>
  );
}

/** The router's lazy() takes a chunk's default export. */
export default Events;
