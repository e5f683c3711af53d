// A team, not a password, over HTTP on PGlite and PostgreSQL: the owner invites
// members with roles (a single-use link, for the invited e-mail only), each route's declared
// permission is checked by the service for every session and key request (a viewer calling
// money endpoints directly is refused 403 naming the permission), a member removed or changed
// while signed in is refused at once (on PostgreSQL also by another instance), restricted keys
// hold only what they were given and never make a wider key, and the audit log, append-only,
// shows who did each step. Also: every route a session or a key may call declares a permission.
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { holdAnswersToOpenApi } from '../../testing/conformance.ts';
import { startService, type Service } from '../../service/app.ts';
import { cheapPasswords } from '../../testing/passwords.ts';
import { createLogger } from '../../service/log.ts';
import { ROUTES } from '../../api/table.ts';
import { databaseOptions, KINDS } from '../../testing/databases.ts';

holdAnswersToOpenApi();

const ADMIN = 'op_team_test_token_0123456789abcdef0123456789ab';
const PASSWORD = 'correct horse battery';

describe('permissions declared', () => {
  it('every route a session or a secret key may call declares the permission it needs', () => {
    const undeclared = ROUTES.filter((r) => ['merchant', 'secret', 'either'].includes(r.auth) && !r.permission).map(
      (r) => `route ${r.method} ${r.path} declares no permission`,
    );
    expect(undeclared).toEqual([]);
  });
});

describe.each(KINDS)('a team on %s', { timeout: 120_000 }, (kind) => {
  let api: Service;
  let other: Service | undefined;
  const logged: string[] = [];
  let owner: { cookie: string; csrf: string };
  /** Members made by one test and used by the next (each sign-in costs a scrypt run). */
  const team: Record<string, { cookie: string; csrf: string; id: string }> = {};
  let merchant: { id: string; email: string; keys: { test: { secretKey: string } } };

  type Call = { method?: string; body?: unknown; cookie?: string; csrf?: string; bearer?: string; on?: Service };
  async function call(path: string, c: Call = {}) {
    const headers: Record<string, string> = { origin: (c.on ?? api).url };
    if (c.body !== undefined) headers['content-type'] = 'application/json';
    if (c.cookie) headers.cookie = c.cookie;
    if (c.csrf) headers['x-csrf-token'] = c.csrf;
    if (c.bearer) headers.authorization = `Bearer ${c.bearer}`;
    const response = await fetch((c.on ?? api).url + path, {
      method: c.method ?? 'GET',
      headers,
      body: c.body === undefined ? undefined : JSON.stringify(c.body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
  }
  const session = (answer: { headers: Headers; body: { data: { csrfToken: string } } }) => ({
    cookie: answer.headers.get('set-cookie')!.split(';')[0],
    csrf: answer.body.data.csrfToken,
  });
  const as = (s: { cookie: string; csrf: string }, c: Call = {}) => ({ ...c, cookie: s.cookie, csrf: s.csrf });

  /** The owner invites `email` as `role`; the link's token (from its #fragment). */
  async function invite(email: string, role: string) {
    const made = await call('/api/v1/members/invitations', as(owner, { method: 'POST', body: { email, role } }));
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    return new URL(made.body.data.link).hash.replace(/^#invitation=/, '');
  }
  async function join(email: string, role: string) {
    const token = await invite(email, role);
    const joined = await call('/dashboard/api/invitation', { method: 'POST', body: { token, email, password: PASSWORD } });
    expect(joined.status, JSON.stringify(joined.body)).toBe(200);
    const members = await call('/api/v1/members', as(owner));
    return { ...session(joined), id: members.body.data.find((m: { email: string }) => m.email === email).id as string };
  }
  const withdraw = (c: Call) =>
    call('/api/v1/withdrawals', {
      ...c,
      method: 'POST',
      body: { coin: 'USDT', chain_id: 56, amount: '5', address: '0x1111111111111111111111111111111111111111' },
    });

  beforeAll(async () => {
    const sink = new Writable({ write: (chunk, _enc, done) => (logged.push(String(chunk)), done()) });
    const database = await databaseOptions(kind);
    api = await startService({ adminToken: ADMIN, jobs: false, signInsPerClient: 10_000, logger: createLogger('info', sink), ...database, ...cheapPasswords });
    // A second instance on the same PostgreSQL: what one ends, the other refuses.
    if (kind === 'postgres') other = await startService({ adminToken: ADMIN, jobs: false, ...database, ...cheapPasswords });
    const made = await call('/operator/v1/merchants', { method: 'POST', bearer: ADMIN, body: { name: 'Harbour Coffee', email: 'owner@harbour.example' } });
    expect(made.status).toBe(201);
    merchant = { ...made.body.data, email: 'owner@harbour.example' };
    const token = new URL(made.body.data.signInUrl).hash.replace(/^#token=/, '');
    owner = session(await call('/dashboard/api/password', { method: 'POST', body: { token, password: PASSWORD } }));
  });
  afterAll(async () => {
    await other?.close();
    await api?.close();
  });

  it('an invitation link works once, for the invited e-mail only, and never reaches a log', async () => {
    const token = await invite('vera@harbour.example', 'viewer');
    const stranger = await call('/dashboard/api/invitation', { method: 'POST', body: { token, email: 'mallory@evil.example', password: PASSWORD } });
    expect(stranger.status).toBe(400);
    expect(stranger.body.errors).toEqual([expect.objectContaining({ field: 'email' })]);
    // Refused to another e-mail, the link still works for its own, once.
    const first = await call('/dashboard/api/invitation', { method: 'POST', body: { token, email: 'Vera@Harbour.example', password: PASSWORD } });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.data.role).toBe('viewer');
    const again = await call('/dashboard/api/invitation', { method: 'POST', body: { token, email: 'vera@harbour.example', password: PASSWORD } });
    expect(again.status).toBe(400);
    expect(again.body.errors).toEqual([expect.objectContaining({ field: 'token' })]);
    expect(logged.join('')).not.toContain(token);
    // The viewer signs in with their own e-mail and password, to the same business.
    const signedIn = await call('/dashboard/api/session', { method: 'POST', body: { email: 'vera@harbour.example', password: PASSWORD } });
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.data).toMatchObject({ merchant: { id: merchant.id }, role: 'viewer' });
    team.viewer = { ...session(signedIn), id: '' };
  });

  it('a viewer calling money endpoints directly is refused 403 naming the permission; finance passes the check', async () => {
    const viewer = team.viewer;
    expect((await call('/api/v1/payments', as(viewer))).status).toBe(200);
    expect((await call('/api/v1/balances', as(viewer))).status).toBe(200);
    for (const [answer, permission] of [
      [await withdraw(as(viewer)), 'balances.write'],
      [await call('/api/v1/settlement', as(viewer, { method: 'PUT', body: { settlement: 'balance' } })), 'balances.write'],
      [await call('/api/v1/swaps', as(viewer, { method: 'POST', body: {} })), 'balances.write'],
      [await call('/api/v1/bank/payouts/initiate', as(viewer, { method: 'POST', body: {} })), 'payouts.write'],
      [await call('/api/v1/bank/payouts', as(viewer, { method: 'POST', body: {} })), 'payouts.write'],
      [await call('/api/v1/refunds', as(viewer, { method: 'POST', body: { reference: 'any', amount: '1', reason: 'mine now' } })), 'refunds.write'],
      [await call('/api/v1/keys/restricted', as(viewer, { method: 'POST', body: { name: 'mine', permissions: ['payments.read'] } })), 'developers.write'],
      [await call('/api/v1/keys/roll', as(viewer, { method: 'POST' })), 'developers.write'],
      [await call('/api/v1/payout_address', as(viewer, { method: 'PUT', body: {} })), 'account.write'],
      [await call('/api/v1/members/invitations', as(viewer, { method: 'POST', body: { email: 'x@harbour.example', role: 'admin' } })), 'team.write'],
      [await call('/api/v1/audit_log', as(viewer)), 'audit.read'],
    ] as const) {
      expect(answer.status, JSON.stringify(answer.body)).toBe(403);
      expect(answer.body.code).toBe('permission_denied');
      expect(answer.body.message).toContain(permission);
    }
    // Finance holds balances.write: the request reaches the withdrawal's own checks.
    const finance = (team.finance = await join('fin@harbour.example', 'finance'));
    const theirs = await withdraw(as(finance));
    expect(theirs.status, JSON.stringify(theirs.body)).not.toBe(403);
    expect(theirs.body.code).toBe('balance_settlement_required');
  });

  it('restricted keys: a read-only key is refused a withdrawal, and no key makes one wider than itself', async () => {
    const readOnly = await call(
      '/api/v1/keys/restricted',
      as(owner, { method: 'POST', body: { name: 'reports', permissions: ['payments.read', 'balances.read'] } }),
    );
    expect(readOnly.status, JSON.stringify(readOnly.body)).toBe(201);
    const ro = readOnly.body.data.secretKey as string;
    expect((await call('/api/v1/payments', { bearer: ro })).status).toBe(200);
    const refused = await withdraw({ bearer: ro });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'permission_denied' });
    expect(refused.body.message).toContain('balances.write');
    // A key that may make keys makes narrower ones only, and never rolls the full key.
    const maker = await call(
      '/api/v1/keys/restricted',
      as(owner, { method: 'POST', body: { name: 'deploys', permissions: ['developers.write', 'payments.read'] } }),
    );
    const mk = maker.body.data.secretKey as string;
    expect((await call('/api/v1/keys/restricted', { method: 'POST', bearer: mk, body: { name: 'narrow', permissions: ['payments.read'] } })).status).toBe(201);
    // Each key says who made it: the owner, or the key that made it (by id, never the key).
    const listed = (await call('/api/v1/keys/restricted', as(owner))).body.data as Array<{ name: string; createdBy: unknown }>;
    const madeBy = (name: string) => listed.find((k) => k.name === name)?.createdBy;
    expect(madeBy('reports')).toEqual({ kind: 'owner', id: merchant.id, label: 'owner' });
    expect(madeBy('narrow')).toEqual({ kind: 'key', id: maker.body.data.id, label: expect.stringContaining('deploys (') });
    expect(JSON.stringify(listed)).not.toContain(mk);
    const wider = await call('/api/v1/keys/restricted', {
      method: 'POST',
      bearer: mk,
      body: { name: 'wider', permissions: ['payments.read', 'balances.write'] },
    });
    expect(wider.status).toBe(403);
    expect(wider.body.message).toContain('balances.write');
    expect((await call('/api/v1/keys/roll', { method: 'POST', bearer: mk })).status).toBe(403);
    // Nor does it reach people: inviting a member of its own (who would hold every permission of their role) is refused.
    const recruit = await call('/api/v1/members/invitations', { method: 'POST', bearer: mk, body: { email: 'ally@evil.example', role: 'admin' } });
    expect(recruit.status).toBe(403);
    expect(recruit.body.code).toBe('permission_denied');
    // A developer member neither: their role lacks balances.write.
    const dev = (team.developer = await join('dev@harbour.example', 'developer'));
    expect((await call('/api/v1/keys/restricted', as(dev, { method: 'POST', body: { name: 'mine', permissions: ['balances.write'] } }))).status).toBe(403);
    expect((await call('/api/v1/keys/roll', as(dev, { method: 'POST' }))).status).toBe(403);
    // Revoked, a key is refused at once, here and (its cached account dropped by NOTIFY) on the other instance.
    if (other) expect((await call('/api/v1/payments', { bearer: ro, on: other })).status).toBe(200);
    expect((await call(`/api/v1/keys/restricted/${readOnly.body.data.id}`, as(owner, { method: 'DELETE' }))).status).toBe(200);
    expect((await call('/api/v1/payments', { bearer: ro })).status).toBe(401);
    if (other) {
      const deadline = Date.now() + 5_000;
      let status = 200;
      while (status !== 401 && Date.now() < deadline) status = (await call('/api/v1/payments', { bearer: ro, on: other })).status;
      expect(status).toBe(401);
    }
    // The full key rolled, restricted keys stay.
    const rolled = await call('/api/v1/keys/roll', as(owner, { method: 'POST' }));
    expect(rolled.status).toBe(201);
    merchant.keys.test.secretKey = rolled.body.data.secretKey;
    expect((await call('/api/v1/payments', { bearer: mk })).status).toBe(200);
    // The operator's roll, for keys lost or leaked, stops every secret key: restricted ones too.
    const byOperator = await call(`/operator/v1/merchants/${merchant.id}/secret-keys`, { method: 'POST', bearer: ADMIN });
    expect(byOperator.status, JSON.stringify(byOperator.body)).toBe(201);
    merchant.keys.test.secretKey = byOperator.body.data.secretKeys.test;
    expect((await call('/api/v1/payments', { bearer: mk })).status).toBe(401);
  });

  it('the audit log shows who did each step, without secrets, and cannot be changed', async () => {
    const fin = team.finance;
    expect((await call('/api/v1/settlement', as(fin, { method: 'PUT', body: { settlement: 'balance' } }))).status).toBe(200);
    const key = await call('/api/v1/keys/restricted', as(owner, { method: 'POST', body: { name: 'ci', permissions: ['payments.write'] } }));
    const ci = key.body.data;
    const paid = await call('/api/v1/transaction/initialize', {
      method: 'POST',
      bearer: ci.secretKey,
      body: { reference: 'audit-1', coin: 'USDT', currency: 'USD', amount: 12.5, customer_email: 'ada@example.com' },
    });
    expect(paid.status, JSON.stringify(paid.body)).toBe(201);
    const log = await call('/api/v1/audit_log?limit=100', as(fin));
    expect(log.status, JSON.stringify(log.body)).toBe(200);
    const entries = log.body.data as Array<{
      actor: { kind: string; id: string; label: string };
      action: string;
      target: string | null;
      details: Record<string, unknown>;
      client: string;
    }>;
    const step = (action: string, target?: string) => entries.find((e) => e.action === action && (target === undefined || e.target === target));
    expect(step('POST /api/v1/members/invitations')?.actor).toMatchObject({ kind: 'owner' });
    expect(step('POST /dashboard/api/invitation', fin.id)?.actor).toMatchObject({ kind: 'member', id: fin.id, label: 'fin@harbour.example' });
    expect(step('PUT /api/v1/settlement')).toMatchObject({
      actor: { kind: 'member', id: fin.id },
      details: { values: { settlement: 'balance' } },
      client: '127.0.0.1',
    });
    expect(step('POST /api/v1/keys/restricted', ci.id)?.actor).toMatchObject({ kind: 'owner' });
    expect(step('POST /api/v1/transaction/initialize')?.actor).toMatchObject({ kind: 'key', id: ci.id, label: expect.stringContaining('ci (') });
    // No secret in it: not the key made, nor a password, nor the customer's e-mail.
    const text = JSON.stringify(entries);
    expect(text).not.toContain(ci.secretKey);
    expect(text).not.toContain(PASSWORD);
    expect(text).not.toContain('ada@example.com');
    // Filters and pages: the member's own steps, one page at a time.
    const mine = await call(`/api/v1/audit_log?actor=${fin.id}&limit=1`, as(owner));
    expect(mine.body.data).toHaveLength(1);
    expect(mine.body.data[0].action).toBe('PUT /api/v1/settlement');
    const next = await call(`/api/v1/audit_log?actor=${fin.id}&limit=1&cursor=${mine.body.next}`, as(owner));
    expect(next.body.data.map((e: { action: string }) => e.action)).toEqual(['POST /dashboard/api/invitation']);
    // Append-only in the database itself.
    await expect(api.db.query('UPDATE audit_log SET actor_label = $1', ['someone else'])).rejects.toThrow(/append-only/);
    await expect(api.db.query('DELETE FROM audit_log')).rejects.toThrow(/append-only/);
  });

  it("the audit row is written in the change's own transaction: a change commits with its row or not at all; the operator is named", async () => {
    const rows = async (action: string) => Number((await api.db.query('SELECT count(*)::int AS n FROM audit_log WHERE action = $1', [action]))[0]!.n);
    const keyRows = async (name: string) => Number((await api.db.query('SELECT count(*)::int AS n FROM api_keys WHERE name = $1', [name]))[0]!.n);
    const makeKey = (name: string) => call('/api/v1/keys/restricted', as(owner, { method: 'POST', body: { name, permissions: ['payments.read'] } }));
    const member = (await call('/api/v1/members', as(owner))).body.data.find((m: { email: string }) => m.email === 'vera@harbour.example') as {
      id: string;
      role: string;
    };
    // The log refuses rows (as a crash between the change and its row would lose one): the change is not made either.
    await api.db.exec(`CREATE FUNCTION refuse_audit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'audit log refused'; END; $$;
      CREATE TRIGGER refuse_audit BEFORE INSERT ON audit_log FOR EACH ROW EXECUTE FUNCTION refuse_audit();`);
    try {
      expect((await makeKey('unrecorded')).status).toBe(500);
      expect(await keyRows('unrecorded')).toBe(0);
      expect((await call(`/api/v1/members/${member.id}`, as(owner, { method: 'PATCH', body: { role: 'admin' } }))).status).toBe(500);
      expect((await call('/api/v1/members', as(owner))).body.data.find((m: { id: string }) => m.id === member.id).role).toBe(member.role);
    } finally {
      await api.db.exec('DROP TRIGGER refuse_audit ON audit_log; DROP FUNCTION refuse_audit();');
    }
    // A change that rolls back leaves no row; one that commits has exactly one, naming what it made.
    const before = await rows('POST /api/v1/keys/restricted');
    await api.db.exec(`CREATE FUNCTION refuse_key() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW.name = 'rolled back' THEN RAISE EXCEPTION 'no'; END IF; RETURN NEW; END; $$;
      CREATE TRIGGER refuse_key AFTER INSERT ON api_keys FOR EACH ROW EXECUTE FUNCTION refuse_key();`);
    try {
      expect((await makeKey('rolled back')).status).toBe(500);
    } finally {
      await api.db.exec('DROP TRIGGER refuse_key ON api_keys; DROP FUNCTION refuse_key();');
    }
    expect(await rows('POST /api/v1/keys/restricted')).toBe(before);
    const kept = await makeKey('kept');
    expect(kept.status).toBe(201);
    expect(await rows('POST /api/v1/keys/restricted')).toBe(before + 1);
    const [row] = await api.db.query('SELECT target, actor_kind FROM audit_log WHERE action = $1 ORDER BY id DESC LIMIT 1', ['POST /api/v1/keys/restricted']);
    expect(row).toMatchObject({ target: kept.body.data.id, actor_kind: 'owner' });
    // The operator's changes to the merchant, by the operator's name: a fee in its mode's log only, a sign-in link in both.
    const fee = await fetch(`${api.url}/operator/v1/merchants/${merchant.id}/fees`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json', 'x-operator': 'alice' },
      body: JSON.stringify({ mode: 'test', bps: 50 }),
    });
    expect(fee.status).toBe(200);
    const link = await fetch(`${api.url}/operator/v1/merchants/${merchant.id}/sign-in-link`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'x-operator': 'bob' },
    });
    expect(link.status).toBe(201);
    const byOperator = (await call('/api/v1/audit_log?actor_kind=operator&limit=100', as(owner))).body.data as Array<{
      actor: unknown;
      action: string;
      target: string;
      mode: string;
      details: Record<string, unknown>;
    }>;
    expect(byOperator.find((e) => e.action === 'PUT /operator/v1/merchants/:id/fees')).toMatchObject({
      actor: { kind: 'operator', id: 'alice', label: 'alice' },
      target: merchant.id,
      mode: 'test',
      details: { values: { mode: 'test', bps: 50 } },
    });
    expect(byOperator.find((e) => e.action === 'POST /operator/v1/merchants/:id/sign-in-link')).toMatchObject({
      actor: { kind: 'operator', id: 'bob' },
      target: merchant.id,
    });
    // The roll of an earlier test, sent without a name, is the operator's too (written with the keys it made).
    expect(byOperator.find((e) => e.action === 'POST /operator/v1/merchants/:id/secret-keys')).toMatchObject({
      actor: { kind: 'operator', id: 'operator' },
      target: merchant.id,
    });
    expect(JSON.stringify(byOperator)).not.toContain((await link.json()).data.signInUrl);
    const live = (await api.db.query(`SELECT action FROM audit_log WHERE mode = 'live' AND actor_kind = 'operator'`)).map((r) => r.action);
    expect(live).toContain('POST /operator/v1/merchants/:id/sign-in-link');
    expect(live).not.toContain('PUT /operator/v1/merchants/:id/fees');
  });

  it('a member removed or changed while signed in is refused at once (on every instance)', async () => {
    const removed = team.finance;
    const changed = team.developer;
    expect((await call('/api/v1/payments', as(removed))).status).toBe(200);
    if (other) expect((await call('/api/v1/payments', as(removed, { on: other }))).status).toBe(200);
    expect((await call(`/api/v1/members/${removed.id}`, as(owner, { method: 'DELETE' }))).status).toBe(200);
    expect((await call('/api/v1/payments', as(removed))).status).toBe(401);
    const log = await call('/api/v1/audit_log?action=DELETE%20/api/v1/members/:id', as(owner));
    expect(log.body.data).toEqual([expect.objectContaining({ actor: expect.objectContaining({ kind: 'owner' }), target: removed.id })]);
    if (other) expect((await call('/api/v1/payments', as(removed, { on: other }))).status).toBe(401);
    // Their password opens nothing any more.
    expect((await call('/dashboard/api/session', { method: 'POST', body: { email: 'fin@harbour.example', password: PASSWORD } })).status).toBe(401);
    const patched = await call(`/api/v1/members/${changed.id}`, as(owner, { method: 'PATCH', body: { role: 'viewer' } }));
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect((await call('/api/v1/webhook', as(changed))).status).toBe(401);
    const again = await call('/dashboard/api/session', { method: 'POST', body: { email: 'dev@harbour.example', password: PASSWORD } });
    expect(again.body.data.role).toBe('viewer');
    expect((await call('/api/v1/webhook', as(session(again)))).status).toBe(403);
    team.developer = { ...session(again), id: changed.id };
    // A key manages no one, even the full one.
    expect(
      (
        await call('/api/v1/members/invitations', {
          method: 'POST',
          bearer: merchant.keys.test.secretKey,
          body: { email: 'k@harbour.example', role: 'viewer' },
        })
      ).status,
    ).toBe(403);
  });

  it('an admin removed or demoted has no way back: the invitations pending are cancelled, and no spelling of their own id changes their role', async () => {
    const adm = await join('adm@harbour.example', 'admin');
    // Their own id in capitals is the same row to PostgreSQL: still their own role.
    const self = await call(`/api/v1/members/${adm.id.toUpperCase()}`, as(adm, { method: 'PATCH', body: { role: 'viewer' } }));
    expect(self.status, JSON.stringify(self.body)).toBe(403);
    const inviteAs = async (s: { cookie: string; csrf: string }, email: string) => {
      const made = await call('/api/v1/members/invitations', as(s, { method: 'POST', body: { email, role: 'admin' } }));
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      return { email, token: new URL(made.body.data.link).hash.replace(/^#invitation=/, '') };
    };
    const accept = (i: { email: string; token: string }) => call('/dashboard/api/invitation', { method: 'POST', body: { ...i, password: PASSWORD } });
    // Before being demoted, the admin invites an address of their own, which nobody else sees.
    const kept = await inviteAs(adm, 'back-door@evil.example');
    expect((await call(`/api/v1/members/${adm.id}`, as(owner, { method: 'PATCH', body: { role: 'viewer' } }))).status).toBe(200);
    const refused = await accept(kept);
    expect(refused.status, JSON.stringify(refused.body)).toBe(400);
    expect(refused.body.errors).toEqual([expect.objectContaining({ field: 'token' })]);
    // Made an admin again, then removed: the same.
    expect((await call(`/api/v1/members/${adm.id}`, as(owner, { method: 'PATCH', body: { role: 'admin' } }))).status).toBe(200);
    const again = session(await call('/dashboard/api/session', { method: 'POST', body: { email: 'adm@harbour.example', password: PASSWORD } }));
    const second = await inviteAs(again, 'back-door-2@evil.example');
    expect((await call(`/api/v1/members/${adm.id}`, as(owner, { method: 'DELETE' }))).status).toBe(200);
    expect((await accept(second)).status).toBe(400);
    // A viewer's change cancels nothing: the owner's own invitation stays usable.
    const owners = await inviteAs(owner, 'new-hire@harbour.example');
    const vera = (await call('/api/v1/members', as(owner))).body.data.find((m: { email: string }) => m.email === 'vera@harbour.example');
    expect((await call(`/api/v1/members/${vera.id}`, as(owner, { method: 'PATCH', body: { role: 'support' } }))).status).toBe(200);
    expect((await accept(owners)).status).toBe(200);
  });

  it('the owner hands ownership over: the member signs in as the owner, the owner as an admin', async () => {
    // The developer (a viewer since) is made an admin, and signs in again as one.
    const heir = team.developer;
    expect((await call(`/api/v1/members/${heir.id}`, as(owner, { method: 'PATCH', body: { role: 'admin' } }))).status).toBe(200);
    Object.assign(heir, session(await call('/dashboard/api/session', { method: 'POST', body: { email: 'dev@harbour.example', password: PASSWORD } })));
    const link = await call(`/operator/v1/merchants/${merchant.id}/sign-in-link`, { method: 'POST', bearer: ADMIN });
    // An admin cannot take ownership.
    expect((await call(`/api/v1/members/${heir.id}/ownership`, as(heir, { method: 'POST' }))).status).toBe(403);
    expect((await call(`/api/v1/members/${heir.id}/ownership`, as(owner, { method: 'POST' }))).status).toBe(200);
    expect((await call('/api/v1/payments', as(owner))).status).toBe(401);
    const newOwner = await call('/dashboard/api/session', { method: 'POST', body: { email: 'dev@harbour.example', password: PASSWORD } });
    expect(newOwner.body.data.role).toBe('owner');
    const former = await call('/dashboard/api/session', { method: 'POST', body: { email: 'owner@harbour.example', password: PASSWORD } });
    expect(former.body.data.role).toBe('admin');
    owner = session(newOwner);
    // A sign-in link the operator issued before the hand-over sets the owner's password no more:
    // it would give whoever holds it (the former owner) the business back.
    expect(link.status).toBe(201);
    const old = new URL(link.body.data.signInUrl).hash.replace(/^#token=/, '');
    const retaken = await call('/dashboard/api/password', { method: 'POST', body: { token: old, password: 'taken back, by the link' } });
    expect(retaken.status, JSON.stringify(retaken.body)).toBe(400);
    expect(retaken.body.errors).toEqual([expect.objectContaining({ field: 'token' })]);
    expect((await call('/api/v1/payments', as(owner))).status).toBe(200);
  });
});
