// Swaps between coins of the balance: a quote (the pool's rate, the fee, what the balance
// receives and the least it may, and how long the price holds, counted down), then confirm;
// below, every swap with its state.
import { h } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import * as z from 'zod/mini';
import { int, nullable, text } from '../../contract/fields.ts';
import { request } from '../api.ts';
import { when } from '../format.ts';
import { t } from '../words.ts';
import { Field, fieldError, Notes, useAct, useTitle } from './common.tsx';
import { History, State, useLines } from './money.tsx';

export const Swap = z.object({
  id: text,
  from: text,
  to: text,
  chain_id: int,
  amount: text,
  rate: text,
  amount_received: text,
  fee: text,
  minimum_received: text,
  status: text,
  expires_at: text,
  failure: nullable<string>((v) => typeof v === 'string', 'text'),
  createdAt: text,
});
export const Answer = z.object({ data: Swap });
type Swap = z.infer<typeof Swap>;

/** Seconds until `iso`, counted down each second (0 once passed). */
function useSecondsTo(iso: string | undefined): number {
  const left = () => (iso ? Math.max(0, Math.ceil((Date.parse(iso) - Date.now()) / 1000)) : 0);
  const [seconds, setSeconds] = useState(left);
  useEffect(() => {
    setSeconds(left());
    const timer = setInterval(() => setSeconds(left()), 1000);
    return () => clearInterval(timer);
  }, [iso]);
  return seconds;
}

export function Swaps(_: { path?: string }) {
  useTitle(t('Swaps'));
  const [stamp, setStamp] = useState(0);
  const lines = useLines(stamp);
  const coins = [...new Set(['USDT', ...lines.map((l) => l.coin)])];
  const [from, setFrom] = useState('USDC');
  const [to, setTo] = useState('USDT');
  const [amount, setAmount] = useState('');
  const [quote, setQuote] = useState<Swap>();
  const { note, error, act } = useAct(() => setStamp((n) => n + 1));
  const seconds = useSecondsTo(quote?.expires_at);
  const ask = (e: Event) => {
    e.preventDefault();
    setQuote(undefined);
    void act(async () => {
      const q = (await request('/api/v1/swaps/quote', Answer, { method: 'POST', body: { from, to, amount } })).data;
      setQuote(q);
      return t('Quoted: {amount} {from} for {received} {to}.', { amount: q.amount, from: q.from, received: q.amount_received, to: q.to });
    });
  };
  const confirm = () =>
    act(async () => {
      const swap = (await request('/api/v1/swaps', Answer, { method: 'POST', body: { quote_id: quote!.id } })).data;
      setQuote(undefined);
      return t('Swap {id} pending: {amount} {from} reserved.', { id: swap.id, amount: swap.amount, from: swap.from });
    });
  const select = (id: string, label: string, value: string, set: (v: string) => void) => (
    <div class="field">
      <label for={id}>{t(label)}</label>
      <select id={id} value={value} onChange={(e) => set((e.currentTarget as HTMLSelectElement).value)}>
        {coins.map((c) => (
          <option key={c}>{c}</option>
        ))}
      </select>
    </div>
  );
  return (
    <section>
      <h1>{t('Swaps')}</h1>
      <p>{t('Swap one coin of your balance for another at the pool\u2019s price. Bank payouts are paid from USDT.')}</p>
      <form onSubmit={ask}>
        {select('swap-from', 'From', from, setFrom)}
        {select('swap-to', 'To', to, setTo)}
        <Field id="swap-amount" label={t('Amount of {coin}', { coin: from })} value={amount} onInput={setAmount} error={fieldError(error, 'amount')} required />
        <button type="submit">{t('Get a quote')}</button>
      </form>
      {quote && (
        <section aria-labelledby="quote-h" class="card">
          <h2 id="quote-h">{t('Quote')}</h2>
          <dl>
            <dt>{t('Rate')}</dt>
            <dd>{t('1 {from} = {rate} {to}', { from: quote.from, rate: quote.rate, to: quote.to })}</dd>
            <dt>{t('Fee')}</dt>
            <dd>
              {quote.fee} {quote.to}
            </dd>
            <dt>{t('You receive')}</dt>
            <dd>
              {quote.amount_received} {quote.to}
            </dd>
            <dt>{t('Minimum received')}</dt>
            <dd>
              {quote.minimum_received} {quote.to}
            </dd>
          </dl>
          <p role="timer">{seconds ? t('The price holds for {seconds} s.', { seconds }) : t('The quote expired: ask again.')}</p>
          <button type="button" disabled={!seconds} onClick={confirm}>
            {t('Swap {amount} {from}', { amount: quote.amount, from: quote.from })}
          </button>
        </section>
      )}
      <Notes note={note} error={error} />
      <History
        path="/api/v1/swaps"
        item={Swap}
        title="Swap history"
        columns={['Date', 'Swapped', 'Received', 'State']}
        stamp={stamp}
        row={(s) => [
          <td key="d">{when(s.createdAt)}</td>,
          <td key="a" class="num">
            {s.amount} {s.from}
          </td>,
          <td key="r" class="num">
            {s.amount_received} {s.to}
          </td>,
          <td key="s">
            <State of={s.status} />
            {s.failure && ` (${s.failure})`}
          </td>,
        ]}
      />
    </section>
  );
}

/** The router's lazy() takes a chunk's default export. */
export default Swaps;
