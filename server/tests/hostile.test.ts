// Nothing a client sends ends the process or earns a 500: malformed targets, bad escapes,
// invalid UTF-8, bodies cut off mid-way, JSON nested thousands deep. Then a payment still
// goes through on the same service.
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type Service } from '../app.ts';
import { DEMO_MERCHANT } from '../seed.ts';

const { publicKey, secretKey } = DEMO_MERCHANT.keys.test;
let api: Service;
beforeAll(async () => {
  api = await startService();
});
afterAll(() => api.close());

/** Sends raw bytes and resolves with the status line's code, or 0 when the socket closed without one. */
function raw(bytes: string | Buffer, { end = true } = {}): Promise<number> {
  const { port } = new URL(api.url);
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

describe('hostile requests', () => {
  it('an invalid absolute-form target gets a 4xx, and the service keeps serving', async () => {
    const status = await raw('GET http://[/ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(status).toBeGreaterThanOrEqual(400);
    expect(status).toBeLessThan(500);
  });

  it.each([
    '/api/v1/transaction/verify/%E0%A4%A',
    '/api/v1/payment_links/pay/%E0%A4%A',
    '/api/v1/bank/payouts/%E0%A4%A',
    '/pay/%E0%A4%A',
    '/files/%ZZ',
  ])('a malformed percent-escape in %s is a 400 that names the parameter', async (path) => {
    const response = await fetch(api.url + path, { headers: { 'x-api-key': publicKey, authorization: `Bearer ${secretKey}` } });
    expect(response.status).toBe(400);
    const body = await response.json();
    expect(body.message).toMatch(/malformed %-escape/);
    expect(body.errors).toHaveLength(1);
  });

  it('a body that is not UTF-8 is a 400', async () => {
    const body = Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]);
    const status = await raw(Buffer.concat([Buffer.from(`POST /api/v1/transaction/initialize HTTP/1.1\r\nHost: x\r\nx-api-key: ${publicKey}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\nConnection: close\r\n\r\n`), body]));
    expect(status).toBe(400);
  });

  it('a client that goes away mid-body changes nothing', async () => {
    await raw(`POST /api/v1/transaction/initialize HTTP/1.1\r\nHost: x\r\nx-api-key: ${publicKey}\r\ncontent-type: application/json\r\ncontent-length: 5000\r\n\r\n{"reference":`, { end: false });
    await raw(`POST /api/v1/payment_links/donation HTTP/1.1\r\nHost: x\r\nauthorization: Bearer ${secretKey}\r\ncontent-type: multipart/form-data; boundary=b\r\ncontent-length: 5000\r\n\r\n--b\r\nContent-Disposition: form-data; name="title"\r\n\r\nHalf`, { end: false });
    expect((await fetch(api.url + '/api/v1/coins', { headers: { 'x-api-key': publicKey } })).status).toBe(200);
  });

  it('metadata nested 7,000 deep is refused by name, not a stack overflow', async () => {
    const deep = '{"reference":"deep-1","coin":"USDT","currency":"USD","amount":1,"metadata":{"a":' + '['.repeat(7000) + ']'.repeat(7000) + '}}';
    const response = await fetch(api.url + '/api/v1/transaction/initialize', { method: 'POST', headers: { 'x-api-key': publicKey, 'content-type': 'application/json' }, body: deep });
    expect(response.status).toBe(400);
    expect((await response.json()).errors[0].field).toBe('metadata');
    const object = '{"reference":"deep-2","coin":"USDT","currency":"USD","amount":1,"metadata":{"a":' + '{"a":'.repeat(2500) + '1' + '}'.repeat(2501) + '}'; // 2,500 deep: under the 16 KiB limit
    const second = await fetch(api.url + '/api/v1/transaction/initialize', { method: 'POST', headers: { 'x-api-key': publicKey, 'content-type': 'application/json' }, body: object });
    expect(second.status).toBe(400);
  });

  it('after all of that, a payment still goes through on the same process', async () => {
    const headers = { 'x-api-key': publicKey, 'content-type': 'application/json' };
    await fetch(api.url + '/api/v1/transaction/initialize', { method: 'POST', headers, body: JSON.stringify({ reference: 'after-1', coin: 'USDT', currency: 'USD', amount: 2 }) });
    const paid = await fetch(api.url + '/api/v1/sandbox/deposit', { method: 'POST', headers, body: JSON.stringify({ reference: 'after-1', kind: 'exact' }) });
    expect((await paid.json()).data.status).toBe('confirmed');
  });
});
