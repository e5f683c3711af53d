// Products: the merchant's products and their prices (what a standard link's cart takes by
// price id): make one with its first price, add a price, archive or restore.
import { h } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import * as z from 'zod/mini';
import { CURRENCIES } from '../../contract/fields.ts';
import { Product, ProductsPage } from '../../contract/products.ts';
import { mode, request } from '../api.ts';
import { money } from '../format.ts';
import { t } from '../words.ts';
import { Field, fieldError, Notes, useAct, useTitle } from './common.tsx';

export const Made = z.object({ data: Product });

export function Products(_: { path?: string }) {
  useTitle(t('Products'));
  const [rows, setRows] = useState<Product[] | undefined>();
  const [name, setName] = useState('');
  const [currency, setCurrency] = useState<string>('USD');
  const [amount, setAmount] = useState('');
  const load = useCallback(async () => setRows((await request('/api/v1/products?limit=100', ProductsPage)).data), [mode.value]);
  const { note, error, setError, act } = useAct(load);
  useEffect(() => void load().catch(setError), [load]);
  return (
    <section>
      <h1>{t('Products')}</h1>
      <Notes note={note} error={error} />
      <h2>{t('New product')}</h2>
      <form
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          void act(async () => {
            const made = await request('/api/v1/products', Made, {
              method: 'POST',
              body: { name: name.trim(), prices: amount ? [{ currency, amount: amount.trim() }] : [] },
            });
            setName('');
            setAmount('');
            return made.data.prices[0]
              ? t('{name} made; its price id is {id}.', { name: made.data.name, id: made.data.prices[0].id })
              : t('{name} made.', { name: made.data.name });
          });
        }}
      >
        <Field id="product-name" label={t('Name')} value={name} onInput={setName} error={fieldError(error, 'name')} required />
        <div class="field">
          <label for="product-currency">{t('Currency')}</label>
          <select id="product-currency" value={currency} onChange={(e) => setCurrency((e.currentTarget as HTMLSelectElement).value)}>
            {CURRENCIES.map((c) => (
              <option key={c} value={c}>
                {c}
              </option>
            ))}
          </select>
        </div>
        <Field
          id="product-amount"
          label={t('Price')}
          hint={t('Such as 12.50; leave empty to add prices later.')}
          value={amount}
          onInput={setAmount}
          error={fieldError(error, 'prices.0.amount')}
        />
        <button type="submit">{t('Make product')}</button>
      </form>
      <h2>{t('Your products')}</h2>
      {rows === undefined && <p role="status">{t('Loading…')}</p>}
      {rows && rows.length === 0 && <p>{t('No products yet.')}</p>}
      {rows && rows.length > 0 && (
        <ul class="payments" aria-label={t('Products, newest first')}>
          {rows.map((p) => (
            <li key={p.id} class="product">
              <p class="ref">
                {p.name}
                {p.archived ? ` ${t('(archived)')}` : ''}
              </p>
              <ul class="prices">
                {p.prices.map((price) => (
                  <li key={price.id}>
                    {money(Number(price.amount), price.currency)} <span class="hash">{t('price id {id}', { id: price.id })}</span>
                  </li>
                ))}
              </ul>
              <button
                type="button"
                class="secondary small"
                onClick={() =>
                  act(async () => {
                    await request(`/api/v1/products/${p.id}`, Made, { method: 'PATCH', body: { archived: !p.archived } });
                    return p.archived
                      ? t('{name} restored.', { name: p.name })
                      : t('{name} archived: its prices are no longer offered to new carts.', { name: p.name });
                  })
                }
              >
                {p.archived ? t('Restore {name}', { name: p.name }) : t('Archive {name}', { name: p.name })}
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** The router's lazy() takes a chunk's default export. */
export default Products;
