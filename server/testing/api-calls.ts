// Test helper: one JSON request to a running service as a dashboard session (cookie + CSRF
// token), a secret key (bearer), a public key (x-api-key) or nobody, in a mode (x-mode), from an
// address (x-forwarded-for, for a service that trusts a proxy).
export type Call = { method?: string; body?: unknown; cookie?: string; csrf?: string; bearer?: string; pk?: string; mode?: string; from?: string };
export type Answer = { status: number; body: any; headers: Headers };

export async function callApi(url: string, path: string, c: Call = {}): Promise<Answer> {
  const headers: Record<string, string> = { origin: url };
  if (c.body !== undefined) headers['content-type'] = 'application/json';
  if (c.cookie) headers.cookie = c.cookie;
  if (c.csrf) headers['x-csrf-token'] = c.csrf;
  if (c.bearer) headers.authorization = `Bearer ${c.bearer}`;
  if (c.pk) headers['x-api-key'] = c.pk;
  if (c.mode) headers['x-mode'] = c.mode;
  if (c.from) headers['x-forwarded-for'] = c.from; // the client's address, through a trusted proxy
  const r = await fetch(url + path, { method: c.method ?? 'GET', headers, body: c.body === undefined ? undefined : JSON.stringify(c.body) });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : undefined, headers: r.headers };
}

/** The session a sign-in or an accepted invitation answered: its cookie and CSRF token. */
export const sessionOf = (a: Answer) => ({ cookie: a.headers.get('set-cookie')!.split(';')[0]!, csrf: a.body.data.csrfToken as string });

/**
 * A business made through the operator's API (`admin`, the service's admin token) and its owner
 * signed in with `password` from the sign-in link: `made` is the operator's answer, to assert on.
 */
export async function businessWithOwner(url: string, admin: string, business: { name: string; email: string }, password: string) {
  const made = await callApi(url, '/operator/v1/merchants', { method: 'POST', bearer: admin, body: business });
  const token = new URL(made.body.data.signInUrl).hash.replace(/^#token=/, '');
  return { made, owner: sessionOf(await callApi(url, '/dashboard/api/password', { method: 'POST', body: { token, password } })) };
}

/** A bank account a merchant pays out to (POST /api/v1/bank/payouts), as the sandbox bank partner accepts it. */
export const TEST_BANK_ACCOUNT = {
  bank_name: 'Access Bank',
  bank_code: '044',
  account_name: 'Harbour',
  account_number: '0690000031',
  currency: 'NGN',
  country: 'nigeria',
  state: 'Lagos',
};
