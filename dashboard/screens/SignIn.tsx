// Sign in with the e-mail and password set through the one-time link; a person with a second
// factor then confirms it in the step-up's dialog (its own chunk, loaded only then).
import { h } from 'preact';
import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { loadSession, request } from '../api.ts';
import { ErrorNote, Field, fieldError, useTitle } from './common.tsx';

export function SignIn(_: { path?: string }) {
  useTitle('Sign in');
  const { route } = useLocation();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      // Signed in, or (a person with a second factor, 202) waiting for it; the session is then read as on opening.
      const { data } = (await request('/dashboard/api/session', undefined, { method: 'POST', body: { email: email.trim(), password } })) as {
        data: { factorNeeded?: string[] };
      };
      await (data.factorNeeded ? import('../step-up.tsx').then((m) => m.signInFactor(data.factorNeeded!)) : loadSession());
      route('/dashboard');
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="narrow">
      <h1>Sign in</h1>
      <form onSubmit={submit} noValidate>
        <Field id="email" label="E-mail" type="email" autocomplete="username" value={email} onInput={setEmail} error={fieldError(error, 'email')} required />
        <Field
          id="password"
          label="Password"
          type="password"
          autocomplete="current-password"
          value={password}
          onInput={setPassword}
          error={fieldError(error, 'password')}
          required
        />
        <ErrorNote error={error} />
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      <p class="hint">Forgot your password? Ask the service's operator for a new sign-in link.</p>
    </section>
  );
}
