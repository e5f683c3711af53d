// Bank payouts: the bank accounts (per currency, the form asks for the fields the contract's
// table requires of it, and an error names its field; add, edit, delete), a payout of USDT to
// one of them with the rate shown, and the payouts with their states.
import { h } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import * as z from 'zod/mini';
import { amountNumber, text } from '../../contract/fields.ts';
import { PAYOUT_CURRENCIES, REQUIRED_FIELDS, WRITE_FIELDS, type PayoutCurrency } from '../../contract/payout-fields.ts';
import { mode, request } from '../api.ts';
import { money, when } from '../format.ts';
import { t } from '../words.ts';
import { Field, fieldError, Notes, useAct, useTitle } from './common.tsx';
import { History, State } from './money.tsx';

export const Bank = z.object({ id: text, currency: text, ...Object.fromEntries(WRITE_FIELDS.map((f) => [f, z.optional(text)])) });
type Bank = { id: string; currency: string } & Record<string, string>;
export const Payout = z.object({ id: text, amount: amountNumber, currency: text, fiat_amount: amountNumber, status: text, createdAt: text });
const COUNTRY: Record<string, string> = { USD: 'united states', NGN: 'nigeria', GHS: 'ghana' };
const LABELS: Record<string, string> = {
  bank_name: 'Bank name',
  bank_code: 'Bank code',
  account_name: 'Account name',
  account_number: 'Account number',
  country: 'Country',
  account_type: 'Account type (personal or business)',
  routing_number: 'Routing number',
  city: 'City',
  state: 'State',
  address: 'Address',
  street: 'Street',
  postal_code: 'Postal code',
};
const named = (b: Bank) => `${b.currency} · ${b.bank_name} · ${b.account_number}`;

/** The form for a new account (`editing` undefined) or for `editing`'s fields. */
function BankForm({ editing, done }: { editing?: Bank; done: () => void }) {
  const [currency, setCurrency] = useState<PayoutCurrency>((editing?.currency as PayoutCurrency) ?? 'NGN');
  const [fields, setFields] = useState<Record<string, string>>(editing ?? {});
  const { note, error, act } = useAct(done);
  const save = (e: Event) => {
    e.preventDefault();
    void act(async () => {
      const body = Object.fromEntries(REQUIRED_FIELDS[currency].map((f) => [f, fields[f] ?? (f === 'country' ? COUNTRY[currency] : '')]));
      if (editing) await request(`/api/v1/bank/payouts/${editing.id}`, undefined, { method: 'PATCH', body });
      else await request('/api/v1/bank/payouts', undefined, { method: 'POST', body: { ...body, currency } });
      return t(editing ? 'Bank account saved.' : 'Bank account added.');
    });
  };
  return (
    <form onSubmit={save} aria-labelledby="bank-form-h">
      <h2 id="bank-form-h">{editing ? t('Edit {name}', { name: named(editing) }) : t('Add a bank account')}</h2>
      {!editing && (
        <div class="field">
          <label for="bank-currency">{t('Currency')}</label>
          <select id="bank-currency" value={currency} onChange={(e) => setCurrency((e.currentTarget as HTMLSelectElement).value as PayoutCurrency)}>
            {PAYOUT_CURRENCIES.map((c) => (
              <option key={c}>{c}</option>
            ))}
          </select>
        </div>
      )}
      {REQUIRED_FIELDS[currency].map((f) => (
        <Field
          key={f}
          id={`bank-${f}`}
          label={t(LABELS[f]!)}
          value={fields[f] ?? (f === 'country' ? COUNTRY[currency]! : '')}
          onInput={(v) => setFields({ ...fields, [f]: v })}
          error={fieldError(error, f)}
          required
        />
      ))}
      <button type="submit">{t(editing ? 'Save the bank account' : 'Add the bank account')}</button>
      <Notes note={note} error={error} />
    </form>
  );
}

export function Payouts(_: { path?: string }) {
  useTitle(t('Payouts'));
  const [stamp, setStamp] = useState(0);
  const [banks, setBanks] = useState<Bank[]>([]);
  const [editing, setEditing] = useState<Bank | null>(null);
  const [to, setTo] = useState('');
  const [amount, setAmount] = useState('');
  const [rate, setRate] = useState<number>();
  const again = () => (setEditing(null), setStamp((n) => n + 1));
  const { note, error, setError, act } = useAct(again);
  useEffect(() => {
    (async () => {
      const ids = (await request('/api/v1/bank/payouts?limit=100', z.object({ data: z.array(text) }))).data;
      setBanks(await Promise.all(ids.map(async (id) => (await request(`/api/v1/bank/payouts/${id}`, z.object({ data: Bank }))).data as Bank)));
    })().catch(setError);
  }, [mode.value, stamp]);
  const bank = banks.find((b) => b.id === to) ?? banks[0];
  useEffect(() => {
    setRate(undefined);
    if (bank)
      void request(`/api/v1/bank/payouts/rate?coin=USDT&currency=${bank.currency}`, z.object({ data: z.object({ rate: amountNumber }) })).then(
        (a) => setRate(a.data.rate),
        setError,
      );
  }, [bank?.currency]);
  const remove = (b: Bank) =>
    confirm(t('Delete {name}?', { name: named(b) })) &&
    act(async () => (await request('/api/v1/bank/payouts', undefined, { method: 'DELETE', body: { ids: [b.id] } }), t('Bank account deleted.')));
  const pay = (e: Event) => {
    e.preventDefault();
    void act(async () => {
      const p = (
        await request('/api/v1/bank/payouts/initiate', z.object({ data: Payout }), {
          method: 'POST',
          body: { payout_bank_id: bank!.id, coin: 'USDT', amount: Number(amount) },
        })
      ).data;
      return t('Payout {id} pending: {amount} USDT, {fiat} to the bank.', { id: p.id, amount: p.amount, fiat: money(p.fiat_amount, p.currency) });
    });
  };
  return (
    <section>
      <h1>{t('Payouts')}</h1>
      <h2>{t('Bank accounts')}</h2>
      {banks.length === 0 && <p>{t('None yet.')}</p>}
      <ul>
        {banks.map((b) => (
          <li key={b.id}>
            {named(b)}{' '}
            <button type="button" class="secondary small" onClick={() => setEditing(b)}>
              {t('Edit {name}', { name: named(b) })}
            </button>{' '}
            <button type="button" class="secondary small" onClick={() => remove(b)}>
              {t('Delete {name}', { name: named(b) })}
            </button>
          </li>
        ))}
      </ul>
      <BankForm key={editing?.id ?? 'new'} editing={editing ?? undefined} done={again} />
      {bank && (
        <form onSubmit={pay} aria-labelledby="pay-h">
          <h2 id="pay-h">{t('Pay out USDT to a bank account')}</h2>
          <div class="field">
            <label for="pay-to">{t('Bank account')}</label>
            <select id="pay-to" value={bank.id} onChange={(e) => setTo((e.currentTarget as HTMLSelectElement).value)}>
              {banks.map((b) => (
                <option key={b.id} value={b.id}>
                  {named(b)}
                </option>
              ))}
            </select>
          </div>
          <Field id="pay-amount" label={t('Amount (USDT)')} value={amount} onInput={setAmount} error={fieldError(error, 'amount')} required />
          {rate && (
            <p id="pay-rate">
              {t('Rate: 1 USDT = {rate}; the bank receives about {fiat}.', {
                rate: money(rate, bank.currency),
                fiat: money(Math.floor(Number(amount) * rate * 100) / 100 || 0, bank.currency),
              })}
            </p>
          )}
          <button type="submit">{t('Pay out')}</button>
        </form>
      )}
      <Notes note={note} error={error} />
      <History
        path="/api/v1/bank/payouts/withdrawals"
        item={Payout}
        title="Payout history"
        columns={['Date', 'Amount', 'To the bank', 'State']}
        stamp={stamp}
        row={(p) => [
          <td key="d">{when(p.createdAt)}</td>,
          <td key="a" class="num">
            {p.amount} USDT
          </td>,
          <td key="f" class="num">
            {money(p.fiat_amount, p.currency)}
          </td>,
          <td key="s">
            <State of={p.status} />
          </td>,
        ]}
      />
    </section>
  );
}

/** The router's lazy() takes a chunk's default export. */
export default Payouts;
