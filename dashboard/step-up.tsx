// The step-up prompt: a money move was refused for want of a second factor
// for it, so the dashboard asks for one (the passkey, an authenticator code or a recovery code)
// in a modal dialog, for that one request, which is sent again once it is confirmed.
// Cancelled, the request fails with that said. The same dialog asks for a sign-in's second step.
// Its own chunk: loaded only when asked.
// biome-ignore lint/style/useImportType: h is the JSX factory (tsconfig's jsxFactory) as well as a type here: a value
import { h, render } from 'preact';
import { useState } from 'preact/hooks';
import { SessionAnswer } from '../contract/session.ts';
import { request, signedIn, type Options, type StepUpFor } from './api.ts';
import { Field, fieldError, Notes } from './screens/common.tsx';

type Proof = { code: string } | { recovery_code: string };

/** The dialog's form: the passkey (where the person has one), or a code; `send` proves it. */
function Prompt({
  say,
  passkey,
  send,
  done,
}: {
  say: string;
  passkey?: () => Promise<unknown>;
  send: (proof: Proof) => Promise<unknown>;
  done: (ok: boolean) => void;
}) {
  const [code, setCode] = useState('');
  const [error, setError] = useState<unknown>(null);
  const confirm = (work: () => Promise<unknown>) => () =>
    work().then(
      () => done(true),
      (e: unknown) => setError(e),
    );
  const typed = code.trim();
  const byCode = confirm(() => send(/^\d{6}$/.test(typed) ? { code: typed } : { recovery_code: typed }));
  return (
    <form method="dialog" onSubmit={(e) => (e.preventDefault(), byCode())}>
      <h2 id="step-up-title">Confirm it is you</h2>
      <p>{say}</p>
      {passkey && (
        <button type="button" onClick={confirm(passkey)}>
          Use my passkey
        </button>
      )}
      <Field
        id="step-up-code"
        label="Or a code from your authenticator app, or a recovery code"
        value={code}
        onInput={setCode}
        autocomplete="one-time-code"
        error={fieldError(error, 'code') ?? fieldError(error, 'recovery_code')}
      />
      <button type="submit">Confirm with the code</button>
      <button type="button" class="link" onClick={() => done(false)}>
        Cancel
      </button>
      <Notes note="" error={error} />
    </form>
  );
}

/** The prompt in a modal dialog: resolves once confirmed, rejects with `cancelled` on Cancel or Escape. */
function inDialog(cancelled: string, prompt: (done: (ok: boolean) => void) => h.JSX.Element): Promise<void> {
  const dialog = document.createElement('dialog');
  dialog.setAttribute('aria-labelledby', 'step-up-title');
  document.body.append(dialog);
  return new Promise<void>((resolve, reject) => {
    const done = (ok: boolean) => {
      render(null, dialog);
      dialog.remove();
      if (ok) resolve();
      else reject(new Error(cancelled));
    };
    dialog.addEventListener('cancel', (e) => (e.preventDefault(), done(false)));
    render(prompt(done), dialog);
    dialog.showModal();
  });
}

/** Asks for a second factor for this request; resolves once the service took one, rejects when cancelled. */
export function stepUp(path: string, options: Options): Promise<void> {
  const action: StepUpFor = { method: options.method ?? 'GET', path, body: options.body };
  return inDialog('Not done: it needs your second factor (cancelled)', (done) => (
    <Prompt
      say="This needs your second factor, for this one request."
      passkey={() => import('./webauthn.ts').then((w) => w.provePasskey(action))}
      send={(proof) => request('/dashboard/api/step-up', undefined, { method: 'POST', body: { ...proof, for: action } })}
      done={done}
    />
  ));
}

/** A sign-in's second step: the password was right; resolves signed in, rejects when cancelled. */
export function signInFactor(kinds: string[]): Promise<void> {
  return inDialog('Not signed in: it needs your second factor (cancelled)', (done) => (
    <Prompt
      say="Your password is right. Now your second factor, to sign in."
      passkey={kinds.includes('passkey') ? () => import('./webauthn.ts').then((w) => w.signInPasskey()).then((a) => signedIn(a.data)) : undefined}
      send={(proof) => request('/dashboard/api/session/factor', SessionAnswer, { method: 'POST', body: proof }).then((a) => signedIn(a.data))}
      done={done}
    />
  ));
}
