// The API reference page (1.3 MB) and the OpenAPI document (550 KB) are served as
// checkout.js is: brotli or gzip by Accept-Encoding (each decompressing to the very bytes sent
// plain), with an ETag per encoding and Vary, and a 304 with no body to a client that has them.
import { request } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type Service } from '../service/app.ts';

let api: Service;
beforeAll(async () => {
  api = await startService({ demo: true, jobs: false });
}, 60_000);
afterAll(() => api?.close());

/** The raw answer, as the wire carries it (fetch would decompress it). */
const get = (path: string, headers: Record<string, string> = {}) =>
  new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }>((resolve, reject) => {
    request(api.url + path, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    })
      .on('error', reject)
      .end();
  });

describe.each([
  ['/api/v1/reference', 'text/html; charset=utf-8'],
  ['/api/v1/openapi.json', 'application/json; charset=utf-8'],
])('%s', (path, type) => {
  it('is compressed by Accept-Encoding, cached by its ETag (304), and the same document in every encoding', async () => {
    const plain = await get(path);
    expect([plain.status, plain.headers['content-type'], plain.headers['content-encoding'], plain.headers.vary, plain.headers['cache-control']]).toEqual([
      200,
      type,
      undefined,
      'Accept-Encoding',
      'no-cache',
    ]);
    const br = await get(path, { 'accept-encoding': 'gzip, deflate, br' });
    const gz = await get(path, { 'accept-encoding': 'gzip' });
    expect([br.headers['content-encoding'], gz.headers['content-encoding']]).toEqual(['br', 'gzip']);
    expect(brotliDecompressSync(br.body).equals(plain.body)).toBe(true);
    expect(gunzipSync(gz.body).equals(plain.body)).toBe(true);
    console.log(`${path}: ${plain.body.length} bytes, brotli ${br.body.length}, gzip ${gz.body.length}`);
    expect(br.body.length).toBeLessThan(plain.body.length / 5);
    expect(gz.body.length).toBeLessThan(plain.body.length / 4);
    // One ETag per encoding, of one content; a client holding any of them gets a 304, no body.
    const tags = [plain, br, gz].map((r) => r.headers.etag as string);
    expect(new Set(tags).size).toBe(3);
    for (const tag of tags) {
      const again = await get(path, { 'accept-encoding': 'br', 'if-none-match': tag });
      expect([again.status, again.body.length, again.headers.etag]).toEqual([304, 0, tags[1]]);
    }
    expect((await get(path, { 'if-none-match': '"0000000000000000"' })).status).toBe(200);
    // Its security headers are kept.
    expect(plain.headers['x-content-type-options']).toBe('nosniff');
  });
});
