import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { SIGNATURE_HEADER, verifyWebhook } from '../../sdk/webhook.ts';
import { DEMO_MERCHANT } from '../seed.ts';
import { startService, type Service } from '../app.ts';

const { publicKey, secretKey } = DEMO_MERCHANT.keys.test;
const webhookSecret = DEMO_MERCHANT.webhookSecrets!.test!;
const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

/** A merchant endpoint that answers with `statuses` in turn (then 200) and keeps what came. */
async function merchantEndpoint(statuses: number[] = []) {
  const received: Array<{ body: string; signature: string | undefined }> = [];
  const server = createServer(async (req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req as AsyncIterable<Buffer>) chunks.push(chunk);
    received.push({ body: Buffer.concat(chunks).toString(), signature: req.headers[SIGNATURE_HEADER] as string | undefined });
    res.writeHead(statuses.shift() ?? 200).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => server.close(resolve)));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received };
}

async function stub(): Promise<Service> {
  const api = await startService({ demo: true, webhookRetryMs: 20 });
  closers.push(() => api.close());
  return api;
}

const call = (api: Service, method: string, path: string, body: unknown, headers: Record<string, string>) =>
  fetch(api.url + path, { method, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

async function waitFor(ok: () => boolean | Promise<boolean>) {
  const until = Date.now() + 5000;
  while (!(await ok())) {
    if (Date.now() > until) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('webhooks', () => {
  it('registers the URL with the secret key only', async () => {
    const api = await stub();
    const body = { url: 'http://127.0.0.1:9/hook' };
    expect((await call(api, 'PUT', '/api/v1/webhook', body, {})).status).toBe(401);
    const withPublic = await call(api, 'PUT', '/api/v1/webhook', body, { authorization: `Bearer ${publicKey}` });
    expect(withPublic.status).toBe(401);
    expect((await withPublic.json()).message).toMatch(/public key cannot authorize/);
    expect((await call(api, 'PUT', '/api/v1/webhook', body, { 'x-api-key': publicKey })).status).toBe(401);
    expect((await call(api, 'PUT', '/api/v1/webhook', { url: 'javascript:alert(1)' }, { authorization: `Bearer ${secretKey}` })).status).toBe(400);
    expect((await call(api, 'PUT', '/api/v1/webhook', body, { authorization: `Bearer ${secretKey}` })).status).toBe(200);
  });

  it('delivers DEPOSIT_TRANSACTION for a partial and a full payment, each signed and with its own id', async () => {
    const api = await stub();
    const hook = await merchantEndpoint();
    await call(api, 'PUT', '/api/v1/webhook', { url: hook.url }, { authorization: `Bearer ${secretKey}` });
    await call(api, 'POST', '/api/v1/transaction/initialize', { reference: 'wh-1', coin: 'USDT', currency: 'USD', amount: 10 }, { 'x-api-key': publicKey });
    await call(api, 'POST', '/api/v1/sandbox/deposit', { reference: 'wh-1', kind: 'partial' }, { 'x-api-key': publicKey });
    await call(api, 'POST', '/api/v1/sandbox/deposit', { reference: 'wh-1', kind: 'exact' }, { 'x-api-key': publicKey });
    await waitFor(() => hook.received.length === 2);
    const events = hook.received.map(({ body, signature }) => verifyWebhook(body, signature, webhookSecret));
    expect(events.map((e) => [e.event, e.event === 'DEPOSIT_TRANSACTION' && e.data.reference, e.event === 'DEPOSIT_TRANSACTION' && e.data.status])).toEqual([
      ['DEPOSIT_TRANSACTION', 'wh-1', 'incomplete'],
      ['DEPOSIT_TRANSACTION', 'wh-1', 'confirmed'],
    ]);
    expect(new Set(events.map((e) => e.id)).size).toBe(2);
  });

  it('retries with backoff until the merchant answers 2xx, the same event each time, freshly signed', async () => {
    const api = await stub();
    const hook = await merchantEndpoint([500, 503, 502]);
    await call(api, 'PUT', '/api/v1/webhook', { url: hook.url }, { authorization: `Bearer ${secretKey}` });
    await call(api, 'POST', '/api/v1/transaction/initialize', { reference: 'wh-2', coin: 'USDT', currency: 'USD', amount: 10 }, { 'x-api-key': publicKey });
    await call(api, 'POST', '/api/v1/sandbox/deposit', { reference: 'wh-2', kind: 'exact' }, { 'x-api-key': publicKey });
    // The merchant keeps the body before it answers, and the stub records the attempt only once
    // the answer is in, so wait on the stub's record: it is the later of the two.
    await waitFor(async () => (await api.deliveries()).length === 4);
    const ids = hook.received.map(({ body, signature }) => verifyWebhook(body, signature, webhookSecret).id);
    expect(new Set(ids).size).toBe(1);
    expect((await api.deliveries()).map((d) => [d.attempt, d.status])).toEqual([[1, 500], [2, 503], [3, 502], [4, 200]]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(hook.received).toHaveLength(4); // nothing after the 200
  });
});
