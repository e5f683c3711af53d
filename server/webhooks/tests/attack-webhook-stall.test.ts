// Third review of issue 21 (this failed on main before its fix): a merchant on the same
// instance whose webhook endpoint takes the connection and never answers holds back every
// other merchant's deliveries. The sender claims a batch of 20 and waits for all of it
// (Promise.all) before claiming again, so each batch that holds one of the slow merchant's
// events lasts the whole webhook timeout; the per-account fairness of claimDue does not help,
// since the honest merchant's events wait behind the batch, not behind the queue.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startService } from '../../service/app.ts';
import { DEMO_MERCHANT } from '../../service/seed.ts';

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

async function endpoint(answer: boolean) {
  const received: number[] = [];
  const hanging: ServerResponse[] = [];
  const server = createServer(async (req: IncomingMessage, res) => {
    for await (const _ of req as AsyncIterable<Buffer>);
    received.push(Date.now());
    if (answer) res.writeHead(200).end();
    else hanging.push(res); // takes the request, never answers
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(
    () =>
      new Promise((resolve) => {
        hanging.forEach((r) => r.destroy());
        server.closeAllConnections();
        server.close(resolve);
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received };
}

const send = (base: string, key: string, method: string, path: string, body: unknown) =>
  fetch(base + path, { method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) }).then(
    async (r) => ({ status: r.status, body: await r.json() }),
  );

describe("one merchant's silent webhook endpoint", { timeout: 60_000 }, () => {
  it("does not delay another merchant's deliveries by the webhook timeout", async () => {
    const timeoutMs = 4_000;
    const api = await startService({ demo: true, webhookTimeoutMs: timeoutMs, jobIntervalMs: 50 });
    closers.push(() => api.close());
    // The attacker: a merchant account of its own on the instance, with an endpoint that never answers.
    const attacker = await api.parts.merchants.create({ businessName: 'Staller', businessEmail: 'staller@example.com', businessLogo: '' }, Date.now());
    const silent = await endpoint(false);
    expect((await send(api.url, attacker.keys.test.secretKey, 'PUT', '/api/v1/webhook', { url: silent.url })).status).toBe(200);
    const victimKey = DEMO_MERCHANT.keys.test.secretKey;
    const fast = await endpoint(true);
    expect((await send(api.url, victimKey, 'PUT', '/api/v1/webhook', { url: fast.url })).status).toBe(200);

    // The attacker makes a few events (sandbox payments on its test key): the sender is now waiting on them.
    for (let i = 0; i < 3; i++) {
      expect(
        (
          await send(api.url, attacker.keys.test.secretKey, 'POST', '/api/v1/transaction/initialize', {
            reference: `stall-${i}`,
            coin: 'USDT',
            currency: 'USD',
            amount: 1,
          })
        ).status,
      ).toBeLessThan(300);
      expect((await send(api.url, attacker.keys.test.secretKey, 'POST', '/api/v1/sandbox/deposit', { reference: `stall-${i}`, kind: 'exact' })).status).toBe(
        200,
      );
    }
    const deadline = Date.now() + 5_000;
    while (silent.received.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(silent.received.length).toBeGreaterThan(0);

    // The honest merchant's customer pays: its server should hear of it in well under the timeout.
    const paid = Date.now();
    expect(
      (await send(api.url, victimKey, 'POST', '/api/v1/transaction/initialize', { reference: 'honest-1', coin: 'USDT', currency: 'USD', amount: 1 })).status,
    ).toBeLessThan(300);
    expect((await send(api.url, victimKey, 'POST', '/api/v1/sandbox/deposit', { reference: 'honest-1', kind: 'exact' })).status).toBe(200);
    while (fast.received.length === 0 && Date.now() - paid < timeoutMs * 2) await new Promise((r) => setTimeout(r, 20));
    expect(fast.received.length).toBe(1);
    // Before the fix the honest delivery waited for the attacker's batch to time out (about 4 s).
    expect(fast.received[0]! - paid).toBeLessThan(1_500);
  });
});
