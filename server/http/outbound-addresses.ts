// Where the service may send a request of its own (a webhook delivery): never a private,
// link-local, reserved or metadata address (the rule: domain/addresses.ts); loopback only for
// test keys, and only where the operator allows it (a developer's own instance). Used when a
// URL is registered (an address written in the URL) and again at connect time, after DNS.
import { addressKind } from '../domain/addresses.ts';

/** Whether events of a `mode` account may go to this machine on this service, else why not. */
export const loopbackPolicy = (mode: 'test' | 'live', allowed: boolean): true | keyof typeof LOOPBACK_REFUSED =>
  mode === 'live' ? 'live' : allowed ? true : 'off';

/** Why a refused loopback address is refused, in the words the merchant reads. */
export const LOOPBACK_REFUSED = {
  live: 'loopback is for test keys only',
  off: 'this service sends no webhooks to its own machine (its operator has not set WEBHOOKS_TO_LOOPBACK=true)',
} as const;

/**
 * Why an address may not receive webhooks, or undefined when it may. `loopback`: whether this
 * machine may (test keys, where the operator allows it), else why not.
 */
export function addressProblem(address: string, loopback: true | keyof typeof LOOPBACK_REFUSED, named = true): string | undefined {
  const kind = addressKind(address);
  // An address a host name resolved to is not named (named = false): the recorded error would
  // tell whoever set the URL what an internal name resolves to (a DNS oracle).
  const who = named ? address : 'an address that';
  if (kind === 'loopback') return loopback === true ? undefined : `${who} is this machine: ${LOOPBACK_REFUSED[loopback]}`;
  if (kind !== 'public') return `${who} is a private, link-local or reserved address`;
  return undefined;
}
