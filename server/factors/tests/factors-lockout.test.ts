// Step-up guesses limited per person, not per address, over HTTP on PGlite and
// PostgreSQL (two instances on one database there): 150 wrong authenticator codes from five
// addresses (each within its own allowance) used to leave the right code working; now five wrong
// in a row lock the person's codes, from every address and on every instance, with an audit row
// and an e-mail to the person and the owner; a recovery code is the way back, or the owner
// unlocks a member.
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { holdAnswersToOpenApi } from '../../testing/conformance.ts';
import { startService, type Service } from '../../service/app.ts';
import { cheapPasswords } from '../../testing/passwords.ts';
import { databaseOptions, KINDS } from '../../testing/databases.ts';
import { businessWithOwner, callApi, sessionOf, type Call as ApiCall } from '../../testing/api-calls.ts';

holdAnswersToOpenApi();

const ADMIN = 'op_lockout_test_token_0123456789abcdef012345678';
const PASSWORD = 'correct horse battery';

describe.each(KINDS)('step-up lockout on %s', { timeout: 180_000 }, (kind) => {
  let api: Service;
  let other: Service | undefined;
  let clock = Date.UTC(2026, 11, 6, 10, 0, 0);
  let owner: { cookie: string; csrf: string };
  /** The owner's first authenticator (the first test adds it). */
  let first: string;

  type Call = ApiCall & { on?: Service };
  const call = (path: string, c: Call = {}) => callApi((c.on ?? api).url, path, c);
  const as = (s: { cookie: string; csrf: string }, c: Call = {}) => ({ ...c, cookie: s.cookie, csrf: s.csrf });
  const outbox = async () =>
    (await api.db.query(`SELECT recipient, text_body FROM emails WHERE kind = 'security_changed' ORDER BY created_ms`)).map((r) => ({
      to: r.recipient as string,
      text: r.text_body as string,
    }));
  const totp = (secret: string, steps = 0) =>
    new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({ timestamp: clock + steps * 30_000 });
  /** A code that is not the app's now (nor a step either side). */
  const wrong = (secret: string) => String((Number(totp(secret)) + 500_000) % 1_000_000).padStart(6, '0');
  async function enrol(s: { cookie: string; csrf: string }) {
    const secret = (await call('/dashboard/api/factors/totp/options', as(s, { method: 'POST' }))).body.data.secret as string;
    const added = await call('/dashboard/api/factors/totp', as(s, { method: 'POST', body: { code: totp(secret) } }));
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    clock += 60_000;
    return { secret, recovery: added.body.data.recoveryCodes as string[] };
  }
  /** A step-up for one request (by default a withdrawal, which these tries never send). */
  const stepUp = (s: { cookie: string; csrf: string }, body: object, c: Call = {}, action: object = { method: 'POST', path: '/api/v1/withdrawals' }) =>
    call('/dashboard/api/step-up', as(s, { ...c, method: 'POST', body: { ...body, for: action } }));

  beforeAll(async () => {
    const database = await databaseOptions(kind);
    // The service behind one proxy: each request's address is the one it forwards. The sign-ins' allowance as shipped (30 tries in ten minutes per address).
    const options = { adminToken: ADMIN, jobs: false, trustProxies: 1, smtpUrl: 'smtp://127.0.0.1:9', now: () => clock, ...database, ...cheapPasswords };
    api = await startService(options);
    if (kind === 'postgres') other = await startService(options);
    ({ owner } = await businessWithOwner(api.url, ADMIN, { name: 'Locked Bakery', email: 'owner@locked.example' }, PASSWORD));
  });
  afterAll(async () => {
    await other?.close();
    await api?.close();
  });

  it('150 wrong codes from five addresses lock the codes: the right one is refused after, on every instance, until a recovery code', async () => {
    const { secret, recovery } = await enrol(owner);
    first = secret;
    const answers: number[] = [];
    for (let address = 1; address <= 5; address++) {
      for (let i = 0; i < 30; i++)
        answers.push((await stepUp(owner, { code: wrong(secret) }, { from: `198.51.100.${address}`, on: other && i % 2 ? other : api })).status);
    }
    // Each address stayed within its allowance: every refusal was the code's (400), then the lock's (403).
    expect(answers.slice(0, 4)).toEqual([400, 400, 400, 400]);
    expect(answers.slice(4).every((s) => s === 403)).toBe(true);
    const right = await stepUp(owner, { code: totp(secret) }, { from: '198.51.100.6' });
    expect(right.status, JSON.stringify(right.body)).toBe(403);
    expect(right.body.code).toBe('factor_locked');
    if (other) expect((await stepUp(owner, { code: totp(secret, 1) }, { from: '198.51.100.7', on: other })).body.code).toBe('factor_locked');
    // Locked once: one audit row in each mode, one e-mail to the owner.
    expect(
      (await api.db.query(`SELECT mode FROM audit_log WHERE action = 'lock second-factor proofs (too many wrong)' ORDER BY mode`)).map((r) => r.mode),
    ).toEqual(['live', 'test']);
    expect((await outbox()).filter((m) => m.text.includes('locked'))).toEqual([
      { to: 'owner@locked.example', text: expect.stringContaining('too many wrong tries') },
    ]);
    // The way back: a recovery code steps up and lifts the lock.
    expect((await stepUp(owner, { recovery_code: recovery[0] })).status).toBe(200);
    clock += 60_000;
    expect((await stepUp(owner, { code: totp(secret) })).status).toBe(200);
    expect((await outbox()).filter((m) => m.text.includes('unlocked'))).toHaveLength(1);
  });

  it('a right code clears the count; the owner unlocks a member locked out', async () => {
    // Four wrong, one right: the count starts again (on a second app, added stepped up with the first).
    clock += 60_000;
    expect((await stepUp(owner, { code: totp(first) }, {}, { method: 'POST', path: '/dashboard/api/factors/totp/options' })).status).toBe(200);
    const { secret } = await enrol(owner);
    clock += 60_000;
    for (let i = 0; i < 4; i++) expect((await stepUp(owner, { code: wrong(secret) })).status).toBe(400);
    expect((await stepUp(owner, { code: totp(secret) })).status).toBe(200);
    clock += 60_000;
    for (let i = 0; i < 4; i++) expect((await stepUp(owner, { code: wrong(secret) })).status).toBe(400);
    expect((await stepUp(owner, { code: totp(secret) })).status).toBe(200);
    // A member locked out of their codes (the owner's invitation stepped up for itself).
    clock += 60_000;
    const invitation = { email: 'fin@locked.example', role: 'finance' };
    expect((await stepUp(owner, { code: totp(secret) }, {}, { method: 'POST', path: '/api/v1/members/invitations', body: invitation })).status).toBe(200);
    const invited = await call('/api/v1/members/invitations', as(owner, { method: 'POST', body: invitation }));
    expect(invited.status, JSON.stringify(invited.body)).toBe(201);
    const [mail] = await api.db.query(`SELECT text_body FROM emails WHERE kind = 'invitation' AND recipient = 'fin@locked.example'`);
    const token = /#invitation=([\w-]+)/.exec(mail.text_body as string)![1];
    const fin = sessionOf(await call('/dashboard/api/invitation', { method: 'POST', body: { token, email: 'fin@locked.example', password: PASSWORD } }));
    const memberId = (await call('/api/v1/members', as(owner))).body.data.find((m: { email: string }) => m.email === 'fin@locked.example').id as string;
    const theirs = await enrol(fin);
    for (let i = 0; i < 5; i++) await stepUp(fin, { code: wrong(theirs.secret) });
    expect((await stepUp(fin, { code: totp(theirs.secret) })).body.code).toBe('factor_locked');
    expect(
      (await outbox())
        .filter((m) => m.text.includes('was locked after'))
        .map((m) => m.to)
        .sort(),
    ).toEqual(['fin@locked.example', 'owner@locked.example', 'owner@locked.example']);
    // Only the owner unlocks (a member gets 403), just stepped up.
    expect((await call('/dashboard/api/factors/unlock', as(fin, { method: 'POST', body: { member: memberId } }))).status).toBe(403);
    expect((await call('/dashboard/api/factors/unlock', as(owner, { method: 'POST', body: { member: 'someone' } }))).status).toBe(400);
    clock += 6 * 60_000;
    expect((await call('/dashboard/api/factors/unlock', as(owner, { method: 'POST', body: { member: memberId } }))).body.code).toBe('step_up_required');
    expect(
      (await stepUp(owner, { code: totp(secret) }, {}, { method: 'POST', path: '/dashboard/api/factors/unlock', body: { member: memberId } })).status,
    ).toBe(200);
    const unlocked = await call('/dashboard/api/factors/unlock', as(owner, { method: 'POST', body: { member: memberId } }));
    expect(unlocked.status, JSON.stringify(unlocked.body)).toBe(200);
    expect(unlocked.body.data.unlocked).toEqual(['totp']);
    expect((await stepUp(fin, { code: totp(theirs.secret) })).status).toBe(200);
  });
});
