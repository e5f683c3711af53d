// The one-time sign-in link's page: its token is in the #fragment (never sent in a URL); the
// owner chooses a password, the token is posted once, and the fragment is wiped from history.
import { h } from 'preact';
import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { SessionAnswer } from '../../contract/session.ts';
import { request, signedIn } from '../api.ts';
import { ErrorNote, Field, fieldError, useTitle } from './common.tsx';

const tokenInFragment = () => new URLSearchParams(location.hash.slice(1)).get('token') ?? '';

export function Welcome(_: { path?: string }) {
  useTitle('Set your password');
  const { route } = useLocation();
  const [token] = useState(tokenInFragment);
  const [password, setPassword] = useState('');
  const [again, setAgain] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [mismatch, setMismatch] = useState(false);
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setMismatch(password !== again);
    if (password !== again) return;
    setBusy(true);
    setError(null);
    try {
      signedIn((await request('/dashboard/api/password', SessionAnswer, { method: 'POST', body: { token, password } })).data);
      history.replaceState(null, '', '/dashboard/welcome');
      route('/dashboard');
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  if (!token) {
    return (
      <section class="narrow">
        <h1>Set your password</h1>
        <p>
          This page opens from the sign-in link the operator gave you. Ask them for a new one, or <a href="/dashboard/sign-in">sign in</a>.
        </p>
      </section>
    );
  }
  return (
    <section class="narrow">
      <h1>Set your password</h1>
      <p>Choose the password you will sign in with, with the e-mail of your business. The link works once, for 24 hours.</p>
      <form onSubmit={submit} noValidate>
        <Field
          id="new-password"
          label="New password"
          type="password"
          autocomplete="new-password"
          hint="At least 10 characters."
          value={password}
          onInput={setPassword}
          error={fieldError(error, 'password')}
          required
        />
        <Field
          id="again"
          label="The same password again"
          type="password"
          autocomplete="new-password"
          value={again}
          onInput={setAgain}
          error={mismatch ? 'The two passwords differ' : undefined}
          required
        />
        {fieldError(error, 'token') ? (
          <p class="error" role="alert">
            This link was used already or has expired: ask the operator for a new one.
          </p>
        ) : (
          <ErrorNote error={error} />
        )}
        <button type="submit" disabled={busy}>
          {busy ? 'Saving…' : 'Set password and sign in'}
        </button>
      </form>
    </section>
  );
}

/** The router's lazy() takes a chunk's default export. */
export default Welcome;
