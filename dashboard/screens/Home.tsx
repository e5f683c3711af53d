// Home: what arrived today and this week, by coin; the payments that need attention; and what
// blocks money, as GET /api/v1/account/warnings says (no webhook URL, no payout address, a
// webhook endpoint failing, the service not ready), each with where to put it right, said in
// the member's language from its code and params (the service's English `message` only for a
// code this dashboard does not know).
import { h, Fragment } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { PaymentsPage, type PaymentSummary } from '../../contract/dashboard.ts';
import { WarningsAnswer, type MoneyWarning } from '../../contract/warnings.ts';
import { mode, request } from '../api.ts';
import { figure, needsAttention, when } from '../format.ts';
import { t } from '../words.ts';
import { useLive } from '../live.ts';
import { PaymentRow } from './PaymentRow.tsx';
import { ErrorNote, useTitle } from './common.tsx';
import { lazy } from 'preact-iso';
const Attention = lazy(() => import('./Attention.tsx').then((m) => m.Attention));

// Where each warning is put right.
const WHERE: Record<string, string> = { no_webhook_url: 'Developers', no_payout_address: 'Settings', webhook_failing: 'Events' };

/** A warning in the member's language. */
function warningWords({ code, params: p, message }: MoneyWarning): string {
  const live = p.mode === 'live';
  switch (code) {
    case 'no_webhook_url':
      return live
        ? t('No webhook URL for live payments: events wait until you set one.')
        : t('No webhook URL for test payments: events wait until you set one.');
    case 'no_payout_address':
      return live
        ? t('No payout address for {network} (chain {chainId}): live payments there are refused until you set one.', p)
        : t('No payout address for {network} (chain {chainId}): test payments there are refused until you set one.', p);
    case 'webhook_failing':
      return p.status
        ? t('Your webhook endpoint answered {status} at {at}: events are retried, and your server has not heard of them.', {
            status: p.status,
            at: when(p.at ?? null),
          })
        : t('Your webhook endpoint could not be reached ({error}) at {at}: events are retried, and your server has not heard of them.', {
            error: p.error,
            at: when(p.at ?? null),
          });
    case 'not_ready':
      return t('The service is not ready ({checks} of its checks fail): payments may not be seen until it is. Its operator sees which.', p);
  }
  return message;
}

const startOfDay = (d = new Date()) => new Date(d.getFullYear(), d.getMonth(), d.getDate());
const startOfWeek = () => {
  const today = startOfDay();
  return new Date(today.getTime() - ((today.getDay() + 6) % 7) * 86_400_000);
};

/** Received (whole coins) by coin; decimals summed as numbers are fine for a glance, not for accounts. */
function byCoin(rows: PaymentSummary[]): Array<[string, number]> {
  const sums = new Map<string, number>();
  for (const p of rows) if (p.amountPaid > 0) sums.set(p.coin, (sums.get(p.coin) ?? 0) + p.amountPaid);
  return [...sums.entries()].sort();
}

function Totals({ label, rows }: { label: string; rows: PaymentSummary[] }) {
  const sums = byCoin(rows);
  return (
    <div class="card">
      <h2>{label}</h2>
      {sums.length === 0 ? (
        <p>{t('Nothing received.')}</p>
      ) : (
        <ul class="totals">
          {sums.map(([coin, amount]) => (
            <li key={coin}>
              <span class="figure">{figure(amount)}</span> {coin}
            </li>
          ))}
        </ul>
      )}
      <p class="hint">{t('Payments made: {count}', { count: figure(rows.length) })}</p>
    </div>
  );
}

export function Home(_: { path?: string }) {
  useTitle(t('Home'));
  const [week, setWeek] = useState<PaymentSummary[] | undefined>();
  const [warnings, setWarnings] = useState<MoneyWarning[]>([]);
  const [error, setError] = useState<unknown>(null);
  const load = useCallback(async () => {
    try {
      const rows: PaymentSummary[] = [];
      let cursor: string | null = null;
      // At most 1,000 payments a week are summed here; more show as "1,000+".
      for (let i = 0; i < 10; i++) {
        const q = new URLSearchParams({ limit: '100', from: startOfWeek().toISOString(), ...(cursor ? { cursor } : {}) });
        const page: PaymentsPage = await request(`/api/v1/payments?${q}`, PaymentsPage);
        rows.push(...page.data);
        cursor = page.next;
        if (!cursor) break;
      }
      setWeek(rows);
      setWarnings((await request('/api/v1/account/warnings', WarningsAnswer)).data);
      setError(null);
    } catch (e) {
      setError(e);
    }
  }, [mode.value]);
  useEffect(() => void load(), [load]);
  useLive(load);
  const today = startOfDay().getTime();
  const attention = (week ?? []).filter(needsAttention);
  return (
    <section>
      <h1>{t('Home')}</h1>
      <ErrorNote error={error} />
      {warnings.map((w) => (
        <p class="warning" key={w.code}>
          {warningWords(w)} {WHERE[w.code] && <a href={`/dashboard/${WHERE[w.code].toLowerCase()}`}>{t(WHERE[w.code])}</a>}
        </p>
      ))}
      <Attention />
      {week === undefined ? (
        <p role="status">{t('Loading…')}</p>
      ) : (
        <>
          <div class="cards">
            <Totals label={t('Received today')} rows={week.filter((p) => Date.parse(p.createdAt) >= today)} />
            <Totals label={t('Received this week')} rows={week} />
          </div>
          <h2>{t('Needs attention')}</h2>
          {attention.length === 0 ? (
            <p>{t('Nothing this week: no partly paid, overpaid or expired-with-money payments.')}</p>
          ) : (
            <ul class="payments" aria-label={t('Payments needing attention')}>
              {attention.map((p) => (
                <PaymentRow key={p.reference} p={p} />
              ))}
            </ul>
          )}
        </>
      )}
    </section>
  );
}

/** The router's lazy() takes a chunk's default export. */
export default Home;
