// The audit log: every change and money movement of the mode shown, newest first:
// when, who (the owner, a member by e-mail, a key), what (method and route), its target, the
// fields sent (values only of those never secret) and the client's address. Filters: who (the
// people and keys seen so far), what (the action) and when (from, to); older entries a page on.
import { h } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { mode, request } from '../api.ts';
import { when } from '../format.ts';
import { ErrorNote, Field, useTitle } from './common.tsx';

interface Entry {
  id: string;
  at: string;
  actor: { kind: string; id: string; label: string };
  client: string;
  action: string;
  target: string | null;
  details: { fields?: string[]; values?: Record<string, unknown> };
}
/** Everyone seen in the log so far, by actor id: the choices of "Who". */
const seen = new Map<string, string>();
const day = (date: string, end?: boolean) => date && new Date(Date.parse(`${date}T00:00:00Z`) + (end ? 86_400_000 : 0)).toISOString();

export function Audit(_: { path?: string }) {
  useTitle('Audit log');
  const [who, setWho] = useState('');
  const [what, setWhat] = useState('');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [rows, setRows] = useState<Entry[]>();
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const load = (cursor?: string) => {
    const query = new URLSearchParams(
      Object.entries({ actor: who, action: what.trim(), from: day(from), to: day(to, true), cursor: cursor ?? '' }).filter(([, v]) => v),
    );
    setError(null);
    return request(`/api/v1/audit_log?${query}`).then((a) => {
      const { data, next: more } = a as { data: Entry[]; next: string | null };
      for (const e of data) seen.set(e.actor.id, `${e.actor.label} (${e.actor.kind})`);
      setRows(cursor ? [...(rows ?? []), ...data] : data);
      setNext(more);
    }, setError);
  };
  useEffect(() => void load(), [mode.value]);
  return (
    <section>
      <h1>Audit log</h1>
      <form onSubmit={(e) => (e.preventDefault(), load())}>
        <div class="field">
          <label for="audit-who">Who</label>
          <select id="audit-who" value={who} onChange={(e) => setWho((e.currentTarget as HTMLSelectElement).value)}>
            <option value="">Everyone</option>
            {[...seen].map(([id, label]) => (
              <option key={id} value={id}>
                {label}
              </option>
            ))}
          </select>
        </div>
        <Field id="audit-what" label="What" hint="An action, such as POST /api/v1/withdrawals" value={what} onInput={setWhat} />
        <Field id="audit-from" label="From (day)" type="date" value={from} onInput={setFrom} />
        <Field id="audit-to" label="To (day)" type="date" value={to} onInput={setTo} />
        <button type="submit">Filter</button>
      </form>
      <ErrorNote error={error} />
      {rows?.length === 0 && <p>No entries.</p>}
      <div class="scroll">
        <table>
          <caption>Who did what, newest first</caption>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Who</th>
              <th scope="col">What</th>
              <th scope="col">Details</th>
              <th scope="col">From</th>
            </tr>
          </thead>
          <tbody>
            {rows?.map((e) => (
              <tr key={e.id}>
                <td>{when(e.at)}</td>
                <td>{e.actor.label}</td>
                <td>
                  {e.action}
                  {e.target && <span class="meta"> {e.target}</span>}
                </td>
                <td class="meta">
                  {[...(e.details.fields ?? []).map((f) => (e.details.values && f in e.details.values ? `${f}: ${String(e.details.values[f])}` : f))].join(
                    ', ',
                  )}
                </td>
                <td class="meta">{e.client}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {next && (
        <button type="button" class="secondary" onClick={() => load(next)}>
          Older entries
        </button>
      )}
    </section>
  );
}

/** The router's lazy() takes a chunk's default export. */
export default Audit;
