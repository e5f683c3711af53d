// A sign-in's second step (issue 48): the password was right and its person has a second
// factor, so the session waits for it: the passkey, an authenticator code or a recovery code,
// asked in a modal dialog as the step-up is. Its own chunk: loaded only then.
import { h } from 'preact';
import { useState } from 'preact/hooks';
import { SessionAnswer, type DashboardSession } from '../../contract/session.ts';
import { request, signedIn } from '../api.ts';
import { inDialog } from '../step-up.tsx';
import { ErrorNote, Field, fieldError } from './common.tsx';

function Step({ kinds, done }: { kinds: string[]; done: (ok: boolean) => void }) {
  const [code, setCode] = useState('');
  const [error, setError] = useState<unknown>(null);
  const run = (proof: () => Promise<{ data: DashboardSession }>) =>
    proof().then(
      (answer) => (signedIn(answer.data), done(true)),
      (e: unknown) => setError(e),
    );
  const typed = code.trim();
  const confirm = (event: Event) => (event.preventDefault(), run(() => request('/dashboard/api/session/factor', SessionAnswer, { method: 'POST', body: /^\d{6}$/.test(typed) ? { code: typed } : { recovery_code: typed } })));
  return (
    <form method="dialog" onSubmit={confirm} noValidate>
      <h2 id="sign-in-factor-title">Confirm it is you</h2>
      <p>Your password is right. Now your second factor, to sign in.</p>
      {kinds.includes('passkey') && (
        <button type="button" onClick={() => run(() => import('../webauthn.ts').then((w) => w.signInPasskey()))}>
          Use my passkey
        </button>
      )}
      <Field id="sign-in-code" label="Or a code from your authenticator app, or a recovery code" value={code} onInput={setCode} autocomplete="one-time-code" error={fieldError(error, 'code') ?? fieldError(error, 'recovery_code')} />
      <button type="submit">Confirm with the code</button>
      <button type="button" class="link" onClick={() => done(false)}>
        Cancel
      </button>
      <ErrorNote error={error} />
    </form>
  );
}

/** Asks for the second factor the waiting sign-in needs; resolves signed in, rejects when cancelled. */
export const confirm = (kinds: string[]): Promise<void> => inDialog('sign-in-factor-title', 'Not signed in: it needs your second factor (cancelled)', (done) => <Step kinds={kinds} done={done} />);
