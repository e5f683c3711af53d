// Security: this person's second factors. Add a passkey (the browser's or a security
// key's) or an authenticator app (its secret to type or its otpauth:// link, then its first
// code); the recovery codes that come with the first are shown once. The owner may require a
// second factor of every member. Changing them once one exists asks for one first (step-up).
import { h } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { loadSession, request, session } from '../api.ts';
import { Field, Notes, useAct, useTitle } from './common.tsx';

interface Mine {
  factors: Array<{ id: string; kind: string; label: string; createdAt: string }>;
  recoveryCodesLeft: number;
  required: boolean;
  owner: boolean;
}

export function Security(_: { path?: string }) {
  useTitle('Security');
  const [mine, setMine] = useState<Mine>();
  const [totp, setTotp] = useState<{ secret: string; uri: string }>();
  const [code, setCode] = useState('');
  const [codes, setCodes] = useState<string[]>();
  const load = () => request('/dashboard/api/factors').then((a) => setMine((a as { data: Mine }).data));
  const { note, error, setError, act } = useAct(() => Promise.all([load(), loadSession()]));
  useEffect(() => void load().catch(setError), []);
  const added = (answer: unknown, what: string) => {
    setCodes((answer as { data: { recoveryCodes?: string[] } }).data.recoveryCodes);
    return `${what} added.`;
  };
  const s = session.value;
  return (
    <section>
      <h1>Security</h1>
      {s?.secondFactor?.mustEnrol && <p class="warning">The owner requires a second factor: add one to go on.</p>}
      <h2>Your second factors</h2>
      <ul>
        {mine?.factors.map((f) => (
          <li key={f.id}>
            {f.label} ({f.kind === 'passkey' ? 'passkey' : 'authenticator app'}), added {f.createdAt.slice(0, 10)}
          </li>
        ))}
        {mine && !mine.factors.length && <li>None yet.</li>}
      </ul>
      {mine && mine.factors.length > 0 && <p>Recovery codes left: {mine.recoveryCodesLeft}</p>}
      <button type="button" onClick={() => act(() => import('../webauthn.ts').then((w) => w.addPasskey('Passkey')).then((a) => added(a, 'Passkey')))}>
        Add a passkey
      </button>
      {!totp && (
        <button
          type="button"
          onClick={() =>
            act(() =>
              request('/dashboard/api/factors/totp/options', undefined, { method: 'POST' }).then(
                (a) => (setTotp((a as { data: { secret: string; uri: string } }).data), 'Add this key to your authenticator app.'),
              ),
            )
          }
        >
          Add an authenticator app
        </button>
      )}
      {totp && (
        <form
          onSubmit={(e) => (
            e.preventDefault(),
            act(() =>
              request('/dashboard/api/factors/totp', undefined, { method: 'POST', body: { code: code.trim() } }).then(
                (a) => (setTotp(undefined), added(a, 'Authenticator app')),
              ),
            )
          )}
        >
          <p>
            Key: <code>{totp.secret}</code> (<a href={totp.uri}>open in your app</a>)
          </p>
          <Field id="totp-code" label="The 6 digits your app shows" value={code} onInput={setCode} autocomplete="one-time-code" />
          <button type="submit">Add the app</button>
        </form>
      )}
      {codes && (
        <div role="region" aria-label="Recovery codes">
          <p>Your recovery codes, shown this once; each works once:</p>
          <ul>
            {codes.map((c) => (
              <li key={c}>
                <code>{c}</code>
              </li>
            ))}
          </ul>
        </div>
      )}
      {s && !s.secondFactor?.mustEnrol && mine?.owner && (
        <label>
          <input
            type="checkbox"
            checked={mine.required}
            onChange={(e) =>
              act(() =>
                request('/dashboard/api/factors/policy', undefined, { method: 'PUT', body: { required: (e.currentTarget as HTMLInputElement).checked } }).then(
                  () => 'Saved.',
                ),
              )
            }
          />{' '}
          Require a second factor of every member
        </label>
      )}
      <Notes note={note} error={error} />
    </section>
  );
}

/** The router's lazy() takes a chunk's default export. */
export default Security;
