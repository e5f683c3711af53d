// Refunds: started from a payment's page (all that arrived and is not refunded
// yet, or an amount in coins; a reason; the customer's wallet, or a claim link the customer
// names it on, shown once to copy), the payment's refunds with their states, and the Refunds
// screen with every refund. A live refund asks for the second factor (api.ts's step-up).
import { h, Fragment } from 'preact';
import { useState } from 'preact/hooks';
import * as z from 'zod/mini';
import { ServiceError } from '../../contract/answer.ts';
import { int, nullable, text } from '../../contract/fields.ts';
import { mode, request, session } from '../api.ts';
import { when } from '../format.ts';
import { t } from '../words.ts';
import { Field, fieldError, Notes, useAct, useTitle } from './common.tsx';
import { History, State } from './money.tsx';

const orNull = nullable<string>((v) => typeof v === 'string', 'text');
/** A refund as the dashboard reads it (contract/refunds.ts's Refund holds the whole shape; this keeps the screen's chunk small). */
/** On wallet settlement: the one transfer that pays the refund, from the merchant's own wallet. */
export const Transfer = z.object({ uri: text, token: text, chain_id: int, to: text, amount: text, amount_base_units: text });
export const Refund = z.object({
  id: text,
  reference: text,
  coin: text,
  address: orNull,
  amount: text,
  status: text,
  failure: orNull,
  claim_url: z.optional(text),
  transfer: z.optional(nullable<z.infer<typeof Transfer>>((v) => Transfer.safeParse(v).success, 'a transfer')),
  createdAt: text,
});
type RefundView = z.infer<typeof Refund>;
type Panel = typeof import('./WalletRefund.tsx').default;
export const Made = z.object({ data: Refund });

/**
 * `value` as the API writes an amount, exact decimal text of the coin ("1.5"; a comma taken for
 * the point); undefined when it is not a positive amount exact at `decimals`. The service parses
 * it to base units itself.
 */
const coinText = (value: string, decimals: number): string | undefined => {
  const [, w, f = ''] = /^(\d*)(?:[.,](\d*))?$/.exec(value.trim()) ?? [];
  return w != null && f.length <= decimals && /[1-9]/.test(w + f) ? (w || '0') + (f && '.' + f) : undefined;
};

/** The refunds' history: of one payment (`reference`), else every one; each not sent yet can be canceled. */
export function RefundList({ reference, stamp, onChange }: { reference?: string; stamp?: unknown; onChange?: () => void }) {
  const { note, error, act } = useAct(onChange);
  const [paying, setPaying] = useState<RefundView>();
  // Sending a wallet-settled refund is its own chunk, fetched when first asked for: most merchants never open it.
  const [WalletRefund, setWalletRefund] = useState<Panel>();
  const pay = (r: RefundView) => {
    setPaying(r);
    void import('./WalletRefund.tsx').then((m) => setWalletRefund(() => m.default));
  };
  const cancel = (r: RefundView) =>
    act(async () => {
      await request(`/api/v1/refunds/${r.id}/cancel`, Made, { method: 'POST' });
      return t('Refund {id} canceled: its amount is back in the balance.', { id: r.id });
    });
  return (
    <>
      <Notes note={note} error={error} />
      <History
        path={`/api/v1/refunds${reference ? `?reference=${encodeURIComponent(reference)}` : ''}`}
        item={Refund}
        title="Refunds"
        columns={reference ? ['Date', 'Amount', 'To', 'State'] : ['Date', 'Payment', 'Amount', 'State']}
        stamp={stamp}
        row={(r) => [
          <td key="d">{when(r.createdAt)}</td>,
          reference ? null : (
            <td key="p">
              <a href={`/dashboard/payments/${encodeURIComponent(r.reference)}`}>{r.reference}</a>
            </td>
          ),
          <td key="a" class="num">
            {r.amount} {r.coin}
          </td>,
          reference ? (
            <td key="t" class="hash">
              {r.address ?? t('The customer, by the claim link')}
            </td>
          ) : null,
          <td key="s">
            <State of={r.status} />
            {(r.status === 'ready' || r.status === 'waiting_for_address') && (
              <button type="button" class="secondary small" onClick={() => cancel(r)}>
                {t('Cancel refund {id}', { id: r.id.slice(0, 8) })}
              </button>
            )}
            {r.status === 'ready' && r.transfer && (
              <button type="button" class="small" onClick={() => pay(r)}>
                {t('Send refund {id} from my wallet', { id: r.id.slice(0, 8) })}
              </button>
            )}
            {r.failure && <span class="hint"> {r.failure}</span>}
          </td>,
        ]}
      />
      {paying?.transfer && WalletRefund && (
        <WalletRefund id={paying.id} amount={paying.amount} coin={paying.coin} transfer={paying.transfer} onChange={onChange} />
      )}
    </>
  );
}

/** The payment's refund form and its refunds. */
export function PaymentRefunds({ reference, coin, chainId }: { reference: string; coin: string; chainId?: number }) {
  const [stamp, setStamp] = useState(0);
  const [all, setAll] = useState(true);
  const [amount, setAmount] = useState('');
  const [reason, setReason] = useState('');
  const [claim, setClaim] = useState(false);
  const [address, setAddress] = useState('');
  const [url, setUrl] = useState('');
  const again = () => setStamp((n) => n + 1);
  const { note, error, act } = useAct(again);
  const decimals = session.value?.coins?.[mode.value].find((c) => c.symbol === coin && (chainId === undefined || c.chainId === chainId))?.decimals ?? 6;
  const send = (e: Event) => {
    e.preventDefault();
    void act(async () => {
      setUrl('');
      const asked = all ? 'rest' : coinText(amount, decimals);
      if (!asked)
        throw new ServiceError(
          'http',
          'amount',
          400,
          [{ field: 'amount', message: t('expected an amount of {coin} above 0, at most {decimals} decimals, such as 1.5', { coin, decimals }) }],
          undefined,
          t('Check the amount.'),
        );
      const made = (
        await request('/api/v1/refunds', Made, { method: 'POST', body: { reference, amount: asked, reason, ...(claim ? {} : { address: address.trim() }) } })
      ).data;
      setUrl(made.claim_url ?? '');
      const what = { amount: made.amount, coin };
      // No link answered and no address yet: a support member's, e-mailed to the customer; its line below says so.
      return made.claim_url
        ? t('Refund of {amount} {coin} waiting for the customer: give them the claim link below (shown this once).', what)
        : !made.address
          ? t('The customer, by the claim link')
          : made.transfer
            ? t('Refund of {amount} {coin} ready: send it from your wallet, from its line below.', what)
            : t('Refund of {amount} {coin} ready: the treasury sends it.', what);
    });
  };
  return (
    <section aria-labelledby="refund-h">
      <h2 id="refund-h">{t('Refund')}</h2>
      <form onSubmit={send} noValidate>
        <fieldset>
          <legend>{t('How much')}</legend>
          <div class="field">
            <input type="radio" id="refund-all" name="refund-amount" checked={all} onChange={() => setAll(true)} />
            <label for="refund-all">{t('All that arrived and is not refunded yet')}</label>
          </div>
          <div class="field">
            <input type="radio" id="refund-some" name="refund-amount" checked={!all} onChange={() => setAll(false)} />
            <label for="refund-some">{t('An amount')}</label>
          </div>
        </fieldset>
        {!all && (
          <Field id="refund-amount" label={t('Amount of {coin}', { coin })} value={amount} onInput={setAmount} error={fieldError(error, 'amount')} required />
        )}
        <Field id="refund-reason" label={t('Reason')} value={reason} onInput={setReason} error={fieldError(error, 'reason')} required />
        <fieldset>
          <legend>{t('To')}</legend>
          <div class="field">
            <input type="radio" id="refund-to-address" name="refund-to" checked={!claim} onChange={() => setClaim(false)} />
            <label for="refund-to-address">{t('The customer\u2019s wallet address')}</label>
          </div>
          <div class="field">
            <input type="radio" id="refund-to-claim" name="refund-to" checked={claim} onChange={() => setClaim(true)} />
            <label for="refund-to-claim">{t('Send the customer a claim link')}</label>
          </div>
        </fieldset>
        {!claim && (
          <Field
            id="refund-address"
            label={t('Wallet address')}
            value={address}
            onInput={setAddress}
            error={fieldError(error, 'address')}
            hint={t('The customer\u2019s 0x address on the payment\u2019s network.')}
            required
          />
        )}
        <button type="submit">{t('Refund')}</button>
      </form>
      <Notes note={note} error={error} />
      {url && (
        <div class="card">
          <p>
            <label for="claim-url">{t('Claim link')}</label>
          </p>
          <input id="claim-url" class="hash" readOnly value={url} />
          <button type="button" class="secondary small" onClick={() => void navigator.clipboard.writeText(url)}>
            {t('Copy the claim link')}
          </button>
        </div>
      )}
      <RefundList reference={reference} stamp={stamp} onChange={again} />
    </section>
  );
}

export function Refunds(_: { path?: string }) {
  useTitle(t('Refunds'));
  return (
    <section>
      <h1>{t('Refunds')}</h1>
      <p>{t('Start a refund from its payment\u2019s page.')}</p>
      <RefundList />
    </section>
  );
}

/** The router's lazy() takes a chunk's default export. */
export default Refunds;
