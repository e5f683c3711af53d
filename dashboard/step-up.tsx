// The step-up prompt (issues 37 and 48): a money move was refused for want of a second factor
// for it, so the dashboard asks for one (the passkey, an authenticator code or a recovery code)
// in a modal dialog, for that one request, which is sent again once it is confirmed.
// Cancelled, the request fails with that said. Its own chunk: loaded only when asked.
import { h, render } from 'preact';
import { useState } from 'preact/hooks';
import { request, type StepUpFor } from './api.ts';
import { Field, fieldError, Notes } from './screens/common.tsx';

function Prompt({ action, done }: { action: StepUpFor; done: (ok: boolean) => void }) {
  const [code, setCode] = useState('');
  const [error, setError] = useState<unknown>(null);
  const confirm = (work: () => Promise<unknown>) => () =>
    work().then(
      () => done(true),
      (e: unknown) => setError(e),
    );
  const typed = code.trim();
  const byCode = confirm(() => request('/dashboard/api/step-up', undefined, { method: 'POST', body: { ...(/^\d{6}$/.test(typed) ? { code: typed } : { recovery_code: typed }), for: action } }));
  return (
    <form method="dialog" onSubmit={(e) => (e.preventDefault(), byCode())}>
      <h2 id="step-up-title">Confirm it is you</h2>
      <p>This needs your second factor, for this one request.</p>
      <button type="button" onClick={confirm(() => import('./webauthn.ts').then((w) => w.provePasskey(action)))}>
        Use my passkey
      </button>
      <Field id="step-up-code" label="Or a code from your authenticator app, or a recovery code" value={code} onInput={setCode} autocomplete="one-time-code" error={fieldError(error, 'code') ?? fieldError(error, 'recovery_code')} />
      <button type="submit">Confirm with the code</button>
      <button type="button" class="link" onClick={() => done(false)}>
        Cancel
      </button>
      <Notes note="" error={error} />
    </form>
  );
}

/** Asks for a second factor for `action`; resolves once the service took one, rejects when cancelled. */
export function stepUp(action: StepUpFor): Promise<void> {
  const dialog = document.createElement('dialog');
  dialog.setAttribute('aria-labelledby', 'step-up-title');
  document.body.append(dialog);
  return new Promise<void>((resolve, reject) => {
    const done = (ok: boolean) => {
      render(null, dialog);
      dialog.remove();
      if (ok) resolve();
      else reject(new Error('Not done: it needs your second factor (cancelled)'));
    };
    dialog.addEventListener('cancel', (e) => (e.preventDefault(), done(false)));
    render(<Prompt action={action} done={done} />, dialog);
    dialog.showModal();
  });
}
