// Every security change told, over HTTP on PGlite and PostgreSQL: a restricted key made
// and revoked, a member's role changed and the member removed, the secret key rolled, the support
// refund limit set, a second factor added and removed, and step-up locked, each is an audit row, a
// SECURITY_CHANGED event (a key's in its mode's feed, a person's or the team's in both) and an
// e-mail to the owner and the person concerned, with no secret in it (no key, no code).
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../testing/conformance.ts';
import { startService, type Service } from '../../app.ts';
import { cheapPasswords } from '../../testing/passwords.ts';
import { databaseOptions, KINDS } from '../../testing/databases.ts';
import { businessWithOwner, callApi, sessionOf, type Call } from '../../testing/api-calls.ts';

const ADMIN = 'op_told_test_token_0123456789abcdef0123456789ab';
const PASSWORD = 'correct horse battery';

describe.each(KINDS)('security changes told on %s', { timeout: 180_000 }, (kind) => {
  let api: Service;
  let clock = Date.UTC(2026, 11, 6, 11, 0, 0);
  let owner: { cookie: string; csrf: string };
  let merchant: { id: string; keys: { test: { secretKey: string } } };

  const call = (path: string, c: Call = {}) => callApi(api.url, path, c);
  const as = (s: { cookie: string; csrf: string }, c: Call = {}) => ({ ...c, cookie: s.cookie, csrf: s.csrf });
  /** Every e-mail written to the outbox so far (the job is off: nothing is sent). */
  const outbox = async () =>
    (await api.db.query('SELECT kind, recipient, text_body, html_body FROM emails ORDER BY created_ms, id')).map((r) => ({
      kind: r.kind as string,
      to: r.recipient as string,
      text: r.text_body as string,
      html: r.html_body as string,
    }));
  /** The SECURITY_CHANGED events of a mode's feed, as the API lists them (checked against the contract). */
  async function told(mode: 'test' | 'live') {
    const feed = await call('/api/v1/events?limit=200', as(owner, { mode }));
    expect(feed.status, JSON.stringify(feed.body)).toBe(200);
    return (feed.body.data as Array<{ type: string; payload: { data: { change: string; detail: string; target: string | null; actor: { kind: string } } } }>)
      .filter((e) => e.type === 'SECURITY_CHANGED')
      .map((e) => e.payload.data);
  }
  const actions = async () =>
    (await api.db.query('SELECT action, mode FROM audit_log WHERE merchant_id = $1 ORDER BY id', [merchant.id])).map((r) => `${r.mode} ${r.action}`);

  beforeAll(async () => {
    const database = await databaseOptions(kind);
    api = await startService({
      adminToken: ADMIN,
      jobs: false,
      signInsPerClient: 10_000,
      smtpUrl: 'smtp://127.0.0.1:9',
      now: () => clock,
      ...database,
      ...cheapPasswords,
    });
    const { made, owner: signedIn } = await businessWithOwner(api.url, ADMIN, { name: 'Told Tea', email: 'owner@told.example' }, PASSWORD);
    merchant = made.body.data;
    owner = signedIn;
  });
  afterAll(async () => {
    await api?.close();
  });

  it('keys made, revoked and rolled, roles, removals and the support limit: each an audit row, an event and an e-mail to the owner and the person', async () => {
    const invited = await call('/api/v1/members/invitations', as(owner, { method: 'POST', body: { email: 'dev@told.example', role: 'admin' } }));
    expect(invited.status, JSON.stringify(invited.body)).toBe(201);
    const token = /#invitation=([\w-]+)/.exec((await outbox()).find((m) => m.kind === 'invitation' && m.to === 'dev@told.example')!.text)![1];
    const dev = sessionOf(await call('/dashboard/api/invitation', { method: 'POST', body: { token, email: 'dev@told.example', password: PASSWORD } }));
    const devId = ((await call('/api/v1/members', as(owner))).body.data as Array<{ id: string; email: string }>).find(
      (m) => m.email === 'dev@told.example',
    )!.id;

    const made = await call(
      '/api/v1/keys/restricted',
      as(dev, { method: 'POST', body: { name: 'deploys', permissions: ['payments.read', 'developers.read'] } }),
    );
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const secret = made.body.data.secretKey as string;
    expect((await call(`/api/v1/keys/restricted/${made.body.data.id}`, as(owner, { method: 'DELETE' }))).status).toBe(200);
    const rolled = await call('/api/v1/keys/roll', { method: 'POST', bearer: merchant.keys.test.secretKey });
    expect(rolled.status).toBe(201);
    expect((await call('/api/v1/refunds/support_limit', { method: 'PUT', bearer: rolled.body.data.secretKey, body: { daily: '75' } })).status).toBe(200);
    expect((await call(`/api/v1/members/${devId}`, as(owner, { method: 'PATCH', body: { role: 'finance' } }))).status).toBe(200);
    expect((await call(`/api/v1/members/${devId}`, as(owner, { method: 'DELETE' }))).status).toBe(200);

    // The events: a key's in its mode's feed only, the team's in both.
    const test = await told('test');
    expect(test.map((e) => e.change)).toEqual(['key_created', 'key_revoked', 'key_rolled', 'support_limit', 'role_changed', 'member_removed']);
    expect(test[0]).toMatchObject({ target: made.body.data.id, actor: { kind: 'member' } });
    expect(test[0]!.detail).toContain('deploys (test: developers.read, payments.read), by dev@told.example');
    expect(test[4]!.detail).toContain('dev@told.example is now finance');
    expect((await told('live')).map((e) => e.change)).toEqual(['role_changed', 'member_removed']);

    // Each is a row of the audit log.
    expect(await actions()).toEqual(
      expect.arrayContaining([
        'test POST /api/v1/keys/restricted',
        'test DELETE /api/v1/keys/restricted/:id',
        'test POST /api/v1/keys/roll',
        'test PUT /api/v1/refunds/support_limit',
        'test PATCH /api/v1/members/:id',
        'test DELETE /api/v1/members/:id',
      ]),
    );

    // The e-mails: the owner each time; the member for their key made and revoked, their role and their removal.
    const mails = (await outbox()).filter((m) => m.kind === 'security_changed');
    const to = (words: string) =>
      mails
        .filter((m) => m.text.includes(words))
        .map((m) => m.to)
        .sort();
    expect(to('A restricted key was made')).toEqual(['dev@told.example', 'owner@told.example']);
    expect(to('A restricted key was revoked')).toEqual(['dev@told.example', 'owner@told.example']);
    expect(to('The secret key was rolled')).toEqual(['owner@told.example']);
    expect(to('refund limit was changed')).toEqual(['owner@told.example']);
    expect(to("A member's role was changed")).toEqual(['dev@told.example', 'owner@told.example']);
    expect(to('A member was removed')).toEqual(['dev@told.example', 'owner@told.example']);
    // No secret: neither the restricted key nor the rolled full key, in any e-mail or event.
    const everything = JSON.stringify([mails, test]);
    for (const key of [secret, rolled.body.data.secretKey as string]) expect(everything).not.toContain(key);
  });

  it('a second factor added and removed, and step-up locked: told to the person and the owner, in both feeds, without the code', async () => {
    const invited = await call('/api/v1/members/invitations', as(owner, { method: 'POST', body: { email: 'fin@told.example', role: 'finance' } }));
    expect(invited.status).toBe(201);
    const token = /#invitation=([\w-]+)/.exec((await outbox()).find((m) => m.kind === 'invitation' && m.to === 'fin@told.example')!.text)![1];
    const fin = sessionOf(await call('/dashboard/api/invitation', { method: 'POST', body: { token, email: 'fin@told.example', password: PASSWORD } }));
    const started = await call('/dashboard/api/factors/totp/options', as(fin, { method: 'POST' }));
    const totpSecret = started.body.data.secret as string;
    const code = () => new TOTP({ secret: Secret.fromBase32(totpSecret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({ timestamp: clock });
    const added = await call('/dashboard/api/factors/totp', as(fin, { method: 'POST', body: { code: code() } }));
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    const recovery = added.body.data.recoveryCodes as string[];
    clock += 60_000;
    const wrong = String((Number(code()) + 500_000) % 1_000_000).padStart(6, '0');
    const withdrawal = { method: 'POST', path: '/api/v1/withdrawals' };
    for (let i = 0; i < 5; i++) await call('/dashboard/api/step-up', as(fin, { method: 'POST', body: { code: wrong, for: withdrawal } }));
    const removal = { method: 'DELETE', path: `/dashboard/api/factors/${added.body.data.id}` };
    expect((await call('/dashboard/api/step-up', as(fin, { method: 'POST', body: { recovery_code: recovery[0], for: removal } }))).status).toBe(200);
    expect((await call(`/dashboard/api/factors/${added.body.data.id}`, as(fin, { method: 'DELETE' }))).status).toBe(204);

    const changes = ['totp_added', 'step_up_locked', 'step_up_unlocked', 'recovery_code_used', 'factor_removed'];
    for (const mode of ['test', 'live'] as const) expect((await told(mode)).map((e) => e.change).filter((c) => changes.includes(c))).toEqual(changes);
    expect(await actions()).toEqual(
      expect.arrayContaining([
        'test POST /dashboard/api/factors/totp',
        'live DELETE /dashboard/api/factors/:id',
        'live lock second-factor proofs (too many wrong)',
      ]),
    );
    // The person has their factors' e-mail; the owner the security one, naming whose.
    const mails = await outbox();
    const theirs = mails.filter((m) => m.kind === 'factor_changed' && m.to === 'fin@told.example').map((m) => m.text.split('\n')[2]);
    expect(theirs).toHaveLength(3);
    expect(theirs).toEqual(
      expect.arrayContaining([
        expect.stringContaining('An authenticator app was added'),
        expect.stringContaining('A recovery code was used'),
        expect.stringContaining('A second factor was removed'),
      ]),
    );
    const owners = mails.filter((m) => m.kind === 'security_changed' && m.to === 'owner@told.example' && m.text.includes('fin@told.example'));
    expect(owners.map((m) => m.text.split('\n')[2])).toEqual(
      expect.arrayContaining([
        expect.stringContaining('An authenticator app was added'),
        expect.stringContaining('A second factor was removed'),
        expect.stringContaining('locked'),
      ]),
    );
    const everything = JSON.stringify(mails);
    for (const secret of [totpSecret, ...recovery]) expect(everything).not.toContain(secret);
  });
});
