// Payments: the list, newest first, a page at a time by cursor, filtered by status, coin, date
// and a search; live: a payment that arrives or moves is shown without reloading.
import { h } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { PaymentsPage, type PaymentSummary } from '../../contract/dashboard.ts';
import { STATUSES } from '../../contract/schemas.ts';
import { mode, request, session } from '../api.ts';
import { download } from '../download.ts';
import { figure, statusWords } from '../format.ts';
import { lang, t } from '../words.ts';
import { useLive } from '../live.ts';
import { ErrorNote, useTitle } from './common.tsx';
import { PaymentRow } from './PaymentRow.tsx';

interface Filters {
  status: string;
  coin: string;
  from: string;
  to: string;
  q: string;
}
const NONE: Filters = { status: '', coin: '', from: '', to: '', q: '' };

function query(filters: Filters, cursor?: string): string {
  const q = new URLSearchParams({ limit: '25' });
  if (filters.status) q.set('status', filters.status);
  if (filters.coin) q.set('coin', filters.coin);
  if (filters.from) q.set('from', new Date(`${filters.from}T00:00:00`).toISOString());
  if (filters.to) q.set('to', new Date(new Date(`${filters.to}T00:00:00`).getTime() + 86_400_000).toISOString());
  if (filters.q.trim()) q.set('q', filters.q.trim());
  if (cursor) q.set('cursor', cursor);
  return q.toString();
}

// A payment's line (Home lists them too): its own module, so Home does not fetch this screen.
export { PaymentRow } from './PaymentRow.tsx';

/** The coins the service takes in this mode (the session names them, one per coin and network), each once. */
const coinsOffered = () => [...new Set((session.value?.coins?.[mode.value] ?? []).map((c) => c.symbol))].sort();

export function Payments(_: { path?: string }) {
  useTitle(t('Payments'));
  const [filters, setFilters] = useState<Filters>(NONE);
  const [draft, setDraft] = useState<Filters>(NONE);
  const [rows, setRows] = useState<PaymentSummary[] | undefined>();
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [updated, setUpdated] = useState('');

  const load = useCallback(async () => {
    try {
      const page = await request(`/api/v1/payments?${query(filters)}`, PaymentsPage);
      setRows(page.data);
      setNext(page.next);
      setError(null);
      setUpdated(new Date().toLocaleTimeString(lang.value));
    } catch (e) {
      setError(e);
    }
  }, [filters, mode.value]);
  useEffect(() => void load(), [load]);
  useLive(load);

  const more = async () => {
    if (!next) return;
    try {
      const page = await request(`/api/v1/payments?${query(filters, next)}`, PaymentsPage);
      setRows([...(rows ?? []), ...page.data]);
      setNext(page.next);
    } catch (e) {
      setError(e);
    }
  };
  const set = (key: keyof Filters) => (e: Event) => setDraft({ ...draft, [key]: (e.currentTarget as HTMLInputElement).value });

  return (
    <section>
      <h1>{t('Payments')}</h1>
      <form
        class="filters"
        role="search"
        aria-label={t('Filter payments')}
        onSubmit={(e) => {
          e.preventDefault();
          setFilters(draft);
        }}
      >
        <div class="field">
          <label for="f-q">{t('Search')}</label>
          <input id="f-q" type="search" value={draft.q} onInput={set('q')} aria-describedby="f-q-hint" />
          <p class="hint" id="f-q-hint">
            {t('A reference, customer e-mail, deposit address or transaction hash.')}
          </p>
        </div>
        <div class="field">
          <label for="f-status">{t('Status')}</label>
          <select id="f-status" value={draft.status} onChange={set('status')}>
            <option value="">{t('Any')}</option>
            {STATUSES.map((s) => (
              <option value={s} key={s}>
                {statusWords(s)}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="f-coin">{t('Coin')}</label>
          <select id="f-coin" value={draft.coin} onChange={set('coin')}>
            <option value="">{t('Any')}</option>
            {coinsOffered().map((c) => (
              <option value={c} key={c}>
                {c}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="f-from">{t('From')}</label>
          <input id="f-from" type="date" value={draft.from} onInput={set('from')} />
        </div>
        <div class="field">
          <label for="f-to">{t('To')}</label>
          <input id="f-to" type="date" value={draft.to} onInput={set('to')} />
        </div>
        <div class="actions">
          <button type="submit">{t('Apply')}</button>
          <button
            type="button"
            class="secondary"
            onClick={() => {
              setDraft(NONE);
              setFilters(NONE);
            }}
          >
            {t('Clear')}
          </button>
          <button
            type="button"
            class="secondary"
            onClick={() =>
              download(`/api/v1/payments/export.csv?${query(filters).replace(/(^|&)limit=\d+/, '')}`, `payments-${mode.value}.csv`).catch(setError)
            }
          >
            {t('Export CSV')}
          </button>
        </div>
      </form>
      <ErrorNote error={error} />
      <p class="hint" aria-live="polite">
        {rows === undefined
          ? t('Loading payments…')
          : next
            ? t('{count} shown, more below. Live: updated {time}.', { count: figure(rows.length), time: updated })
            : t('{count} shown. Live: updated {time}.', { count: figure(rows.length), time: updated })}
      </p>
      {rows && rows.length === 0 && <p>{filters === NONE ? t('No payments yet.') : t('No payments match these filters.')}</p>}
      {rows && rows.length > 0 && (
        <ul class="payments" aria-label={t('Payments, newest first')}>
          {rows.map((p) => (
            <PaymentRow key={p.reference} p={p} />
          ))}
        </ul>
      )}
      {next && (
        <button type="button" class="secondary" onClick={more}>
          {t('Show more')}
        </button>
      )}
    </section>
  );
}

/** The router's lazy() takes a chunk's default export. */
export default Payments;
