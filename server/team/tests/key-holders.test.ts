// Issue 48 review (3, 4, 6): whose a restricted key is, and what a member needs to change live
// money settings. A key made with the full secret key was
// nobody's, so an admin who rolled the full key minted an every-permission key that outlived
// their removal and the owner's roll; and migration 0041 gave a maker to keys only one level
// down a chain of keys made by keys. And "behind a step-up" passed for a member with no second
// factor at all, so an admin who never enrolled one set live mode's support refund limit and
// switched live settlement to the operator's balance with nothing more than a password.
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type Service } from '../../service/app.ts';
import { cheapPasswords } from '../../testing/passwords.ts';
import { databaseOptions, KINDS } from '../../testing/databases.ts';
import { businessWithOwner, callApi, sessionOf, type Call } from '../../testing/api-calls.ts';
import migration0041 from '../../storage/migrations/0042_key_holders.ts';

const ADMIN = 'op_key_holders_test_token_0123456789abcdef01234567';
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

describe.each(KINDS)("whose a key is, and a member's second factor, on %s", { timeout: 120_000 }, (kind) => {
  let api: Service;
  let clock = Date.UTC(2026, 11, 6, 9, 0, 0);
  let owner: { cookie: string; csrf: string };
  const call = (path: string, c: Call = {}) => callApi(api.url, path, c);
  const session = sessionOf;
  const as = (s: { cookie: string; csrf: string }, c: Call = {}) => ({ ...c, cookie: s.cookie, csrf: s.csrf });
  async function join(email: string, role: string) {
    const made = await call('/api/v1/members/invitations', as(owner, { method: 'POST', body: { email, role } }));
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const token = /#invitation=([\w-]+)/.exec(made.body.data.link)![1];
    const joined = session(await call('/dashboard/api/invitation', { method: 'POST', body: { token, email, password: PASSWORD } }));
    const id = (await call('/api/v1/members', as(owner))).body.data.find((m: any) => m.email === email).id as string;
    return { ...joined, id };
  }
  const restricted = (bearer: string, name: string, permissions: string[]) =>
    call('/api/v1/keys/restricted', { bearer, method: 'POST', body: { name, permissions } });

  beforeAll(async () => {
    api = await startService({
      adminToken: ADMIN,
      jobs: false,
      signInsPerClient: 10_000,
      now: () => clock,
      ...(await databaseOptions(kind)),
      ...cheapPasswords,
    });
    ({ owner } = await businessWithOwner(api.url, ADMIN, { name: 'Victim Goods', email: 'owner@victim.example' }, PASSWORD));
  });
  afterAll(async () => {
    await api?.close();
  });

  /** The full key an admin rolls: an authenticator app added, the roll stepped up with it. */
  async function fullKeyRolledBy(admin: Awaited<ReturnType<typeof join>>): Promise<string> {
    const started = await call('/dashboard/api/factors/totp/options', as(admin, { method: 'POST' }));
    const secret = started.body.data.secret as string;
    const code = () => new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({ timestamp: clock });
    expect((await call('/dashboard/api/factors/totp', as(admin, { method: 'POST', body: { code: code() } }))).status).toBe(201);
    clock += 60_000;
    expect(
      (await call('/dashboard/api/step-up', as(admin, { method: 'POST', body: { code: code(), for: { method: 'POST', path: '/api/v1/keys/roll' } } }))).status,
    ).toBe(200);
    return (await call('/api/v1/keys/roll', as(admin, { method: 'POST' }))).body.data.secretKey as string;
  }

  it("a key made with the full key an admin rolled is the admin's: removing them revokes it (and the keys it made), and the full key they kept mints no more", async () => {
    const admin = await join('adm@victim.example', 'admin');
    const full = await fullKeyRolledBy(admin);
    const kept = await restricted(full, 'ci deploy', PERMISSIONS);
    expect(kept.status).toBe(201);
    const grandchild = await restricted(kept.body.data.secretKey, 'ci child', ['payments.read']);
    expect(grandchild.status).toBe(201);
    const holders = await api.db.query<{ holder: string | null }>(`SELECT holder FROM api_keys WHERE id = ANY($1::uuid[])`, [
      [kept.body.data.id, grandchild.body.data.id],
    ]);
    expect(holders.map((h) => h.holder)).toEqual([admin.id.toLowerCase(), admin.id.toLowerCase()]);
    expect((await call(`/api/v1/members/${admin.id}`, as(owner, { method: 'DELETE' }))).status).toBe(200);
    // Revoked with the removal, before any roll.
    expect((await call('/api/v1/members', { bearer: kept.body.data.secretKey })).status).toBe(401);
    expect((await call('/api/v1/payments?limit=1', { bearer: grandchild.body.data.secretKey })).status).toBe(401);
    // The full key the admin still holds (until the owner rolls) makes no key that would outlive it.
    const minted = await restricted(full, 'after removal', ['payments.read']);
    expect(minted.status).toBe(403);
    // The owner's roll: the new full key is the owner's, and so are the keys it makes.
    const ownerFull = (await call('/api/v1/keys/roll', as(owner, { method: 'POST' }))).body.data.secretKey as string;
    expect((await call('/api/v1/members', { bearer: full })).status).toBe(401);
    const ownerKey = await restricted(ownerFull, 'owner ci', ['payments.read']);
    expect(ownerKey.status).toBe(201);
    const [own] = await api.db.query<{ holder: string | null }>(`SELECT holder FROM api_keys WHERE id = $1`, [ownerKey.body.data.id]);
    expect(own!.holder).toBe('owner');
  });

  it('the full key an admin rolled, once they are demoted, makes no key wider than their role now', async () => {
    const admin = await join('demoted@victim.example', 'admin');
    const full = await fullKeyRolledBy(admin);
    expect((await call(`/api/v1/members/${admin.id}`, as(owner, { method: 'PATCH', body: { role: 'developer' } }))).status).toBe(200);
    // The full key still opens everything (the owner rolls it), but what it makes is the developer's.
    const wider = await restricted(full, 'too wide', ['payments.read', 'balances.write']);
    expect([wider.status, wider.body.message]).toEqual([403, expect.stringContaining('balances.write')]);
    expect((await restricted(full, 'within the role', ['payments.read', 'developers.read'])).status).toBe(201);
    // Nor does it roll itself on: a developer holds not every permission.
    expect((await call('/api/v1/keys/roll', { method: 'POST', bearer: full })).status).toBe(403);
  });

  it('migration 0041 gives a maker to every key down a chain of keys made by keys (member, k1, k2, k3)', async () => {
    const dev = await join('dev@victim.example', 'developer');
    const grant = ['developers.write', 'developers.read', 'payments.read'];
    const k1 = (await call('/api/v1/keys/restricted', as(dev, { method: 'POST', body: { name: 'k1', permissions: grant } }))).body.data;
    const k2 = (await restricted(k1.secretKey, 'k2', grant)).body.data;
    const k3 = (await restricted(k2.secretKey, 'k3', grant)).body.data;
    const k4 = (await restricted(k3.secretKey, 'k4', ['payments.read'])).body.data;
    const chain = [k1.id, k2.id, k3.id, k4.id];
    // As keys were before 0041: no holder. Then 0041's statements, as the upgrade runs them.
    await api.db.query(`UPDATE api_keys SET holder = NULL WHERE id = ANY($1::uuid[])`, [chain]);
    await api.db.exec(migration0041);
    const rows = await api.db.query<{ name: string; holder: string | null }>(`SELECT name, holder FROM api_keys WHERE id = ANY($1::uuid[]) ORDER BY name`, [
      chain,
    ]);
    expect(rows).toEqual(['k1', 'k2', 'k3', 'k4'].map((name) => ({ name, holder: dev.id.toLowerCase() })));
    expect((await call(`/api/v1/members/${dev.id}`, as(owner, { method: 'DELETE' }))).status).toBe(200);
    for (const k of [k1, k2, k3, k4]) expect((await call('/api/v1/payments?limit=1', { bearer: k.secretKey })).status).toBe(401);
  });

  it('an admin without a second factor is refused in live mode until they add one and confirm it; test mode and the owner as before', async () => {
    const admin = await join('adm2@victim.example', 'admin');
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
    // A step-up opens the one request it was for: the limit, then the settlement, each confirmed.
    const up = (action: object) => call('/dashboard/api/step-up', as(admin, { method: 'POST', mode: 'live', body: { code: code(), for: action } }));
    expect((await up({ method: 'PUT', path: '/api/v1/refunds/support_limit', body: { daily: '1000000' } })).status).toBe(200);
    expect((await limit()).status).toBe(200);
    expect((await settle()).body.code).toBe('step_up_required');
    clock += 60_000;
    expect((await up({ method: 'PUT', path: '/api/v1/settlement', body: { settlement: 'balance' } })).status).toBe(200);
    expect((await settle()).body.code).not.toBe('step_up_required');
  });
});
