// Merchants and keys, webhook secrets and their rotation, the events feed, URL rules,
// payouts through their states, and logs that keep secrets out.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SIGNATURE_HEADER, signWebhook, verifyWebhook, WebhookError } from '../../../sdk/webhook.ts';
import { startService, type Service, type ServiceOptions } from '../../service/app.ts';
import { runOperatorCommand } from '../../commands/operator.ts';
import { configFromEnv } from '../../service/config.ts';
import { createLogger } from '../../service/log.ts';
import { DEMO_MERCHANT } from '../../service/seed.ts';
import { startReceiver, type Receiver } from '../../testing/receiver.ts';
import { retryDelay } from '../../webhooks/rules.ts';

const { publicKey, secretKey } = DEMO_MERCHANT.keys.test;
const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const clean of cleanups.splice(0).reverse()) await clean();
});

async function service(options: ServiceOptions = {}): Promise<Service> {
  const api = await startService({ demo: true, webhookRetryMs: 50, jobIntervalMs: 50, ...options });
  cleanups.push(() => api.close());
  return api;
}

async function receiver(secret: string): Promise<Receiver> {
  const r = await startReceiver(secret);
  cleanups.push(() => r.close());
  return r;
}

async function call(api: Service, method: string, path: string, body?: unknown, headers: Record<string, string> = { authorization: `Bearer ${secretKey}` }) {
  const response = await fetch(api.url + path, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, body: await response.json() };
}

async function until<T>(probe: () => T | undefined | false | Promise<T | undefined | false>, ms = 5000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('merchant create', { timeout: 30_000 }, () => {
  it('makes a business whose keys work at once, shows them once, and keeps only hashes of secret keys', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'service-cli-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const lines: string[] = [];
    const config = configFromEnv({ DATA_DIR: dataDir });
    expect(await runOperatorCommand(['merchant', 'create', '--name', 'Bakery', '--email', 'no-at-sign'], config, (l) => lines.push(l))).toBe(2);
    expect(lines.join('\n')).toMatch(/--email: expected an e-mail address/);
    lines.length = 0;
    expect(
      await runOperatorCommand(['merchant', 'create', '--name', 'Bakery Ltd', '--email', 'hello@bakery.example', '--json'], config, (l) => lines.push(l)),
    ).toBe(0);
    const created = JSON.parse(lines[0]);
    expect(created.keys.test.publicKey).toMatch(/^pk_test_[A-Za-z0-9]{32}$/);
    expect(created.keys.live.secretKey).toMatch(/^sk_live_[A-Za-z0-9]{32}$/);
    expect(created.webhookSecrets.test).toMatch(/^whsec_/);

    const api = await service({ dataDir });
    const coins = await call(api, 'GET', '/api/v1/coins', undefined, { 'x-api-key': created.keys.test.publicKey });
    expect(coins.status).toBe(200);
    const verify = await call(api, 'GET', '/api/v1/webhook', undefined, { authorization: `Bearer ${created.keys.live.secretKey}` });
    expect(verify.body.data.secret).toBe(created.webhookSecrets.live);
    const stored = JSON.stringify(await api.db.query('SELECT * FROM api_keys'));
    for (const mode of ['test', 'live'] as const) expect(stored).not.toContain(created.keys[mode].secretKey);
    expect(stored).toContain(created.keys.test.publicKey); // public by design: hosted pages need it
  });
});

describe('webhook signing secrets', () => {
  it("signs with the merchant's webhook secret, not the API key; during a rotation with both, and either verifies", async () => {
    const api = await service();
    const oldSecret = DEMO_MERCHANT.webhookSecrets!.test!;
    const hook = await receiver(oldSecret);
    await call(api, 'PUT', '/api/v1/webhook', { url: hook.url });
    await call(api, 'POST', '/api/v1/transaction/initialize', { reference: 'rot-1', coin: 'USDT', currency: 'USD', amount: 5 }, { 'x-api-key': publicKey });
    await call(api, 'POST', '/api/v1/sandbox/deposit', { reference: 'rot-1', kind: 'exact' }, { 'x-api-key': publicKey });
    // The service records an attempt once the answer is in, after the receiver kept it.
    const [sent] = await until(async () => ((await api.deliveries()).length === 1 ? await api.deliveries() : undefined));
    expect(() => verifyWebhook(sent.body, signWebhook(secretKey, sent.body), oldSecret)).toThrow(WebhookError);

    const rotated = await call(api, 'POST', '/api/v1/webhook/rotate');
    const newSecret = rotated.body.data.secret as string;
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(oldSecret);
    expect(Date.parse(rotated.body.data.previousSecretValidUntil)).toBeGreaterThan(Date.now() + 23 * 3_600_000);
    const capture = await startReceiver(newSecret);
    cleanups.push(() => capture.close());
    await call(api, 'PUT', '/api/v1/webhook', { url: capture.url });
    await call(api, 'POST', '/api/v1/transaction/initialize', { reference: 'rot-2', coin: 'USDT', currency: 'USD', amount: 5 }, { 'x-api-key': publicKey });
    await call(api, 'POST', '/api/v1/sandbox/deposit', { reference: 'rot-2', kind: 'exact' }, { 'x-api-key': publicKey });
    await until(() => capture.events.length === 1); // verified with the new secret
    const body = (await until(async () => ((await api.deliveries()).length === 2 ? await api.deliveries() : undefined)))[1].body;
    const both = signWebhook([newSecret, oldSecret], body);
    expect(verifyWebhook(body, both, oldSecret).id).toBe(verifyWebhook(body, both, newSecret).id);
    expect(both.match(/v1=/g)).toHaveLength(2);
  });

  it('verifyWebhook refuses to work without a real secret or with options that are not numbers', () => {
    const body = '{"id":"evt_1","event":"DEPOSIT_TRANSACTION","created":1,"data":{"reference":"x"}}';
    const header = signWebhook('whsec_a_real_secret', body);
    expect(() => verifyWebhook(body, header, '')).toThrow(TypeError);
    expect(() => signWebhook('', body)).toThrow(TypeError);
    expect(() => verifyWebhook(body, header, 'whsec_a_real_secret', { toleranceSeconds: Number.NaN })).toThrow(/toleranceSeconds/);
    expect(() => verifyWebhook(body, header, 'whsec_a_real_secret', { now: Number.NaN })).toThrow(/now/);
    const dayOld = signWebhook('whsec_a_real_secret', body, Math.floor(Date.now() / 1000) - 86_400);
    expect(() => verifyWebhook(body, dayOld, 'whsec_a_real_secret')).toThrow(/replay/);
    expect(verifyWebhook(body, header, 'whsec_a_real_secret').id).toBe('evt_1');
    expect(SIGNATURE_HEADER).toBe('x-service-signature');
  });
});

describe('events feed', () => {
  it('lists every event with its delivery attempts, follows from a cursor, and re-sends one', async () => {
    const api = await service();
    const hook = await receiver(DEMO_MERCHANT.webhookSecrets!.test!);
    // An event made before any URL is kept, and sent once a URL is registered.
    await call(api, 'POST', '/api/v1/transaction/initialize', { reference: 'feed-1', coin: 'USDT', currency: 'USD', amount: 5 }, { 'x-api-key': publicKey });
    await call(api, 'POST', '/api/v1/sandbox/deposit', { reference: 'feed-1', kind: 'partial' }, { 'x-api-key': publicKey });
    const parked = await call(api, 'GET', '/api/v1/events');
    expect(parked.body.data.map((e: { state: string }) => e.state)).toEqual(['no_endpoint']);
    await call(api, 'PUT', '/api/v1/webhook', { url: hook.url });
    await until(() => hook.events.length === 1);
    const cursor = parked.body.next as string;
    await call(api, 'POST', '/api/v1/sandbox/deposit', { reference: 'feed-1', kind: 'exact' }, { 'x-api-key': publicKey });
    await until(() => hook.events.length === 2);
    const newer = await until(async () => {
      const page = await call(api, 'GET', `/api/v1/events?cursor=${cursor}`);
      return page.body.data[0]?.attempts.length ? page : undefined;
    });
    expect(newer.body.data).toHaveLength(1);
    expect(newer.body.data[0]).toMatchObject({
      type: 'DEPOSIT_TRANSACTION',
      state: 'delivered',
      payload: { data: { reference: 'feed-1', status: 'confirmed' } },
    });
    expect(newer.body.data[0].attempts).toEqual([expect.objectContaining({ attempt: 1, status: 200, url: hook.url })]);

    const id = newer.body.data[0].id as string;
    expect((await call(api, 'POST', `/api/v1/events/${id}/resend`)).status).toBe(202);
    await until(() => hook.events.length === 3);
    expect(hook.events[2].id).toBe(id);
    expect((await call(api, 'POST', '/api/v1/events/evt_nope/resend')).status).toBe(404);
    expect((await call(api, 'GET', '/api/v1/events?after=-1')).body.errors).toEqual([{ field: 'after', message: expect.any(String) }]);
    expect((await call(api, 'GET', '/api/v1/events?cursor=-1')).body.errors).toEqual([{ field: 'cursor', message: expect.any(String) }]);
    expect((await call(api, 'GET', '/api/v1/events', undefined, { 'x-api-key': publicKey })).status).toBe(401);
  });

  it('keeps trying a failing endpoint on the schedule, records each attempt, and stops at the end of the window', async () => {
    // The service's clock is the test's: it moves only when the test moves it, so the schedule is
    // checked to the millisecond whatever the machine's load (it was checked by wall-clock gaps,
    // and a gap of 451 ms on a loaded machine failed a CI run).
    let clock = Date.now();
    const policy = { baseMs: 20, capMs: 40, windowMs: 200 };
    const api = await service({ now: () => clock, webhookRetryMs: policy.baseMs, webhookRetryCapMs: policy.capMs, webhookRetryWindowMs: policy.windowMs });
    const hook = await receiver(DEMO_MERCHANT.webhookSecrets!.test!);
    hook.status = 500;
    await call(api, 'PUT', '/api/v1/webhook', { url: hook.url });
    await call(api, 'POST', '/api/v1/transaction/initialize', { reference: 'give-up', coin: 'USDT', currency: 'USD', amount: 5 }, { 'x-api-key': publicKey });
    await call(api, 'POST', '/api/v1/sandbox/deposit', { reference: 'give-up', kind: 'exact' }, { 'x-api-key': publicKey });
    type Attempt = { at: string; status: number };
    const latest = async () => (await call(api, 'GET', '/api/v1/events')).body.data[0] as { state: string; attempts: Attempt[] } | undefined;
    let event = await until(async () => {
      const e = await latest();
      return e && e.attempts.length > 0 ? e : undefined;
    });
    // 20 ms after the first failure, then doubling up to 40 ms; none later than 200 ms after the event.
    while (event.state !== 'failed') {
      const tried = event.attempts.length;
      const due = Date.parse(event.attempts[tried - 1]!.at) + retryDelay(policy, tried);
      clock = due - 1;
      await new Promise((resolve) => setTimeout(resolve, 150)); // three of the job's looks: not one tries it early
      expect((await latest())!.attempts).toHaveLength(tried);
      clock = due;
      event = await until(async () => {
        const e = (await latest())!;
        return e.attempts.length > tried ? e : undefined;
      });
    }
    const first = Date.parse(event.attempts[0]!.at);
    expect(event.attempts.map((a) => Date.parse(a.at) - first)).toEqual([0, 20, 60, 100, 140, 180]);
    expect(event.attempts.every((a) => a.status === 500)).toBe(true);
    // Failed with the sixth: the seventh would come at 220 ms, past the window. Nothing more is tried.
    clock += 1000;
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect((await latest())!.attempts).toHaveLength(6);
  });
});

describe('webhook URLs', () => {
  // One service for every case: each only sets the endpoint and reads the answer.
  let api: Service;
  beforeAll(async () => {
    api = await startService({ demo: true, webhookRetryMs: 50, jobIntervalMs: 50 });
  });
  afterAll(() => api?.close());
  it.each([
    ['test', 'http://127.0.0.1:3000/hooks', 200],
    ['test', 'http://localhost:3000/hooks', 200],
    ['test', 'https://shop.example/hooks', 200],
    ['test', 'http://shop.example/hooks', 400],
    ['test', 'https://10.1.2.3/hooks', 400],
    ['test', 'https://169.254.169.254/latest/meta-data', 400],
    ['test', 'https://metadata.google.internal/', 400],
    ['test', 'https://[fd00::1]/hooks', 400],
    ['test', 'https://[::ffff:a00:1]/hook', 400],
    ['live', 'https://[::ffff:10.0.0.1]/hook', 400],
    ['live', 'https://[::ffff:a9fe:a9fe]/latest', 400],
    ['test', 'https://user:pass@shop.example/hooks', 400],
    ['live', 'http://127.0.0.1:3000/hooks', 400],
    ['live', 'https://shop.example/hooks', 200],
  ] as const)('%s keys: %s answers %i', async (mode, url, status) => {
    const response = await call(api, 'PUT', '/api/v1/webhook', { url }, { authorization: `Bearer ${DEMO_MERCHANT.keys[mode].secretKey}` });
    expect(response.status).toBe(status);
    if (status === 400) expect(response.body.errors[0].field).toBe('url');
  });
});

describe('payouts', () => {
  it('move pending → processing → paid (or failed at the bank), each change a PAYOUT_UPDATED event', async () => {
    const api = await service({ payoutCheckMs: 30 });
    const hook = await receiver(DEMO_MERCHANT.webhookSecrets!.test!);
    await call(api, 'PUT', '/api/v1/webhook', { url: hook.url });
    await call(api, 'PUT', '/api/v1/settlement', { settlement: 'balance' }); // payouts draw on money the service holds
    await call(api, 'POST', '/api/v1/transaction/initialize', { reference: 'funds', coin: 'USDT', currency: 'USD', amount: 100 }, { 'x-api-key': publicKey });
    await call(api, 'POST', '/api/v1/sandbox/deposit', { reference: 'funds', kind: 'exact' }, { 'x-api-key': publicKey });
    const account = (number: string) =>
      call(api, 'POST', '/api/v1/bank/payouts', {
        currency: 'NGN',
        bank_name: 'Zenith Bank',
        bank_code: '057',
        account_name: 'Harbour',
        account_number: number,
        country: 'nigeria',
        state: 'Lagos',
      });
    const good = (await account('0123456789')).body.data.id;
    const bad = (await account('0123450000')).body.data.id;
    const paid = (await call(api, 'POST', '/api/v1/bank/payouts/initiate', { payout_bank_id: good, coin: 'USDT', amount: 10, reference: 'po-good' })).body.data;
    const failed = (await call(api, 'POST', '/api/v1/bank/payouts/initiate', { payout_bank_id: bad, coin: 'USDT', amount: 20, reference: 'po-bad' })).body.data;
    expect(paid.status).toBe('pending');
    const states = (reference: string) => hook.events.filter((e) => e.event === 'PAYOUT_UPDATED' && e.data.reference === reference).map((e) => e.data.status);
    await until(() => states('po-good').length === 3 && states('po-bad').length === 3);
    expect(states('po-good')).toEqual(['pending', 'processing', 'paid']);
    expect(states('po-bad')).toEqual(['pending', 'processing', 'failed']);
    expect((await call(api, 'GET', `/api/v1/bank/payouts/withdrawals/${failed.id}`)).body.data).toMatchObject({
      status: 'failed',
      failure: expect.stringMatching(/rejected/),
    });
    // A failed payout gives its amount back to the balance.
    const balance = await api.parts.payouts.balance({ merchant: DEMO_MERCHANT, mode: 'test' });
    expect(balance).toBe(100_000_000n - 10_000_000n); // the 100 USD paid (no fee by default), less the 10 paid out
  });
});

describe('logs', () => {
  it('write one line per request and per delivery, with no key, secret or personal data in them', async () => {
    const lines: string[] = [];
    const logger = createLogger('info', { write: (line: string) => void lines.push(line) });
    const api = await service({ logger });
    const hook = await receiver(DEMO_MERCHANT.webhookSecrets!.test!);
    await call(api, 'PUT', '/api/v1/webhook', { url: hook.url });
    const personal = {
      reference: 'log-1',
      coin: 'USDT',
      currency: 'USD',
      amount: 5,
      customer_name: 'Grace Hopper',
      customer_email: 'grace@navy.example',
      metadata: { note: 'private-note' },
    };
    await call(api, 'POST', '/api/v1/transaction/initialize', personal, { 'x-api-key': publicKey });
    await call(api, 'POST', '/api/v1/sandbox/deposit', { reference: 'log-1', kind: 'exact' }, { 'x-api-key': publicKey });
    await until(() => hook.events.length === 1);
    await until(() => lines.some((l) => l.includes('webhook delivery')));
    const text = lines.join('');
    expect(lines.filter((l) => JSON.parse(l).msg === 'request').length).toBeGreaterThanOrEqual(3);
    for (const secret of [publicKey, secretKey, DEMO_MERCHANT.webhookSecrets!.test!, 'Grace Hopper', 'grace@navy.example', 'private-note']) {
      expect(text).not.toContain(secret);
    }
  });
});

describe("webhook delivery on a sender's terms", () => {
  /** A merchant endpoint that answers however `answer` says, counting what came. */
  async function endpoint(answer: (res: import('node:http').ServerResponse) => void) {
    const { createServer } = await import('node:http');
    let hits = 0;
    const server = createServer((req, res) => {
      hits++;
      req.resume();
      answer(res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => (server.closeAllConnections(), server.close(resolve))));
    return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`, hits: () => hits };
  }

  async function deliverOnce(api: Service, url: string, reference: string) {
    await call(api, 'PUT', '/api/v1/webhook', { url });
    await call(api, 'POST', '/api/v1/transaction/initialize', { reference, coin: 'USDT', currency: 'USD', amount: 5 }, { 'x-api-key': publicKey });
    await call(api, 'POST', '/api/v1/sandbox/deposit', { reference, kind: 'exact' }, { 'x-api-key': publicKey });
    return until(async () => (await api.deliveries()).find((d) => d.body.includes(`"${reference}"`)));
  }

  it('does not follow a redirect: the signed body stays where it was sent', async () => {
    const api = await service({ webhookRetryMs: 60_000 });
    const elsewhere = await receiver(DEMO_MERCHANT.webhookSecrets!.test!);
    const redirecting = await endpoint((res) => res.writeHead(307, { location: elsewhere.url }).end());
    const attempt = await deliverOnce(api, redirecting.url, 'redirect-1');
    expect(attempt.status).toBe(307);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(elsewhere.events).toHaveLength(0);
  });

  it('reads at most 64 KiB of an answer that never ends', async () => {
    const api = await service();
    const endless = await endpoint((res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(16 * 1024, 'x');
      const pump = () => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once('drain', pump);
      };
      pump();
    });
    const attempt = await deliverOnce(api, endless.url, 'endless-1');
    expect(attempt.status).toBe(200);
    expect(attempt.durationMs).toBeLessThan(2000);
  });

  it('gives an endpoint that never answers its timeout, then tries again', async () => {
    const api = await service({ webhookTimeoutMs: 200, webhookRetryMs: 60_000 });
    const silent = await endpoint(() => {});
    const attempt = await deliverOnce(api, silent.url, 'silent-1');
    expect(attempt).toMatchObject({ status: 0, error: 'no answer in 200 ms' });
    const [event] = (await call(api, 'GET', '/api/v1/events')).body.data.filter(
      (e: { payload: { data: { reference: string } } }) => e.payload.data.reference === 'silent-1',
    );
    expect(event.state).toBe('pending');
  });

  it('sends nothing after close()', async () => {
    const api = await startService({ demo: true, webhookRetryMs: 30, jobIntervalMs: 20 });
    const failing = await endpoint((res) => res.writeHead(500).end());
    await deliverOnce(api, failing.url, 'closing-1');
    await until(() => failing.hits() >= 2);
    await api.close();
    const after = failing.hits();
    await new Promise((resolve) => setTimeout(resolve, 300)); // ten retry delays
    expect(failing.hits()).toBe(after);
  });

  // Review of issue 21: any merchant on a shared instance holds a test key, and test keys could
  // point webhooks at loopback: the service then POSTed to the operator's own services.
  it("sends test keys' webhooks to this machine only where the operator allows it (WEBHOOKS_TO_LOOPBACK, on with the demo)", async () => {
    const shared = await service({ demo: false, merchants: [DEMO_MERCHANT] });
    const hook = await receiver(DEMO_MERCHANT.webhookSecrets!.test!);
    for (const url of [hook.url, `http://localhost:${new URL(hook.url).port}/hook`, `https://[::1]:${new URL(hook.url).port}/hook`]) {
      const refused = await call(shared, 'PUT', '/api/v1/webhook', { url });
      expect(refused.status, url).toBe(400);
      expect(refused.body.errors, url).toEqual([{ field: 'url', message: expect.stringMatching(/WEBHOOKS_TO_LOOPBACK=true/) }]);
    }
    // An event of a test key already pointed there (say, before the switch was turned off) is not sent either.
    await shared.parts.merchants.setWebhookUrl({ merchant: { id: DEMO_MERCHANT.id } as never, mode: 'test', via: 'secret' } as never, hook.url, Date.now());
    await call(shared, 'POST', '/api/v1/transaction/initialize', { reference: 'loop-1', coin: 'USDT', currency: 'USD', amount: 5 });
    await call(shared, 'POST', '/api/v1/sandbox/deposit', { reference: 'loop-1', kind: 'exact' });
    const attempts = await until(async () => {
      const feed = (await call(shared, 'GET', '/api/v1/events')).body.data as Array<{ attempts?: Array<{ error: string | null }> }>;
      const tried = feed.flatMap((e) => e.attempts ?? []);
      return tried.length > 0 && tried;
    });
    expect(attempts[0]!.error).toMatch(/refused: .* WEBHOOKS_TO_LOOPBACK=true/);
    expect(hook.events.length + hook.refused).toBe(0);
    // The operator's switch: on, a developer's own machine is a fine place for test events.
    const own = await service({ demo: false, merchants: [DEMO_MERCHANT], loopbackWebhooks: true });
    expect((await call(own, 'PUT', '/api/v1/webhook', { url: hook.url })).status).toBe(200);
  });

  it('checks addresses after DNS resolution: localhost is loopback, refused for live keys', async () => {
    const { post } = await import('../../webhooks/post.ts');
    const { addressProblem } = await import('../../http/outbound-addresses.ts');
    const listening = await endpoint((res) => res.writeHead(200).end());
    const port = new URL(listening.url).port;
    const signal = new AbortController().signal;
    expect(await post(`http://localhost:${port}/hook`, '{}', {}, { loopback: true, timeoutMs: 2000, signal })).toEqual({ status: 200, error: null });
    const live = await post(`http://localhost:${port}/hook`, '{}', {}, { loopback: 'live', timeoutMs: 2000, signal });
    expect(live.status).toBe(0);
    expect(live.error).toMatch(/refused: localhost resolves to an address that is this machine: .*loopback is for test keys only/);
    // The address a name resolved to is never recorded: whoever set the URL would learn what an internal host resolves to.
    expect(live.error).not.toMatch(/127\.0\.0\.1|::1|\d+\.\d+\.\d+\.\d+/);
    expect(listening.hits()).toBe(1);
    // An address refused before any connection answers as a failed attempt; it must not throw.
    expect(await post('https://[::ffff:a00:1]/hook', '{}', {}, { loopback: 'live', timeoutMs: 2000, signal })).toEqual({
      status: 0,
      error: expect.stringMatching(/^refused: ::ffff:a00:1 is a private/),
    });
    for (const address of [
      '10.0.0.8',
      '172.20.1.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      'fd00:ec2::254',
      'fe80::1',
      '::ffff:10.0.0.1',
      '::ffff:a00:1',
      '::ffff:a9fe:a9fe',
      '0.0.0.0',
    ]) {
      expect(addressProblem(address, true), address).toMatch(/private, link-local or reserved/);
    }
    expect(addressProblem('8.8.8.8', 'live')).toBeUndefined();
    expect(addressProblem('2606:4700::1111', 'live')).toBeUndefined();
    // Where the operator has not allowed loopback, test keys' events do not reach this machine either.
    const off = await post(`http://localhost:${port}/hook`, '{}', {}, { loopback: 'off', timeoutMs: 2000, signal });
    expect(off).toMatchObject({ status: 0, error: expect.stringMatching(/refused: localhost resolves to .* WEBHOOKS_TO_LOOPBACK=true/) });
    expect(listening.hits()).toBe(1);
  });
});
