// Settings: the business as customers see it (name, e-mail, logo uploaded from the browser:
// the service keeps it only if its bytes are an image), and a payout address for each of the
// mode's networks, each its own form (an address with a wrong EIP-55 checksum is refused, with
// the one it should be). A live key's new payout address, bank account or withdrawal wallet
// waits the operator's delay: each waiting change is listed with its time, and the owner can
// cancel one they did not ask for.
import { h } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import * as z from 'zod/mini';
import { BusinessAnswer } from '../../contract/dashboard.ts';
import { bool, int, nullable, text } from '../../contract/fields.ts';
import { mode, request, session } from '../api.ts';
import { Field, fieldError, Notes, useAct, useTitle } from './common.tsx';
import { chosen, FileField } from './files.tsx';
import { modeWord, Settlement } from './Settlement.tsx';
import { lang, t } from '../words.ts';

export const Payouts = z.object({ data: z.array(z.object({ chain_id: int, address: text })) });
/** A waiting change, as GET /api/v1/destination_changes answers it (contract/events.ts's DestinationChangeData). */
const orNull = nullable<string | number>((v) => typeof v === 'string' || typeof v === 'number', 'text or a number');
export const Change = z.object({ id: text, kind: text, chain_id: orNull, address: orNull, bank_account_id: orNull, effective_at: text });
export const Changes = z.object({ data: z.array(Change) });
export const PayoutSet = z.object({ data: z.object({ pending: bool, effective_at: text }) });

// A time in the language shown (format.ts's when is in a chunk this screen does not otherwise fetch).
const when = (iso: string) => new Date(iso).toLocaleString(lang.value);

export function Settings(_: { path?: string }) {
  useTitle(t('Settings'));
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [logo, setLogo] = useState('');
  // A new sign-in e-mail needs the current password (the service asks for it).
  const [password, setPassword] = useState('');
  const [addresses, setAddresses] = useState<Record<number, string>>({});
  const [changes, setChanges] = useState<Array<z.infer<typeof Change>>>([]);
  // Which network's form was last sent, so its field (and only its) shows the refusal.
  const [sent, setSent] = useState(0);
  const networks = session.value?.networks[mode.value] ?? [];
  const newEmail = email.trim().toLowerCase() !== (session.value?.merchant.businessEmail ?? '').toLowerCase();
  // Fields the person typed in since the service last answered: a load that lands after the
  // typing (a slow network) leaves them as typed; a save clears them, and shows what was saved.
  const typed = useRef(new Set<string>());
  const shown = (b: z.infer<typeof BusinessAnswer>['data']) => {
    if (!typed.current.has('name')) setName(b.businessName);
    if (!typed.current.has('email')) setEmail(b.businessEmail);
    setLogo(b.businessLogo);
    setPassword('');
    const s = session.value;
    if (s) session.value = { ...s, merchant: { ...s.merchant, ...b } };
  };
  const load = useCallback(async () => {
    shown((await request('/api/v1/account', BusinessAnswer)).data);
    const held: Record<number, string> = networks.length
      ? Object.fromEntries((await request('/api/v1/payout_address', Payouts)).data.map((p) => [p.chain_id, p.address]))
      : {};
    setAddresses((all) => ({ ...held, ...Object.fromEntries(Object.entries(all).filter(([id]) => typed.current.has(`address:${id}`))) }));
    setChanges((await request('/api/v1/destination_changes', Changes)).data);
  }, [mode.value]);
  const networkName = (chainId: unknown) => networks.find((n) => n.chainId === chainId)?.name ?? t('chain {id}', { id: chainId });
  const described = (c: z.infer<typeof Change>) =>
    c.kind === 'payout_address'
      ? t('New payout address on {network}: {address}', { network: networkName(c.chain_id), address: c.address })
      : c.kind === 'withdrawal_address'
        ? t('New wallet on {network}: {address}', { network: networkName(c.chain_id), address: c.address })
        : t('Bank account {id}: new, or new details', { id: c.bank_account_id });
  const { note, error, setError, act } = useAct();
  useEffect(() => void load().catch(setError), [load]);
  const submit = (work: () => Promise<string>) => (e: Event) => {
    e.preventDefault();
    void act(work);
  };
  return (
    <section>
      <h1>{t('Settings')}</h1>
      <Notes note={note} error={error} />
      <h2>{t('Your business')}</h2>
      {logo && <img class="logo" src={logo} alt={t('Your logo')} />}
      <form
        noValidate
        onSubmit={submit(async () => {
          const saved = (
            await request('/api/v1/account', BusinessAnswer, {
              method: 'PATCH',
              body: { business_name: name, business_email: email.trim(), ...(newEmail ? { current_password: password } : {}) },
            })
          ).data;
          typed.current.delete('name');
          typed.current.delete('email');
          shown(saved);
          const file = chosen('logo');
          if (file) {
            const form = new FormData();
            form.set('logo', file);
            shown((await request('/api/v1/account/logo', BusinessAnswer, { method: 'PUT', body: form })).data);
          }
          return t('Business saved.');
        })}
      >
        <Field
          id="business-name"
          label={t('Business name')}
          value={name}
          onInput={(v) => (typed.current.add('name'), setName(v))}
          error={fieldError(error, 'business_name')}
          required
        />
        <Field
          id="business-email"
          label={t('E-mail')}
          type="email"
          hint={t('Customers see it, and you sign in with it.')}
          value={email}
          onInput={(v) => (typed.current.add('email'), setEmail(v))}
          error={fieldError(error, 'business_email')}
          required
        />
        {newEmail && (
          <Field
            id="current-password"
            label={t('Current password')}
            type="password"
            autocomplete="current-password"
            hint={t('A new sign-in e-mail needs it; the previous address is told.')}
            value={password}
            onInput={setPassword}
            error={fieldError(error, 'current_password')}
            required
          />
        )}
        <FileField id="logo" label={t('Logo (PNG, JPEG, GIF or WebP)')} />
        <button type="submit">{t('Save business')}</button>
      </form>
      <h2>{networks.length > 1 ? t('Payout addresses') : t('Payout address')}</h2>
      {networks.length ? (
        networks.map(({ chainId, name: network }) => (
          <form
            key={chainId}
            noValidate
            onSubmit={(e) => {
              setSent(chainId);
              submit(async () => {
                const set = await request('/api/v1/payout_address', PayoutSet, {
                  method: 'PUT',
                  body: { chain_id: chainId, address: (addresses[chainId] ?? '').trim() },
                });
                typed.current.delete(`address:${chainId}`);
                await load();
                return set.data.pending
                  ? t('New payout address on {network} pending: payments from {time} go to it, until then to the current one.', {
                      network,
                      time: when(set.data.effective_at),
                    })
                  : t('Payout address on {network} saved.', { network });
              })(e);
            }}
          >
            <Field
              id={`payout-address-${chainId}`}
              label={t('Payout address on {network}', { network })}
              hint={t('As your wallet writes it: its capitals are a checksum.')}
              value={addresses[chainId] ?? ''}
              onInput={(v) => {
                typed.current.add(`address:${chainId}`);
                setAddresses((all) => ({ ...all, [chainId]: v }));
              }}
              error={sent === chainId ? fieldError(error, 'address') : undefined}
            />
            <button type="submit">{networks.length > 1 ? t('Save the address on {network}', { network }) : t('Save payout address')}</button>
          </form>
        ))
      ) : (
        <p>{t('No {mode} network on this service.', { mode: modeWord() })}</p>
      )}
      <h2>{t('Settlement')}</h2>
      <Settlement />
      <h2>{t('Waiting changes')}</h2>
      {changes.length ? (
        <ul class="changes">
          {changes.map((c) => (
            <li key={c.id}>
              {t('{change}; takes effect {time}.', { change: described(c), time: when(c.effective_at) })}{' '}
              <button
                type="button"
                onClick={() =>
                  void act(async () => {
                    await request(`/api/v1/destination_changes/${encodeURIComponent(c.id)}`, undefined, { method: 'DELETE' });
                    await load();
                    return t('Change cancelled: it will not take effect.');
                  })
                }
              >
                {t('Cancel this change')}
              </button>
            </li>
          ))}
        </ul>
      ) : (
        <p>{t('None. A live key\u2019s new payout address, bank account or wallet waits here first.')}</p>
      )}
    </section>
  );
}

/** The router's lazy() takes a chunk's default export. */
export default Settings;
