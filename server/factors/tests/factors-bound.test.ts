// Over HTTP on PGlite and PostgreSQL (two instances on one database there), with the
// service's clock moved by the test:
// - a person with a second factor is not signed in by the password alone: the password opens a
//   session that serves nothing until the factor's step (a code, a passkey or a recovery code),
//   whose wrong tries count with the step-up's per person (five lock them), a recovery code the
//   way back;
// - a step-up opens the one request it was asked for (mode, method, path, body), once: not
//   another amount, address or route, not the other mode, not twice, not after five minutes;
// - money moves are counted per person: a support member's junk refunds do not use up the
//   allowance finance withdraws with.
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { holdAnswersToOpenApi } from '../../testing/conformance.ts';
import { startService, type Service } from '../../service/app.ts';
import { cheapPasswords } from '../../testing/passwords.ts';
import { databaseOptions, KINDS } from '../../testing/databases.ts';
import { businessWithOwner, callApi, sessionOf, type Call as ApiCall } from '../../testing/api-calls.ts';

holdAnswersToOpenApi();

const ADMIN = 'op_bound_test_token_0123456789abcdef0123456789a';
const PASSWORD = 'correct horse battery';
const MINUTE = 60_000;
const A = '0x1111111111111111111111111111111111111111';
const B = '0x2222222222222222222222222222222222222222';

describe.each(KINDS)('second factors bound to sign-in and to one request on %s', { timeout: 180_000 }, (kind) => {
  let api: Service;
  let other: Service | undefined;
  let clock = Date.UTC(2026, 11, 6, 12, 0, 0);
  let owner: { cookie: string; csrf: string };
  let secret: string;
  let recovery: string[];

  type Call = ApiCall & { on?: Service };
  const call = (path: string, c: Call = {}) => callApi((c.on ?? api).url, path, c);
  const as = (s: { cookie: string; csrf: string }, c: Call = {}) => ({ ...c, cookie: s.cookie, csrf: s.csrf });
  const totp = (base32: string, steps = 0) =>
    new TOTP({ secret: Secret.fromBase32(base32), digits: 6, period: 30, algorithm: 'SHA1' }).generate({ timestamp: clock + steps * 30_000 });
  const wrong = (base32: string) => String((Number(totp(base32)) + 500_000) % 1_000_000).padStart(6, '0');
  const withdrawal = (amount: string, address = A) => ({ coin: 'USDT', chain_id: 56, amount, address });
  const withdraw = (s: { cookie: string; csrf: string }, body: unknown, c: Call = {}) =>
    call('/api/v1/withdrawals', as(s, { mode: 'live', ...c, method: 'POST', body }));
  const stepUp = (s: { cookie: string; csrf: string }, proof: object, action: { method: string; path: string; body?: unknown }, c: Call = {}) =>
    call('/dashboard/api/step-up', as(s, { mode: 'live', ...c, method: 'POST', body: { ...proof, for: action } }));
  const signIn = (email: string, c: Call = {}) => call('/dashboard/api/session', { ...c, method: 'POST', body: { email, password: PASSWORD } });
  /** The waiting sign-in's cookie (it has no CSRF token: the second step is a sign-in, from our own pages). */
  const waitingOf = (a: { headers: Headers }) => a.headers.get('set-cookie')!.split(';')[0]!;

  beforeAll(async () => {
    const database = await databaseOptions(kind);
    const options = {
      adminToken: ADMIN,
      jobs: false,
      signInsPerClient: 10_000,
      moneyMovesPerMinute: 3,
      smtpUrl: 'smtp://127.0.0.1:9',
      now: () => clock,
      ...database,
      ...cheapPasswords,
    };
    api = await startService(options);
    if (kind === 'postgres') other = await startService(options);
    ({ owner } = await businessWithOwner(api.url, ADMIN, { name: 'Bound Books', email: 'owner@bound.example' }, PASSWORD));
    const started = await call('/dashboard/api/factors/totp/options', as(owner, { method: 'POST' }));
    secret = started.body.data.secret;
    const added = await call('/dashboard/api/factors/totp', as(owner, { method: 'POST', body: { code: totp(secret) } }));
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    recovery = added.body.data.recoveryCodes;
    clock += MINUTE;
  });
  afterAll(async () => {
    await other?.close();
    await api?.close();
  });

  it('the password alone signs in nobody with a second factor: the second step takes a code, counts wrong ones per person, and a recovery code is the way back', async () => {
    const first = await signIn('owner@bound.example');
    expect(first.status, JSON.stringify(first.body)).toBe(202);
    expect(first.body.data.factorNeeded).toEqual(['totp']);
    expect(first.body.data.csrfToken).toBeUndefined();
    const waiting = waitingOf(first);
    // The waiting cookie opens nothing: no merchant route, no session, no step-up.
    expect((await call('/api/v1/payments', { cookie: waiting })).status).toBe(401);
    expect((await call('/dashboard/api/session', { cookie: waiting })).body.data).toBeUndefined();
    expect((await call('/dashboard/api/factors', { cookie: waiting })).status).toBe(401);
    // No waiting sign-in: the second step is refused.
    expect((await call('/dashboard/api/session/factor', { method: 'POST', body: { code: totp(secret) } })).status).toBe(401);
    // Wrong codes count with the person's step-up tries, on every instance: five lock the codes.
    const tries = [];
    for (let i = 0; i < 5; i++)
      tries.push(
        (await call('/dashboard/api/session/factor', { method: 'POST', cookie: waiting, body: { code: wrong(secret) }, on: other && i % 2 ? other : api }))
          .status,
      );
    expect(tries).toEqual([400, 400, 400, 400, 403]);
    const locked = await call('/dashboard/api/session/factor', { method: 'POST', cookie: waiting, body: { code: totp(secret) } });
    expect(locked.body.code).toBe('factor_locked');
    // Wrong recovery codes are refused one by one and never lock: they are the way back, and with
    // the password alone no one can shut the person out for good (an attack found them locked too).
    const guesses = [];
    for (let i = 0; i < 6; i++)
      guesses.push(
        (await call('/dashboard/api/session/factor', { method: 'POST', cookie: waiting, body: { recovery_code: `aaaa-bbbb-ccc${'234567'[i]}` } })).status,
      );
    expect(guesses).toEqual([400, 400, 400, 400, 400, 400]);
    // A recovery code signs in, and lifts the lock; the waiting cookie is spent, the new one works.
    const back = await call('/dashboard/api/session/factor', { method: 'POST', cookie: waiting, body: { recovery_code: recovery[0] } });
    expect(back.status, JSON.stringify(back.body)).toBe(200);
    const signed = sessionOf(back);
    expect(signed.cookie).not.toBe(waiting);
    expect((await call('/api/v1/payments', as(signed))).status).toBe(200);
    expect((await call('/dashboard/api/session/factor', { method: 'POST', cookie: waiting, body: { recovery_code: recovery[1] } })).status).toBe(401);
    // With the lock lifted, the app's code signs in.
    clock += MINUTE;
    const again = await signIn('owner@bound.example');
    const done = await call('/dashboard/api/session/factor', { method: 'POST', cookie: waitingOf(again), body: { code: totp(secret) } });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body.data.secondFactor).toEqual({ enrolled: true, mustEnrol: false });
    // A waiting sign-in lasts five minutes.
    clock += MINUTE;
    const late = await signIn('owner@bound.example');
    clock += 5 * MINUTE + 1000;
    expect((await call('/dashboard/api/session/factor', { method: 'POST', cookie: waitingOf(late), body: { code: totp(secret) } })).status).toBe(401);
    owner = sessionOf(done);
  });

  it('a step-up opens the one request it was asked for, once: not another amount, address, route or mode, nor after five minutes', async () => {
    clock += MINUTE;
    const five = withdrawal('5');
    expect((await withdraw(owner, five)).body.code).toBe('step_up_required');
    const up = await stepUp(owner, { code: totp(secret) }, { method: 'POST', path: '/api/v1/withdrawals', body: five });
    expect(up.status, JSON.stringify(up.body)).toBe(200);
    expect(up.body.data).toMatchObject({ for: 'POST /api/v1/withdrawals', mode: 'live' });
    // Another amount, another address, another route: each refused, and the step-up stays for its own request.
    expect((await withdraw(owner, withdrawal('6'))).body.code).toBe('step_up_required');
    expect((await withdraw(owner, withdrawal('5', B))).body.code).toBe('step_up_required');
    expect((await call('/api/v1/payout_address', as(owner, { mode: 'live', method: 'PUT', body: { chain_id: 56, address: B } }))).body.code).toBe(
      'step_up_required',
    );
    // The same body with its keys in another order is the same request: it passes the step-up
    // (the merchant is on wallet settlement: 409 after it), on another instance too. Then it is spent.
    const reordered = { address: A, amount: '5', chain_id: 56, coin: 'USDT' };
    expect((await withdraw(owner, reordered, { on: other })).body.code).toBe('balance_settlement_required');
    expect((await withdraw(owner, five)).body.code).toBe('step_up_required');
    // A step-up asked from test mode opens nothing live.
    clock += MINUTE;
    expect((await stepUp(owner, { code: totp(secret) }, { method: 'POST', path: '/api/v1/withdrawals', body: five }, { mode: 'test' })).status).toBe(200);
    expect((await withdraw(owner, five)).body.code).toBe('step_up_required');
    // Five minutes after the proof, its request is refused.
    clock += MINUTE;
    expect((await stepUp(owner, { code: totp(secret) }, { method: 'POST', path: '/api/v1/withdrawals', body: five })).status).toBe(200);
    clock += 5 * MINUTE + 1000;
    expect((await withdraw(owner, five)).body.code).toBe('step_up_required');
    // A member change (stepped up in either mode) takes one too, for that member only.
    const invite = { email: 'fin@bound.example', role: 'finance' };
    expect((await call('/api/v1/members/invitations', as(owner, { method: 'POST', body: invite }))).body.code).toBe('step_up_required');
    expect(
      (
        await stepUp(
          owner,
          { code: totp(secret) },
          { method: 'POST', path: '/api/v1/members/invitations', body: { email: 'someone@bound.example', role: 'admin' } },
          { mode: 'test' },
        )
      ).status,
    ).toBe(200);
    expect((await call('/api/v1/members/invitations', as(owner, { method: 'POST', body: invite }))).body.code).toBe('step_up_required');
    // Changing one's own factors too: the step-up names that change.
    clock += MINUTE;
    expect((await call('/dashboard/api/factors/recovery-codes', as(owner, { method: 'POST' }))).body.code).toBe('step_up_required');
    expect((await stepUp(owner, { code: totp(secret) }, { method: 'POST', path: '/dashboard/api/factors/recovery-codes' }, { mode: 'test' })).status).toBe(200);
    expect((await call('/dashboard/api/factors/recovery-codes', as(owner, { method: 'POST' }))).status).toBe(201);
    expect((await call('/dashboard/api/factors/recovery-codes', as(owner, { method: 'POST' }))).body.code).toBe('step_up_required');
    // Each step-up is in the audit log with the request it was for.
    const log = await api.db.query(`SELECT details FROM audit_log WHERE action = 'POST /dashboard/api/step-up' AND mode = 'live' ORDER BY at_ms`);
    expect(log.map((r) => (typeof r.details === 'string' ? JSON.parse(r.details) : r.details).values.for)).toEqual(
      expect.arrayContaining(['POST /api/v1/withdrawals', 'POST /dashboard/api/factors/recovery-codes']),
    );
  });

  it("money moves are counted per person: support's junk refunds do not spend finance's allowance", async () => {
    clock += MINUTE;
    // The owner's factor asks a step-up for each invitation (in either mode).
    async function join(email: string, role: string) {
      const body = { email, role };
      clock += MINUTE;
      expect((await stepUp(owner, { code: totp(secret) }, { method: 'POST', path: '/api/v1/members/invitations', body }, { mode: 'test' })).status).toBe(200);
      const made = await call('/api/v1/members/invitations', as(owner, { method: 'POST', body }));
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      const [mail] = await api.db.query(`SELECT text_body FROM emails WHERE kind = 'invitation' AND recipient = $1 ORDER BY created_ms DESC LIMIT 1`, [email]);
      const token = /#invitation=([\w-]+)/.exec(mail!.text_body as string)![1];
      return sessionOf(await call('/dashboard/api/invitation', { method: 'POST', body: { token, email, password: PASSWORD } }));
    }
    const support = await join('help@bound.example', 'support');
    const finance = await join('money@bound.example', 'finance');
    // Support's junk: refunds of payments that do not exist, test mode (no step-up), until its allowance (3 a minute) is spent.
    const junk = [];
    for (let i = 0; i < 4; i++)
      junk.push(
        (
          await call(
            '/api/v1/refunds',
            as(support, { method: 'POST', body: { reference: `nothing-${i}`, amount: '1', reason: 'junk' }, on: other && i % 2 ? other : api }),
          )
        ).status,
      );
    expect(junk).toEqual([403, 403, 403, 429]); // refused (support names no address and the payment has no customer e-mail), each counted
    // Finance's withdrawal is not refused for it: it gets past the allowance to the balance's own answer, on both instances.
    expect((await call('/api/v1/settlement', as(owner, { mode: 'test', method: 'PUT', body: { settlement: 'balance' } }))).status).toBe(200);
    for (const on of [api, other ?? api]) {
      const theirs = await call('/api/v1/withdrawals', as(finance, { mode: 'test', method: 'POST', body: withdrawal('5'), on }));
      expect(theirs.status, JSON.stringify(theirs.body)).not.toBe(429);
      expect(theirs.body.code).toBe('chain_not_offered');
    }
    // Support's own allowance is still spent: the limit holds for the one who spent it.
    expect((await call('/api/v1/refunds', as(support, { method: 'POST', body: { reference: 'nothing-5', amount: '1', reason: 'junk' } }))).status).toBe(429);
  });
});
