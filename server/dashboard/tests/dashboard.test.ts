// The merchant's dashboard over HTTP: the one-time sign-in link, the password and
// the session cookie, and each attack refused (no session, another merchant's session, a CSRF
// attempt, a stolen cookie after sign-out, 20 wrong passwords); and the API it stands on, with
// a secret key or a session: the payments list (cursor, filters, search), a payment's timeline,
// and rolling a secret key. Every answer of a documented route is held to the OpenAPI document.
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { holdAnswersToOpenApi } from '../../testing/conformance.ts';
import { startService, type Service } from '../../service/app.ts';
import { cheapPasswords, TEST_PASSWORD_HASH_COST } from '../../testing/passwords.ts';
import { createLogger } from '../../service/log.ts';
import { statusOf } from '../../payments/rules.ts';
import { STATUSES } from '../../../contract/schemas.ts';
import { SessionProbe } from '../../../contract/dashboard.ts';
import { configFromEnv } from '../../service/config.ts';
import { runOperatorCommand } from '../../commands/operator.ts';

holdAnswersToOpenApi();

const ADMIN = 'op_dashboard_test_token_0123456789abcdef0123456789';
const PUBLIC_URL = 'https://pay.example.test';
let clock = Date.parse('2026-03-02T10:00:00Z');
let api: Service;
const logged: string[] = [];

interface Made {
  id: string;
  email: string;
  keys: { test: { publicKey: string; secretKey: string }; live: { publicKey: string; secretKey: string } };
  signInUrl: string;
}

type Call = { method?: string; body?: unknown; cookie?: string; csrf?: string; origin?: string | null; bearer?: string; headers?: Record<string, string> };

/** GET /dashboard/api/session with nobody signed in. */
const NOBODY = { status: 200, body: { status: 'success', statusCode: 200, message: 'Not signed in' } };

async function call(path: string, c: Call = {}) {
  const headers: Record<string, string> = { ...c.headers };
  if (c.body !== undefined) headers['content-type'] = 'application/json';
  if (c.cookie) headers.cookie = c.cookie;
  if (c.csrf) headers['x-csrf-token'] = c.csrf;
  if (c.bearer) headers.authorization = `Bearer ${c.bearer}`;
  // A browser on our pages sends our origin; tests that play another site say so.
  if (c.origin !== null) headers.origin = c.origin ?? PUBLIC_URL;
  const response = await fetch(api.url + path, { method: c.method ?? 'GET', headers, body: c.body === undefined ? undefined : JSON.stringify(c.body) });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
}

let n = 0;
async function merchant(name: string): Promise<Made> {
  const email = `owner${++n}@${name.toLowerCase().replace(/\W/g, '')}.example`;
  const made = await call('/operator/v1/merchants', { method: 'POST', bearer: ADMIN, body: { name, email } });
  expect(made.status).toBe(201);
  return { ...made.body.data, email };
}

const tokenOf = (signInUrl: string) => new URL(signInUrl).hash.replace(/^#token=/, '');
const cookieOf = (setCookie: string | null) => setCookie!.split(';')[0];

/** Sets the password through the merchant's link: the session cookie and its CSRF token. */
async function setPassword(m: Made, password = 'correct horse battery') {
  const answer = await call('/dashboard/api/password', { method: 'POST', body: { token: tokenOf(m.signInUrl), password } });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  // The session's own Set-Cookie (a sign-in also sets the device cookie new-device e-mails use).
  const setCookie = answer.headers.getSetCookie().find((c) => c.startsWith('__Host-dashboard_session=') || c.startsWith('dashboard_session='))!;
  return { cookie: cookieOf(setCookie), csrf: answer.body.data.csrfToken as string, setCookie };
}

async function signIn(email: string, password: string) {
  const answer = await call('/dashboard/api/session', { method: 'POST', body: { email, password } });
  return { ...answer, cookie: answer.status === 200 ? cookieOf(answer.headers.get('set-cookie')) : '', csrf: answer.body?.data?.csrfToken as string };
}

async function pay(m: Made, reference: string, extra: Record<string, unknown> = {}) {
  const made = await call('/api/v1/transaction/initialize', {
    method: 'POST',
    bearer: m.keys.test.secretKey,
    body: { reference, coin: 'USDT', currency: 'USD', amount: 12.5, customer_email: 'ada@example.com', ...extra },
  });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  return made.body.data;
}

beforeAll(async () => {
  const sink = new Writable({ write: (chunk, _enc, done) => (logged.push(String(chunk)), done()) });
  api = await startService({
    adminToken: ADMIN,
    publicUrl: PUBLIC_URL,
    now: () => clock,
    jobs: false,
    logger: createLogger('info', sink),
    signInsPerClient: 10_000,
    ...cheapPasswords,
  });
});
afterAll(() => api?.close());

describe('signing in to the dashboard', { timeout: 120_000 }, () => {
  it('merchant create gives a one-time sign-in link on PUBLIC_URL, its token in the #fragment; only its hash is kept', async () => {
    const m = await merchant('Link Shop');
    const url = new URL(m.signInUrl);
    expect(url.origin + url.pathname).toBe(`${PUBLIC_URL}/dashboard/welcome`);
    expect(url.search).toBe('');
    expect(tokenOf(m.signInUrl)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const stored = await api.db.query('SELECT hash FROM dashboard_links WHERE merchant_id = $1', [m.id]);
    expect(stored).toHaveLength(1);
    expect(stored[0].hash).not.toContain(tokenOf(m.signInUrl));
  });

  it('the link sets a password once (scrypt, memory-hard) and signs in with an HttpOnly, SameSite=Strict, Secure cookie', async () => {
    const m = await merchant('Password Shop');
    const weak = await call('/dashboard/api/password', { method: 'POST', body: { token: tokenOf(m.signInUrl), password: 'short' } });
    expect(weak.status).toBe(400);
    expect(weak.body.errors[0].field).toBe('password');
    const session = await setPassword(m);
    expect(session.setCookie).toMatch(/^__Host-dashboard_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=43200; Secure$/);
    const [row] = await api.db.query('SELECT password_hash FROM dashboard_logins WHERE merchant_id = $1', [m.id]);
    expect(row.password_hash).toMatch(new RegExp(`^scrypt\\$${2 ** TEST_PASSWORD_HASH_COST}\\$8\\$3\\$[A-Za-z0-9_-]{22}\\$[A-Za-z0-9_-]{43}$`)); // the service's default cost: dashboard-account.test.ts
    // Used once: the same link again is refused, naming the field.
    const again = await call('/dashboard/api/password', { method: 'POST', body: { token: tokenOf(m.signInUrl), password: 'another good password' } });
    expect(again.status).toBe(400);
    expect(again.body.errors[0].field).toBe('token');
    const me = await call('/dashboard/api/session', { cookie: session.cookie });
    expect(me.status).toBe(200);
    expect(me.body.data.merchant.id).toBe(m.id);
    expect(me.body.data.publicKeys).toEqual({ test: m.keys.test.publicKey, live: m.keys.live.publicKey });
    const signedIn = await signIn(m.email.toUpperCase(), 'correct horse battery');
    expect(signedIn.status).toBe(200);
  });

  it("a link expires after 24 hours, and the operator's new link (a reset) replaces the old one and ends every session", async () => {
    const m = await merchant('Reset Shop');
    const old = await setPassword(m);
    const reissued = await call(`/operator/v1/merchants/${m.id}/sign-in-link`, { method: 'POST', bearer: ADMIN, body: {} });
    expect(reissued.status).toBe(201);
    const fresh = { ...m, signInUrl: reissued.body.data.signInUrl as string };
    const third = await call(`/operator/v1/merchants/${m.id}/sign-in-link`, { method: 'POST', bearer: ADMIN, body: {} });
    // The second link was replaced by the third.
    expect(
      (await call('/dashboard/api/password', { method: 'POST', body: { token: tokenOf(fresh.signInUrl), password: 'a brand new password' } })).status,
    ).toBe(400);
    clock += 24 * 3_600_000 + 1;
    expect(
      (await call('/dashboard/api/password', { method: 'POST', body: { token: tokenOf(third.body.data.signInUrl), password: 'a brand new password' } })).status,
    ).toBe(400);
    const fourth = await call(`/operator/v1/merchants/${m.id}/sign-in-link`, { method: 'POST', bearer: ADMIN, body: {} });
    await setPassword({ ...m, signInUrl: fourth.body.data.signInUrl }, 'a brand new password');
    expect(await call('/dashboard/api/session', { cookie: old.cookie })).toMatchObject(NOBODY);
    expect((await signIn(m.email, 'correct horse battery')).status).toBe(401);
    expect((await signIn(m.email, 'a brand new password')).status).toBe(200);
    expect((await call(`/operator/v1/merchants/${m.id}/sign-in-link`, { method: 'POST', bearer: m.keys.live.secretKey, body: {} })).status).toBe(401);
  });

  it("the operator's commands: merchant create prints signInUrl, merchant sign-in-link a new one, both on PUBLIC_URL", async () => {
    const config = { ...configFromEnv({}), serviceUrl: api.url, adminToken: ADMIN };
    const lines: string[] = [];
    expect(
      await runOperatorCommand(['merchant', 'create', '--name', 'Command Shop', '--email', 'till@command.example', '--json'], config, (l) => lines.push(l)),
    ).toBe(0);
    const created = JSON.parse(lines.at(-1)!);
    expect(created.signInUrl).toMatch(new RegExp(`^${PUBLIC_URL}/dashboard/welcome#token=[A-Za-z0-9_-]{43}$`));
    lines.length = 0;
    expect(await runOperatorCommand(['merchant', 'sign-in-link', '--id', created.id], config, (l) => lines.push(l))).toBe(0);
    expect(lines.join('\n')).toMatch(/valid 24 hours[\s\S]*\/dashboard\/welcome#token=/);
    expect(lines.join('\n')).not.toContain(created.signInUrl);
    lines.length = 0;
    expect(await runOperatorCommand(['merchant', 'sign-in-link', '--id', 'nope'], config, (l) => lines.push(l))).toBe(2);
    expect(lines[0]).toMatch(/^--id: expected a merchant id/);
    // The first link no longer works; the command's does.
    expect(
      (await call('/dashboard/api/password', { method: 'POST', body: { token: tokenOf(created.signInUrl), password: 'correct horse battery' } })).status,
    ).toBe(400);
  });

  it('a session expires after 12 hours', async () => {
    const m = await merchant('Expiry Shop');
    const s = await setPassword(m);
    clock += 12 * 3_600_000 - 1000;
    expect((await call('/api/v1/payments', { cookie: s.cookie })).status).toBe(200);
    clock += 1000;
    expect((await call('/api/v1/payments', { cookie: s.cookie })).status).toBe(401);
  });
});

describe('refused: every attack the issue names', { timeout: 120_000 }, () => {
  it('no session: the dashboard API answers 401, and the session probe says nobody is signed in', async () => {
    expect((await call('/api/v1/payments')).status).toBe(401);
    // "Am I signed in?" is answered, not refused: nobody (200 without data, nothing for a browser to log as failed).
    const probe = await call('/dashboard/api/session');
    expect(probe).toMatchObject(NOBODY);
    expect(probe.body).not.toHaveProperty('data');
    expect(SessionProbe.safeParse(probe.body).success).toBe(true);
    // A forged cookie is nobody too; a DELETE with none is still refused.
    expect(await call('/dashboard/api/session', { cookie: 'dashboard_session=forged0000000000000000000000000000000000000' })).toMatchObject(NOBODY);
    expect((await call('/dashboard/api/session', { method: 'DELETE' })).status).toBe(401);
    expect((await call('/api/v1/payments', { cookie: 'dashboard_session=forged0000000000000000000000000000000000000' })).status).toBe(401);
    // A public key (which anyone holds) opens nothing here.
    expect((await call('/api/v1/payments', { headers: { 'x-api-key': (await merchant('Public Shop')).keys.test.publicKey } })).status).toBe(401);
  });

  it("another merchant's session sees none of this merchant's payments, and cannot act on them", async () => {
    const a = await merchant('Shop A');
    const b = await merchant('Shop B');
    await pay(a, 'only-a-1');
    const sb = await setPassword(b);
    const list = await call('/api/v1/payments', { cookie: sb.cookie });
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([]);
    expect((await call('/api/v1/payments/only-a-1', { cookie: sb.cookie })).status).toBe(404);
    expect((await call('/api/v1/payments?q=only-a-1', { cookie: sb.cookie })).body.data).toEqual([]);
    // B's roll changes B's key only: A's key still works.
    expect((await call('/api/v1/keys/roll', { method: 'POST', cookie: sb.cookie, csrf: sb.csrf })).status).toBe(201);
    expect((await call('/api/v1/payments/only-a-1', { bearer: a.keys.test.secretKey })).status).toBe(200);
  });

  it("a CSRF attempt: a write without the session's token, or from another origin, is refused; the key is not rolled", async () => {
    const m = await merchant('Csrf Shop');
    const s = await setPassword(m);
    expect((await call('/api/v1/keys/roll', { method: 'POST', cookie: s.cookie })).status).toBe(403);
    expect((await call('/api/v1/keys/roll', { method: 'POST', cookie: s.cookie, csrf: 'x'.repeat(43) })).status).toBe(403);
    expect((await call('/api/v1/keys/roll', { method: 'POST', cookie: s.cookie, csrf: s.csrf, origin: 'https://evil.example' })).status).toBe(403);
    expect(
      (await call('/api/v1/webhook', { method: 'PUT', cookie: s.cookie, origin: 'https://evil.example', body: { url: 'https://evil.example/hook' } })).status,
    ).toBe(403);
    expect((await call('/dashboard/api/sessions', { method: 'DELETE', cookie: s.cookie })).status).toBe(403);
    // Signing in from another site's page (login CSRF) is refused too.
    expect(
      (await call('/dashboard/api/session', { method: 'POST', origin: 'https://evil.example', body: { email: m.email, password: 'correct horse battery' } }))
        .status,
    ).toBe(403);
    // None of it happened: the secret key still works, the session too.
    expect((await call('/api/v1/payments', { bearer: m.keys.test.secretKey })).status).toBe(200);
    expect((await call('/dashboard/api/session', { cookie: s.cookie })).status).toBe(200);
    // The browser's preflight would not let another origin send the token header at all.
    const preflight = await fetch(api.url + '/api/v1/keys/roll', { method: 'OPTIONS' });
    expect(preflight.headers.get('access-control-allow-headers')).not.toMatch(/x-csrf-token/);
    expect(preflight.headers.get('access-control-allow-credentials')).toBeNull();
    // With its token, from our origin: done.
    expect((await call('/api/v1/keys/roll', { method: 'POST', cookie: s.cookie, csrf: s.csrf })).status).toBe(201);
  });

  it('a stolen cookie after sign-out opens nothing; signing out everywhere ends every session', async () => {
    const m = await merchant('Stolen Shop');
    const first = await setPassword(m);
    const second = await signIn(m.email, 'correct horse battery');
    const third = await signIn(m.email, 'correct horse battery');
    const out = await call('/dashboard/api/session', { method: 'DELETE', cookie: first.cookie, csrf: first.csrf });
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toMatch(/^__Host-dashboard_session=; .*Max-Age=0/);
    expect((await call('/api/v1/payments', { cookie: first.cookie })).status).toBe(401);
    expect(await call('/dashboard/api/session', { cookie: first.cookie })).toMatchObject(NOBODY);
    expect((await call('/dashboard/api/session', { cookie: second.cookie })).status).toBe(200);
    expect((await call('/dashboard/api/sessions', { method: 'DELETE', cookie: second.cookie, csrf: second.csrf })).status).toBe(204);
    expect((await call('/api/v1/payments', { cookie: second.cookie })).status).toBe(401);
    expect((await call('/api/v1/payments', { cookie: third.cookie })).status).toBe(401);
  });

  it('20 wrong passwords: each refused, slowed then locked; the right one is refused too until the lock ends', async () => {
    const m = await merchant('Guess Shop');
    await setPassword(m);
    const statuses: number[] = [];
    // At once: three are refused as wrong, then the e-mail waits (1 s, then 2 s, 4 s …).
    for (let i = 0; i < 4; i++) statuses.push((await signIn(m.email, `wrong password ${i}`)).status);
    expect(statuses).toEqual([401, 401, 401, 429]);
    // A patient guesser who waits out each pause reaches ten wrong passwords: then 15 minutes of refusal.
    for (let i = 4; i < 11; i++) {
      clock += 70_000;
      statuses.push((await signIn(m.email, `wrong password ${i}`)).status);
    }
    for (let i = 11; i < 20; i++) statuses.push((await signIn(m.email, `wrong password ${i}`)).status);
    expect(statuses).toHaveLength(20);
    expect(statuses.slice(4, 11)).toEqual(Array(7).fill(401));
    expect(statuses.slice(11)).toEqual(Array(9).fill(429));
    const locked = await signIn(m.email, 'correct horse battery');
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(60);
    clock += 16 * 60_000;
    expect((await signIn(m.email, 'correct horse battery')).status).toBe(200);
  });

  it('one client guessing across many e-mails is refused too: a limit per client address', async () => {
    const limited = await startService({ adminToken: ADMIN, publicUrl: PUBLIC_URL, jobs: false, signInsPerClient: 5, ...cheapPasswords });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 7; i++) {
        const answer = await fetch(`${limited.url}/dashboard/api/session`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', origin: PUBLIC_URL },
          body: JSON.stringify({ email: `guess${i}@example.com`, password: 'password123' }),
        });
        statuses.push(answer.status);
        if (answer.status === 429) expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
      }
      expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429]);
      // Setting a password through a link counts as well.
      const link = await fetch(`${limited.url}/dashboard/api/password`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: PUBLIC_URL },
        body: JSON.stringify({ token: 'x'.repeat(43), password: 'a long enough one' }),
      });
      expect(link.status).toBe(429);
    } finally {
      await limited.close();
    }
  });

  it('passwords, tokens, cookies and e-mails never reach a log line', async () => {
    const text = logged.join('');
    expect(text).toContain('dashboard sign-in');
    for (const secret of ['correct horse battery', 'a brand new password', 'dashboard_session=', 'token=', '#token', 'x-csrf-token'])
      expect(text).not.toContain(secret);
    expect(text).not.toMatch(/owner\d+@/);
  });
});

describe('the API the dashboard stands on (secret key or session)', { timeout: 120_000 }, () => {
  it('lists payments newest first, a page at a time by cursor, and filters by status, coin, date and search', async () => {
    const m = await merchant('List Shop');
    const made = [];
    for (let i = 0; i < 7; i++) {
      made.push(await pay(m, `list-${i}`, { customer_email: i === 3 ? 'grace@example.com' : 'ada@example.com', coin: i === 5 ? 'USDC' : 'USDT' }));
      clock += 1000;
    }
    const s = await setPassword(m);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Awaited<ReturnType<typeof call>> = await call(`/api/v1/payments?limit=3${cursor ? `&cursor=${cursor}` : ''}`, { cookie: s.cookie });
      expect(page.status).toBe(200);
      expect(page.body.data.length).toBeLessThanOrEqual(3);
      seen.push(...page.body.data.map((p: { reference: string }) => p.reference));
      cursor = page.body.next;
    } while (cursor);
    expect(seen).toEqual(['list-6', 'list-5', 'list-4', 'list-3', 'list-2', 'list-1', 'list-0']);
    const byKey = await call('/api/v1/payments?limit=100', { bearer: m.keys.test.secretKey });
    expect(byKey.body.data.map((p: { reference: string }) => p.reference)).toEqual(seen);
    expect(byKey.body.data[0].customer.email).toBe('ada@example.com');
    // Live mode is another list.
    expect((await call('/api/v1/payments', { cookie: s.cookie, headers: { 'x-mode': 'live' } })).body.data).toEqual([]);
    const bad = await call('/api/v1/payments', { cookie: s.cookie, headers: { 'x-mode': 'prod' } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].field).toBe('x-mode');

    const refs = async (query: string) => {
      const answer = await call(`/api/v1/payments?${query}`, { cookie: s.cookie });
      expect(answer.status, `${query}: ${JSON.stringify(answer.body)}`).toBe(200);
      return answer.body.data.map((p: { reference: string }) => p.reference);
    };
    expect(await refs('coin=USDC')).toEqual(['list-5']);
    expect(await refs('q=GRACE@example.com')).toEqual(['list-3']);
    expect(await refs('q=list-4')).toEqual(['list-4']);
    expect(await refs(`q=${made[2].address}`)).toEqual(['list-2']);
    expect(await refs(`from=${encodeURIComponent(new Date(clock - 3000).toISOString())}`)).toEqual(['list-6', 'list-5', 'list-4']);
    expect(await refs(`to=${encodeURIComponent(new Date(clock - 6000).toISOString())}`)).toEqual(['list-0']);
    await call('/api/v1/sandbox/deposit', { method: 'POST', bearer: m.keys.test.secretKey, body: { reference: 'list-1', kind: 'exact' } });
    await call('/api/v1/sandbox/deposit', { method: 'POST', bearer: m.keys.test.secretKey, body: { reference: 'list-2', kind: 'partial' } });
    expect(await refs('status=confirmed')).toEqual(['list-1']);
    expect(await refs('status=incomplete')).toEqual(['list-2']);
    // The filter in SQL says what statusOf says, for every status and every payment.
    clock += 3_600_000;
    for (const status of STATUSES) {
      const listed = (await call(`/api/v1/payments?status=${status}&limit=100`, { cookie: s.cookie })).body.data;
      for (const p of listed) expect(p.status).toBe(status);
    }
    const all = (await call('/api/v1/payments?limit=100', { cookie: s.cookie })).body.data;
    const counted = await Promise.all(
      STATUSES.map(async (status) => (await call(`/api/v1/payments?status=${status}&limit=100`, { cookie: s.cookie })).body.data.length),
    );
    expect(counted.reduce((a, b) => a + b, 0)).toBe(all.length);
    expect(statusOf({ paid: 0n, due: 1n, expiresMs: 0, settledMs: null }, 1)).toBe('expired');

    for (const [query, field] of [
      ['limit=0', 'limit'],
      ['status=paid', 'status'],
      ['coin=BTC', 'coin'],
      ['cursor=abc', 'cursor'],
      ['from=yesterday', 'from'],
    ]) {
      const refused = await call(`/api/v1/payments?${query}`, { cookie: s.cookie });
      expect(refused.status, query).toBe(400);
      expect(refused.body.errors[0].field, query).toBe(field);
    }
  });

  it("exports the list as CSV with its filters: exact amounts, fields quoted, formulas defused, only the merchant's own", async () => {
    const m = await merchant('Csv Shop');
    await pay(m, 'csv-1', { customer_name: '=HYPERLINK("http://evil.example","click")', customer_email: 'eve@example.com' });
    clock += 1000;
    await pay(m, 'csv-2', { customer_name: 'Lovelace, Ada', coin: 'USDC' });
    await call('/api/v1/sandbox/deposit', { method: 'POST', bearer: m.keys.test.secretKey, body: { reference: 'csv-2', kind: 'exact' } });
    const other = await merchant('Other Csv Shop');
    await pay(other, 'csv-other');
    const s = await setPassword(m);
    const response = await fetch(api.url + '/api/v1/payments/export.csv', { headers: { cookie: s.cookie } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(response.headers.get('content-disposition')).toBe('attachment; filename="payments-test.csv"');
    const lines = (await response.text()).split('\r\n');
    expect(lines[0]).toBe(
      'reference,status,created_at,coin,chain_id,amount_due,amount_paid,fiat_amount,currency,customer_name,customer_email,deposit_address,last_tx_hash,expires_at',
    );
    expect(lines.slice(1, -1).map((l) => l.split(',')[0])).toEqual(['csv-2', 'csv-1']);
    expect(lines.at(-1)).toBe('');
    expect(lines[1]).toMatch(/^csv-2,confirmed,[^,]+,USDC,\d+,12\.5,12\.5,12\.50,USD,"Lovelace, Ada",ada@example\.com,0x/);
    expect(lines[2]).toContain(`"'=HYPERLINK(""http://evil.example"",""click"")",eve@example.com`);
    const filtered = await fetch(api.url + '/api/v1/payments/export.csv?coin=USDT&limit=1&cursor=1.1', {
      headers: { authorization: `Bearer ${m.keys.test.secretKey}` },
    });
    expect(
      (await filtered.text())
        .split('\r\n')
        .slice(1, -1)
        .map((l) => l.split(',')[0]),
    ).toEqual(['csv-1']);
    const refused = await call('/api/v1/payments/export.csv?status=paid', { cookie: s.cookie });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].field).toBe('status');
    expect((await call('/api/v1/payments/export.csv')).status).toBe(401);
  });

  it("a payment's page: its timeline from creation through the transfer, confirmation and the event told", async () => {
    const m = await merchant('Timeline Shop');
    await pay(m, 'tl-1');
    clock += 5000;
    await call('/api/v1/sandbox/deposit', { method: 'POST', bearer: m.keys.test.secretKey, body: { reference: 'tl-1', kind: 'exact' } });
    const s = await setPassword(m);
    const detail = await call('/api/v1/payments/tl-1', { cookie: s.cookie });
    expect(detail.status).toBe(200);
    const kinds = detail.body.data.timeline.map((e: { kind: string }) => e.kind);
    expect(kinds.slice(0, 3)).toEqual(['created', 'transfer', 'confirmed']);
    expect(kinds).toContain('event');
    const transfer = detail.body.data.timeline[1];
    expect(transfer.state).toBe('credited');
    expect(transfer.amount).toBe(detail.body.data.payment.actualAmountExact);
    expect(detail.body.data.payment.status).toBe('confirmed');
    const event = detail.body.data.timeline.find((e: { kind: string }) => e.kind === 'event');
    expect(event.eventType).toBe('DEPOSIT_TRANSACTION');
    // Resend from the dashboard: the events endpoint takes the session (with its CSRF token).
    expect((await call(`/api/v1/events/${event.eventId}/resend`, { method: 'POST', cookie: s.cookie })).status).toBe(403);
    expect((await call(`/api/v1/events/${event.eventId}/resend`, { method: 'POST', cookie: s.cookie, csrf: s.csrf })).status).toBe(202);
    expect((await call('/api/v1/payments/nope-1', { cookie: s.cookie })).status).toBe(404);
    expect((await call('/api/v1/payments/%20bad', { cookie: s.cookie })).body.errors[0].field).toBe('reference');
  });

  it("rolls the mode's secret key: the new one works, the old one is refused at once, the other mode's key and the public keys stay", async () => {
    const m = await merchant('Roll Shop');
    const rolled = await call('/api/v1/keys/roll', { method: 'POST', bearer: m.keys.test.secretKey });
    expect(rolled.status).toBe(201);
    expect(rolled.body.data.mode).toBe('test');
    expect(rolled.body.data.secretKey).toMatch(/^sk_test_/);
    expect((await call('/api/v1/payments', { bearer: m.keys.test.secretKey })).status).toBe(401);
    expect((await call('/api/v1/payments', { bearer: rolled.body.data.secretKey })).status).toBe(200);
    // A test key never touches live keys.
    expect((await call('/api/v1/payments', { bearer: m.keys.live.secretKey })).status).toBe(200);
    expect((await call('/api/v1/coins', { headers: { 'x-api-key': m.keys.test.publicKey } })).status).toBe(200);
    // The dashboard in live mode rolls the live key.
    const s = await setPassword(m);
    const live = await call('/api/v1/keys/roll', { method: 'POST', cookie: s.cookie, csrf: s.csrf, headers: { 'x-mode': 'live' } });
    expect(live.body.data.secretKey).toMatch(/^sk_live_/);
    expect((await call('/api/v1/payments', { bearer: m.keys.live.secretKey })).status).toBe(401);
    expect((await call('/api/v1/payments', { bearer: rolled.body.data.secretKey })).status).toBe(200);
  });
});
