// Second factors and step-up, over HTTP on PGlite and PostgreSQL with the service's
// clock moved by the test (no sleeps): an authenticator app added with its first code (codes
// made by otpauth, as the app would), recovery codes shown once and used once, a code never
// taken twice, a step-up that opens the one live money move it was asked for, within five
// minutes and once (the same proof sent again opens nothing), member changes stepped up in either mode,
// secret keys never stepped up, and the owner's requirement sending a member without a second
// factor to enrol before anything else; an authenticator secret sealed at rest. Passkeys are
// proved in Chromium (e2e/factors.spec.ts).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { holdAnswersToOpenApi } from '../../testing/conformance.ts';
import { startService, type Service } from '../../service/app.ts';
import { cheapPasswords } from '../../testing/passwords.ts';
import { SecretBox, secretBox, secretsKeyFile } from '../secret-box.ts';
import { FactorStore } from '../store.ts';
import { databaseOptions, KINDS } from '../../testing/databases.ts';

holdAnswersToOpenApi();

const ADMIN = 'op_factors_test_token_0123456789abcdef0123456789';
const PASSWORD = 'correct horse battery';
const MINUTE = 60_000;

describe.each(KINDS)('second factors on %s', { timeout: 120_000 }, (kind) => {
  let api: Service;
  let clock = Date.UTC(2026, 10, 28, 1, 0, 0);
  let owner: { cookie: string; csrf: string };
  let liveKey: string;
  let merchantId: string;
  let secret: string;
  let recovery: string[];

  type Call = { method?: string; body?: unknown; cookie?: string; csrf?: string; bearer?: string; mode?: string };
  async function call(path: string, c: Call = {}) {
    const headers: Record<string, string> = { origin: api.url };
    if (c.body !== undefined) headers['content-type'] = 'application/json';
    if (c.cookie) headers.cookie = c.cookie;
    if (c.csrf) headers['x-csrf-token'] = c.csrf;
    if (c.bearer) headers.authorization = `Bearer ${c.bearer}`;
    if (c.mode) headers['x-mode'] = c.mode;
    const response = await fetch(api.url + path, { method: c.method ?? 'GET', headers, body: c.body === undefined ? undefined : JSON.stringify(c.body) });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
  }
  const session = (answer: { headers: Headers; body: { data: { csrfToken: string } } }) => ({
    cookie: answer.headers.get('set-cookie')!.split(';')[0],
    csrf: answer.body.data.csrfToken,
  });
  const as = (s: { cookie: string; csrf: string }, c: Call = {}) => ({ ...c, cookie: s.cookie, csrf: s.csrf });
  /** What the authenticator app shows at the service's time (plus `steps` of 30 s). */
  const code = (base32: string, steps = 0) =>
    new TOTP({ secret: Secret.fromBase32(base32), digits: 6, period: 30, algorithm: 'SHA1' }).generate({ timestamp: clock + steps * 30_000 });
  /** A live withdrawal: past the step-up it meets the settlement's check (409), refused before it 403. */
  const WITHDRAWAL = { coin: 'USDT', chain_id: 56, amount: '5', address: '0x1111111111111111111111111111111111111111' };
  const withdraw = (c: Call) => call('/api/v1/withdrawals', { ...c, method: 'POST', body: WITHDRAWAL });
  /** A step-up for one request: the proof, and the request it opens (by default that withdrawal, live). */
  const stepUp = (
    s: { cookie: string; csrf: string },
    proof: object,
    action: { method: string; path: string; body?: unknown } = { method: 'POST', path: '/api/v1/withdrawals', body: WITHDRAWAL },
    mode = 'live',
  ) => call('/dashboard/api/step-up', as(s, { method: 'POST', mode, body: { ...proof, for: action } }));

  beforeAll(async () => {
    api = await startService({
      adminToken: ADMIN,
      jobs: false,
      signInsPerClient: 10_000,
      ...cheapPasswords,
      now: () => clock,
      ...(await databaseOptions(kind)),
    });
    const made = await call('/operator/v1/merchants', { method: 'POST', bearer: ADMIN, body: { name: 'Step Books', email: 'owner@step.example' } });
    expect(made.status).toBe(201);
    liveKey = made.body.data.keys.live.secretKey;
    merchantId = made.body.data.id;
    const token = new URL(made.body.data.signInUrl).hash.replace(/^#token=/, '');
    owner = session(await call('/dashboard/api/password', { method: 'POST', body: { token, password: PASSWORD } }));
  });
  afterAll(async () => {
    await api?.close();
  });

  it('an authenticator app is added by its first code, with ten recovery codes shown once; a challenge is single-use and short-lived', async () => {
    // Without a second factor nothing is stepped up (a stolen password would add one anyway: see docs/team.md).
    expect((await withdraw(as(owner, { mode: 'live' }))).body.code).toBe('balance_settlement_required');
    const started = await call('/dashboard/api/factors/totp/options', as(owner, { method: 'POST' }));
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    expect(started.body.data.uri).toMatch(/^otpauth:\/\/totp\//);
    // Out of its five minutes, the pending secret is gone: start again.
    clock += 5 * MINUTE + 1000;
    const late = await call('/dashboard/api/factors/totp', as(owner, { method: 'POST', body: { code: code(started.body.data.secret) } }));
    expect(late.status).toBe(400);
    expect(late.body.errors).toEqual([expect.objectContaining({ field: 'code' })]);
    secret = (await call('/dashboard/api/factors/totp/options', as(owner, { method: 'POST' }))).body.data.secret;
    const wrong = await call('/dashboard/api/factors/totp', as(owner, { method: 'POST', body: { code: code(secret, 10) } }));
    expect(wrong.status).toBe(400);
    // A typo keeps the secret waiting for the right code.
    const added = await call('/dashboard/api/factors/totp', as(owner, { method: 'POST', body: { code: code(secret) } }));
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    recovery = added.body.data.recoveryCodes;
    expect(recovery).toHaveLength(10);
    expect(new Set(recovery).size).toBe(10);
    const listed = await call('/dashboard/api/factors', as(owner));
    expect(listed.body.data).toMatchObject({ factors: [{ kind: 'totp', label: 'Authenticator app' }], recoveryCodesLeft: 10, required: false });
    expect(JSON.stringify(listed.body)).not.toContain(secret);
    expect(JSON.stringify(listed.body)).not.toContain(recovery[0]);
    // The code that added it cannot step up again: its time step is taken.
    const reused = await stepUp(owner, { code: code(secret) });
    expect(reused.status).toBe(400);
    expect(reused.body.message).toContain('used already');
    // The store takes a step once, whatever the caller checked before (two requests at once both pass that).
    const [app] = await api.parts.factors.factors({ merchantId, holder: 'owner' });
    expect(await api.parts.factors.useTotpStep(app.id, app.totpLastStep, clock)).toBe(false);
  });

  it('a step-up opens its live money move once, within five minutes; after them the request is refused 403 step_up_required, and the same proof again is refused', async () => {
    clock += 10 * MINUTE;
    expect((await withdraw(as(owner, { mode: 'live' }))).body.code).toBe('step_up_required');
    // Only in live mode, and never for a secret key (restricted keys narrow those).
    expect((await withdraw(as(owner, { mode: 'test' }))).body.code).toBe('balance_settlement_required');
    expect((await withdraw({ bearer: liveKey })).body.code).toBe('balance_settlement_required');
    // Member changes are stepped up in either mode.
    const invite = await call('/api/v1/members/invitations', as(owner, { method: 'POST', mode: 'test', body: { email: 'fin@step.example', role: 'finance' } }));
    expect(invite.status).toBe(403);
    expect(invite.body.code).toBe('step_up_required');
    const now = code(secret);
    // Sent twice at once, the same code steps up once: its time step is taken by one conditional UPDATE.
    const both = await Promise.all([0, 1].map(() => stepUp(owner, { code: now })));
    expect(both.map((a) => a.status).sort()).toEqual([200, 400]);
    const up = both.find((a) => a.status === 200)!;
    expect(up.body.data).toEqual({ for: 'POST /api/v1/withdrawals', mode: 'live', until: new Date(clock + 5 * MINUTE).toISOString() });
    // The same code sent again within its window steps up nothing.
    const replayed = await stepUp(owner, { code: now });
    expect(replayed.status).toBe(400);
    expect(replayed.body.message).toContain('used already');
    clock += 4 * MINUTE + 59_000;
    expect((await withdraw(as(owner, { mode: 'live' }))).body.code).toBe('balance_settlement_required');
    // Once: the same request again is asked again.
    expect((await withdraw(as(owner, { mode: 'live' }))).body.code).toBe('step_up_required');
    clock += MINUTE;
    expect((await stepUp(owner, { code: code(secret) })).status).toBe(200);
    clock += 5 * MINUTE + 1000;
    const after = await withdraw(as(owner, { mode: 'live' }));
    expect(after.status).toBe(403);
    expect(after.body.code).toBe('step_up_required');
    // Sent again after the five minutes, the proof that opened it opens nothing.
    expect((await stepUp(owner, { code: now })).status).toBe(400);
    expect((await withdraw(as(owner, { mode: 'live' }))).body.code).toBe('step_up_required');
  });

  it("a recovery code steps up once; changing one's factors needs a step-up too", async () => {
    clock += 10 * MINUTE;
    // A thief with the password alone cannot add their own authenticator.
    const thief = await call('/dashboard/api/factors/totp/options', as(owner, { method: 'POST' }));
    expect(thief.status).toBe(403);
    expect(thief.body.code).toBe('step_up_required');
    expect((await stepUp(owner, { recovery_code: 'aaaa-bbbb-cccc' })).status).toBe(400);
    const used = await stepUp(owner, { recovery_code: recovery[0].toUpperCase() });
    expect(used.status, JSON.stringify(used.body)).toBe(200);
    expect((await withdraw(as(owner, { mode: 'live' }))).body.code).toBe('balance_settlement_required');
    clock += 6 * MINUTE;
    const again = await stepUp(owner, { recovery_code: recovery[0] });
    expect(again.status).toBe(400);
    expect(again.body.errors).toEqual([expect.objectContaining({ field: 'recovery_code' })]);
    expect((await call('/dashboard/api/factors', as(owner))).body.data.recoveryCodesLeft).toBe(9);
  });

  it('the owner requires a second factor of every member: one without is sent to enrol before anything else', async () => {
    clock += 10 * MINUTE;
    expect((await call('/dashboard/api/factors/policy', as(owner, { method: 'PUT', body: { required: true } }))).body.code).toBe('step_up_required');
    expect(
      (await stepUp(owner, { code: code(secret) }, { method: 'PUT', path: '/dashboard/api/factors/policy', body: { required: true } }, 'test')).status,
    ).toBe(200);
    expect((await call('/dashboard/api/factors/policy', as(owner, { method: 'PUT', body: { required: true } }))).status).toBe(200);
    clock += MINUTE;
    expect(
      (
        await stepUp(
          owner,
          { code: code(secret) },
          { method: 'POST', path: '/api/v1/members/invitations', body: { email: 'fin@step.example', role: 'finance' } },
          'test',
        )
      ).status,
    ).toBe(200);
    const made = await call('/api/v1/members/invitations', as(owner, { method: 'POST', body: { email: 'fin@step.example', role: 'finance' } }));
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const token = new URL(made.body.data.link).hash.replace(/^#invitation=/, '');
    const joined = await call('/dashboard/api/invitation', { method: 'POST', body: { token, email: 'fin@step.example', password: PASSWORD } });
    expect(joined.body.data.secondFactor).toEqual({ enrolled: false, mustEnrol: true });
    const fin = session(joined);
    // A member's passkey handle fits WebAuthn's 1 to 64 bytes (at 73, browsers refused every member's passkey).
    const handle = (await call('/dashboard/api/factors/passkey/options', as(fin, { method: 'POST' }))).body.data.user.id as string;
    expect(Buffer.from(handle, 'base64url').length).toBeLessThanOrEqual(64);
    // A member may not set the business's requirement.
    expect((await call('/dashboard/api/factors/policy', as(fin, { method: 'PUT', body: { required: false } }))).status).toBe(403);
    for (const answer of [
      await call('/api/v1/payments', as(fin)),
      await call('/api/v1/balances', as(fin, { mode: 'live' })),
      await withdraw(as(fin, { mode: 'live' })),
    ]) {
      expect(answer.status).toBe(403);
      expect(answer.body.code).toBe('second_factor_required');
    }
    const theirs = (await call('/dashboard/api/factors/totp/options', as(fin, { method: 'POST' }))).body.data.secret as string;
    expect((await call('/dashboard/api/factors/totp', as(fin, { method: 'POST', body: { code: code(theirs) } }))).status).toBe(201);
    expect((await call('/api/v1/payments', as(fin))).status).toBe(200);
    expect((await call('/dashboard/api/session', as(fin))).body.data.secondFactor).toEqual({ enrolled: true, mustEnrol: false });
    // Adding it opens no money move (a step-up is for one request): the member confirms each.
    expect((await withdraw(as(fin, { mode: 'live' }))).body.code).toBe('step_up_required');
    clock += MINUTE;
    expect((await stepUp(fin, { code: code(theirs) })).status).toBe(200);
    expect((await withdraw(as(fin, { mode: 'live' }))).body.code).toBe('balance_settlement_required');
    // Each person's codes are their own: the owner's code steps up nobody else.
    expect((await stepUp(fin, { code: code(secret, 1) })).status).toBe(400);
    expect((await stepUp(fin, { recovery_code: recovery[1] })).status).toBe(400);
    // Every step is in the audit log, by who did it.
    const log = await call('/api/v1/audit_log?limit=100', as(owner));
    const actions = log.body.data.map((r: { action: string; actor: { kind: string } }) => `${r.actor.kind} ${r.action}`);
    expect(actions).toEqual(
      expect.arrayContaining([
        'owner POST /dashboard/api/factors/totp',
        'owner POST /dashboard/api/step-up',
        'owner PUT /dashboard/api/factors/policy',
        'member POST /dashboard/api/factors/totp',
      ]),
    );
  });

  it("an authenticator's secret is sealed at rest (AES-256-GCM): no row holds it, one kept plain before is sealed at start, and its codes still verify", async () => {
    clock += 10 * MINUTE;
    const stored = async () => (await api.db.query(`SELECT id, totp_secret FROM second_factors WHERE merchant_id = $1 AND holder = 'owner'`, [merchantId]))[0]!;
    const sealed = await stored();
    expect(sealed.totp_secret).toMatch(/^sealed:v1:/);
    expect(sealed.totp_secret).not.toContain(secret);
    // …nor the secret waiting for its first code.
    expect((await call('/dashboard/api/factors/totp/options', as(owner, { method: 'POST' }))).status).toBe(403); // a step-up first
    expect((await stepUp(owner, { code: code(secret) }, { method: 'POST', path: '/dashboard/api/factors/totp/options' }, 'test')).status).toBe(200);
    const started = (await call('/dashboard/api/factors/totp/options', as(owner, { method: 'POST' }))).body.data.secret as string;
    const [challenge] = await api.db.query(`SELECT challenge FROM factor_challenges WHERE merchant_id = $1 AND purpose = 'totp'`, [merchantId]);
    expect(challenge!.challenge).toMatch(/^sealed:v1:/);
    expect(challenge!.challenge).not.toContain(started);
    // A row written before sealing was kept: plain, sealed when the service starts, and its codes verify.
    await api.db.query('UPDATE second_factors SET totp_secret = $2 WHERE id = $1', [sealed.id, secret]);
    expect(await api.parts.factors.sealPlainSecrets()).toBe(1); // the sealed ones (the member's, the challenge) left alone
    expect((await stored()).totp_secret).toMatch(/^sealed:v1:/);
    expect((await stored()).totp_secret).not.toContain(secret);
    clock += MINUTE;
    expect((await stepUp(owner, { code: code(secret) })).status).toBe(200);
    // Another key (a copy of the database alone, or an instance with another key file) opens nothing, and the service refuses to start with it.
    const stranger = new FactorStore(api.db, new SecretBox(randomBytes(32)));
    await expect(stranger.factors({ merchantId, holder: 'owner' })).rejects.toThrow();
    await expect(stranger.sealPlainSecrets()).rejects.toThrow(/secrets key does not open/);
    // Sealed for its own row: moved to another factor's, it opens nothing.
    const [theirs] = await api.db.query(`SELECT id FROM second_factors WHERE merchant_id = $1 AND holder <> 'owner'`, [merchantId]);
    await api.db.query('UPDATE second_factors SET totp_secret = $2 WHERE id = $1', [theirs!.id, (await stored()).totp_secret]);
    const holder = (await api.db.query('SELECT holder FROM second_factors WHERE id = $1', [theirs!.id]))[0]!.holder as string;
    await expect(api.parts.factors.factors({ merchantId, holder })).rejects.toThrow();
    // The key file is made once, the owner's only, and read back the same.
    const dir = mkdtempSync(join(tmpdir(), 'secrets-'));
    const box = secretBox(dir, undefined);
    expect(statSync(secretsKeyFile(dir)).mode & 0o777).toBe(0o600);
    expect(secretBox(dir, undefined).open(box.seal('JBSWY3DP', 'factor:x'), 'factor:x')).toBe('JBSWY3DP');
    rmSync(dir, { recursive: true });
  });
});
