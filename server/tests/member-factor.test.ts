// Issue 48 review (6): "behind a step-up" passed for a member with no second factor at all, so
// an admin who never enrolled one set live mode's support refund limit and switched live
// settlement to the operator's balance with nothing more than a password.
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type Service } from '../app.ts';
import { cheapPasswords } from '../testing/passwords.ts';
import { databaseOptions, KINDS } from '../testing/databases.ts';

const ADMIN = 'op_member_factor_test_token_0123456789abcdef012345';
const PASSWORD = 'correct horse battery';

describe.each(KINDS)('live money settings need a member\'s second factor, on %s', { timeout: 120_000 }, (kind) => {
  let api: Service;
  let clock = Date.UTC(2026, 11, 6, 9, 0, 0);
  let owner: { cookie: string; csrf: string };
  type Call = { method?: string; body?: unknown; cookie?: string; csrf?: string; mode?: string; bearer?: string };
  async function call(path: string, c: Call = {}) {
    const headers: Record<string, string> = { origin: api.url };
    if (c.body !== undefined) headers['content-type'] = 'application/json';
    if (c.cookie) headers.cookie = c.cookie;
    if (c.csrf) headers['x-csrf-token'] = c.csrf;
    if (c.mode) headers['x-mode'] = c.mode;
    if (c.bearer) headers.authorization = `Bearer ${c.bearer}`;
    const r = await fetch(api.url + path, { method: c.method ?? 'GET', headers, body: c.body === undefined ? undefined : JSON.stringify(c.body) });
    const text = await r.text();
    return { status: r.status, body: text ? JSON.parse(text) : undefined, headers: r.headers };
  }
  const session = (a: any) => ({ cookie: a.headers.get('set-cookie')!.split(';')[0]!, csrf: a.body.data.csrfToken });
  const as = (s: { cookie: string; csrf: string }, c: Call = {}) => ({ ...c, cookie: s.cookie, csrf: s.csrf });

  beforeAll(async () => {
    api = await startService({ adminToken: ADMIN, jobs: false, signInsPerClient: 10_000, now: () => clock, ...(await databaseOptions(kind)), ...cheapPasswords });
    const made = await call('/operator/v1/merchants', { method: 'POST', bearer: ADMIN, body: { name: 'Victim Goods', email: 'owner@victim.example' } });
    const token = new URL(made.body.data.signInUrl).hash.replace(/^#token=/, '');
    owner = session(await call('/dashboard/api/password', { method: 'POST', body: { token, password: PASSWORD } }));
  });
  afterAll(async () => {
    await api?.close();
  });

  it('an admin without a second factor is refused in live mode until they add one and confirm it; test mode and the owner as before', async () => {
    const invited = await call('/api/v1/members/invitations', as(owner, { method: 'POST', body: { email: 'adm@victim.example', role: 'admin' } }));
    const token = /#invitation=([\w-]+)/.exec(invited.body.data.link)![1];
    const admin = session(await call('/dashboard/api/invitation', { method: 'POST', body: { token, email: 'adm@victim.example', password: PASSWORD } }));
    const limit = () => call('/api/v1/refunds/support_limit', as(admin, { method: 'PUT', mode: 'live', body: { daily: '1000000' } }));
    const settle = () => call('/api/v1/settlement', as(admin, { method: 'PUT', mode: 'live', body: { settlement: 'balance' } }));
    for (const refused of [await limit(), await settle()]) {
      expect(refused.status).toBe(403);
      expect(refused.body.code).toBe('step_up_required');
      expect(refused.body.message).toContain('add a passkey or an authenticator app');
    }
    // Test mode asks for no step-up, as before.
    expect((await call('/api/v1/refunds/support_limit', as(admin, { method: 'PUT', body: { daily: '5' } }))).status).toBe(200);
    // The owner without a factor sets live mode's limit, as before (the owner's own choice).
    expect((await call('/api/v1/refunds/support_limit', as(owner, { method: 'PUT', mode: 'live', body: { daily: '7' } }))).status).toBe(200);
    // Enrolled but not confirmed lately: the step-up is asked; confirmed: it goes through.
    const secret = (await call('/dashboard/api/factors/totp/options', as(admin, { method: 'POST' }))).body.data.secret as string;
    const code = () => new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({ timestamp: clock });
    expect((await call('/dashboard/api/factors/totp', as(admin, { method: 'POST', body: { code: code() } }))).status).toBe(201);
    clock += 10 * 60_000;
    const stale = await limit();
    expect(stale.status).toBe(403);
    expect(stale.body.code).toBe('step_up_required');
    expect((await call('/dashboard/api/step-up', as(admin, { method: 'POST', body: { code: code() } }))).status).toBe(200);
    expect((await limit()).status).toBe(200);
    expect((await settle()).body.code).not.toBe('step_up_required');
  });
});
