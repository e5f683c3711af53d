// The operator's path while the service runs: `merchant create` and `merchant list`
// reach the running service with the operator token, the new keys work at once and after a
// restart; the operator endpoints refuse every merchant key; an embedded database is never
// opened by two processes. Needs `npm run build` (npm test does).
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startService } from '../service/app.ts';
import { configFromEnv } from '../service/config.ts';
import { runOperatorCommand } from '../commands/operator.ts';
import { until } from '../testing/chain.ts';
import { freshPostgres } from '../testing/databases.ts';
import { DEMO_MERCHANT } from '../service/seed.ts';
import { runCommand as command, spawnService, type ServiceProcess } from '../testing/process.ts';

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const clean of cleanups.splice(0).reverse()) await clean();
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'service-operator-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function service(env: Record<string, string>): Promise<ServiceProcess> {
  const started = await spawnService({ SEED_DEMO_MERCHANT: 'false', ...env });
  cleanups.push(() => started.kill('SIGKILL'));
  return started;
}

const get = (base: string, path: string, headers: Record<string, string>) =>
  fetch(base + path, { headers }).then(async (r) => ({ status: r.status, body: await r.json() }));

describe('merchants made while the service runs', { timeout: 120_000 }, () => {
  it('the command reaches the running service: the keys work at once, are listed, and survive a restart', async () => {
    const dataDir = tempDir();
    const api = await service({ DATA_DIR: dataDir });
    // The token is made at start, for the owner's eyes only.
    const tokenFile = join(dataDir, 'operator-token');
    expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
    const token = readFileSync(tokenFile, 'utf8').trim();
    expect(token).toMatch(/^op_\S{40,}$/);

    const made = await command(['merchant', 'create', '--name', 'Corner Shop', '--email', 'till@corner.example', '--json'], { DATA_DIR: dataDir });
    expect(made.code, made.out).toBe(0);
    const created = JSON.parse(made.out.trim().split('\n').at(-1)!);
    expect(created.keys.live.secretKey).toMatch(/^sk_live_/);

    // At once, on the running service: no restart.
    expect((await get(api.url, '/api/v1/coins', { 'x-api-key': created.keys.test.publicKey })).status).toBe(200);
    const hook = await get(api.url, '/api/v1/webhook', { authorization: `Bearer ${created.keys.live.secretKey}` });
    expect(hook.status).toBe(200);
    expect(hook.body.data.secret).toBe(created.webhookSecrets.live);
    // The running service made it: the request reached it.
    const listed = await command(['merchant', 'list', '--json'], { DATA_DIR: dataDir });
    expect(listed.code, listed.out).toBe(0);
    expect(JSON.parse(listed.out.trim().split('\n').at(-1)!).map((m: { id: string }) => m.id)).toEqual([created.id]);
    // Human output, too, through the service.
    const human = await command(['merchant', 'create', '--name', 'Second Shop', '--email', 'b@second.example'], { DATA_DIR: dataDir });
    expect(human.out).toMatch(/Created Second Shop .*cannot be shown again[\s\S]*live secret key\s+sk_live_/);

    // Keys lost or leaked: new secret keys at once, the old ones refused, the public key kept.
    const rolled = await command(['merchant', 'roll-keys', '--id', created.id, '--json'], { DATA_DIR: dataDir });
    expect(rolled.code, rolled.out).toBe(0);
    const { secretKeys } = JSON.parse(rolled.out.trim().split('\n').at(-1)!);
    expect(secretKeys.live).toMatch(/^sk_live_/);
    expect((await get(api.url, '/api/v1/webhook', { authorization: `Bearer ${created.keys.live.secretKey}` })).status).toBe(401);
    expect((await get(api.url, '/api/v1/webhook', { authorization: `Bearer ${secretKeys.live}` })).status).toBe(200);
    expect((await get(api.url, '/api/v1/coins', { 'x-api-key': created.keys.test.publicKey })).status).toBe(200);
    const unknown = await command(['merchant', 'roll-keys', '--id', '00000000-0000-4000-8000-000000000000'], { DATA_DIR: dataDir });
    expect([unknown.code, unknown.out]).toEqual([1, expect.stringContaining('refused (404): No merchant 00000000-0000-4000-8000-000000000000')]);

    // Neither the token nor a secret key reached the service's log.
    await api.kill('SIGTERM');
    expect(api.output()).not.toContain(token);
    expect(api.output()).not.toContain(created.keys.live.secretKey);
    expect(api.output()).not.toContain(secretKeys.live);

    const again = await service({ DATA_DIR: dataDir });
    expect((await get(again.url, '/api/v1/coins', { 'x-api-key': created.keys.test.publicKey })).status).toBe(200);
    expect((await get(again.url, '/api/v1/webhook', { authorization: `Bearer ${secretKeys.test}` })).status).toBe(200);
    expect((await get(again.url, '/api/v1/webhook', { authorization: `Bearer ${created.keys.test.secretKey}` })).status).toBe(401);
    // The same token after a restart: the file is read, not made again.
    expect(readFileSync(tokenFile, 'utf8').trim()).toBe(token);
  });

  it('an embedded database takes one process: a second service refuses to start, a command works on it only when no service runs', async () => {
    const dataDir = tempDir();
    const first = await service({ DATA_DIR: dataDir });
    const second = await spawnService({ DATA_DIR: dataDir, SEED_DEMO_MERCHANT: 'false' }).then(
      (s) => (cleanups.push(() => s.kill('SIGKILL')), 'started'),
      (error: Error) => error.message,
    );
    expect(second).toMatch(new RegExp(`DATA_DIR ${dataDir} is in use by process ${first.child.pid} \\(the service, at http://127\\.0\\.0\\.1:\\d+\\)`));

    // A service killed outright leaves its lock behind: the command sees the process is gone,
    // works on the database itself, and the next start finds the merchant there.
    await first.kill('SIGKILL');
    const made = await command(['merchant', 'create', '--name', 'Offline Shop', '--email', 'a@offline.example', '--json'], { DATA_DIR: dataDir });
    expect(made.code, made.out).toBe(0);
    const created = JSON.parse(made.out.trim().split('\n').at(-1)!);
    const next = await service({ DATA_DIR: dataDir });
    expect((await get(next.url, '/api/v1/coins', { 'x-api-key': created.keys.test.publicKey })).status).toBe(200);
    await next.kill('SIGTERM');

    // A live holder that gives no address (another command at work): refused, nothing opened.
    writeFileSync(join(dataDir, 'service.lock'), JSON.stringify({ pid: process.pid, role: 'command', startedMs: Date.now() }));
    const refused = await command(['merchant', 'list'], { DATA_DIR: dataDir });
    expect(refused.code).toBe(1);
    expect(refused.out).toContain(`is in use by process ${process.pid} (an operator command)`);
  });

  it('a running service and no token to reach it: the command says what to do and changes nothing', async () => {
    const dataDir = tempDir();
    const api = await service({ DATA_DIR: dataDir, ADMIN_TOKEN: 'an-operator-token-of-forty-characters-00' });
    const refused = await command(['merchant', 'list'], { DATA_DIR: dataDir, SERVICE_URL: api.url });
    expect(refused.code).toBe(1);
    expect(refused.out).toMatch(/no operator token to reach it: set ADMIN_TOKEN/);
    const wrong = await command(['merchant', 'list'], { DATA_DIR: dataDir, ADMIN_TOKEN: 'an-operator-token-of-forty-characters-01' });
    expect(wrong.code).toBe(1);
    expect(wrong.out).toMatch(/refused \(401\): Unknown operator token/);
    // The token never travels in clear to another machine: nothing is sent, nothing resolved.
    const clear = await command(['merchant', 'list'], {
      DATA_DIR: dataDir,
      ADMIN_TOKEN: 'an-operator-token-of-forty-characters-00',
      SERVICE_URL: 'http://pay.example.com',
    });
    expect(clear.code).toBe(1);
    expect(clear.out).toMatch(/SERVICE_URL: expected https:\/\/ for a service on another machine/);
    const right = await command(['merchant', 'list', '--json'], { DATA_DIR: dataDir, ADMIN_TOKEN: 'an-operator-token-of-forty-characters-00' });
    expect(right.code, right.out).toBe(0);
    expect(JSON.parse(right.out.trim())).toEqual([]);
  });
});

describe('the operator endpoints', { timeout: 30_000 }, () => {
  it('open with the operator token only: every merchant key, no key and a wrong token are refused', async () => {
    const token = 'op_' + 'x'.repeat(40);
    const api = await startService({ demo: true, adminToken: token });
    cleanups.push(() => api.close());
    const attempts: Record<string, Record<string, string>> = {
      'no key': {},
      'live secret key': { authorization: `Bearer ${DEMO_MERCHANT.keys.live.secretKey}` },
      'test secret key': { authorization: `Bearer ${DEMO_MERCHANT.keys.test.secretKey}` },
      'public key as bearer': { authorization: `Bearer ${DEMO_MERCHANT.keys.live.publicKey}` },
      'public key header': { 'x-api-key': DEMO_MERCHANT.keys.test.publicKey },
      'token with a suffix': { authorization: `Bearer ${token}x` },
      'token cut short': { authorization: `Bearer ${token.slice(0, -1)}` },
    };
    for (const [name, headers] of Object.entries(attempts)) {
      for (const [method, path] of [
        ['GET', '/operator/v1/merchants'],
        ['POST', '/operator/v1/merchants'],
        ['POST', `/operator/v1/merchants/${DEMO_MERCHANT.id}/secret-keys`],
      ]) {
        const response = await fetch(api.url + path, {
          method,
          headers: { ...headers, 'content-type': 'application/json' },
          body: method === 'POST' ? JSON.stringify({ name: 'Evil', email: 'e@evil.example' }) : undefined,
        });
        expect(response.status, `${name}: ${method} ${path}`).toBe(401);
      }
    }
    expect((await api.parts.merchants.list()).map((m) => m.businessName)).toEqual([DEMO_MERCHANT.businessName]);
    expect((await fetch(api.url + '/api/v1/webhook', { headers: { authorization: `Bearer ${DEMO_MERCHANT.keys.live.secretKey}` } })).status).toBe(200); // not rolled
    // …and the operator token opens no merchant endpoint.
    expect((await fetch(api.url + '/api/v1/webhook', { headers: { authorization: `Bearer ${token}` } })).status).toBe(401);

    const bad = await fetch(api.url + '/operator/v1/merchants', {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: ' ', email: 'nope', logo: 'http://x' }),
    });
    expect(bad.status).toBe(400);
    expect((await bad.json()).errors.map((e: { field: string }) => e.field).sort()).toEqual(['email', 'logo', 'name']);
    const good = await fetch(api.url + '/operator/v1/merchants', {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Good', email: 'g@good.example' }),
    });
    expect(good.status).toBe(201);
  });

  it('a service with no token (in memory, no ADMIN_TOKEN) opens them to nobody', async () => {
    const api = await startService({ demo: true });
    cleanups.push(() => api.close());
    const response = await fetch(api.url + '/operator/v1/merchants', { headers: { authorization: `Bearer ${'op_' + 'x'.repeat(40)}` } });
    expect(response.status).toBe(401);
    expect((await response.json()).message).toMatch(/no operator token/);
  });
});

describe('on PostgreSQL', { timeout: 60_000 }, () => {
  it('the command works on the database directly, and a running instance takes the new keys at once', async () => {
    const databaseUrl = await freshPostgres();
    const api = await startService({ databaseUrl });
    cleanups.push(() => api.close());
    const lines: string[] = [];
    const config = configFromEnv({ DATABASE_URL: databaseUrl, DATA_DIR: tempDir() });
    expect(
      await runOperatorCommand(['merchant', 'create', '--name', 'Shared Shop', '--email', 's@shared.example', '--json'], config, (l) => lines.push(l)),
    ).toBe(0);
    const created = JSON.parse(lines[0]);
    expect((await get(api.url, '/api/v1/coins', { 'x-api-key': created.keys.test.publicKey })).status).toBe(200);
    expect((await get(api.url, '/api/v1/webhook', { authorization: `Bearer ${created.keys.live.secretKey}` })).body.data.secret).toBe(
      created.webhookSecrets.live,
    );
    lines.length = 0;
    expect(await runOperatorCommand(['merchant', 'roll-keys', '--id', created.id, '--json'], config, (l) => lines.push(l))).toBe(0);
    const { secretKeys } = JSON.parse(lines[0]);
    // The instance keeps keys it looked up and drops them when PostgreSQL's NOTIFY of the change
    // arrives (storage/account-cache.ts): a few milliseconds after the command's commit, so the
    // old key is refused as soon as that message is in, well within a second.
    const refusedWithin = async (key: string, ms: number) => {
      const until = Date.now() + ms;
      for (;;) {
        const status = (await get(api.url, '/api/v1/webhook', { authorization: `Bearer ${key}` })).status;
        if (status === 401 || Date.now() > until) return status;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    expect(await refusedWithin(created.keys.live.secretKey, 1000)).toBe(401);
    expect((await get(api.url, '/api/v1/webhook', { authorization: `Bearer ${secretKeys.live}` })).status).toBe(200);
    expect(JSON.stringify(await api.db.query('SELECT * FROM api_keys'))).not.toContain(secretKeys.live);
  });

  it("merchant withdrawal-limit and merchant fee set a merchant's one daily limit and the operator's fee per mode, which a running instance holds within a second; wrong options are named", async () => {
    const databaseUrl = await freshPostgres();
    const api = await startService({ databaseUrl, withdrawalDailyLimit: '2500' });
    cleanups.push(() => api.close());
    const lines: string[] = [];
    const config = configFromEnv({ DATABASE_URL: databaseUrl, DATA_DIR: tempDir(), WITHDRAWAL_DAILY_LIMIT: '2500' });
    expect(
      await runOperatorCommand(['merchant', 'create', '--name', 'Limited Shop', '--email', 'l@limited.example', '--json'], config, (l) => lines.push(l)),
    ).toBe(0);
    const created = JSON.parse(lines[0]);
    const { id } = created;
    const owner = (mode: 'test' | 'live') => ({ merchant: { id } as never, mode });
    expect(await api.parts.withdrawals.withdrawalLimit(owner('live'))).toEqual({ daily: '2500', set: false });
    lines.length = 0;
    expect(await runOperatorCommand(['merchant', 'withdrawal-limit', '--id', id, '--mode', 'live', '--daily', '750.5'], config, (l) => lines.push(l))).toBe(0);
    expect(lines.join('\n')).toMatch(
      /may now withdraw at most 750\.5 USD \(withdrawals and bank payouts, all coins and networks together\) in any 24 hours with its live keys/,
    );
    expect(await api.parts.withdrawals.withdrawalLimit(owner('live'))).toEqual({ daily: '750.5', set: true });
    expect(await api.parts.withdrawals.withdrawalLimit(owner('test'))).toEqual({ daily: '2500', set: false }); // per mode
    lines.length = 0;
    expect(
      await runOperatorCommand(['merchant', 'withdrawal-limit', '--id', id, '--mode', 'live', '--daily', 'default', '--json'], config, (l) => lines.push(l)),
    ).toBe(0);
    expect(JSON.parse(lines[0])).toEqual({ id, mode: 'live', currency: 'USD', daily: '2500', default: true });
    for (const [args, field] of [
      [['--mode', 'live', '--daily', '-5'], '--daily'],
      [['--mode', 'live', '--daily', '5.001'], '--daily'], // US dollars: to the cent
      [['--mode', 'prod', '--daily', '5'], '--mode'],
    ] as const) {
      lines.length = 0;
      expect(await runOperatorCommand(['merchant', 'withdrawal-limit', '--id', id, ...args], config, (l) => lines.push(l))).toBe(2);
      expect(lines[0]).toMatch(new RegExp(`^${field}: expected`));
    }
    lines.length = 0;
    expect(
      await runOperatorCommand(
        ['merchant', 'withdrawal-limit', '--id', '00000000-0000-4000-8000-000000000000', '--mode', 'live', '--daily', '5'],
        config,
        (l) => lines.push(l),
      ),
    ).toBe(1);
    expect(lines[0]).toMatch(/No merchant/);
    expect(() => configFromEnv({ WITHDRAWAL_DAILY_LIMIT: 'lots' })).toThrow(/WITHDRAWAL_DAILY_LIMIT: expected/);

    // merchant fee: the operator's fee on the merchant's new payments, per mode; none by default.
    const { keys } = created;
    const initialize = async (reference: string) =>
      (
        await fetch(`${api.url}/api/v1/transaction/initialize`, {
          method: 'POST',
          headers: { authorization: `Bearer ${keys.test.secretKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ reference, coin: 'USDT', currency: 'USD', amount: 10 }),
        }).then((r) => r.json())
      ).data;
    // The command writes beside the running instance (one PostgreSQL): the instance hears of it by
    // the change's NOTIFY and drops its copy of the terms (account-cache.ts), within a second, as
    // another instance hears of a rolled key (account-cache.test); until then it prices new
    // payments at the terms before. A new payment every 20 ms until it prices at `bps`.
    let tries = 0;
    const pricedAt = (bps: number) =>
      until(
        `the running instance pricing at ${bps} bps`,
        async () => {
          const made = await initialize(`fee-${tries++}`);
          return made.fee.bps === bps && made;
        },
        1_000,
        20,
      );
    expect(await api.parts.fees.terms(id, 'test')).toEqual({ bps: 0, bearer: 'customer', own: false });
    expect(await initialize('fee-first')).toMatchObject({
      actualAmount: 10,
      feeInCrypto: 0,
      fee: { bps: 0, bearer: 'customer', amount: '0', merchantAmount: '10' },
    });
    lines.length = 0;
    expect(await runOperatorCommand(['merchant', 'fee', '--id', id, '--mode', 'test', '--bps', '250'], config, (l) => lines.push(l))).toBe(0);
    expect(lines.join('\n')).toMatch(/new test payments now carry the operator's fee of 250 basis points \(2\.5%\), added to the price the customer pays/);
    expect(await pricedAt(250)).toMatchObject({
      actualAmount: 10.25,
      feeInCrypto: 0.25,
      fee: { bps: 250, bearer: 'customer', amount: '0.25', merchantAmount: '10' },
    });
    expect(await api.parts.fees.terms(id, 'live')).toEqual({ bps: 0, bearer: 'customer', own: false }); // per mode
    lines.length = 0;
    expect(
      await runOperatorCommand(['merchant', 'fee', '--id', id, '--mode', 'test', '--bps', '100', '--bearer', 'merchant', '--json'], config, (l) =>
        lines.push(l),
      ),
    ).toBe(0);
    expect(JSON.parse(lines[0])).toEqual({ id, mode: 'test', bps: 100, bearer: 'merchant', default: false });
    expect(await pricedAt(100)).toMatchObject({
      actualAmount: 10,
      feeInCrypto: 0,
      fee: { bps: 100, bearer: 'merchant', amount: '0.1', merchantAmount: '9.9' },
    });
    lines.length = 0;
    expect(await runOperatorCommand(['merchant', 'fee', '--id', id, '--mode', 'test', '--bps', 'default', '--json'], config, (l) => lines.push(l))).toBe(0);
    expect(JSON.parse(lines[0])).toEqual({ id, mode: 'test', bps: 0, bearer: 'customer', default: true });
    for (const [args, field] of [
      [['--mode', 'test', '--bps', '1001'], '--bps'], // at most 10%
      [['--mode', 'test', '--bps', '2.5'], '--bps'], // whole basis points
      [['--mode', 'test', '--bps', '10', '--bearer', 'operator'], '--bearer'],
    ] as const) {
      lines.length = 0;
      expect(await runOperatorCommand(['merchant', 'fee', '--id', id, ...args], config, (l) => lines.push(l))).toBe(2);
      expect(lines[0]).toMatch(new RegExp(`^${field}: expected`));
    }
    expect(() => configFromEnv({ FEE_BPS: '1001' })).toThrow(/FEE_BPS: expected a whole number from 0 to 1000/);
    expect(() => configFromEnv({ FEE_BEARER: 'operator' })).toThrow(/FEE_BEARER: expected customer or merchant/);
    expect(configFromEnv({ FEE_BPS: '150', FEE_BEARER: 'merchant' })).toMatchObject({ feeBps: 150, feeBearer: 'merchant' });
  });
});
