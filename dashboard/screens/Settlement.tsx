// Where this mode's new payments settle, in Settings: the merchant's own wallet (the default:
// the service never holds their money) or a balance the operator holds (custodial), said
// plainly before it is switched. Applies to payments made after the switch.
import { h } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import * as z from 'zod/mini';
import { nullable, text } from '../../contract/fields.ts';
import { mode, request } from '../api.ts';
import { t } from '../words.ts';
import { Notes, useAct } from './common.tsx';

export const SettlementAnswer = z.object({
  data: z.object({ settlement: text, treasury: z.optional(nullable<string>((v) => typeof v === 'string', 'text')) }),
});

const CHOICES = [
  [
    'wallet',
    'To my own wallet',
    'Each payment is swept to your payout address. The service never holds your money; swaps, bank payouts and withdrawals are not available.',
  ],
  [
    'balance',
    'To a balance the operator holds (custodial)',
    'Each payment is swept to the operator\u2019s treasury and kept as your balance. The operator then holds your money and the key to it: you trust them with it. From Balances you swap, pay out to a bank or withdraw to a wallet.',
  ],
] as const;

/** The mode, said in the language shown. */
export const modeWord = () => (mode.value === 'test' ? t('test') : t('live'));

export function Settlement() {
  const [saved, setSaved] = useState<string>();
  const [chosen, setChosen] = useState<string>();
  const { note, error, setError, act } = useAct();
  // A choice made before the saved one arrives (a slow network) stays the person's.
  useEffect(() => {
    setChosen(undefined);
    request('/api/v1/settlement', SettlementAnswer)
      .then((a) => (setSaved(a.data.settlement), setChosen((c) => c ?? a.data.settlement)))
      .catch(setError);
  }, [mode.value]);
  const save = (e: Event) => {
    e.preventDefault();
    void act(async () => {
      const answer = await request('/api/v1/settlement', SettlementAnswer, { method: 'PUT', body: { settlement: chosen } });
      setSaved(answer.data.settlement);
      const where = answer.data.settlement === 'balance' ? t('to a balance the operator holds') : t('to your wallet');
      return t('Saved: {mode} payments made from now on settle {where}; payments made before keep theirs.', { mode: modeWord(), where });
    });
  };
  return (
    <form onSubmit={save}>
      <fieldset>
        <legend>{t('Where {mode} payments settle', { mode: modeWord() })}</legend>
        {CHOICES.map(([value, label, words]) => (
          <div class="field" key={value}>
            <input
              type="radio"
              id={`settle-${value}`}
              name="settlement"
              value={value}
              checked={chosen === value}
              aria-describedby={`settle-${value}-words`}
              onChange={() => setChosen(value)}
            />
            <label for={`settle-${value}`}>
              {t(label)}
              {saved === value ? ` ${t('(now)')}` : ''}
            </label>
            <p class="hint" id={`settle-${value}-words`}>
              {t(words)}
            </p>
          </div>
        ))}
      </fieldset>
      <button type="submit" disabled={!chosen || chosen === saved}>
        {t('Save where payments settle')}
      </button>
      <Notes note={note} error={error} />
    </form>
  );
}
