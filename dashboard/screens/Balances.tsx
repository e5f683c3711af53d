// The money the service holds for the merchant (`balance` settlement): per coin and network
// what is available, reserved and pending, and behind each coin's figures its statement (the
// journal's movements, a page at a time, each with the balance after it), and the whole
// statement as CSV for an accountant (the service writes it).
import { h } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import * as z from 'zod/mini';
import { nullable, text } from '../../contract/fields.ts';
import { may, mode, request } from '../api.ts';
import { download } from '../download.ts';
import { when } from '../format.ts';
import { useLive } from '../live.ts';
import { ErrorNote, useTitle } from './common.tsx';
import { t } from '../words.ts';

import { Line, Lines } from './lines.ts';
export { Line, Lines };
export const Entry = z.object({ id: text, date: text, refers_to: text, account: text, amount: text, balance: text });
export const Entries = z.object({ data: z.array(Entry), next: nullable<string>((v) => typeof v === 'string', 'text') });
const PAGE = 25;

type Shown = { coin: string; chain_id: number; network: string };

function Statement({ of, stamp }: { of: Shown; stamp: unknown }) {
  const [rows, setRows] = useState<Array<z.infer<typeof Entry>>>([]);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const page = async (cursor: string | null) => {
    const answer = await request(`/api/v1/balances/entries?coin=${of.coin}&chain_id=${of.chain_id}&limit=${PAGE}${cursor ? `&cursor=${cursor}` : ''}`, Entries);
    setRows((before) => (cursor ? [...before, ...answer.data] : answer.data));
    setNext(answer.next);
  };
  useEffect(() => void page(null).catch(setError), [of.coin, of.chain_id, mode.value, stamp]);
  return (
    <section aria-labelledby="statement">
      <h2 id="statement">{t('Statement of {coin} on {network}', of)}</h2>
      <ErrorNote error={error} />
      {rows.length === 0 ? (
        <p>{t('No movements yet: money enters the statement once a payment is swept to the treasury.')}</p>
      ) : (
        <div class="scroll" tabIndex={0} role="region" aria-label={t('Movements of {coin}', of)}>
          <table>
            <thead>
              <tr>
                <th scope="col">{t('Date')}</th>
                <th scope="col">{t('For')}</th>
                <th scope="col">{t('Account')}</th>
                <th scope="col">{t('Amount')}</th>
                <th scope="col">{t('Balance after')}</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.id}>
                  <td>{when(r.date)}</td>
                  <td>{r.refers_to}</td>
                  <td>{t(r.account)}</td>
                  <td class="num">{r.amount}</td>
                  <td class="num">{r.balance}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {next && (
        <button type="button" class="secondary" onClick={() => page(next).catch(setError)}>
          {t('More movements')}
        </button>
      )}
    </section>
  );
}

export function Balances(_: { path?: string }) {
  useTitle(t('Balances'));
  const [lines, setLines] = useState<Array<z.infer<typeof Line>> | undefined>();
  const [shown, setShown] = useState<Shown | null>(null);
  const [error, setError] = useState<unknown>(null);
  const load = useCallback(async () => setLines((await request('/api/v1/balances', Lines)).data), [mode.value]);
  useEffect(() => void load().catch(setError), [load]);
  useLive(load);
  return (
    <section>
      <h1>{t('Balances')}</h1>
      <p>
        {t(
          'On balance settlement the service keeps your payments in the operator\u2019s treasury: available to swap, pay out or withdraw; reserved for a swap, payout or withdrawal under way; pending: paid by customers, not yet swept to the treasury.',
        )}
      </p>
      {/* The money screens, for a role that moves money (a viewer is offered none). */}
      {may('balances.write') && (
        <p>
          <a href="/dashboard/swaps">{t('Swaps')}</a> · {may('payouts.write') && <a href="/dashboard/payouts">{t('Payouts')}</a>} ·{' '}
          <a href="/dashboard/withdrawals">{t('Withdrawals')}</a>
        </p>
      )}
      <ErrorNote error={error} />
      {lines?.length === 0 && <p>{t('No money held for you in this mode.')}</p>}
      {!!lines?.length && (
        <div class="scroll" tabIndex={0} role="region" aria-label={t('Balances')}>
          <table>
            <caption>{t('Balances by coin and network')}</caption>
            <thead>
              <tr>
                <th scope="col">{t('Coin')}</th>
                <th scope="col">{t('Available')}</th>
                <th scope="col">{t('Reserved')}</th>
                <th scope="col">{t('Pending')}</th>
                <th scope="col">{t('Statement')}</th>
              </tr>
            </thead>
            <tbody>
              {lines.map((l) => (
                <tr key={`${l.coin}/${l.chain_id}`}>
                  <th scope="row">{t('{coin} on {network}', l)}</th>
                  <td class="num">{l.available}</td>
                  <td class="num">{l.reserved}</td>
                  <td class="num">{l.pending}</td>
                  <td>
                    <button
                      type="button"
                      class="secondary small"
                      aria-pressed={shown?.coin === l.coin && shown.chain_id === l.chain_id}
                      onClick={() => setShown(l)}
                    >
                      {t('{coin} on {network}', l)}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <button type="button" class="secondary" onClick={() => download('/api/v1/balances/statement.csv', `statement-${mode.value}.csv`).catch(setError)}>
        {t('Download the statement (CSV)')}
      </button>
      {shown && <Statement of={shown} stamp={lines} />}
    </section>
  );
}

/** The router's lazy() takes a chunk's default export. */
export default Balances;
