// Payment links: make a standard link (a charge, or a cart of one of your prices) or a donation
// link with a cover photo uploaded from the browser; activate or deactivate one, copy its URL,
// show its QR code (drawn by the service as one SVG path).
import { h, Fragment } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import * as z from 'zod/mini';
import { bool, CURRENCIES, int, text } from '../../contract/fields.ts';
import { ProductsPage } from '../../contract/products.ts';
import { mode, request } from '../api.ts';
import { money } from '../format.ts';
import { t } from '../words.ts';
import { Field, fieldError, Notes, useAct, useTitle } from './common.tsx';
import { chosen, FileField } from './files.tsx';

export const Link = z.object({ id: text, title: text, slug: text, isActive: bool, type: text });
type Link = z.infer<typeof Link>;
export const LinkList = z.object({ data: z.array(Link) });
export const Qr = z.object({ data: z.object({ size: int, path: text }) });
type Kind = 'charge' | 'cart' | 'donation';
const KINDS = { charge: 'A fixed charge', cart: 'A cart of your prices', donation: 'A donation' };
// A link's type as the service names it, said in the language shown.
const TYPES: Record<string, string> = { standard: 'standard', donation: 'donation' };

const urlOf = (l: Link) => `${location.origin}/pay/${l.slug}`;

function Row({ l, act }: { l: Link; act: (work: () => Promise<string>) => Promise<void> }) {
  const [qr, setQr] = useState<{ size: number; path: string } | undefined>();
  const url = urlOf(l);
  return (
    <li class="product">
      <p class="ref">{l.title}</p>
      <p class="meta">
        {TYPES[l.type] ? t(TYPES[l.type]!) : l.type}, {l.isActive ? t('active') : t('inactive')}:{' '}
        <a class="hash" href={url} target="_blank" rel="noopener">
          {url}
        </a>
      </p>
      <div class="actions">
        <button type="button" class="secondary small" onClick={() => act(async () => (await navigator.clipboard.writeText(url), t('Copied.')))}>
          {t('Copy URL of {title}', l)}
        </button>
        <button
          type="button"
          class="secondary small"
          onClick={() => act(async () => (setQr((await request(`/api/v1/payment_links/${l.id}/qr`, Qr)).data), ''))}
        >
          {t('QR code of {title}', l)}
        </button>
        <button
          type="button"
          class="secondary small"
          onClick={() =>
            act(async () => {
              await request(`/api/v1/payment_links/${l.id}/status`, undefined, { method: 'PUT', body: { is_active: !l.isActive } });
              return l.isActive ? t('{title} deactivated.', l) : t('{title} activated.', l);
            })
          }
        >
          {l.isActive ? t('Deactivate {title}', l) : t('Activate {title}', l)}
        </button>
      </div>
      {qr && (
        <svg class="qr" viewBox={`-4 -4 ${qr.size + 8} ${qr.size + 8}`} role="img" aria-label={t('QR code of {title}', { title: url })}>
          <path d={qr.path} />
        </svg>
      )}
    </li>
  );
}

export function Links(_: { path?: string }) {
  useTitle(t('Payment links'));
  const [rows, setRows] = useState<Link[] | undefined>();
  const [prices, setPrices] = useState<Array<{ id: string; label: string }>>([]);
  const [kind, setKind] = useState<Kind>('charge');
  const [f, setF] = useState({ title: '', amount: '', currency: 'USD', price: '', description: '' });
  const set = (key: keyof typeof f) => (value: string) => setF({ ...f, [key]: value });
  const load = useCallback(async () => {
    setRows((await request('/api/v1/payment_links?limit=100', LinkList)).data);
    const products = (await request('/api/v1/products?limit=100', ProductsPage)).data.filter((p) => !p.archived);
    setPrices(products.flatMap((p) => p.prices.map((price) => ({ id: price.id, label: `${p.name}: ${money(Number(price.amount), price.currency)}` }))));
  }, [mode.value]);
  const { note, error, setError, act } = useAct(load);
  useEffect(() => void load().catch(setError), [load]);
  const make = async () => {
    const title = f.title.trim();
    if (kind === 'donation') {
      const form = new FormData();
      form.set('title', title);
      form.set('description', f.description);
      const photo = chosen('link-cover');
      if (photo) form.set('cover_photo', photo);
      await request('/api/v1/payment_links/donation', undefined, { method: 'POST', body: form });
    } else {
      const body =
        kind === 'cart'
          ? { title, cart: [{ price_id: f.price || prices[0]?.id, quantity: 1, quantity_adjustable: true }] }
          : { title, charge: { amount: f.amount.trim(), currency: f.currency } };
      await request('/api/v1/payment_links/standard', undefined, { method: 'POST', body });
    }
    setF({ ...f, title: '', amount: '', description: '' });
    return t('Link {title} made.', { title });
  };
  return (
    <section>
      <h1>{t('Payment links')}</h1>
      <Notes note={note} error={error} />
      <h2>{t('New link')}</h2>
      <form
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          void act(make);
        }}
      >
        <div class="field">
          <label for="link-kind">{t('Kind')}</label>
          <select id="link-kind" value={kind} onChange={(e) => setKind((e.currentTarget as HTMLSelectElement).value as Kind)}>
            {Object.entries(KINDS).map(([k, label]) => (
              <option key={k} value={k}>
                {t(label)}
              </option>
            ))}
          </select>
        </div>
        <Field id="link-title" label={t('Title')} value={f.title} onInput={set('title')} error={fieldError(error, 'title')} required />
        {kind === 'charge' && (
          <>
            <Field id="link-amount" label={t('Amount')} value={f.amount} onInput={set('amount')} error={fieldError(error, 'charge.amount')} />
            <div class="field">
              <label for="link-currency">{t('Currency')}</label>
              <select id="link-currency" value={f.currency} onChange={(e) => set('currency')((e.currentTarget as HTMLSelectElement).value)}>
                {CURRENCIES.map((c) => (
                  <option key={c}>{c}</option>
                ))}
              </select>
            </div>
          </>
        )}
        {kind === 'cart' &&
          (prices.length === 0 ? (
            <p class="warning">
              {t('No prices yet.')} <a href="/dashboard/products">{t('Make one in Products')}</a>
            </p>
          ) : (
            <div class="field">
              <label for="link-price">{t('Price')}</label>
              <select id="link-price" value={f.price || prices[0]?.id} onChange={(e) => set('price')((e.currentTarget as HTMLSelectElement).value)}>
                {prices.map((p) => (
                  <option key={p.id} value={p.id}>
                    {p.label}
                  </option>
                ))}
              </select>
            </div>
          ))}
        {kind === 'donation' && (
          <>
            <Field id="link-description" label={t('Description')} value={f.description} onInput={set('description')} error={fieldError(error, 'description')} />
            <FileField id="link-cover" label={t('Cover photo (PNG, JPEG, GIF or WebP)')} />
          </>
        )}
        <button type="submit">{t('Make link')}</button>
      </form>
      <h2>{t('Your links')}</h2>
      {rows?.length === 0 && <p>{t('No links yet.')}</p>}
      {!!rows?.length && (
        <ul class="payments" aria-label={t('Payment links, newest first')}>
          {rows.map((l) => (
            <Row key={l.id} l={l} act={act} />
          ))}
        </ul>
      )}
    </section>
  );
}

/** The router's lazy() takes a chunk's default export. */
export default Links;
