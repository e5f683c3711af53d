// An invitation's landing page: its token is in the #fragment of the link e-mailed to
// the invited person (never sent in a URL). They give the invited e-mail and choose a password;
// the token is posted once, the fragment wiped from history, and they are signed in: to Home,
// or to Security first when the owner requires a second factor they have not added yet. A link
// used already (or another e-mail's) says so on its field, with the way to sign in instead.
import { h } from 'preact';
import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { SessionAnswer } from '../../contract/dashboard.ts';
import { request, signedIn } from '../api.ts';
import { ErrorNote, Field, fieldError, useTitle } from './common.tsx';

const SIGN_IN = <a href="/dashboard/sign-in">sign in</a>;

export function Join(_: { path?: string }) {
  useTitle('Join the team');
  const { route } = useLocation();
  const [token] = useState(() => new URLSearchParams(location.hash.slice(1)).get('invitation') ?? '');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [again, setAgain] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    if (password !== again) return setError(new Error('The two passwords differ'));
    setBusy(true);
    setError(null);
    try {
      const { data } = await request('/dashboard/api/invitation', SessionAnswer, { method: 'POST', body: { token, email: email.trim(), password } });
      history.replaceState(null, '', '/dashboard/join');
      signedIn(data);
      route(data.secondFactor?.mustEnrol ? '/dashboard/security' : '/dashboard');
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  const used = fieldError(error, 'token');
  return (
    <section class="narrow">
      <h1>Join the team</h1>
      {token ? (
        <form onSubmit={submit} noValidate>
          <p>Give the e-mail this invitation was sent to and choose your password. The link works once, for a week.</p>
          <Field
            id="join-email"
            label="E-mail"
            type="email"
            autocomplete="username"
            value={email}
            onInput={setEmail}
            error={fieldError(error, 'email')}
            required
          />
          <Field
            id="join-password"
            label="New password"
            type="password"
            autocomplete="new-password"
            hint="At least 10 characters."
            value={password}
            onInput={setPassword}
            error={fieldError(error, 'password')}
            required
          />
          <Field id="join-again" label="The same password again" type="password" autocomplete="new-password" value={again} onInput={setAgain} required />
          {used ? (
            <p class="error" role="alert">
              This invitation was used already or has expired. If you joined, {SIGN_IN}; else ask for a new one.
            </p>
          ) : (
            <ErrorNote error={error} />
          )}
          <button type="submit" disabled={busy}>
            {busy ? 'Joining…' : 'Join and sign in'}
          </button>
        </form>
      ) : (
        <p>This page opens from the invitation link e-mailed to you. Already joined? {SIGN_IN}.</p>
      )}
    </section>
  );
}

/** The router's lazy() takes a chunk's default export. */
export default Join;
