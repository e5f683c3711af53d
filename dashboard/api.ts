// The dashboard's one way to the service: the public API and its own sign-in, same origin,
// with the session cookie (never a key). Writes carry the session's CSRF token; the mode
// (test or live) travels as x-mode. Every answer is read through the contract's schemas.
import { signal } from '@preact/signals';
import type * as z from 'zod/mini';
import { readAnswer } from '../contract/answer.ts';
import { type DashboardSession, SessionProbe } from '../contract/session.ts';
import type { KeyMode } from '../contract/keys.ts';

/** Who is signed in (undefined: not known yet; null: nobody). */
export const session = signal<DashboardSession | null | undefined>(undefined);
/** Whether the signed-in person's role holds the permission (none named: everyone): the screens offered follow it, the service checks each request itself. */
export const may = (permission?: string): boolean => !permission || !!session.value?.permissions.includes(permission);
/** Test or live: the dashboard opens in live mode when the service has a live network, else in test mode. */
export const mode = signal<KeyMode>('test');

/** Asks the person for a second factor for one request, its path and options (it opens that request, once; the frame sets it: the prompt's chunk, loaded when first asked). */
export const stepUpPrompt: { ask?: (path: string, options: Options) => Promise<void> } = {};

export interface Options {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  body?: unknown;
  signal?: AbortSignal;
  /** Sent again after a step-up: not asked twice. */
  again?: boolean;
}

export async function request<S extends z.ZodMiniType>(path: string, schema?: S, options: Options = {}): Promise<z.output<S>> {
  const method = options.method ?? 'GET';
  const headers: Record<string, string> = { accept: 'application/json', 'x-mode': mode.value };
  // A form (a file upload) travels as multipart, with the boundary the browser writes.
  const form = options.body instanceof FormData;
  if (options.body !== undefined && !form) headers['content-type'] = 'application/json';
  const csrf = session.value?.csrfToken;
  if (method !== 'GET' && csrf) headers['x-csrf-token'] = csrf;
  const response = await fetch(path, {
    method,
    headers,
    credentials: 'same-origin',
    body: form ? (options.body as FormData) : options.body === undefined ? undefined : JSON.stringify(options.body),
    signal: options.signal,
  });
  if (response.status === 401 && !path.startsWith('/dashboard/api/session')) session.value = null;
  const text = await response.text();
  // A money move wants a second factor for this very request: asked for (its own chunk), then sent again.
  if (response.status === 403 && !options.again && stepUpPrompt.ask && text.includes('"step_up_required"')) {
    await stepUpPrompt.ask(path, options);
    return request(path, schema, { ...options, again: true });
  }
  return readAnswer(`${method} ${path}`, response.status, text, schema);
}

/** A new session: the dashboard opens in live mode when the service has a live network. */
export function signedIn(data: DashboardSession): void {
  mode.value = data.networks.live.length ? 'live' : 'test';
  session.value = data;
}

/** Asks who is signed in; null when nobody is (the service answers 200 either way). */
export async function loadSession(): Promise<void> {
  const { data } = await request('/dashboard/api/session', SessionProbe);
  if (data) signedIn(data);
  else session.value = null;
}

export async function signOut(everywhere = false): Promise<void> {
  await request(everywhere ? '/dashboard/api/sessions' : '/dashboard/api/session', undefined, { method: 'DELETE' });
  session.value = null;
}

/** The one request a step-up is for: its method, path and body as it will be sent again (step-up.tsx asks, webauthn.ts proves). */
export interface StepUpFor {
  method: string;
  path: string;
  body?: unknown;
}
