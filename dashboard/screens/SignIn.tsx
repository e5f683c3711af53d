// Sign in with the e-mail and password set through the one-time link; a person with a second
// factor then confirms it (issue 48): the passkey, an authenticator code or a recovery code.
import { h } from 'preact';
import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { SessionAnswer, SignInAnswer, type DashboardSession } from '../../contract/session.ts';
import { request, signedIn } from '../api.ts';
import { ErrorNote, Field, fieldError, useTitle } from './common.tsx';

export function SignIn(_: { path?: string }) {
  useTitle('Sign in');
  const { route } = useLocation();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  /** The kinds of second factor the password's person has: the second step is shown. */
  const [kinds, setKinds] = useState<string[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const run = async (work: () => Promise<unknown>) => {
    setBusy(true);
    setError(null);
    try {
      const { data } = (await work()) as { data: DashboardSession | { factorNeeded: string[] } };
      if ('factorNeeded' in data) return setKinds(data.factorNeeded);
      signedIn(data);
      route('/dashboard');
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  const submit = (event: Event) => (event.preventDefault(), run(() => request('/dashboard/api/session', SignInAnswer, { method: 'POST', body: { email: email.trim(), password } })));
  const typed = code.trim();
  const confirm = (event: Event) => (event.preventDefault(), run(() => request('/dashboard/api/session/factor', SessionAnswer, { method: 'POST', body: /^\d{6}$/.test(typed) ? { code: typed } : { recovery_code: typed } })));
  return (
    <section class="narrow">
      <h1>Sign in</h1>
      {kinds ? (
        <form onSubmit={confirm} noValidate>
          <p>Confirm it is you with your second factor.</p>
          {kinds.includes('passkey') && (
            <button type="button" disabled={busy} onClick={() => run(() => import('../webauthn.ts').then((w) => w.signInPasskey()))}>
              Use my passkey
            </button>
          )}
          <Field id="sign-in-code" label="A code from your authenticator app, or a recovery code" value={code} onInput={setCode} autocomplete="one-time-code" error={fieldError(error, 'code') ?? fieldError(error, 'recovery_code')} />
          <ErrorNote error={error} />
          <button type="submit" disabled={busy}>
            Confirm with the code
          </button>
        </form>
      ) : (
        <form onSubmit={submit} noValidate>
          <Field id="email" label="E-mail" type="email" autocomplete="username" value={email} onInput={setEmail} error={fieldError(error, 'email')} required />
          <Field id="password" label="Password" type="password" autocomplete="current-password" value={password} onInput={setPassword} error={fieldError(error, 'password')} required />
          <ErrorNote error={error} />
          <button type="submit" disabled={busy}>
            {busy ? 'Signing in…' : 'Sign in'}
          </button>
        </form>
      )}
      <p class="hint">Forgot your password? Ask the service's operator for a new sign-in link.</p>
    </section>
  );
}
