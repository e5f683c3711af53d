// The events feed: the latest events told to the webhook URL, newest first, each with every
// delivery attempt and the endpoint's answer, and resend. Live: new events show as they come.
// Older events a page of PAGE at a time (the feed's `before`), and back to the newest.
import { h } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import * as z from 'zod/mini';
import { int, nullable, text } from '../../contract/fields.ts';
import { mode, request } from '../api.ts';
import { when } from '../format.ts';
import { useLive } from '../live.ts';
import { Notes, useAct, useTitle } from './common.tsx';

export const Attempt = z.object({ attempt: int, status: int, error: nullable<string>((v) => typeof v === 'string', 'text'), at: text });
export const Event = z.object({ id: text, seq: int, type: text, state: text, created: text, attempts: z.array(Attempt) });
export const Feed = z.object({ data: z.array(Event) });
const PAGE = 50;
const STATES: Record<string, string> = { pending: 'Pending', delivered: 'Delivered', failed: 'Gave up', no_endpoint: 'No webhook URL' };

export function Events(_: { path?: string }) {
  useTitle('Events');
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
      <h1>Events</h1>
      <Notes note={note} error={error} />
      {rows?.length === 0 && <p>{before === null ? 'No events yet.' : 'No older events.'}</p>}
      <ul class="payments" aria-label={before === null ? 'Events, newest first' : 'Older events, newest first'} ref={list} tabIndex={-1}>
        {rows?.map((e) => (
          <li key={e.id} class="product">
            <p class="ref">
              {e.type} <span class={`status status-${e.state === 'delivered' ? 'confirmed' : 'failed'}`}>{STATES[e.state] ?? e.state}</span>
            </p>
            <p class="meta">
              {e.id}, {when(e.created)}
            </p>
            {e.attempts.length > 0 && (
              <ol class="timeline">
                {e.attempts.map((a) => (
                  <li key={a.attempt}>
                    Attempt {a.attempt}: {a.status ? `answered ${a.status}` : `no answer (${a.error})`} <span class="when">{when(a.at)}</span>
                  </li>
                ))}
              </ol>
            )}
            <button type="button" class="secondary small" onClick={() => act(async () => (await request(`/api/v1/events/${e.id}/resend`, undefined, { method: 'POST' }), `Queued ${e.type} ${e.id} again.`))}>
              Resend {e.type}
            </button>
          </li>
        ))}
      </ul>
      {before !== null && (
        <button type="button" class="secondary" onClick={() => page(null)}>
          Newest events
        </button>
      )}
      {rows?.length === PAGE && (
        <button type="button" class="secondary" onClick={() => page(rows[rows.length - 1]!.seq)}>
          Older events
        </button>
      )}
    </section>
  );
}
