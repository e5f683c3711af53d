// The passkey's part of the browser (issue 37), with @simplewebauthn/browser: the service's
// options in, the authenticator's answer out. Shared by the Security screen and the step-up
// prompt, in a chunk of its own that neither the first load nor the other screens carry.
import { startAuthentication, startRegistration } from '@simplewebauthn/browser';
import { request } from './api.ts';

/** A new passkey: its options from the service, made by the browser's authenticator, sent back. */
export async function addPasskey(label: string): Promise<{ data: { recoveryCodes?: string[] } }> {
  const options = (await request('/dashboard/api/factors/passkey/options', undefined, { method: 'POST' })) as { data: Parameters<typeof startRegistration>[0]['optionsJSON'] };
  const response = await startRegistration({ optionsJSON: options.data });
  return request('/dashboard/api/factors/passkey', undefined, { method: 'POST', body: { response, label } }) as Promise<{ data: { recoveryCodes?: string[] } }>;
}

/** A step-up with a passkey: the service's challenge, signed by the authenticator. */
export async function provePasskey(): Promise<void> {
  const options = (await request('/dashboard/api/step-up/options', undefined, { method: 'POST' })) as { data: Parameters<typeof startAuthentication>[0]['optionsJSON'] };
  await request('/dashboard/api/step-up', undefined, { method: 'POST', body: { passkey: await startAuthentication({ optionsJSON: options.data }) } });
}
