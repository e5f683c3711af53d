// The dashboard's remaining API over HTTP, with a session as the browser holds it:
// the business's settings and logo (a logo that is HTML or SVG is refused, whatever it claims),
// payout addresses (EIP-55 checked), payment links made, toggled and drawn as a QR code,
// a secret key rolled with its old one kept for a while (working before, refused after, on
// the service's clock), and the e-mail lockout a stranger cannot turn against the owner.
// Every answer of a documented route is held to the OpenAPI document.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { holdAnswersToOpenApi } from '../../testing/conformance.ts';
import { startService, type Service } from '../../service/app.ts';
import { cheapPasswords } from '../../testing/passwords.ts';
import type { Network } from '../../chain/networks.ts';
import { startReceiver } from '../../testing/receiver.ts';
import { hashing, hashPassword, MAX_CONCURRENT_HASHES, NOBODY, passwordMatches, SCRYPT } from '../../merchants/sign-in-rules.ts';
import { configFromEnv } from '../../service/config.ts';
import { settings } from '../../service/settings.ts';

holdAnswersToOpenApi();

const ADMIN = 'op_dashboard_account_token_0123456789abcdef012345';
const PUBLIC_URL = 'https://pay.example.test';
let clock = Date.parse('2026-03-02T10:00:00Z');
let api: Service;

// A 1×1 PNG, and files that only claim to be images.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==', 'base64');
const HTML = Buffer.from('<!doctype html><script>fetch("/api/v1/keys/roll",{method:"POST"})</script>');
const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><script>alert(2)</script></svg>');

interface Made {
  id: string;
  email: string;
  keys: { test: { publicKey: string; secretKey: string }; live: { publicKey: string; secretKey: string } };
  signInUrl: string;
}
type Call = {
  method?: string;
  body?: unknown;
  form?: FormData;
  cookie?: string;
  csrf?: string;
  origin?: string | null;
  bearer?: string;
  headers?: Record<string, string>;
  on?: Service;
};

async function call(path: string, c: Call = {}) {
  const headers: Record<string, string> = { ...c.headers };
  if (c.body !== undefined) headers['content-type'] = 'application/json';
  if (c.cookie) headers.cookie = c.cookie;
  if (c.csrf) headers['x-csrf-token'] = c.csrf;
  if (c.bearer) headers.authorization = `Bearer ${c.bearer}`;
  if (c.origin !== null) headers.origin = c.origin ?? PUBLIC_URL;
  const response = await fetch((c.on ?? api).url + path, {
    method: c.method ?? 'GET',
    headers,
    body: c.form ?? (c.body === undefined ? undefined : JSON.stringify(c.body)),
  });
  const text = await response.text();
  let body: any;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = text;
  }
  return { status: response.status, body, headers: response.headers };
}

let n = 0;
async function merchant(name: string, on = api): Promise<Made> {
  const email = `owner${++n}@${name.toLowerCase().replace(/\W/g, '')}.example`;
  const made = await call('/operator/v1/merchants', { method: 'POST', bearer: ADMIN, body: { name, email }, on });
  expect(made.status).toBe(201);
  return { ...made.body.data, email };
}

const tokenOf = (signInUrl: string) => new URL(signInUrl).hash.replace(/^#token=/, '');

async function setPassword(m: Made, on = api, password = 'correct horse battery') {
  const answer = await call('/dashboard/api/password', { method: 'POST', body: { token: tokenOf(m.signInUrl), password }, on });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return { cookie: answer.headers.get('set-cookie')!.split(';')[0], csrf: answer.body.data.csrfToken as string, session: answer.body.data };
}

const file = (name: string, bytes: Buffer, type: string) => {
  const form = new FormData();
  form.set(name, new Blob([new Uint8Array(bytes)], { type }), `${name}.png`);
  return form;
};

// A live network whose chain is never called (jobs are off): what the session and the payout addresses name.
// (dev: not checked against a chain at start; nothing here sends on it.)
const LIVE: Network = {
  chainId: 56,
  name: 'BNB Smart Chain',
  rpcUrls: ['http://127.0.0.1:9'],
  confirmations: 3,
  factory: '0x00000000000000000000000000000000000000f1',
  tokens: [],
  dev: true,
};

beforeAll(async () => {
  api = await startService({
    adminToken: ADMIN,
    publicUrl: PUBLIC_URL,
    now: () => clock,
    jobs: false,
    signInsPerClient: 10_000,
    networks: { live: LIVE },
    ...cheapPasswords,
  });
});
afterAll(() => api?.close());

describe('settings: the business and its logo', { timeout: 60_000 }, () => {
  it('reads and changes the name and e-mail; the new e-mail is the one the owner signs in with', async () => {
    const m = await merchant('Settings Shop');
    const s = await setPassword(m);
    const read = await call('/api/v1/account', { cookie: s.cookie });
    expect(read.status).toBe(200);
    expect(read.body.data).toEqual({ businessName: 'Settings Shop', businessEmail: m.email, businessLogo: '' });
    const bad = await call('/api/v1/account', { method: 'PATCH', cookie: s.cookie, csrf: s.csrf, body: { business_email: 'not an e-mail' } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].field).toBe('business_email');
    expect((await call('/api/v1/account', { method: 'PATCH', cookie: s.cookie, csrf: s.csrf, body: { business_name: ' ' } })).body.errors[0].field).toBe(
      'business_name',
    );
    // Without the CSRF token, nothing changes.
    expect((await call('/api/v1/account', { method: 'PATCH', cookie: s.cookie, body: { business_name: 'Hijacked' } })).status).toBe(403);
    const changed = await call('/api/v1/account', {
      method: 'PATCH',
      cookie: s.cookie,
      csrf: s.csrf,
      body: { business_name: 'Harbour Tea Co', business_email: 'till@harbour.example', current_password: 'correct horse battery' },
    });
    expect(changed.status).toBe(200);
    expect(changed.body.data).toMatchObject({ businessName: 'Harbour Tea Co', businessEmail: 'till@harbour.example' });
    expect((await call('/dashboard/api/session', { cookie: s.cookie })).body.data.merchant.businessName).toBe('Harbour Tea Co');
    const signIn = (email: string) => call('/dashboard/api/session', { method: 'POST', body: { email, password: 'correct horse battery' } });
    expect((await signIn('till@harbour.example')).status).toBe(200);
    expect((await signIn(m.email)).status).toBe(401);
    // The secret key reads the same.
    expect((await call('/api/v1/account', { bearer: m.keys.test.secretKey })).body.data.businessName).toBe('Harbour Tea Co');
  });

  it('the session cookie is __Host- prefixed on https (Secure, Path=/, no Domain), and the unprefixed name opens nothing there', async () => {
    const m = await merchant('Cookie Shop');
    const answer = await call('/dashboard/api/password', { method: 'POST', body: { token: tokenOf(m.signInUrl), password: 'correct horse battery' } });
    // Two cookies: the session, and the device cookie that tells a new device's sign-in (email/), Secure too.
    const cookies = answer.headers.getSetCookie();
    const set = cookies.find((c) => c.startsWith('__Host-dashboard_session='))!;
    expect(cookies.filter((c) => c !== set).every((c) => /; Secure$/.test(c) && !/dashboard_session/.test(c))).toBe(true);
    expect(set).toMatch(/^__Host-dashboard_session=[^;]+; Path=\/; HttpOnly; SameSite=Strict; Max-Age=\d+; Secure$/);
    expect(set).not.toMatch(/Domain=/i);
    const token = set.split(';')[0]!.split('=')[1]!;
    expect((await call('/api/v1/account', { cookie: `__Host-dashboard_session=${token}` })).status).toBe(200);
    expect((await call('/api/v1/account', { cookie: `dashboard_session=${token}` })).status).toBe(401);
  });

  it('a test key changes nothing live customers see; the sign-in e-mail changes only from the session, with the current password, and the previous address is told', async () => {
    const m = await merchant('Guarded Shop');
    const s = await setPassword(m);
    const test = m.keys.test.secretKey;
    const live = m.keys.live.secretKey;
    // A stolen test key: no new name, logo or e-mail.
    for (const refused of [
      await call('/api/v1/account', { method: 'PATCH', bearer: test, body: { business_name: 'Thief Ltd' } }),
      await call('/api/v1/account', { method: 'PATCH', bearer: test, body: { business_email: 'thief@evil.example' } }),
      await call('/api/v1/account/logo', { method: 'PUT', bearer: test, form: file('logo', PNG, 'image/png') }),
    ]) {
      expect(refused.status).toBe(403);
      expect(refused.body.message).toMatch(/test key/);
    }
    // A live key renames the business, but never changes the sign-in e-mail.
    expect((await call('/api/v1/account', { method: 'PATCH', bearer: live, body: { business_name: 'Guarded Shop Ltd' } })).status).toBe(200);
    const byKey = await call('/api/v1/account', {
      method: 'PATCH',
      bearer: live,
      body: { business_email: 'thief@evil.example', current_password: 'correct horse battery' },
    });
    expect(byKey.status).toBe(403);
    expect(byKey.body.message).toMatch(/dashboard/);
    // The same e-mail again (the settings form sends it unchanged) needs no password.
    expect(
      (await call('/api/v1/account', { method: 'PATCH', bearer: live, body: { business_name: 'Guarded Shop', business_email: m.email.toUpperCase() } })).status,
    ).toBe(200);
    const read = await call('/api/v1/account', { bearer: live });
    expect(read.body.data).toEqual({ businessName: 'Guarded Shop', businessEmail: m.email, businessLogo: '' });
    const listed = await call('/operator/v1/merchants', { bearer: ADMIN });
    expect(listed.body.data.find((x: { id: string }) => x.id === m.id).businessEmail).toBe(m.email);
    const signIn = (email: string) => call('/dashboard/api/session', { method: 'POST', body: { email, password: 'correct horse battery' } });
    expect((await signIn(m.email)).status).toBe(200);

    // The session: the current password, or nothing changes.
    const patch = (body: unknown) => call('/api/v1/account', { method: 'PATCH', cookie: s.cookie, csrf: s.csrf, body });
    for (const [body, field] of [
      [{ business_email: 'new@guarded.example' }, 'current_password'],
      [{ business_email: 'new@guarded.example', current_password: 'wrong horse battery' }, 'current_password'],
    ] as const) {
      const refused = await patch(body);
      expect(refused.status).toBe(400);
      expect(refused.body.errors[0].field).toBe(field);
    }
    expect((await signIn(m.email)).status).toBe(200);
    // Another merchant's sign-in e-mail is theirs: taking it would make two accounts answer one address.
    const neighbour = await merchant('Neighbour Shop');
    const taken = await patch({ business_email: neighbour.email.toUpperCase(), current_password: 'correct horse battery' });
    expect(taken.status).toBe(409);
    expect(taken.body.errors[0].field).toBe('business_email');
    const changed = await patch({ business_email: 'new@guarded.example', current_password: 'correct horse battery' });
    expect(changed.status).toBe(200);
    expect(changed.body.data.businessEmail).toBe('new@guarded.example');
    expect((await signIn('new@guarded.example')).status).toBe(200);
    // The previous address is told: an event in each mode's feed, naming it.
    for (const mode of ['test', 'live']) {
      const feed = await call('/api/v1/events?after=recent', { cookie: s.cookie, headers: { 'x-mode': mode } });
      const told = feed.body.data.filter((e: { type: string }) => e.type === 'ACCOUNT_EMAIL_CHANGED');
      expect(told.map((e: { payload: { data: unknown } }) => e.payload.data)).toEqual([{ previous_email: m.email, business_email: 'new@guarded.example' }]);
    }
  });

  it('a logo is kept only when its bytes are an image, and served from /files as what it is', async () => {
    const m = await merchant('Logo Shop');
    const s = await setPassword(m);
    const up = await call('/api/v1/account/logo', { method: 'PUT', cookie: s.cookie, csrf: s.csrf, form: file('logo', PNG, 'image/png') });
    expect(up.status, JSON.stringify(up.body)).toBe(200);
    const url = new URL(up.body.data.businessLogo);
    expect(url.origin).toBe(PUBLIC_URL);
    expect(url.pathname).toMatch(/^\/files\/[0-9a-f-]{36}$/);
    const served = await fetch(api.url + url.pathname);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(served.headers.get('x-content-type-options')).toBe('nosniff');
    expect(Buffer.from(await served.arrayBuffer())).toEqual(PNG);
    // The checkout shows it: initialize answers the merchant's logo.
    const paid = await call('/api/v1/transaction/initialize', {
      method: 'POST',
      bearer: m.keys.test.secretKey,
      body: { reference: 'logo-1', coin: 'USDT', currency: 'USD', amount: 5, customer_email: 'ada@example.com' },
    });
    expect(JSON.stringify(paid.body)).toContain(url.pathname);
  });

  it('a logo that is HTML (or SVG with script) is refused, whatever its declared type and name; the logo stays as it was', async () => {
    const m = await merchant('Evil Logo Shop');
    const s = await setPassword(m);
    for (const [bytes, type] of [
      [HTML, 'image/png'],
      [HTML, 'text/html'],
      [SVG, 'image/svg+xml'],
      [Buffer.from([0x89, 0x50, 0x4e]), 'image/png'],
    ] as const) {
      const refused = await call('/api/v1/account/logo', { method: 'PUT', cookie: s.cookie, csrf: s.csrf, form: file('logo', bytes, type) });
      expect(refused.status, type).toBe(400);
      expect(refused.body.errors[0].field).toBe('logo');
    }
    expect(
      (await call('/api/v1/account/logo', { method: 'PUT', cookie: s.cookie, csrf: s.csrf, form: file('cover_photo', PNG, 'image/png') })).body.errors[0].field,
    ).toBe('logo');
    expect((await call('/api/v1/account', { cookie: s.cookie })).body.data.businessLogo).toBe('');
    const stored = await api.db.query('SELECT count(*)::int AS n FROM files WHERE merchant_id = $1', [m.id]);
    expect(stored[0].n).toBe(0);
    // Another origin's page cannot upload one with the owner's cookie either.
    expect(
      (
        await call('/api/v1/account/logo', {
          method: 'PUT',
          cookie: s.cookie,
          csrf: s.csrf,
          origin: 'https://evil.example',
          form: file('logo', PNG, 'image/png'),
        })
      ).status,
    ).toBe(403);
  });
});

describe("payout addresses and the session's networks", { timeout: 60_000 }, () => {
  it("the session names each mode's networks: none for test here, BNB Smart Chain for live", async () => {
    const m = await merchant('Network Shop');
    const s = await setPassword(m);
    expect(s.session.networks).toEqual({ test: [], live: [{ chainId: 56, name: 'BNB Smart Chain' }] });
  });

  it('names every network of a mode, in the order of the network file, so each gets its payout address', async () => {
    const ETHEREUM: Network = { ...LIVE, chainId: 1, name: 'Ethereum', factory: '0x00000000000000000000000000000000000000f2' };
    const two = await startService({ adminToken: ADMIN, publicUrl: PUBLIC_URL, jobs: false, networks: { live: [LIVE, ETHEREUM] }, ...cheapPasswords });
    try {
      const s = await setPassword(await merchant('Two Chains Shop', two), two);
      expect(s.session.networks).toEqual({
        test: [],
        live: [
          { chainId: 56, name: 'BNB Smart Chain' },
          { chainId: 1, name: 'Ethereum' },
        ],
      });
      const live = { cookie: s.cookie, csrf: s.csrf, headers: { 'x-mode': 'live' }, on: two };
      const address = '0x52908400098527886E0F7030069857D2E4169EE7';
      // In live mode a chain's first address waits the operator's delay too, listed among the changes waiting.
      expect((await call('/api/v1/payout_address', { method: 'PUT', ...live, body: { chain_id: 1, address } })).body.data).toMatchObject({
        chain_id: 1,
        address,
        pending: true,
      });
      expect((await call('/api/v1/destination_changes', live)).body.data).toEqual([expect.objectContaining({ chain_id: 1, address })]);
    } finally {
      await two.close();
    }
  });

  it('sets the live payout address from the dashboard: EIP-55 checked, a typo refused, the test network none', async () => {
    const m = await merchant('Payout Shop');
    const s = await setPassword(m);
    const live = { cookie: s.cookie, csrf: s.csrf, headers: { 'x-mode': 'live' } };
    const good = '0x52908400098527886E0F7030069857D2E4169EE7';
    const typo = '0x52908400098527886E0F7030069857D2E4169Ee7';
    const refused = await call('/api/v1/payout_address', { method: 'PUT', ...live, body: { chain_id: 56, address: typo } });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].field).toBe('address');
    expect(refused.body.errors[0].message).toContain(good);
    expect((await call('/api/v1/payout_address', { method: 'PUT', ...live, body: { chain_id: 56, address: good } })).body.data).toMatchObject({
      chain_id: 56,
      address: good,
      pending: true,
    });
    expect((await call('/api/v1/destination_changes', live)).body.data).toEqual([expect.objectContaining({ chain_id: 56, address: good })]);
    // Test mode has no network on this service: refused, naming the chain.
    const test = await call('/api/v1/payout_address', { method: 'PUT', cookie: s.cookie, csrf: s.csrf, body: { chain_id: 56, address: good } });
    expect(test.status).toBe(409);
    expect(test.body.errors[0].field).toBe('chain_id');
    expect((await call('/api/v1/payout_address', { cookie: s.cookie })).body.data).toEqual([]);
  });
});

describe("what blocks money: the Home screen's warnings", { timeout: 60_000 }, () => {
  const codes = async (cookie: string, mode = 'test', on = api) => {
    const answer = await call('/api/v1/account/warnings', { cookie, headers: { 'x-mode': mode }, on });
    expect(answer.status).toBe(200);
    return answer.body.data.map((w: { code: string }) => w.code);
  };

  it('no payout address for the live network, and the service not ready (its live chain is not followed), each said; a first live address waiting its delay does not clear its warning yet', async () => {
    const m = await merchant('Warned Shop');
    const s = await setPassword(m);
    const live = await call('/api/v1/account/warnings', { cookie: s.cookie, headers: { 'x-mode': 'live' } });
    expect(live.body.data.map((w: { code: string }) => w.code)).toEqual(['no_webhook_url', 'no_payout_address', 'not_ready']);
    expect(live.body.data[0].message).toBe('No webhook URL for live payments: events wait until you set one.');
    expect(live.body.data[1].message).toContain('BNB Smart Chain (chain 56)');
    // The names and numbers of each sentence, for the dashboard to say it in French or Arabic.
    expect(live.body.data.map((w: { params: unknown }) => w.params)).toEqual([
      { mode: 'live' },
      { mode: 'live', network: 'BNB Smart Chain', chainId: 56 },
      { mode: 'live', checks: expect.any(Number) },
    ]);
    expect(live.body.data[2].params.checks).toBeGreaterThan(0);
    // Test mode has no network here: no payout address is wanted.
    expect(await codes(s.cookie, 'test')).toEqual(['no_webhook_url', 'not_ready']);
    await call('/api/v1/payout_address', {
      method: 'PUT',
      cookie: s.cookie,
      csrf: s.csrf,
      headers: { 'x-mode': 'live' },
      body: { chain_id: 56, address: '0x52908400098527886E0F7030069857D2E4169EE7' },
    });
    // In live mode the chain's first address waits the operator's delay: payments there are refused until then, so the warning stays.
    expect(await codes(s.cookie, 'live')).toEqual(['no_webhook_url', 'no_payout_address', 'not_ready']);
    expect((await call('/api/v1/account/warnings')).status).toBe(401);
  });

  it('a webhook endpoint answering 500 is a warning until a delivery succeeds again', async () => {
    const worked = await startService({
      adminToken: ADMIN,
      publicUrl: PUBLIC_URL,
      loopbackWebhooks: true,
      webhookRetryMs: 60_000,
      signInsPerClient: 10_000,
      ...cheapPasswords,
    });
    try {
      const m = await merchant('Failing Hook Shop', worked);
      const s = await setPassword(m, worked);
      const as = { cookie: s.cookie, csrf: s.csrf, on: worked };
      const hook = await call('/api/v1/webhook', { cookie: s.cookie, on: worked });
      const receiver = await startReceiver(hook.body.data.secret, 500);
      try {
        expect((await call('/api/v1/webhook', { method: 'PUT', ...as, body: { url: receiver.url } })).status).toBe(200);
        expect(await codes(s.cookie, 'test', worked)).toEqual([]);
        await call('/api/v1/transaction/initialize', {
          method: 'POST',
          bearer: m.keys.test.secretKey,
          body: { reference: 'hook-1', coin: 'USDT', currency: 'USD', amount: 5, customer_email: 'ada@example.com' },
          on: worked,
        });
        await call('/api/v1/sandbox/deposit', { method: 'POST', bearer: m.keys.test.secretKey, body: { reference: 'hook-1', kind: 'exact' }, on: worked });
        const until = async (want: string[]) => {
          for (let i = 0; i < 200 && JSON.stringify(await codes(s.cookie, 'test', worked)) !== JSON.stringify(want); i++)
            await new Promise((r) => setTimeout(r, 50));
          expect(await codes(s.cookie, 'test', worked)).toEqual(want);
        };
        await until(['webhook_failing']);
        const warning = (await call('/api/v1/account/warnings', { cookie: s.cookie, on: worked })).body.data[0];
        expect(warning.message).toMatch(/^Your webhook endpoint answered 500 at /);
        expect(warning.params).toEqual({ mode: 'test', status: 500, at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
        expect(warning.message).toContain(warning.params.at);
        expect(warning.message).not.toContain(hook.body.data.secret);
        receiver.status = 200;
        const events = await call('/api/v1/events', { cookie: s.cookie, on: worked });
        expect((await call(`/api/v1/events/${events.body.data[0].id}/resend`, { method: 'POST', ...as })).status).toBe(202);
        await until([]);
      } finally {
        await receiver.close();
      }
    } finally {
      await worked.close();
    }
  });
});

describe("the events screen's feed", { timeout: 60_000 }, () => {
  it('after=recent answers the limit newest events, oldest first, with next as the cursor to follow', async () => {
    const m = await merchant('Recent Shop');
    const s = await setPassword(m);
    expect((await call('/api/v1/events?after=recent&limit=2', { cookie: s.cookie })).body).toMatchObject({
      data: [],
      next: expect.any(String),
      has_more: false,
    });
    for (const reference of ['ev-1', 'ev-2', 'ev-3']) {
      await call('/api/v1/transaction/initialize', {
        method: 'POST',
        bearer: m.keys.test.secretKey,
        body: { reference, coin: 'USDT', currency: 'USD', amount: 5, customer_email: 'ada@example.com' },
      });
      await call('/api/v1/sandbox/deposit', { method: 'POST', bearer: m.keys.test.secretKey, body: { reference, kind: 'exact' } });
    }
    // Another merchant's events between them change nothing.
    const other = await merchant('Other Recent Shop');
    await call('/api/v1/transaction/initialize', {
      method: 'POST',
      bearer: other.keys.test.secretKey,
      body: { reference: 'ev-x', coin: 'USDT', currency: 'USD', amount: 5, customer_email: 'ada@example.com' },
    });
    await call('/api/v1/sandbox/deposit', { method: 'POST', bearer: other.keys.test.secretKey, body: { reference: 'ev-x', kind: 'exact' } });
    const recent = await call('/api/v1/events?after=recent&limit=2', { cookie: s.cookie });
    expect(recent.status).toBe(200);
    expect(recent.body.data.map((e: { payload: { data: { reference: string } } }) => e.payload.data.reference)).toEqual(['ev-2', 'ev-3']);
    const all = await call('/api/v1/events?after=recent&limit=50', { cookie: s.cookie });
    expect(all.body.data.map((e: { payload: { data: { reference: string } } }) => e.payload.data.reference)).toEqual(['ev-1', 'ev-2', 'ev-3']);
    expect(recent.body.next).toBe(all.body.next);
    expect((await call('/api/v1/events?after=soon', { cookie: s.cookie })).body.errors[0].field).toBe('after');

    // Paging back from the oldest shown: the events before it, this merchant's only, oldest first.
    const refs = (answer: { body: { data: Array<{ payload: { data: { reference: string } } }> } }) => answer.body.data.map((e) => e.payload.data.reference);
    const back = await call(`/api/v1/events?before=${recent.body.data[0].seq}&limit=2`, { cookie: s.cookie });
    expect(back.status).toBe(200);
    expect(refs(back)).toEqual(['ev-1']);
    expect(refs(await call(`/api/v1/events?before=${all.body.data[2].seq}&limit=50`, { cookie: s.cookie }))).toEqual(['ev-1', 'ev-2']);
    expect(refs(await call(`/api/v1/events?before=${back.body.data[0].seq}`, { cookie: s.cookie }))).toEqual([]);
    // The other merchant's event is never in this merchant's pages, and is numbered in its own feed (no gap counts it here).
    const theirs = await call('/api/v1/events?after=recent&limit=1', { bearer: other.keys.test.secretKey });
    expect(theirs.body.data.map((e: { seq: number }) => e.seq)).toEqual([1]);
    expect(refs(await call(`/api/v1/events?before=${all.body.data[2].seq + 1}&limit=50`, { cookie: s.cookie }))).toEqual(['ev-1', 'ev-2', 'ev-3']);
    for (const bad of ['before=0', 'before=x', 'before=5&after=latest', 'before=5&wait=1']) {
      const refused = await call(`/api/v1/events?${bad}`, { cookie: s.cookie });
      expect(refused.status, bad).toBe(400);
      expect(refused.body.errors[0].field, bad).toBe('before');
    }
  });
});

describe('payment links from the dashboard', { timeout: 60_000 }, () => {
  it('makes a standard link with a charge, a cart of its own price, and a donation with a cover photo; toggles one; draws its QR', async () => {
    const m = await merchant('Links Shop');
    const s = await setPassword(m);
    const as = { cookie: s.cookie, csrf: s.csrf };
    const charge = await call('/api/v1/payment_links/standard', { method: 'POST', ...as, body: { title: 'Tasting', charge: { amount: 20, currency: 'USD' } } });
    expect(charge.status, JSON.stringify(charge.body)).toBe(201);
    clock += 1000;
    const product = await call('/api/v1/products', { method: 'POST', ...as, body: { name: 'Sencha', prices: [{ currency: 'USD', amount: '7.25' }] } });
    const cart = await call('/api/v1/payment_links/standard', {
      method: 'POST',
      ...as,
      body: { title: 'Sencha box', cart: [{ price_id: product.body.data.prices[0].id, quantity: 2 }] },
    });
    expect(cart.status, JSON.stringify(cart.body)).toBe(201);
    clock += 1000;
    const form = file('cover_photo', PNG, 'image/png');
    form.set('title', 'Harbour clean-up');
    form.set('description', 'Every coin buys a bin bag');
    const donation = await call('/api/v1/payment_links/donation', { method: 'POST', ...as, form });
    expect(donation.status, JSON.stringify(donation.body)).toBe(201);
    expect(donation.body.data.image).toMatch(/\/files\/[0-9a-f-]{36}$/);
    // A donation's cover that is HTML is refused, as the logo is.
    const evil = file('cover_photo', HTML, 'image/png');
    evil.set('title', 'Evil');
    expect((await call('/api/v1/payment_links/donation', { method: 'POST', ...as, form: evil })).body.errors[0].field).toBe('cover_photo');

    const list = await call('/api/v1/payment_links?page_size=100', { cookie: s.cookie });
    expect(list.status).toBe(200);
    expect(list.body.data.map((l: { title: string }) => l.title)).toEqual(['Harbour clean-up', 'Sencha box', 'Tasting']);
    const tasting = list.body.data[2];
    expect((await call(`/api/v1/payment_links/${tasting.id}/status`, { method: 'PUT', ...as, body: { is_active: false } })).status).toBe(200);
    expect((await fetch(`${api.url}/pay/${tasting.slug}`)).status).toBe(410);
    expect((await call(`/api/v1/payment_links/${tasting.id}/status`, { method: 'PUT', ...as, body: { is_active: true } })).status).toBe(200);
    expect((await fetch(`${api.url}/pay/${tasting.slug}`)).status).toBe(200);

    const qr = await call(`/api/v1/payment_links/${tasting.id}/qr`, { cookie: s.cookie });
    expect(qr.status).toBe(200);
    expect(qr.body.data.uri).toBe(`${PUBLIC_URL}/pay/${tasting.slug}`);
    expect(qr.body.data.size).toBeGreaterThanOrEqual(21);
    expect(qr.body.data.path).toMatch(/^(M\d+ \d+h\d+v1h-\d+z)+$/);

    // Another merchant's session can neither see, toggle nor draw this merchant's links.
    const other = await setPassword(await merchant('Other Links Shop'));
    expect((await call('/api/v1/payment_links', { cookie: other.cookie })).body.data).toEqual([]);
    expect(
      (await call(`/api/v1/payment_links/${tasting.id}/status`, { method: 'PUT', cookie: other.cookie, csrf: other.csrf, body: { is_active: false } })).status,
    ).toBe(404);
    expect((await call(`/api/v1/payment_links/${tasting.id}/qr`, { cookie: other.cookie })).status).toBe(404);
    // Without the CSRF token: refused, and nothing made.
    expect(
      (await call('/api/v1/payment_links/standard', { method: 'POST', cookie: s.cookie, body: { title: 'Forged', charge: { amount: 1, currency: 'USD' } } }))
        .status,
    ).toBe(403);
    expect((await call('/api/v1/payment_links?page_size=100', { cookie: s.cookie })).body.data).toHaveLength(3);
  });
});

describe('rolling a secret key with the old one kept for a while', { timeout: 60_000 }, () => {
  it("the old key works until the delay runs out on the service's clock, and is refused from then; the new one works throughout", async () => {
    const m = await merchant('Delay Shop');
    const s = await setPassword(m);
    const old = m.keys.test.secretKey;
    const tooLong = await call('/api/v1/keys/roll', { method: 'POST', cookie: s.cookie, csrf: s.csrf, body: { revoke_old_after: 604_801 } });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.errors[0].field).toBe('revoke_old_after');
    expect((await call('/api/v1/payments', { bearer: old })).status).toBe(200);

    const rolled = await call('/api/v1/keys/roll', { method: 'POST', cookie: s.cookie, csrf: s.csrf, body: { revoke_old_after: 3600 } });
    expect(rolled.status).toBe(201);
    expect(rolled.body.data.oldKeyValidUntil).toBe(new Date(clock + 3_600_000).toISOString());
    const fresh = rolled.body.data.secretKey as string;
    clock += 3_600_000 - 1;
    expect((await call('/api/v1/payments', { bearer: old })).status).toBe(200);
    expect((await call('/api/v1/payments', { bearer: fresh })).status).toBe(200);
    clock += 1;
    const refused = await call('/api/v1/payments', { bearer: old });
    expect(refused.status).toBe(401);
    expect(refused.body.message).toBe('Unknown secret key');
    expect((await call('/api/v1/payments', { bearer: fresh })).status).toBe(200);
    // The live key was never touched.
    expect((await call('/api/v1/payments', { bearer: m.keys.live.secretKey })).status).toBe(200);
  });

  it('a roll "now" after a delayed one refuses every earlier key at once; a later delayed roll never extends an earlier end', async () => {
    const m = await merchant('Twice Shop');
    const first = await call('/api/v1/keys/roll', { method: 'POST', bearer: m.keys.test.secretKey, body: { revoke_old_after: 600 } });
    const second = await call('/api/v1/keys/roll', { method: 'POST', bearer: first.body.data.secretKey, body: { revoke_old_after: 86_400 } });
    expect(second.status).toBe(201);
    clock += 600_000;
    // The original key's ten minutes were not stretched to a day by the second roll.
    expect((await call('/api/v1/payments', { bearer: m.keys.test.secretKey })).status).toBe(401);
    expect((await call('/api/v1/payments', { bearer: first.body.data.secretKey })).status).toBe(200);
    // Without a body: now.
    const now = await call('/api/v1/keys/roll', { method: 'POST', bearer: second.body.data.secretKey });
    expect(now.status).toBe(201);
    expect(now.body.data.oldKeyValidUntil).toBeNull();
    for (const key of [first.body.data.secretKey, second.body.data.secretKey]) expect((await call('/api/v1/payments', { bearer: key })).status).toBe(401);
    expect((await call('/api/v1/payments', { bearer: now.body.data.secretKey })).status).toBe(200);
  });
});

describe('the e-mail lockout cannot be turned against the owner', { timeout: 180_000 }, () => {
  let proxied: Service;
  let proxiedClock = Date.parse('2026-03-02T10:00:00Z');
  beforeAll(async () => {
    // Behind one proxy: the client is the address in X-Forwarded-For.
    // The e-mail-wide ceiling is 100 in service; 12 here, so that the test makes 12 scrypt checks, not 100.
    proxied = await startService({
      adminToken: ADMIN,
      publicUrl: PUBLIC_URL,
      now: () => proxiedClock,
      jobs: false,
      trustProxies: 1,
      accountLockoutFailures: 12,
      ...cheapPasswords,
    });
  });
  afterAll(() => proxied?.close());
  const signIn = (from: string, email: string, password: string) =>
    call('/dashboard/api/session', { method: 'POST', body: { email, password }, headers: { 'x-forwarded-for': from }, on: proxied });

  it("a stranger failing twenty times on the owner's e-mail locks only their own address; the owner signs in from theirs", async () => {
    const m = await merchant('Owner Shop', proxied);
    await setPassword(m, proxied);
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) {
      statuses.push((await signIn('203.0.113.7', m.email, `guess ${i}`)).status);
      proxiedClock += 70_000;
    }
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(statuses.slice(10)).toContain(429);
    // The stranger, even with the right password, is refused now…
    expect((await signIn('203.0.113.7', m.email, 'correct horse battery')).status).toBe(429);
    // …and the owner, from another address, is not.
    expect((await signIn('198.51.100.20', m.email, 'correct horse battery')).status).toBe(200);
    // An hour on, the stranger's count is forgotten, and its row is gone with the next failure anywhere.
    proxiedClock += 60 * 60_000;
    expect((await signIn('198.51.100.21', 'nobody@example.com', 'guess')).status).toBe(401);
    expect(await proxied.db.query('SELECT client FROM sign_in_failures WHERE email = $1', [m.email])).toEqual([]);
    expect((await signIn('203.0.113.7', m.email, 'correct horse battery')).status).toBe(200);
  });

  it("many addresses guessing together slow every guessing address down, and never refuse the owner's right password from an address with no failures", async () => {
    const m = await merchant('Swarm Shop', proxied);
    await setPassword(m, proxied);
    // Four addresses, three guesses each (each address's free ones): twelve wrong passwords in an hour.
    for (let a = 0; a < 4; a++) for (let i = 0; i < 3; i++) expect((await signIn(`192.0.2.${a + 1}`, m.email, `swarm ${a}.${i}`)).status).toBe(401);
    // Past the e-mail's ceiling, every address that guessed waits (a back-off, not a lock of the e-mail)…
    const waiting = await signIn('192.0.2.1', m.email, 'correct horse battery');
    expect(waiting.status).toBe(429);
    expect(Number(waiting.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(waiting.headers.get('retry-after'))).toBeLessThanOrEqual(15 * 60);
    // …a fifth address gets its one wrong answer, then waits too…
    expect((await signIn('192.0.2.99', m.email, 'swarm 5')).status).toBe(401);
    expect((await signIn('192.0.2.99', m.email, 'swarm 6')).status).toBe(429);
    // …and the owner, from an address with no failures, signs in with the right password, again and again.
    for (let i = 0; i < 3; i++) expect((await signIn('198.51.100.30', m.email, 'correct horse battery')).status).toBe(200);
  });

  it('runs at most two password hashes (32 MiB of scrypt each) at once, however many sign-ins arrive together', async () => {
    // At the service's default cost, as in production: hashes of the tests' cost may end before the next begins.
    const busy = await startService({ adminToken: ADMIN, publicUrl: PUBLIC_URL, jobs: false, trustProxies: 1 });
    try {
      const m = await merchant('Busy Shop', busy);
      await setPassword(m, busy);
      hashing.peak = 0;
      const answers = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          call('/dashboard/api/session', {
            method: 'POST',
            body: { email: m.email, password: `busy ${i}` },
            headers: { 'x-forwarded-for': `192.0.3.${i + 1}` },
            on: busy,
          }),
        ),
      );
      expect(answers.map((a) => a.status)).toEqual(Array(8).fill(401));
      expect(hashing.peak).toBe(MAX_CONCURRENT_HASHES);
      expect(MAX_CONCURRENT_HASHES).toBe(2);
    } finally {
      await busy.close();
    }
  });

  it('an unknown e-mail is checked against a written-out hash at the cost of a real one: raising SCRYPT without writing it anew fails here', async () => {
    const cost = settings({}).passwordHashCost;
    expect(NOBODY.split('$').slice(0, 4)).toEqual(['scrypt', String(2 ** cost), String(SCRYPT.r), String(SCRYPT.p)]);
    expect(Buffer.from(NOBODY.split('$')[5]!, 'base64url')).toHaveLength(SCRYPT.keyLength);
    expect(await passwordMatches('', NOBODY)).toBe(false);
  });
});

describe("the password hash's cost (passwordHashCost)", () => {
  it('is 2^15 by default, never lower from the environment, and a stored hash is checked at its own cost', async () => {
    // Production's hash, as `npm start` makes it: N = 2^15, r = 8, p = 3.
    const cost = settings({}).passwordHashCost;
    expect(cost).toBe(15);
    expect(configFromEnv({}).passwordHashCost).toBe(15);
    expect(await hashPassword('correct horse battery', cost)).toMatch(/^scrypt\$32768\$8\$3\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    // The environment may raise it, not lower it; code (the tests) may lower it to 2^10, no further.
    expect(configFromEnv({ PASSWORD_HASH_COST: '17' }).passwordHashCost).toBe(17);
    expect(() => configFromEnv({ PASSWORD_HASH_COST: '14' })).toThrow('PASSWORD_HASH_COST: expected a whole number from 15 to 17, received "14"');
    expect(() => settings({ passwordHashCost: 9 })).toThrow(/^startService: passwordHashCost: .*at least 10/);
    expect(() => settings({ passwordHashCost: 18 })).toThrow(/^startService: passwordHashCost: .*at most 17/);
    await expect(hashPassword('correct horse battery', 9)).rejects.toThrow(/cost 9/);
    // A hash made at one cost is checked at that cost, whatever the setting is now.
    const cheap = await hashPassword('correct horse battery', 10);
    expect(cheap).toMatch(/^scrypt\$1024\$8\$3\$/);
    expect(await passwordMatches('correct horse battery', cheap)).toBe(true);
    expect(await passwordMatches('correct horse batterY', cheap)).toBe(false);
  });
});
