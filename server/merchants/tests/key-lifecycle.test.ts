// A restricted key's lifecycle over HTTP on PGlite and PostgreSQL (two instances on one
// database there): a key made with an expiry is refused from then on (401 saying it expired, on
// every instance, cached or not); a key it makes expires no later than it; each key's last use
// (when, and from which client address) is kept, written at most once a minute per key; the list
// shows each key's maker, expiry and last use.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { holdAnswersToOpenApi } from '../../testing/conformance.ts';
import { startService, type Service } from '../../service/app.ts';
import { cheapPasswords } from '../../testing/passwords.ts';
import { databaseOptions, KINDS } from '../../testing/databases.ts';
import { businessWithOwner, callApi, type Call as ApiCall } from '../../testing/api-calls.ts';

holdAnswersToOpenApi();

const ADMIN = 'op_keylife_test_token_0123456789abcdef012345678';
const HOUR = 3_600_000;

describe.each(KINDS)("a restricted key's expiry and last use on %s", { timeout: 120_000 }, (kind) => {
  let api: Service;
  let other: Service | undefined;
  let clock = Date.UTC(2026, 11, 6, 12, 0, 0);
  let owner: { cookie: string; csrf: string };

  type Call = ApiCall & { on?: Service };
  const call = (path: string, c: Call = {}) => callApi((c.on ?? api).url, path, c);
  const as = (c: Call = {}) => ({ ...c, cookie: owner.cookie, csrf: owner.csrf });
  const iso = (ms: number) => new Date(ms).toISOString();
  const listed = async (id: string) => ((await call('/api/v1/keys/restricted', as())).body.data as Array<Record<string, unknown>>).find((k) => k.id === id)!;

  beforeAll(async () => {
    const database = await databaseOptions(kind);
    // Behind one proxy: each request's client address is the one it forwards.
    const options = { adminToken: ADMIN, jobs: false, trustProxies: 1, signInsPerClient: 10_000, now: () => clock, ...database, ...cheapPasswords };
    api = await startService(options);
    if (kind === 'postgres') other = await startService(options);
    ({ owner } = await businessWithOwner(api.url, ADMIN, { name: 'Lifecycle Lamps', email: 'owner@lamps.example' }, 'correct horse battery'));
  });
  afterAll(async () => {
    await other?.close();
    await api?.close();
  });

  it('a key with an expiry works until then and is refused after, saying it expired; a key it makes expires no later', async () => {
    const past = await call(
      '/api/v1/keys/restricted',
      as({ method: 'POST', body: { name: 'old', permissions: ['payments.read'], expires_at: iso(clock - 1) } }),
    );
    expect(past.status).toBe(400);
    expect(past.body.errors[0].field).toBe('expires_at');
    const made = await call(
      '/api/v1/keys/restricted',
      as({ method: 'POST', body: { name: 'for a week-end', permissions: ['payments.read', 'developers.write'], expires_at: iso(clock + HOUR) } }),
    );
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body.data).toMatchObject({ expiresAt: iso(clock + HOUR), lastUsedAt: null, lastUsedFrom: null, createdBy: { kind: 'owner' } });
    const key = made.body.data.secretKey as string;
    // A key it makes cannot outlive it: later is refused, and none asked for takes its maker's.
    const later = await call('/api/v1/keys/restricted', {
      method: 'POST',
      bearer: key,
      body: { name: 'child', permissions: ['payments.read'], expires_at: iso(clock + 2 * HOUR) },
    });
    expect(later.status).toBe(400);
    expect(later.body.errors[0]).toMatchObject({ field: 'expires_at' });
    const child = await call('/api/v1/keys/restricted', { method: 'POST', bearer: key, body: { name: 'child', permissions: ['payments.read'] } });
    expect(child.status, JSON.stringify(child.body)).toBe(201);
    expect(child.body.data.expiresAt).toBe(iso(clock + HOUR));

    expect((await call('/api/v1/payments', { bearer: key })).status).toBe(200);
    if (other) expect((await call('/api/v1/payments', { bearer: key, on: other })).status).toBe(200); // now in that instance's cache
    clock += HOUR;
    for (const service of [api, ...(other ? [other] : [])]) {
      for (const secret of [key, child.body.data.secretKey as string]) {
        const refused = await call('/api/v1/payments', { bearer: secret, on: service });
        expect(refused.status).toBe(401);
        expect(refused.body.message).toMatch(/expired at 2026-12-06T13:00:00\.000Z/);
      }
    }
    // Listed with its expiry, still revocable.
    expect(await listed(made.body.data.id)).toMatchObject({ expiresAt: iso(clock), name: 'for a week-end' });
  });

  it('its last use is kept (when, from which address), written at most once a minute', async () => {
    const made = await call('/api/v1/keys/restricted', as({ method: 'POST', body: { name: 'reports', permissions: ['payments.read'] } }));
    const key = made.body.data.secretKey as string;
    expect(made.body.data.expiresAt).toBeNull();
    const first = clock;
    expect((await call('/api/v1/payments', { bearer: key, from: '198.51.100.7' })).status).toBe(200);
    expect(await listed(made.body.data.id)).toMatchObject({ lastUsedAt: iso(first), lastUsedFrom: '198.51.100.7', createdBy: { kind: 'owner' } });
    // Within the minute, from anywhere and on any instance: not written again.
    clock += 30_000;
    for (let i = 0; i < 5; i++)
      expect((await call('/api/v1/payments', { bearer: key, from: '203.0.113.9', on: other && i % 2 ? other : api })).status).toBe(200);
    expect(await listed(made.body.data.id)).toMatchObject({ lastUsedAt: iso(first), lastUsedFrom: '198.51.100.7' });
    // A minute on, the next use is kept.
    clock += 31_000;
    expect((await call('/api/v1/payments', { bearer: key, from: '203.0.113.9', on: other ?? api })).status).toBe(200);
    expect(await listed(made.body.data.id)).toMatchObject({ lastUsedAt: iso(clock), lastUsedFrom: '203.0.113.9' });
  });
});
