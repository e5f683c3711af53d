// The passkey's part of the browser, with @simplewebauthn/browser: the service's
// options in, the authenticator's answer out. Shared by the Security screen and the step-up
// prompt, in a chunk of its own that neither the first load nor the other screens carry.
import { startAuthentication, startRegistration } from '@simplewebauthn/browser';
import { SessionAnswer } from '../contract/session.ts';
import { request, type StepUpFor } from './api.ts';

/** A new passkey: its options from the service, made by the browser's authenticator, sent back. */
export async function addPasskey(label: string): Promise<{ data: { recoveryCodes?: string[] } }> {
  const options = (await request('/dashboard/api/factors/passkey/options', undefined, { method: 'POST' })) as {
    data: Parameters<typeof startRegistration>[0]['optionsJSON'];
  };
  const response = await startRegistration({ optionsJSON: options.data });
  return request('/dashboard/api/factors/passkey', undefined, { method: 'POST', body: { response, label } }) as Promise<{ data: { recoveryCodes?: string[] } }>;
}

/** A passkey's answer to the service's challenge (`start`: the step-up's or the sign-in's), signed by the authenticator. */
async function passkeyAnswer(start: string) {
  const options = (await request(start, undefined, { method: 'POST' })) as { data: Parameters<typeof startAuthentication>[0]['optionsJSON'] };
  return startAuthentication({ optionsJSON: options.data });
}

/** A step-up with a passkey, for one request. */
export async function provePasskey(action: StepUpFor): Promise<void> {
  await request('/dashboard/api/step-up', undefined, { method: 'POST', body: { passkey: await passkeyAnswer('/dashboard/api/step-up/options'), for: action } });
}

/** A sign-in's second step with a passkey: the signed-in session's answer. */
export async function signInPasskey() {
  return request('/dashboard/api/session/factor', SessionAnswer, {
    method: 'POST',
    body: { passkey: await passkeyAnswer('/dashboard/api/session/factor/options') },
  });
}
