// What the Swaps, Payouts and Withdrawals screens share (a chunk of their own, beside the first
// load): a history list a page at a time (newest first, by the service's cursor), a state said
// in words, and the coins of the balance to choose from.
import { h, type ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import * as z from 'zod/mini';
import { bool, nullable } from '../../contract/fields.ts';
import { mode, request } from '../api.ts';
import { t } from '../words.ts';
import { ErrorNote } from './common.tsx';
import { Lines, type Line } from './lines.ts';

export const paged = <T extends z.ZodMiniType>(item: T) =>
  z.object({ data: z.array(item), next: nullable<string>((v) => typeof v === 'string', 'text'), has_more: bool });

/** A state in words (the service's word is kept beside, for support). */
const STATES: Record<string, string> = {
  quoted: 'Quoted',
  pending: 'Pending',
  processing: 'Processing',
  completed: 'Completed',
  paid: 'Paid',
  failed: 'Failed',
  waiting_for_address: 'Waiting for the customer\u2019s address',
  ready: 'Ready to send',
  sent: 'Sent',
  confirmed: 'Confirmed',
  canceled: 'Canceled',
};
export const State = ({ of }: { of: string }) => <span>{t(STATES[of] ?? of)}</span>;

/** The history of `path`: a table of `columns`, each row drawn by `row`; More pages on; `stamp` reloads it. */
export function History<T extends { id: string }>(props: {
  path: string;
  item: z.ZodMiniType<T>;
  title: string;
  columns: string[];
  row: (item: T) => ComponentChildren;
  stamp?: unknown;
}) {
  const [rows, setRows] = useState<T[] | undefined>();
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const id = props.path.replace(/\W/g, '-') + '-h';
  const page = async (cursor: string | null) => {
    const answer = await request(`${props.path}${props.path.includes('?') ? '&' : '?'}limit=25${cursor ? `&cursor=${cursor}` : ''}`, paged(props.item));
    setRows((before) => (cursor && before ? [...before, ...answer.data] : answer.data) as T[]);
    setNext(answer.next);
  };
  useEffect(() => void page(null).catch(setError), [props.path, mode.value, props.stamp]);
  return (
    <section>
      <h2 id={id}>{t(props.title)}</h2>
      <ErrorNote error={error} />
      {rows?.length === 0 && <p>{t('None yet.')}</p>}
      {!!rows?.length && (
        <div class="scroll" tabIndex={0} role="region" aria-labelledby={id}>
          <table>
            <thead>
              <tr>
                {props.columns.map((c) => (
                  <th scope="col" key={c}>
                    {t(c)}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.id}>{props.row(r)}</tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {next && (
        <button type="button" class="secondary" onClick={() => page(next).catch(setError)}>
          {t('More')}
        </button>
      )}
    </section>
  );
}

/** The balance's lines (coin and network, available), for the forms' coin choices; again when `stamp` changes. */
export function useLines(stamp?: unknown): Line[] {
  const [lines, setLines] = useState<Line[]>([]);
  useEffect(
    () =>
      void request('/api/v1/balances', Lines).then(
        (a) => setLines(a.data),
        () => undefined,
      ),
    [mode.value, stamp],
  );
  return lines;
}
