// Nothing a client sends ends the process or earns a 500. The demo runs as `npm run demo`
// runs it, the service and the shop's backend in one process; every hostile request of the
// review goes to both, and then a payment still goes through on that same process.
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromRoot } from '../service/paths.ts';
import { DEMO_MERCHANT } from '../service/seed.ts';
import { spawnService, type ServiceProcess } from '../testing/process.ts';

const { publicKey, secretKey } = DEMO_MERCHANT.keys.test;
let demo: ServiceProcess;
let api = '';
let shop = '';
let dataDir = '';

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'service-hostile-'));
  // The whole demo (anvil, its contracts, the service, the shop): 90 s on a loaded machine.
  demo = await spawnService(
    { DATA_DIR: dataDir, API_PORT: '0', SHOP_PORT: '0', CHAIN_PORT: '0' },
    fromRoot('build/demo/main.js'),
    /Merchant demo shop\s+(http:\/\/\S+)[\s\S]*Press Ctrl\+C/,
    90_000,
  );
  shop = demo.url;
  api = /Service and checkout\.js\s+(http:\/\/\S+)/.exec(demo.output())![1];
}, 120_000);
afterAll(async () => {
  await demo?.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

/** Sends raw bytes to `base` and resolves with the status code, or 0 when none came back. */
function raw(base: string, bytes: string | Buffer, { end = true } = {}): Promise<number> {
  const { port } = new URL(base);
  return new Promise((resolve) => {
    const socket = connect(Number(port), '127.0.0.1');
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk));
    socket.on('close', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0)));
    socket.on('error', () => {});
    socket.write(bytes);
    if (end) socket.end();
    else setTimeout(() => socket.destroy(), 100); // the client goes away mid-body
  });
}

const alive = async () => {
  expect(demo.child.exitCode).toBeNull();
  expect((await fetch(api + '/api/v1/coins', { headers: { 'x-api-key': publicKey } })).status).toBe(200);
  expect((await fetch(shop + '/')).status).toBe(200);
};

describe('hostile requests, to a demo process', { timeout: 40_000 }, () => {
  it('an invalid absolute-form target gets a 4xx from the service and the shop', async () => {
    for (const base of [api, shop]) {
      const status = await raw(base, 'GET http://[/ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      expect(status).toBeGreaterThanOrEqual(400);
      expect(status).toBeLessThan(500);
    }
    await alive();
  });

  it.each(['/api/v1/transaction/verify/%E0%A4%A', '/api/v1/payment_links/pay/%E0%A4%A', '/api/v1/bank/payouts/%E0%A4%A', '/pay/%E0%A4%A', '/files/%ZZ'])(
    'a malformed percent-escape in %s is a 400 that names the parameter',
    async (path) => {
      const response = await fetch(api + path, { headers: { 'x-api-key': publicKey, authorization: `Bearer ${secretKey}` } });
      expect(response.status).toBe(400);
      const body = await response.json();
      expect(body.message).toMatch(/malformed %-escape/);
      expect(body.errors).toHaveLength(1);
    },
  );

  it('the shop answers a malformed escape in an order lookup with 400', async () => {
    expect((await fetch(shop + '/orders/%E0%A4%A')).status).toBe(400);
    await alive();
  });

  it('a known path with another method is a 405 in the error envelope, naming the methods it has', async () => {
    const res = await fetch(api + '/api/v1/coins', { method: 'DELETE', headers: { 'x-api-key': publicKey } });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET');
    expect(await res.json()).toEqual({ status: 'error', statusCode: 405, code: 'method_not_allowed', message: 'DELETE is not allowed here; use GET' });
    const unknown = await fetch(api + '/api/v1/nothing-here', { method: 'DELETE' });
    expect(unknown.status).toBe(404);
    await alive();
  });

  it('a body that is not UTF-8 is a 400', async () => {
    const body = Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]);
    const status = await raw(
      api,
      Buffer.concat([
        Buffer.from(
          `POST /api/v1/transaction/initialize HTTP/1.1\r\nHost: x\r\nx-api-key: ${publicKey}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\nConnection: close\r\n\r\n`,
        ),
        body,
      ]),
    );
    expect(status).toBe(400);
  });

  it('clients that go away mid-body change nothing, on the service or the shop', async () => {
    await raw(
      api,
      `POST /api/v1/transaction/initialize HTTP/1.1\r\nHost: x\r\nx-api-key: ${publicKey}\r\ncontent-type: application/json\r\ncontent-length: 5000\r\n\r\n{"reference":`,
      { end: false },
    );
    await raw(
      api,
      `POST /api/v1/payment_links/donation HTTP/1.1\r\nHost: x\r\nauthorization: Bearer ${secretKey}\r\ncontent-type: multipart/form-data; boundary=b\r\ncontent-length: 5000\r\n\r\n--b\r\nContent-Disposition: form-data; name="title"\r\n\r\nHalf`,
      { end: false },
    );
    await raw(shop, 'POST /webhooks/service HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\ncontent-length: 5000\r\n\r\n{"id":', { end: false });
    await raw(shop, 'POST /orders HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\ncontent-length: 5000\r\n\r\n{"amount":', { end: false });
    await alive();
  });

  it('bodies past the limit are refused with 413 before they are kept, by both', async () => {
    const big = 'x'.repeat(256 * 1024);
    const service = await fetch(api + '/api/v1/transaction/initialize', {
      method: 'POST',
      headers: { 'x-api-key': publicKey, 'content-type': 'application/json' },
      body: big,
    });
    expect(service.status).toBe(413);
    for (const path of ['/webhooks/service', '/orders']) {
      expect((await fetch(shop + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: big })).status).toBe(413);
    }
    // Declared as 256 MiB: refused on the header, nothing read.
    const status = await raw(
      shop,
      `POST /orders HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\ncontent-length: ${256 * 1024 * 1024}\r\nConnection: close\r\n\r\n{}`,
    );
    expect(status).toBe(413);
    await alive();
  });

  it('metadata nested 7,000 deep is refused by name, not a stack overflow', async () => {
    const deep = '{"reference":"deep-1","coin":"USDT","currency":"USD","amount":1,"metadata":{"a":' + '['.repeat(7000) + ']'.repeat(7000) + '}}';
    const response = await fetch(api + '/api/v1/transaction/initialize', {
      method: 'POST',
      headers: { 'x-api-key': publicKey, 'content-type': 'application/json' },
      body: deep,
    });
    expect(response.status).toBe(400);
    expect((await response.json()).errors[0].field).toBe('metadata');
    const object = '{"reference":"deep-2","coin":"USDT","currency":"USD","amount":1,"metadata":{"a":' + '{"a":'.repeat(2500) + '1' + '}'.repeat(2501) + '}'; // 2,500 deep: under the 16 KiB limit
    const second = await fetch(api + '/api/v1/transaction/initialize', {
      method: 'POST',
      headers: { 'x-api-key': publicKey, 'content-type': 'application/json' },
      body: object,
    });
    expect(second.status).toBe(400);
  });

  it('after all of that, a payment still goes through on the same process, and the shop marks it paid', async () => {
    const headers = { 'x-api-key': publicKey, 'content-type': 'application/json' };
    const order = await (
      await fetch(shop + '/orders', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ amount: '12.00', currency: 'USD' }),
      })
    ).json();
    await fetch(api + '/api/v1/transaction/initialize', {
      method: 'POST',
      headers,
      body: JSON.stringify({ reference: order.reference, coin: 'USDT', currency: 'USD', amount: '12.00' }),
    });
    const paid = await fetch(api + '/api/v1/sandbox/deposit', { method: 'POST', headers, body: JSON.stringify({ reference: order.reference, kind: 'exact' }) });
    // The demo's sandbox sends a real transfer on its dev chain: pending until two blocks.
    expect((await paid.json()).data.status).toBe('pending');
    for (let i = 0; i < 200; i++) {
      const state = await (await fetch(`${shop}/orders/${order.reference}`)).json();
      if (state.paid) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error('the shop never marked the order paid');
  });
});
