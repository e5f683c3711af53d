// Issue 48, the independent attack's leftovers, over HTTP on PGlite and PostgreSQL: a restricted
// key's name, told to the owner by e-mail and in SECURITY_CHANGED, carried links and new lines; a
// member's removal named their live keys in the test feed; handing ownership over left the
// step-up lockout with the login rather than the person; and a full key an admin rolled rolled
// itself again after they were demoted or removed, with nobody told it was theirs.
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../testing/conformance.ts';
import { startService, type Service } from '../../app.ts';
import { cheapPasswords } from '../../testing/passwords.ts';
import { databaseOptions, KINDS } from '../../testing/databases.ts';
import { businessWithOwner, callApi, sessionOf, type Call } from '../../testing/api-calls.ts';

const ADMIN = 'op_told_by_mode_token_0123456789abcdef0123456789ab';
const PASSWORD = 'correct horse battery';

describe.each(KINDS)('team changes told, by mode, on %s', { timeout: 180_000 }, (kind) => {
  let api: Service;
  let clock = Date.UTC(2026, 11, 6, 13, 0, 0);
  let owner: { cookie: string; csrf: string };
  let merchantId: string;

  const call = (path: string, c: Call = {}) => callApi(api.url, path, c);
  const as = (s: { cookie: string; csrf: string }, c: Call = {}) => ({ ...c, cookie: s.cookie, csrf: s.csrf });
  const outbox = async () =>
    (await api.db.query('SELECT kind, recipient, subject, text_body FROM emails ORDER BY created_ms, id')).map((r) => ({
      kind: r.kind as string,
      to: r.recipient as string,
      subject: r.subject as string,
      text: r.text_body as string,
    }));
  async function told(mode: 'test' | 'live', change: string) {
    const feed = await call('/api/v1/events?limit=200', as(owner, { mode }));
    expect(feed.status, JSON.stringify(feed.body)).toBe(200);
    return (feed.body.data as Array<{ type: string; payload: { data: { change: string; detail: string } } }>)
      .filter((e) => e.type === 'SECURITY_CHANGED' && e.payload.data.change === change)
      .map((e) => e.payload.data.detail);
  }
  /** A member who joined with `role`, with an authenticator app; `up` confirms one request. */
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

  beforeAll(async () => {
    api = await startService({
      adminToken: ADMIN,
      jobs: false,
      signInsPerClient: 10_000,
      smtpUrl: 'smtp://127.0.0.1:9',
      now: () => clock,
      ...(await databaseOptions(kind)),
      ...cheapPasswords,
    });
    const { made, owner: signedIn } = await businessWithOwner(api.url, ADMIN, { name: 'Mode Mill', email: 'owner@mode.example' }, PASSWORD);
    merchantId = made.body.data.id;
    owner = signedIn;
  });
  afterAll(async () => {
    await api?.close();
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
    const [inTest] = await told('test', 'member_removed');
    const [inLive] = await told('live', 'member_removed');
    expect(inTest).toContain('test deploys');
    expect(inTest).not.toContain('live deploys');
    expect(inLive).toContain('live deploys');
    expect(inLive).not.toContain('test deploys');
    const mail = (await outbox()).find((m) => m.kind === 'security_changed' && m.to === 'owner@mode.example' && m.text.includes('A member was removed'))!;
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
      (m) => m.kind === 'security_changed' && m.to === 'owner@mode.example' && m.text.includes('adm2@mode.example is now developer'),
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
      [merchantId, heir.id.toLowerCase(), at],
    );
    const handed = await call(`/api/v1/members/${heir.id}/ownership`, as(owner, { method: 'POST' }));
    expect(handed.status, JSON.stringify(handed.body)).toBe(200);
    const rows = await api.db.query('SELECT holder, kind, tries, locked_ms FROM step_up_tries WHERE merchant_id = $1 ORDER BY holder, kind', [merchantId]);
    const byHolder = rows.map(
      (r) =>
        `${r.holder === 'owner' ? 'owner' : r.holder === heir.id.toLowerCase() ? 'former owner' : r.holder} ${r.kind} ${r.tries} ${r.locked_ms === null ? 'open' : 'locked'}`,
    );
    expect(byHolder.sort()).toEqual(['former owner passkey 1 open', 'former owner totp 2 open', 'owner totp 5 locked']);
  });
});
