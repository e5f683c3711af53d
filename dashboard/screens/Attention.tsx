// Home's "needs your attention": each payment whose money did not count as asked
// (GET /api/v1/payments?needs_attention=true), with the amount owed back and the two one-step
// answers: keep it (accept) or send it back (a refund whose customer names their wallet on a
// claim link). Its own chunk, loaded by Home, so neither the first load nor Home's grows.
import { h } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import * as z from 'zod/mini';
import { AttentionPage, type AttentionRow } from '../../contract/attention.ts';
import { text } from '../../contract/fields.ts';
import { mode, request } from '../api.ts';
import { t } from '../words.ts';
import { Notes, useAct } from './common.tsx';

export const Sent = z.object({ data: z.object({ amount: text, coin: text, claim_url: z.optional(text) }) });

export function Attention() {
  const [rows, setRows] = useState<AttentionRow[]>([]);
  const load = useCallback(
    () =>
      request('/api/v1/payments?needs_attention=true&limit=40', AttentionPage).then(
        (a) => setRows(a.data),
        () => setRows([]),
      ),
    [mode.value],
  );
  const { note, error, act } = useAct(load);
  useEffect(() => void load(), [load]);
  const path = (p: AttentionRow, to: string) => `/api/v1/payments/${encodeURIComponent(p.reference)}/${to}`;
  const accept = (p: AttentionRow) =>
    act(async () => {
      await request(path(p, 'accept'), undefined, { method: 'POST' });
      return t('{reference}: accepted.', { reference: p.reference });
    });
  const sendBack = (p: AttentionRow) =>
    act(async () => {
      const r = (await request(path(p, 'send_back'), Sent, { method: 'POST', body: { reason: t('Sent back from the dashboard') } })).data;
      if (!r.claim_url) return t('{amount} {coin} to send back: the claim link was e-mailed to the customer.', { amount: r.amount, coin: r.coin });
      return t('{amount} {coin} to send back: give the customer this link, on which they name their wallet: {url}', {
        amount: r.amount,
        coin: r.coin,
        url: r.claim_url,
      });
    });
  // Nothing to resolve and nothing just done: Home stays as it was.
  if (rows.length === 0 && !note && !error) return null;
  return (
    <div class="card" id="attention">
      <h2>{t('Needs your attention')}</h2>
      {rows.length === 0 && <p>{t('Nothing to resolve.')}</p>}
      <ul class="payments" aria-label={t('Needs your attention')}>
        {rows.map((p) => {
          const a = p.attention;
          const why = {
            overpaid: t('Paid more than due'),
            partial: t('Expired, partly paid'),
            late: t('Arrived after it expired'),
            wrong_coin: t('Another coin'),
            wrong_chain: t('Another network'),
          }[a.reason];
          return (
            <li class="payment" key={p.reference}>
              <a href={`/dashboard/payments/${encodeURIComponent(p.reference)}`}>{p.reference}</a> {why}:{' '}
              {t('{amount} {coin} owed back', { amount: a.amount, coin: a.coin })}{' '}
              <button type="button" class="secondary" onClick={() => accept(p)}>
                {t('Accept')}
              </button>{' '}
              <button type="button" class="secondary" onClick={() => sendBack(p)}>
                {t('Send back')}
              </button>
            </li>
          );
        })}
      </ul>
      <Notes note={note} error={error} />
    </div>
  );
}
