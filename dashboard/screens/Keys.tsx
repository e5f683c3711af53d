// Restricted keys: the mode's secret keys with a chosen set of permissions, as
// Stripe's restricted keys. Listed by hint with who made each, when it expires and when (and from
// which address) it was last used; made with a name, an optional last day, and a checkbox
// per permission (those the person holds: nobody makes a key wider than themself, and the
// service refuses it anyway), the secret shown this once to copy; revoked after a confirmation,
// refused at once. Needs developers.read to see, developers.write to make or revoke (the
// service checks each request itself); a live key asks for the second factor (api.ts's step-up).
import { h } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import * as z from 'zod/mini';
import { nullable, text } from '../../contract/fields.ts';
import { may, mode, request, session } from '../api.ts';
import { when } from '../format.ts';
import { Field, fieldError, Notes, useAct, useTitle } from './common.tsx';

const maybe = nullable<string>((v) => typeof v === 'string', 'text');
export const Key = z.object({
  id: text,
  name: text,
  mode: text,
  hint: text,
  permissions: z.array(text),
  createdAt: text,
  createdBy: nullable<{ label: string }>((v) => !!v && typeof (v as { label: unknown }).label === 'string', 'who made it'),
  expiresAt: maybe,
  lastUsedAt: maybe,
  lastUsedFrom: maybe,
});
export const List = z.object({ data: z.array(Key) });
export const Made = z.object({ data: z.object({ name: text, secretKey: text }) });

export function Keys(_: { path?: string }) {
  useTitle('Restricted keys');
  const [keys, setKeys] = useState<Array<z.infer<typeof Key>>>();
  const [name, setName] = useState('');
  const [chosen, setChosen] = useState<string[]>([]);
  const [expires, setExpires] = useState('');
  const [secret, setSecret] = useState<string>();
  const [revoking, setRevoking] = useState<z.infer<typeof Key>>();
  const load = () => request('/api/v1/keys/restricted', List).then((a) => setKeys(a.data));
  const { note, error, setError, act } = useAct(load);
  useEffect(() => {
    setSecret(undefined);
    setRevoking(undefined);
    void load().catch(setError);
  }, [mode.value]);
  const writes = may('developers.write');
  const make = (e: Event) => {
    e.preventDefault();
    act(async () => {
      // A day chosen: the key works until the end of it (UTC).
      const body = { name: name.trim(), permissions: chosen, ...(expires ? { expires_at: `${expires}T23:59:59Z` } : {}) };
      const made = (await request('/api/v1/keys/restricted', Made, { method: 'POST', body })).data;
      setSecret(made.secretKey);
      setName('');
      setChosen([]);
      setExpires('');
      return `Key ${made.name} made.`;
    });
  };
  const revoke = (key: z.infer<typeof Key>) =>
    act(async () => {
      await request(`/api/v1/keys/restricted/${key.id}`, undefined, { method: 'DELETE' });
      setRevoking(undefined);
      return `Key ${key.name} revoked: it is refused from now on.`;
    });
  return (
    <section>
      <h1>Restricted keys ({mode.value})</h1>
      <p>Secret keys that may do only what their permissions allow, such as reading payments for a report. Keep them on your server.</p>
      <Notes note={note} error={error} />
      {secret && (
        <div class="card" role="region" aria-labelledby="new-secret-title">
          <h2 id="new-secret-title">Copy the new key now</h2>
          <p>
            <strong>It is not shown again.</strong> Anyone holding it can do what its permissions allow until you revoke it.
          </p>
          <p class="hash" id="new-secret">
            {secret}
          </p>
          <button type="button" class="secondary" onClick={() => act(() => navigator.clipboard.writeText(secret).then(() => 'Copied.'))}>
            Copy the key
          </button>
        </div>
      )}
      {revoking && (
        <div class="card" role="region" aria-label="Confirm revoking">
          <p>
            Revoke {revoking.name} (…{revoking.hint})? Every request with it is refused at once; this cannot be undone.
          </p>
          <div class="actions">
            <button type="button" class="danger" onClick={() => revoke(revoking)}>
              Revoke {revoking.name} now
            </button>
            <button type="button" class="secondary" onClick={() => setRevoking(undefined)}>
              Cancel
            </button>
          </div>
        </div>
      )}
      {keys?.length === 0 && <p>No restricted keys in this mode.</p>}
      {!!keys?.length && (
        <div class="scroll" tabIndex={0} role="region" aria-label="Restricted keys">
          <table>
            <caption>The {mode.value} restricted keys</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Mode</th>
                <th scope="col">Key ends</th>
                <th scope="col">Permissions</th>
                <th scope="col">Made by</th>
                <th scope="col">Made</th>
                <th scope="col">Expires</th>
                <th scope="col">Last used</th>
                {writes && <th scope="col">Revoke</th>}
              </tr>
            </thead>
            <tbody>
              {keys.map((k) => (
                <tr key={k.id}>
                  <th scope="row">{k.name}</th>
                  <td>{k.mode}</td>
                  <td class="hash">…{k.hint}</td>
                  <td>{k.permissions.join(', ')}</td>
                  <td>{k.createdBy?.label ?? 'not recorded'}</td>
                  <td>{when(k.createdAt)}</td>
                  <td>{k.expiresAt ? when(k.expiresAt) : 'never'}</td>
                  <td>{k.lastUsedAt ? `${when(k.lastUsedAt)}, from ${k.lastUsedFrom}` : 'not yet'}</td>
                  {writes && (
                    <td>
                      <button type="button" class="secondary small" onClick={() => setRevoking(k)}>
                        Revoke {k.name}
                      </button>
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {writes && (
        <form onSubmit={make} noValidate>
          <h2>Make a restricted key</h2>
          <Field
            id="key-name"
            label="Name"
            hint="What it is for, such as monthly reports."
            value={name}
            onInput={setName}
            autocomplete="off"
            error={fieldError(error, 'name')}
          />
          <Field
            id="key-expires"
            type="date"
            label="Expires (optional)"
            hint="It is refused after this day (UTC)."
            value={expires}
            onInput={setExpires}
            error={fieldError(error, 'expires_at')}
          />
          <fieldset>
            <legend>Permissions (only those you hold)</legend>
            {fieldError(error, 'permissions') && <p class="field-error">{fieldError(error, 'permissions')}</p>}
            {session.value?.permissions.map((p) => (
              <div key={p}>
                <label>
                  <input
                    type="checkbox"
                    style={{ width: 'auto', minHeight: 0 }}
                    checked={chosen.includes(p)}
                    onChange={(e) => setChosen((e.currentTarget as HTMLInputElement).checked ? [...chosen, p] : chosen.filter((c) => c !== p))}
                  />{' '}
                  {p}
                </label>
              </div>
            ))}
          </fieldset>
          <button type="submit">Make the {mode.value} key</button>
        </form>
      )}
    </section>
  );
}

/** The router's lazy() takes a chunk's default export. */
export default Keys;
