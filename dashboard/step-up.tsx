// The step-up prompt (issues 37 and 48): a money move was refused for want of a second factor
// for it, so the dashboard asks for one (the passkey, an authenticator code or a recovery code)
// in a modal dialog, for that one request, which is sent again once it is confirmed.
// Cancelled, the request fails with that said. Its own chunk: loaded only when asked.
import { h, render } from 'preact';
import { useState } from 'preact/hooks';
import { request, type Options } from './api.ts';

/** The one request a step-up is for (issue 48): its method, path and body as it will be sent again. */
export interface StepUpFor {
  method: string;
  path: string;
  body?: unknown;
}
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

/**
 * A modal dialog labelled by `titleId` with what `body` draws, given `done`: resolves on done(true),
 * rejects with `cancelled` on done(false) or Escape. The sign-in's second step asks in one too.
 */
export function inDialog(titleId: string, cancelled: string, body: (done: (ok: boolean) => void) => h.JSX.Element): Promise<void> {
  const dialog = document.createElement('dialog');
  dialog.setAttribute('aria-labelledby', titleId);
  document.body.append(dialog);
  return new Promise<void>((resolve, reject) => {
    const done = (ok: boolean) => {
      render(null, dialog);
      dialog.remove();
      if (ok) resolve();
      else reject(new Error(cancelled));
    };
    dialog.addEventListener('cancel', (e) => (e.preventDefault(), done(false)));
    render(body(done), dialog);
    dialog.showModal();
  });
}

/** Asks for a second factor for this request; resolves once the service took one, rejects when cancelled. */
export function stepUp(path: string, options: Options): Promise<void> {
  const action: StepUpFor = { method: options.method ?? 'GET', path, body: options.body };
  return inDialog('step-up-title', 'Not done: it needs your second factor (cancelled)', (done) => <Prompt action={action} done={done} />);
}
