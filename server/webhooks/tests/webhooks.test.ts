import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { SIGNATURE_HEADER, verifyWebhook, WebhookError } from '../../../sdk/webhook.ts';
import { DEMO_MERCHANT } from '../../service/seed.ts';
import { startService, type Service } from '../../service/app.ts';
import { holdAnswersToOpenApi } from '../../testing/conformance.ts';

// Every answer of the API seen here must be one the OpenAPI document allows.
holdAnswersToOpenApi();

const { publicKey, secretKey } = DEMO_MERCHANT.keys.test;
const webhookSecret = DEMO_MERCHANT.webhookSecrets!.test!;
const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

/** A merchant endpoint that answers with `statuses` in turn (then 200) and keeps what came. */
async function merchantEndpoint(statuses: number[] = []) {
  const received: Array<{ body: string; signature: string | undefined; headers: Record<string, string> }> = [];
  const server = createServer(async (req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req as AsyncIterable<Buffer>) chunks.push(chunk);
    received.push({
      body: Buffer.concat(chunks).toString(),
      signature: req.headers[SIGNATURE_HEADER] as string | undefined,
      headers: req.headers as Record<string, string>,
    });
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

describe('webhooks', { timeout: 30_000 }, () => {
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
    expect((await api.deliveries()).map((d) => [d.attempt, d.status])).toEqual([
      [1, 500],
      [2, 503],
      [3, 502],
      [4, 200],
    ]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(hook.received).toHaveLength(4); // nothing after the 200
  });

  it('signs every delivery the Standard Webhooks way too: the standardwebhooks package verifies it, webhook-id is the event id on every retry, and a rotation carries both signatures', async () => {
    const api = await stub();
    const hook = await merchantEndpoint([500, 503]);
    await call(api, 'PUT', '/api/v1/webhook', { url: hook.url }, { authorization: `Bearer ${secretKey}` });
    await call(api, 'POST', '/api/v1/transaction/initialize', { reference: 'sw-1', coin: 'USDT', currency: 'USD', amount: 10 }, { 'x-api-key': publicKey });
    await call(api, 'POST', '/api/v1/sandbox/deposit', { reference: 'sw-1', kind: 'exact' }, { 'x-api-key': publicKey });
    await waitFor(async () => (await api.deliveries()).length === 3);
    const standard = new Webhook(webhookSecret);
    for (const { body, headers } of hook.received) {
      // The reference library, given the raw body and the headers exactly as they came.
      const event = standard.verify(body, headers) as { id: string };
      expect(headers['webhook-id']).toBe(event.id);
      expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
      expect(Math.abs(Number(headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(30);
      // Ours still comes, and the SDK takes either from the headers.
      expect(verifyWebhook(body, headers[SIGNATURE_HEADER], webhookSecret).id).toBe(event.id);
      expect(
        verifyWebhook(
          body,
          { 'webhook-id': headers['webhook-id'], 'webhook-timestamp': headers['webhook-timestamp'], 'webhook-signature': headers['webhook-signature'] },
          webhookSecret,
        ).id,
      ).toBe(event.id);
    }
    expect(new Set(hook.received.map(({ headers }) => headers['webhook-id'])).size).toBe(1);
    // Another secret, or a changed body, does not verify.
    const [{ body, headers }] = hook.received;
    expect(() => new Webhook('whsec_' + Buffer.from('another secret of 24 byte').toString('base64')).verify(body, headers)).toThrow(/signature/);
    expect(() => standard.verify(body.replace('confirmed', 'CONFIRMED'), headers)).toThrow(/signature/);
    expect(() => verifyWebhook(body, { ...headers, 'webhook-id': 'evt_other' }, webhookSecret)).toThrow(WebhookError);

    const rotated = await (await call(api, 'POST', '/api/v1/webhook/rotate', {}, { authorization: `Bearer ${secretKey}` })).json();
    const newSecret = rotated.data.secret as string;
    await call(api, 'POST', '/api/v1/transaction/initialize', { reference: 'sw-2', coin: 'USDT', currency: 'USD', amount: 10 }, { 'x-api-key': publicKey });
    await call(api, 'POST', '/api/v1/sandbox/deposit', { reference: 'sw-2', kind: 'exact' }, { 'x-api-key': publicKey });
    await waitFor(() => hook.received.length === 4);
    const during = hook.received[3];
    expect(during.headers['webhook-signature'].split(' ')).toHaveLength(2);
    for (const secret of [newSecret, webhookSecret]) {
      expect((new Webhook(secret).verify(during.body, during.headers) as { id: string }).id).toBe(during.headers['webhook-id']);
      expect(verifyWebhook(during.body, during.headers, secret).id).toBe(during.headers['webhook-id']);
    }
  });
});
