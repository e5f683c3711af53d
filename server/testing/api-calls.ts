// Test helper: one JSON request to a running service as a dashboard session (cookie + CSRF
// token), a secret key (bearer), a public key (x-api-key) or nobody, in a mode (x-mode).
export type Call = { method?: string; body?: unknown; cookie?: string; csrf?: string; bearer?: string; pk?: string; mode?: string };
export type Answer = { status: number; body: any; headers: Headers };

export async function callApi(url: string, path: string, c: Call = {}): Promise<Answer> {
  const headers: Record<string, string> = { origin: url };
  if (c.body !== undefined) headers['content-type'] = 'application/json';
  if (c.cookie) headers.cookie = c.cookie;
  if (c.csrf) headers['x-csrf-token'] = c.csrf;
  if (c.bearer) headers.authorization = `Bearer ${c.bearer}`;
  if (c.pk) headers['x-api-key'] = c.pk;
  if (c.mode) headers['x-mode'] = c.mode;
  const r = await fetch(url + path, { method: c.method ?? 'GET', headers, body: c.body === undefined ? undefined : JSON.stringify(c.body) });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : undefined, headers: r.headers };
}

/** The session a sign-in or an accepted invitation answered: its cookie and CSRF token. */
export const sessionOf = (a: Answer) => ({ cookie: a.headers.get('set-cookie')!.split(';')[0]!, csrf: a.body.data.csrfToken as string });
