// Every security change told, over HTTP on PGlite: a restricted key made
// and revoked, a member's role changed and the member removed, the secret key rolled, the support
// refund limit set, a second factor added and removed, and step-up locked, each is an audit row, a
// SECURITY_CHANGED event (a key's in its mode's feed, a person's or the team's in both) and an
// e-mail to the owner and the person concerned, with no secret in it (no key, no code). And the
// independent attack's leftovers: a key's name carried links and new lines into those e-mails
// and events; a member's removal named their live keys in the test feed; handing ownership over
// left the step-up lockout with the login rather than the person; and a full key an admin rolled
// rolled itself again after they were demoted or removed, with nobody told it was theirs.
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { holdAnswersToOpenApi } from '../../testing/conformance.ts';
import { startService, type Service } from '../../service/app.ts';
import { cheapPasswords } from '../../testing/passwords.ts';
import { databaseOptions, ONLY_PGLITE } from '../../testing/databases.ts';
import { businessWithOwner, callApi, sessionOf, type Call } from '../../testing/api-calls.ts';

holdAnswersToOpenApi();

const ADMIN = 'op_told_test_token_0123456789abcdef0123456789ab';
const PASSWORD = 'correct horse battery';

describe.each(ONLY_PGLITE)('security changes told on %s', { timeout: 180_000 }, (kind) => {
  let api: Service;
  let clock = Date.UTC(2026, 11, 6, 11, 0, 0);
  let owner: { cookie: string; csrf: string };
  let merchant: { id: string; keys: { test: { secretKey: string } } };

  const call = (path: string, c: Call = {}) => callApi(api.url, path, c);
  const as = (s: { cookie: string; csrf: string }, c: Call = {}) => ({ ...c, cookie: s.cookie, csrf: s.csrf });
  /** Every e-mail written to the outbox so far (the job is off: nothing is sent). */
  const outbox = async () =>
    (await api.db.query('SELECT kind, recipient, subject, text_body, html_body FROM emails ORDER BY created_ms, id')).map((r) => ({
      kind: r.kind as string,
      to: r.recipient as string,
      subject: r.subject as string,
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
  /** The details of a change's SECURITY_CHANGED events in a mode's feed. */
  const detailsOf = async (mode: 'test' | 'live', change: string) => (await told(mode)).filter((e) => e.change === change).map((e) => e.detail);
  /** A member who joined (the attack's leftovers) with `role`, with an authenticator app; `up` confirms one request. */
  async function join(email: string, role: string) {
    const invited = await call('/api/v1/members/invitations', as(owner, { method: 'POST', body: { email, role } }));
    expect(invited.status, JSON.stringify(invited.body)).toBe(201);
    const token = /#invitation=([\w-]+)/.exec((await outbox()).find((m) => m.kind === 'invitation' && m.to === email)!.text)![1];
    const session = sessionOf(await call('/dashboard/api/invitation', { method: 'POST', body: { token, email, password: PASSWORD } }));
    const id = ((await call('/api/v1/members', as(owner))).body.data as Array<{ id: string; email: string }>).find((m) => m.email === email)!.id;
    const secret = (await call('/dashboard/api/factors/totp/options', as(session, { method: 'POST' }))).body.data.secret as string;
    const code = () => new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({ timestamp: clock });
    expect((await call('/dashboard/api/factors/totp', as(session, { method: 'POST', body: { code: code() } }))).status).toBe(201);
    const up = async (mode: 'test' | 'live', action: object) => {
      clock += 60_000;
      const confirmed = await call('/dashboard/api/step-up', as(session, { method: 'POST', mode, body: { code: code(), for: action } }));
      expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(200);
    };
    return { session, id, up };
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

  it("a key's name follows the business name's rule (400 naming `name`), and stays out of the e-mail's subject", async () => {
    for (const name of ['deploys\r\nYour account is locked', 'sign in at https://evil.example', 'see acme-billing.com now', 'ops\u200b'] as const) {
      const refused = await call('/api/v1/keys/restricted', as(owner, { method: 'POST', body: { name, permissions: ['payments.read'] } }));
      expect(refused.status, JSON.stringify(name)).toBe(400);
      expect(JSON.stringify(refused.body.errors ?? refused.body)).toContain('name');
    }
    const made = await call('/api/v1/keys/restricted', as(owner, { method: 'POST', body: { name: 'Nightly Export', permissions: ['payments.read'] } }));
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const told = (await outbox()).filter((m) => m.kind === 'security_changed' && m.text.includes('Nightly Export'));
    expect(told.length).toBeGreaterThan(0);
    for (const m of told) expect(m.subject).not.toContain('Nightly Export');
  });

  it("a removal names each mode's keys in that mode's event only; the e-mail names both, and the full key they rolled", async () => {
    const admin = await join('adm@mode.example', 'admin');
    const testKey = await call(
      '/api/v1/keys/restricted',
      as(admin.session, { method: 'POST', body: { name: 'test deploys', permissions: ['payments.read'] } }),
    );
    expect(testKey.status, JSON.stringify(testKey.body)).toBe(201);
    const liveBody = { name: 'live deploys', permissions: ['payments.read'] };
    await admin.up('live', { method: 'POST', path: '/api/v1/keys/restricted', body: liveBody });
    const liveKey = await call('/api/v1/keys/restricted', as(admin.session, { method: 'POST', mode: 'live', body: liveBody }));
    expect(liveKey.status, JSON.stringify(liveKey.body)).toBe(201);
    await admin.up('test', { method: 'POST', path: '/api/v1/keys/roll' });
    const rolled = await call('/api/v1/keys/roll', as(admin.session, { method: 'POST' }));
    expect(rolled.status, JSON.stringify(rolled.body)).toBe(201);

    expect((await call(`/api/v1/members/${admin.id}`, as(owner, { method: 'DELETE' }))).status).toBe(200);
    const [inTest] = (await detailsOf('test', 'member_removed')).filter((d) => d.startsWith('adm@mode.example'));
    const [inLive] = (await detailsOf('live', 'member_removed')).filter((d) => d.startsWith('adm@mode.example'));
    expect(inTest).toContain('test deploys');
    expect(inTest).not.toContain('live deploys');
    expect(inLive).toContain('live deploys');
    expect(inLive).not.toContain('test deploys');
    const mail = (await outbox()).find(
      (m) => m.kind === 'security_changed' && m.to === 'owner@told.example' && m.text.includes('A member was removed') && m.text.includes('adm@mode.example'),
    )!;
    expect(mail.text).toContain('test deploys');
    expect(mail.text).toContain('live deploys');
    // The full key they rolled: named by its hint (never the key), for the owner to roll.
    const hint = `${(rolled.body.data.secretKey as string).slice(0, 8)}…${(rolled.body.data.secretKey as string).slice(-4)}`;
    expect(mail.text).toContain(hint);
    expect(mail.text).not.toContain(rolled.body.data.secretKey);
    // And it rolls no key any more: the business's own key stays.
    const again = await call('/api/v1/keys/roll', { method: 'POST', bearer: rolled.body.data.secretKey });
    expect(again.status, JSON.stringify(again.body)).toBe(403);
    expect(again.body.message).toContain('no longer on the team');
    expect((await call('/api/v1/members', { bearer: rolled.body.data.secretKey })).status).toBe(200);
  });

  it('a full key an admin rolled rolls itself no more once they are demoted, and the demotion e-mail names it', async () => {
    const admin = await join('adm2@mode.example', 'admin');
    await admin.up('test', { method: 'POST', path: '/api/v1/keys/roll' });
    const rolled = await call('/api/v1/keys/roll', as(admin.session, { method: 'POST' }));
    expect(rolled.status, JSON.stringify(rolled.body)).toBe(201);
    const full = rolled.body.data.secretKey as string;
    // While they are an admin, the key rolls itself (as before).
    const itself = await call('/api/v1/keys/roll', { method: 'POST', bearer: full });
    expect(itself.status, JSON.stringify(itself.body)).toBe(201);
    const current = itself.body.data.secretKey as string;
    expect((await call(`/api/v1/members/${admin.id}`, as(owner, { method: 'PATCH', body: { role: 'developer' } }))).status).toBe(200);
    const refused = await call('/api/v1/keys/roll', { method: 'POST', bearer: current });
    expect(refused.status, JSON.stringify(refused.body)).toBe(403);
    expect(refused.body.message).toContain('now developer');
    const mail = (await outbox()).find(
      (m) => m.kind === 'security_changed' && m.to === 'owner@told.example' && m.text.includes('adm2@mode.example is now developer'),
    )!;
    expect(mail.text).toContain(`${current.slice(0, 8)}…${current.slice(-4)} (test)`);
    // The owner's roll ends it.
    expect((await call('/api/v1/keys/roll', as(owner, { method: 'POST' }))).status).toBe(201);
    expect((await call('/api/v1/members', { bearer: current })).status).toBe(401);
  });

  it("handing ownership over moves the step-up lockout with each person: the new owner's lock stays theirs, the former owner's theirs", async () => {
    const heir = await join('heir@mode.example', 'admin');
    const at = clock;
    await api.db.query(
      `INSERT INTO step_up_tries (merchant_id, holder, kind, tries, locked_ms, updated_ms) VALUES ($1, $2, 'totp', 5, $3, $3), ($1, 'owner', 'totp', 2, NULL, $3), ($1, 'owner', 'passkey', 1, NULL, $3)`,
      [merchant.id, heir.id.toLowerCase(), at],
    );
    const handed = await call(`/api/v1/members/${heir.id}/ownership`, as(owner, { method: 'POST' }));
    expect(handed.status, JSON.stringify(handed.body)).toBe(200);
    const rows = await api.db.query('SELECT holder, kind, tries, locked_ms FROM step_up_tries WHERE merchant_id = $1 ORDER BY holder, kind', [merchant.id]);
    const byHolder = rows.map(
      (r) =>
        `${r.holder === 'owner' ? 'owner' : r.holder === heir.id.toLowerCase() ? 'former owner' : r.holder} ${r.kind} ${r.tries} ${r.locked_ms === null ? 'open' : 'locked'}`,
    );
    expect(byHolder.sort()).toEqual(['former owner passkey 1 open', 'former owner totp 2 open', 'owner totp 5 locked']);
  });
});
