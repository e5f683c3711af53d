// Withdrawals from the balance to a wallet: the daily limit (US dollars, every coin and network,
// withdrawals and bank payouts together) and what is left of it, the form, and the history.
import { h } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import * as z from 'zod/mini';
import { int, nullable, text } from '../../contract/fields.ts';
import { mode, request } from '../api.ts';
import { money, when } from '../format.ts';
import { t } from '../words.ts';
import { Field, fieldError, Notes, useAct, useTitle } from './common.tsx';
import { History, State, useLines } from './money.tsx';

export const Withdrawal = z.object({
  id: text,
  coin: text,
  chain_id: int,
  address: text,
  amount: text,
  status: text,
  tx_hash: nullable<string>((v) => typeof v === 'string', 'text'),
  createdAt: text,
});
export const Limit = z.object({ data: z.object({ currency: text, daily: text, spent: text, left: text }) });

export function Withdrawals(_: { path?: string }) {
  useTitle(t('Withdrawals'));
  const [stamp, setStamp] = useState(0);
  const lines = useLines(stamp);
  const [limit, setLimit] = useState<z.infer<typeof Limit>['data']>();
  const [coin, setCoin] = useState('');
  const [address, setAddress] = useState('');
  const [amount, setAmount] = useState('');
  const { note, error, act } = useAct(() => setStamp((n) => n + 1));
  useEffect(
    () =>
      void request('/api/v1/withdrawals/limit', Limit).then(
        (a) => setLimit(a.data),
        () => undefined,
      ),
    [mode.value, stamp],
  );
  const line = lines.find((l) => `${l.coin}/${l.chain_id}` === coin) ?? lines[0];
  const send = (e: Event) => {
    e.preventDefault();
    void act(async () => {
      const w = (
        await request('/api/v1/withdrawals', z.object({ data: Withdrawal }), {
          method: 'POST',
          body: { coin: line?.coin, chain_id: line?.chain_id, address, amount },
        })
      ).data;
      return t('Withdrawal {id} pending: {amount} {coin} to {address}.', { id: w.id, amount: w.amount, coin: w.coin, address: w.address });
    });
  };
  return (
    <section>
      <h1>{t('Withdrawals')}</h1>
      {limit && (
        <p id="limit">
          {t('Daily limit {daily}; {left} left (withdrawals and bank payouts of the last 24 hours count).', {
            daily: money(Number(limit.daily), limit.currency),
            left: money(Number(limit.left), limit.currency),
          })}
        </p>
      )}
      <form onSubmit={send}>
        <div class="field">
          <label for="w-coin">{t('Coin')}</label>
          <select id="w-coin" value={line && `${line.coin}/${line.chain_id}`} onChange={(e) => setCoin((e.currentTarget as HTMLSelectElement).value)}>
            {lines.map((l) => (
              <option key={`${l.coin}/${l.chain_id}`} value={`${l.coin}/${l.chain_id}`}>
                {t('{coin} on {network} ({available} available)', l)}
              </option>
            ))}
          </select>
        </div>
        <Field
          id="w-address"
          label={t('Wallet address')}
          value={address}
          onInput={setAddress}
          error={fieldError(error, 'address')}
          required
          hint={t('A 0x address of yours on that network.')}
        />
        <Field id="w-amount" label={t('Amount')} value={amount} onInput={setAmount} error={fieldError(error, 'amount')} required />
        <button type="submit" disabled={!line}>
          {t('Withdraw')}
        </button>
      </form>
      <Notes note={note} error={error} />
      <History
        path="/api/v1/withdrawals"
        item={Withdrawal}
        title="Withdrawal history"
        columns={['Date', 'Amount', 'To', 'State']}
        stamp={stamp}
        row={(w) => [
          <td key="d">{when(w.createdAt)}</td>,
          <td key="a" class="num">
            {w.amount} {w.coin}
          </td>,
          <td key="t">{w.address}</td>,
          <td key="s">
            <State of={w.status} />
          </td>,
        ]}
      />
    </section>
  );
}

/** The router's lazy() takes a chunk's default export. */
export default Withdrawals;
