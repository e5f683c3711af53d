// The service as a process: killed with SIGKILL mid-flight and restarted on its embedded
// database, and two instances sharing one PostgreSQL. Needs `npm run build` (npm test does).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fromRoot } from '../service/paths.ts';
import { paymentVersion } from '../../contract/schemas.ts';
import { DEMO_MERCHANT } from '../service/seed.ts';
import { freshPostgres } from '../testing/databases.ts';
import { spawnService, type ServiceProcess } from '../testing/process.ts';
import { startReceiver, type Receiver } from '../testing/receiver.ts';

const { publicKey, secretKey } = DEMO_MERCHANT.keys.test;
const webhookSecret = DEMO_MERCHANT.webhookSecrets!.test!;
const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const clean of cleanups.splice(0).reverse()) await clean();
});

/** The payment's version, as a long poll's `since` names it: what a status check answers now. */
async function versionOf(base: string, reference: string) {
  return encodeURIComponent(paymentVersion((await call(base, 'GET', `/api/v1/transaction/verify/${reference}`)).body.data));
}

async function call(base: string, method: string, path: string, body?: unknown, auth: 'public' | 'secret' = 'public') {
  const headers: Record<string, string> = auth === 'public' ? { 'x-api-key': publicKey } : { authorization: `Bearer ${secretKey}` };
  let payload: BodyInit | undefined;
  if (body instanceof FormData) payload = body;
  else if (body !== undefined) {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(body);
  }
  const response = await fetch(base + path, { method, headers, body: payload });
  const text = await response.text();
  return { status: response.status, body: text.startsWith('{') ? JSON.parse(text) : text };
}

async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function service(env: Record<string, string>, script?: string, ready?: RegExp): Promise<ServiceProcess> {
  const started = await spawnService(env, script, ready);
  cleanups.push(() => started.kill('SIGKILL'));
  return started;
}

async function receiver(status = 200): Promise<Receiver> {
  const started = await startReceiver(webhookSecret, status);
  cleanups.push(() => started.close());
  return started;
}

// Every production start seeded the demo merchant, whose keys (live ones too) are in
// the README: anyone could read its webhook secret, make links and take live payments.
describe('a production start', { timeout: 90_000 }, () => {
  it("seeds no merchant: the README's demo keys are refused, live and test", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'service-production-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const api = await service({ DATA_DIR: dataDir, SEED_DEMO_MERCHANT: 'false' });
    for (const key of [DEMO_MERCHANT.keys.live.publicKey, DEMO_MERCHANT.keys.test.publicKey]) {
      expect((await fetch(api.url + '/api/v1/coins', { headers: { 'x-api-key': key } })).status).toBe(401);
    }
    const secret = await fetch(api.url + '/api/v1/webhook', { headers: { authorization: `Bearer ${DEMO_MERCHANT.keys.live.secretKey}` } });
    expect(secret.status).toBe(401);
  });
});

describe('restart', { timeout: 90_000 }, () => {
  it('killed with SIGKILL mid-flight, restarted on its data directory: everything is there, and the pending delivery arrives', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'service-data-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    // A delivery cut by the kill holds its event for the lease (timeout + 5 s), then the new start sends it.
    const env = { DATA_DIR: dataDir, WEBHOOK_RETRY_MS: '100', WEBHOOK_RETRY_CAP_MS: '300', JOB_INTERVAL_MS: '100', WEBHOOK_TIMEOUT_MS: '1000' };
    const first = await service({ ...env, PAYOUT_CHECK_MS: '8000' });
    const hook = await receiver(503); // the merchant's endpoint is down for now
    expect((await call(first.url, 'PUT', '/api/v1/webhook', { url: hook.url }, 'secret')).status).toBe(200);
    expect((await call(first.url, 'PUT', '/api/v1/settlement', { settlement: 'balance' }, 'secret')).status).toBe(200);

    // A pending payment, a paid one (whose webhook cannot get through), a link with a photo, a payout under way.
    const pending = await call(first.url, 'POST', '/api/v1/transaction/initialize', { reference: 'r-pending', coin: 'USDT', currency: 'USD', amount: 12 });
    await call(first.url, 'POST', '/api/v1/transaction/initialize', { reference: 'r-paid', coin: 'USDT', currency: 'USD', amount: 10 });
    expect((await call(first.url, 'POST', '/api/v1/sandbox/deposit', { reference: 'r-paid', kind: 'exact' })).body.data.status).toBe('confirmed');
    const photo = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 4]);
    const form = new FormData();
    form.append('title', 'Roof fund');
    form.append('cover_photo', new Blob([photo], { type: 'image/png' }), 'roof.png');
    const link = await call(first.url, 'POST', '/api/v1/payment_links/donation', form, 'secret');
    expect(link.status).toBe(201);
    const bank = await call(
      first.url,
      'POST',
      '/api/v1/bank/payouts',
      {
        currency: 'NGN',
        bank_name: 'Access Bank',
        bank_code: '044',
        account_name: 'Harbour',
        account_number: '0123456789',
        country: 'nigeria',
        state: 'Lagos',
      },
      'secret',
    );
    const payout = await call(first.url, 'POST', '/api/v1/bank/payouts/initiate', { payout_bank_id: bank.body.data.id, coin: 'USDT', amount: 5 }, 'secret');
    expect(payout.status).toBe(201);
    const payoutPath = `/api/v1/bank/payouts/withdrawals/${payout.body.data.id}`;
    await until(
      'the payout handed to the provider',
      async () => (await call(first.url, 'GET', payoutPath, undefined, 'secret')).body.data.status === 'processing',
    );
    await until('a failed delivery attempt', () => hook.events.length > 0);

    expect((await call(first.url, 'GET', payoutPath, undefined, 'secret')).body.data.status).toBe('processing'); // its next check is 8 s away
    await first.kill('SIGKILL');
    hook.status = 200; // the merchant's endpoint is back
    const seenBefore = hook.events.length;
    const second = await service({ ...env, PAYOUT_CHECK_MS: '100' });

    const verify = await call(second.url, 'GET', '/api/v1/transaction/verify/r-pending');
    expect(verify.body.data).toMatchObject({ status: 'pending', address: pending.body.data.address, actualAmount: 12 });
    const page = await fetch(link.body.data.url.replace(first.url, second.url));
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Roof fund');
    const image = await fetch(link.body.data.image.replace(first.url, second.url));
    expect(new Uint8Array(await image.arrayBuffer())).toEqual(photo);
    await until('the payout paid after the restart', async () => (await call(second.url, 'GET', payoutPath, undefined, 'secret')).body.data.status === 'paid');
    const arrived = await until('the pending delivery', () =>
      hook.events.slice(seenBefore).find((e) => e.event === 'DEPOSIT_TRANSACTION' && e.data.reference === 'r-paid'),
    );
    expect(arrived.data.status).toBe('confirmed');
    console.log(`restart: the service listened ${Math.round(second.startMs)} ms after spawn (first start ${Math.round(first.startMs)} ms)`);
  });
});

describe('the demo', { timeout: 90_000 }, () => {
  it("prints its keys, and registers the shop's webhook only when none is stored: yours survives a restart", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'service-demo-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const demo = fromRoot('build/demo/main.js');
    const ready = /Merchant demo shop\s+(http:\/\/\S+)[\s\S]*Press Ctrl\+C/;
    const env = { DATA_DIR: dataDir, API_PORT: '0', SHOP_PORT: '0', CHAIN_PORT: '0' };
    const first = await service(env, demo, ready);
    const api = /Service and checkout\.js\s+(http:\/\/\S+)/.exec(first.output())![1];
    for (const printed of [publicKey, secretKey, webhookSecret, 'Price ids']) expect(first.output()).toContain(printed);
    const registered = await call(api, 'GET', '/api/v1/webhook', undefined, 'secret');
    expect(registered.body.data.url).toBe(`${first.url}/webhooks/service`);
    const mine = 'http://127.0.0.1:3999/my-hooks';
    await call(api, 'PUT', '/api/v1/webhook', { url: mine }, 'secret');
    await first.kill();
    const second = await service(env, demo, ready);
    expect(second.output()).toContain('yours, kept');
    const api2 = /Service and checkout\.js\s+(http:\/\/\S+)/.exec(second.output())![1];
    expect((await call(api2, 'GET', '/api/v1/webhook', undefined, 'secret')).body.data.url).toBe(mine);
  });
});

describe('two instances on one PostgreSQL', { timeout: 90_000 }, () => {
  it('a long poll held by one instance wakes on a deposit made through the other', async () => {
    const databaseUrl = await freshPostgres();
    // Started together on a new state directory, as a deployment's instances are: the
    // migrations' lock orders them, and both make the operator token and the secrets key at
    // once (one linked it first, the other reads it: neither fails with EEXIST).
    const dataDir = mkdtempSync(join(tmpdir(), 'service-two-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const env = { DATABASE_URL: databaseUrl, DATA_DIR: dataDir };
    const [a, b] = await Promise.all([service(env), service(env)]);
    await call(a.url, 'POST', '/api/v1/transaction/initialize', { reference: 'x-1', coin: 'USDC', currency: 'EUR', amount: 20 });
    const started = Date.now();
    const held = call(b.url, 'GET', `/api/v1/transaction/verify/x-1?wait=20&since=${await versionOf(b.url, 'x-1')}`);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await call(a.url, 'POST', '/api/v1/sandbox/deposit', { reference: 'x-1', kind: 'exact' });
    const answer = await held;
    expect(answer.body.data.status).toBe('confirmed');
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('delivers 200 events exactly once between them', async () => {
    const databaseUrl = await freshPostgres();
    const dataDir = mkdtempSync(join(tmpdir(), 'service-two-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const env = { DATABASE_URL: databaseUrl, DATA_DIR: dataDir, WEBHOOK_RETRY_MS: '100', JOB_INTERVAL_MS: '50' };
    const [a, b, hook] = await Promise.all([service(env), service(env), receiver()]);
    await call(a.url, 'PUT', '/api/v1/webhook', { url: hook.url }, 'secret');
    // 100 payments, each paid in two deposits, through either instance: 200 events.
    for (let batch = 0; batch < 10; batch++) {
      await Promise.all(
        Array.from({ length: 10 }, async (_, i) => {
          const n = batch * 10 + i;
          const [first, second] = n % 2 ? [a, b] : [b, a];
          await call(first.url, 'POST', '/api/v1/transaction/initialize', { reference: `many-${n}`, coin: 'DAI', currency: 'USD', amount: 3 }, 'secret');
          await call(first.url, 'POST', '/api/v1/sandbox/deposit', { reference: `many-${n}`, kind: 'partial' });
          await call(second.url, 'POST', '/api/v1/sandbox/deposit', { reference: `many-${n}`, kind: 'exact' });
        }),
      );
    }
    await until('200 deliveries', () => hook.events.length >= 200, 30_000);
    await new Promise((resolve) => setTimeout(resolve, 1000)); // any duplicate would arrive by now
    const ids = hook.events.map((e) => e.id);
    expect(ids).toHaveLength(200);
    expect(new Set(ids).size).toBe(200);
    expect(hook.refused).toBe(0);
    const statuses = hook.events.filter((e) => e.event === 'DEPOSIT_TRANSACTION').map((e) => e.data.status);
    expect(statuses.filter((s) => s === 'confirmed')).toHaveLength(100);
    expect(statuses.filter((s) => s === 'incomplete')).toHaveLength(100);
  });
});
