// A team's keys over HTTP on PGlite and PostgreSQL: each restricted key belongs to the
// person who made it (or whose key made it); removing that member revokes their keys at once
// (here and, on PostgreSQL, on another instance), demoting them narrows their keys to the new
// role; each change is an audit row and an e-mail to the owner (and the member). Only the
// owner, an admin just stepped up or the full key itself rolls the full secret key: never a
// restricted key, even one made with every permission.
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { holdAnswersToOpenApi } from '../../testing/conformance.ts';
import { startService, type Service } from '../../service/app.ts';
import { cheapPasswords } from '../../testing/passwords.ts';
import { databaseOptions, KINDS } from '../../testing/databases.ts';
import { businessWithOwner, callApi, sessionOf, type Call as ApiCall } from '../../testing/api-calls.ts';

holdAnswersToOpenApi();

const ADMIN = 'op_teamkeys_test_token_0123456789abcdef01234567';
const PASSWORD = 'correct horse battery';
const PERMISSIONS = [
  'payments.read',
  'payments.write',
  'refunds.write',
  'balances.read',
  'balances.write',
  'payouts.read',
  'payouts.write',
  'developers.read',
  'developers.write',
  'account.read',
  'account.write',
  'team.read',
  'team.write',
  'audit.read',
];

describe.each(KINDS)("a team's keys on %s", { timeout: 120_000 }, (kind) => {
  let api: Service;
  let other: Service | undefined;
  let clock = Date.UTC(2026, 11, 6, 9, 0, 0);
  let owner: { cookie: string; csrf: string };
  let merchant: { id: string; keys: { test: { secretKey: string } } };

  type Call = ApiCall & { on?: Service };
  const call = (path: string, c: Call = {}) => callApi((c.on ?? api).url, path, c);
  const session = sessionOf;
  const as = (s: { cookie: string; csrf: string }, c: Call = {}) => ({ ...c, cookie: s.cookie, csrf: s.csrf });
  /** E-mails written to the outbox (the job is off: nothing is sent). */
  const outbox = async (kind: string) =>
    (await api.db.query('SELECT recipient, subject, text_body FROM emails WHERE kind = $1 ORDER BY created_ms', [kind])).map((r) => ({
      to: r.recipient as string,
      subject: r.subject as string,
      text: r.text_body as string,
    }));

  /** The owner invites `email` as `role` (the link read from the outbox), who joins and signs in. */
  async function join(email: string, role: string) {
    const made = await call('/api/v1/members/invitations', as(owner, { method: 'POST', body: { email, role } }));
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const mail = (await outbox('invitation')).filter((m) => m.to === email).at(-1)!;
    const token = /#invitation=([\w-]+)/.exec(mail.text)![1];
    const joined = await call('/dashboard/api/invitation', { method: 'POST', body: { token, email, password: PASSWORD } });
    expect(joined.status, JSON.stringify(joined.body)).toBe(200);
    const members = await call('/api/v1/members', as(owner));
    return { ...session(joined), id: members.body.data.find((m: { email: string }) => m.email === email).id as string };
  }
  const makeKey = (who: Call, name: string, permissions: string[]) => call('/api/v1/keys/restricted', { ...who, method: 'POST', body: { name, permissions } });

  beforeAll(async () => {
    const database = await databaseOptions(kind);
    // E-mail on (an address nothing listens on) with the jobs off: e-mails wait in the outbox, to be read.
    const options = {
      adminToken: ADMIN,
      jobs: false,
      signInsPerClient: 10_000,
      smtpUrl: 'smtp://127.0.0.1:9',
      now: () => clock,
      ...database,
      ...cheapPasswords,
    };
    api = await startService(options);
    if (kind === 'postgres') other = await startService(options);
    const { made, owner: signedIn } = await businessWithOwner(api.url, ADMIN, { name: 'Keyed Goods', email: 'owner@keyed.example' }, PASSWORD);
    expect(made.status).toBe(201);
    merchant = made.body.data;
    owner = signedIn;
  });
  afterAll(async () => {
    await other?.close();
    await api?.close();
  });

  it("a removed admin's keys stop at once, and no restricted key rolls the full secret key", async () => {
    const admin = await join('adm@keyed.example', 'admin');
    const made = await makeKey(as(admin), 'everything', PERMISSIONS);
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const key = made.body.data.secretKey as string;
    // A key that key made is the admin's too.
    const child = (await makeKey({ bearer: key }, 'child', ['payments.read'])).body.data.secretKey as string;
    expect((await call('/api/v1/account', { bearer: key })).status).toBe(200);
    if (other) expect((await call('/api/v1/account', { bearer: key, on: other })).status).toBe(200);
    // Even with every permission, a restricted key does not roll the business's own key.
    const rolled = await call('/api/v1/keys/roll', { method: 'POST', bearer: key });
    expect(rolled.status, JSON.stringify(rolled.body)).toBe(403);
    expect(rolled.body.code).toBe('permission_denied');
    expect((await call('/api/v1/account', { bearer: merchant.keys.test.secretKey })).status).toBe(200);
    // An admin without a second factor just proved does not roll it either.
    expect((await call('/api/v1/keys/roll', as(admin, { method: 'POST' }))).body.code).toBe('step_up_required');

    expect((await call(`/api/v1/members/${admin.id}`, as(owner, { method: 'DELETE' }))).status).toBe(200);
    expect((await call('/api/v1/account', as(admin))).status).toBe(401);
    expect((await call('/api/v1/account', { bearer: key })).status).toBe(401);
    expect((await call('/api/v1/account', { bearer: child })).status).toBe(401);
    if (other) {
      const deadline = Date.now() + 5_000;
      let status = 200;
      while (status !== 401 && Date.now() < deadline) status = (await call('/api/v1/account', { bearer: key, on: other })).status;
      expect(status).toBe(401);
    }
    expect((await call('/api/v1/account', { bearer: merchant.keys.test.secretKey })).status).toBe(200);
    // Written in the log, by whoever removed the member, and told to the owner and the removed person.
    const log = (await call('/api/v1/audit_log?limit=100', as(owner))).body.data as Array<{ action: string; target: string; actor: { kind: string } }>;
    const revoked = log.filter((e) => e.action === 'revoke restricted key (member removed)').map((e) => e.target);
    expect(revoked).toHaveLength(2);
    expect(revoked).toContain(made.body.data.id);
    expect(log.find((e) => e.action === 'revoke restricted key (member removed)')?.actor.kind).toBe('owner');
    const told = (await outbox('security_changed')).filter((m) => m.text.includes('A member was removed'));
    expect(told.map((m) => m.to).sort()).toEqual(['adm@keyed.example', 'owner@keyed.example']);
    expect(told[0].text).toContain('everything (test)');
    expect(told[0].text).not.toContain(key);
  });

  it("a demoted member's keys are narrowed to the new role", async () => {
    const dev = await join('dev@keyed.example', 'developer');
    const made = await makeKey(as(dev), 'deploys', ['developers.read', 'developers.write', 'payments.read']);
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const key = made.body.data.secretKey as string;
    expect((await call('/api/v1/webhook', { bearer: key })).status).toBe(200);
    const only = await makeKey(as(dev), 'hooks', ['developers.write']);
    expect((await call(`/api/v1/members/${dev.id}`, as(owner, { method: 'PATCH', body: { role: 'viewer' } }))).status).toBe(200);
    expect((await call('/api/v1/webhook', { bearer: key })).status).toBe(403);
    expect((await call('/api/v1/payments', { bearer: key })).status).toBe(200);
    // A key left with nothing its person may do is revoked.
    expect((await call('/api/v1/payments', { bearer: only.body.data.secretKey })).status).toBe(401);
    const listed = (await call('/api/v1/keys/restricted', as(owner))).body.data as Array<{ id: string; permissions: string[] }>;
    expect(listed.find((k) => k.id === made.body.data.id)?.permissions).toEqual(['payments.read']);
    expect(listed.find((k) => k.id === only.body.data.id)).toBeUndefined();
    const log = (await call('/api/v1/audit_log?limit=100', as(owner))).body.data as Array<{
      action: string;
      target: string;
      details: { values?: { permissions?: string[] } };
    }>;
    expect(log.find((e) => e.action === "narrow restricted key (member's role changed)")).toMatchObject({
      target: made.body.data.id,
      details: { values: { permissions: ['payments.read'] } },
    });
    expect(
      (await outbox('security_changed'))
        .filter((m) => m.text.includes('role was changed') && m.text.includes('deploys'))
        .map((m) => m.to)
        .sort(),
    ).toEqual(['dev@keyed.example', 'owner@keyed.example']);
  });

  it('an admin rolls the full key only just stepped up; the owner and the full key itself may', async () => {
    const admin = await join('adm2@keyed.example', 'admin');
    const started = await call('/dashboard/api/factors/totp/options', as(admin, { method: 'POST' }));
    const secret = started.body.data.secret as string;
    const code = (steps = 0) =>
      new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({ timestamp: clock + steps * 30_000 });
    expect((await call('/dashboard/api/factors/totp', as(admin, { method: 'POST', body: { code: code() } }))).status).toBe(201);
    clock += 6 * 60_000;
    expect((await call('/api/v1/keys/roll', as(admin, { method: 'POST' }))).body.code).toBe('step_up_required');
    // Live mode's support refund limit is a live money setting: stepped up (test mode's is not).
    expect((await call('/api/v1/refunds/support_limit', as(admin, { method: 'PUT', mode: 'live', body: { daily: '1000000' } }))).body.code).toBe(
      'step_up_required',
    );
    expect((await call('/api/v1/refunds/support_limit', as(admin, { method: 'PUT', mode: 'test', body: { daily: '1000000' } }))).status).toBe(200);
    // So is switching live settlement (where live money goes, and whether the treasury holds it).
    expect((await call('/api/v1/settlement', as(admin, { method: 'PUT', mode: 'live', body: { settlement: 'balance' } }))).body.code).toBe('step_up_required');
    // Each stepped up for itself: the roll (test mode), then live mode's limit.
    expect(
      (await call('/dashboard/api/step-up', as(admin, { method: 'POST', body: { code: code(), for: { method: 'POST', path: '/api/v1/keys/roll' } } }))).status,
    ).toBe(200);
    const byAdmin = await call('/api/v1/keys/roll', as(admin, { method: 'POST' }));
    expect(byAdmin.status, JSON.stringify(byAdmin.body)).toBe(201);
    expect((await call('/api/v1/refunds/support_limit', as(admin, { method: 'PUT', mode: 'live', body: { daily: '250' } }))).body.code).toBe(
      'step_up_required',
    );
    clock += 60_000;
    expect(
      (
        await call(
          '/dashboard/api/step-up',
          as(admin, {
            method: 'POST',
            mode: 'live',
            body: { code: code(), for: { method: 'PUT', path: '/api/v1/refunds/support_limit', body: { daily: '250' } } },
          }),
        )
      ).status,
    ).toBe(200);
    expect((await call('/api/v1/refunds/support_limit', as(admin, { method: 'PUT', mode: 'live', body: { daily: '250' } }))).body.data).toEqual({
      daily: '250.00',
    });
    expect(
      (await outbox('security_changed')).filter((m) => m.text.includes('refund limit')).map((m) => m.text.match(/(test|live) mode: [\d.]+ USD/)?.[0]),
    ).toEqual(expect.arrayContaining(['test mode: 1000000.00 USD', 'live mode: 250.00 USD']));
    const byKey = await call('/api/v1/keys/roll', { method: 'POST', bearer: byAdmin.body.data.secretKey });
    expect(byKey.status).toBe(201);
    expect((await call('/api/v1/keys/roll', as(owner, { method: 'POST' }))).status).toBe(201);
    expect(
      (await outbox('security_changed')).filter((m) => m.subject.includes('Keyed Goods') && m.text.includes('secret key was rolled')).length,
    ).toBeGreaterThanOrEqual(3);
  });

  it('invitations are capped per business an hour (429 naming the limit)', async () => {
    const before = Number(
      (await api.db.query(`SELECT count(*)::int AS n FROM audit_log WHERE merchant_id = $1 AND action = 'POST /api/v1/members/invitations'`, [merchant.id]))[0]!
        .n,
    );
    const statuses: number[] = [];
    let refused: { status: number; body: { code: string; message: string }; headers: Headers } | undefined;
    for (let i = 0; i < 25 - before; i++) {
      const answer = await call('/api/v1/members/invitations', as(owner, { method: 'POST', body: { email: `many-${i}@keyed.example`, role: 'viewer' } }));
      statuses.push(answer.status);
      if (answer.status !== 201) refused ??= answer;
    }
    expect(statuses.filter((s) => s === 201)).toHaveLength(20 - before);
    expect(statuses.slice(20 - before).every((s) => s === 429)).toBe(true);
    expect(refused!.body.code).toBe('rate_limited');
    expect(refused!.body.message).toContain('At most 20 invitations an hour');
    expect(Number(refused!.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await outbox('invitation')).length).toBe(20);
    // An hour on, the business invites again.
    clock += 3_600_000;
    expect((await call('/api/v1/members/invitations', as(owner, { method: 'POST', body: { email: 'later@keyed.example', role: 'viewer' } }))).status).toBe(201);
  });

  it("a business name with a link or a control character is refused naming its field (it is every e-mail's sender)", async () => {
    for (const name of [
      'Keyed: your account is locked, sign in at https://evil.example',
      'Keyed www.evil.example',
      'Keyed evil.example/login',
      'Keyed\nSecurity team',
      'Keyed\u202etxt.exe',
    ]) {
      const renamed = await call('/api/v1/account', as(owner, { method: 'PATCH', body: { business_name: name } }));
      expect(renamed.status, name).toBe(400);
      expect(renamed.body.errors).toEqual([expect.objectContaining({ field: 'business_name' })]);
    }
    expect((await call('/api/v1/account', as(owner, { method: 'PATCH', body: { business_name: 'Keyed Goods & Co. (Lyon)' } }))).status).toBe(200);
    const made = await call('/operator/v1/merchants', {
      method: 'POST',
      bearer: ADMIN,
      body: { name: 'Shop at https://evil.example', email: 'x@evil.example' },
    });
    expect(made.status).toBe(400);
    expect(made.body.errors).toEqual([expect.objectContaining({ field: 'name' })]);
  });

  it('audit log ids and cursors are opaque: they do not count the writes of other merchants', async () => {
    const other = await call('/operator/v1/merchants', { method: 'POST', bearer: ADMIN, body: { name: 'Neighbour Shop', email: 'owner@neighbour.example' } });
    const theirKey = other.body.data.keys.test.secretKey as string;
    const mine = async (name: string) => (await makeKey(as(owner), name, ['payments.read'])).body.data.id as string;
    await mine('before');
    // The other merchant writes five times in between.
    for (let i = 0; i < 5; i++) expect((await makeKey({ bearer: theirKey }, `theirs-${i}`, ['payments.read'])).status).toBe(201);
    await mine('after');
    const page = await call('/api/v1/audit_log?action=POST%20/api/v1/keys/restricted&limit=1', as(owner));
    const [newest] = page.body.data as Array<{ id: unknown }>;
    expect(newest.id).toEqual(expect.stringMatching(/^[A-Za-z0-9_-]{22}$/));
    const next = await call(`/api/v1/audit_log?action=POST%20/api/v1/keys/restricted&limit=1&cursor=${page.body.next}`, as(owner));
    const [older] = next.body.data as Array<{ id: unknown }>;
    expect(older.id).toEqual(expect.stringMatching(/^[A-Za-z0-9_-]{22}$/));
    expect(older.id).not.toBe(newest.id);
    // The cursor holds no number either, and one made up from a number is refused naming it.
    expect(Buffer.from(page.body.next, 'base64url').toString()).not.toMatch(/\d{2,}$/);
    const forged = await call(`/api/v1/audit_log?cursor=${Buffer.from('audit:1000000').toString('base64url')}`, as(owner));
    expect([forged.status, forged.body.errors?.[0].field]).toEqual([400, 'cursor']);
  });

  it('HSTS: served on https (PUBLIC_URL), every answer says to come back on https only; on plain http, none', async () => {
    expect((await fetch(`${api.url}/api/v1/openapi.json`)).headers.get('strict-transport-security')).toBeNull();
    const https = await startService({
      adminToken: ADMIN,
      jobs: false,
      publicUrl: 'https://pay.keyed.example',
      ...(await databaseOptions(kind)),
      ...cheapPasswords,
    });
    try {
      for (const path of ['/api/v1/openapi.json', '/dashboard', '/no-such-page'])
        expect((await fetch(`${https.url}${path}`)).headers.get('strict-transport-security'), path).toBe('max-age=31536000');
    } finally {
      await https.close();
    }
  });
});
