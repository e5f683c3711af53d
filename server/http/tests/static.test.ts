// Built files on the wire: checkout.js, its locales and the dashboard's assets go out
// compressed as the build made them, chosen by Accept-Encoding, revalidated by ETag (a repeat
// view is a 304), and cached for good only under a name that carries their hash. Needs
// `npm run build`.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type Service } from '../../service/app.ts';
import { builtFile, chooseEncoding, sendBuilt } from '../static.ts';
import { fromRoot } from '../../service/paths.ts';

type Answer = { status: number; headers: Record<string, string | string[] | undefined>; body: Buffer };

/** A GET as a browser sends it, without the client decompressing anything. */
function get(url: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    request(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    })
      .on('error', reject)
      .end();
  });
}

let api: Service;
beforeAll(async () => {
  api = await startService({ jobs: false });
});
afterAll(() => api?.close());

describe('choosing an encoding', () => {
  const both = new Set(['br', 'gzip', 'identity'] as const);
  it.each([
    ['gzip, deflate, br, zstd', 'br'],
    ['gzip, deflate', 'gzip'],
    ['br;q=0, gzip', 'gzip'],
    ['br;q=0, gzip;q=0', 'identity'],
    ['*', 'br'],
    ['*;q=0, gzip', 'gzip'],
    ['identity', 'identity'],
    ['', 'identity'],
    [undefined, 'identity'],
    ['BR', 'br'],
  ])('%j → %s', (header, expected) => {
    expect(chooseEncoding(header, both)).toBe(expected);
  });
  it('never names an encoding the build did not make', () => {
    expect(chooseEncoding('br, gzip', new Set(['gzip', 'identity'] as const))).toBe('gzip');
    expect(chooseEncoding('br', new Set(['identity'] as const))).toBe('identity');
  });
});

describe('a built file and its siblings', () => {
  it('serves a sibling only when it decompresses to the file: a stale or planted .br is never sent', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'static-test-'));
    try {
      const path = join(dir, 'checkout.js');
      writeFileSync(path, 'console.log("new build");');
      writeFileSync(path + '.br', brotliCompressSync(Buffer.from('console.log("old build");')));
      writeFileSync(path + '.gz', gzipSync(Buffer.from('console.log("new build");')));
      const file = (await builtFile(path))!;
      expect(Object.keys(file.bodies).sort()).toEqual(['gzip', 'identity']);
      expect(await builtFile(join(dir, 'missing.js'))).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('after a rebuild, the old ETag gets the new file compressed and its new ETag; the new ETag a 304', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'static-test-'));
    const path = join(dir, 'checkout.js');
    const build = (text: string) => {
      writeFileSync(path, text);
      writeFileSync(path + '.br', brotliCompressSync(Buffer.from(text)));
      writeFileSync(path + '.gz', gzipSync(Buffer.from(text)));
    };
    // The service's own way of serving it (page-routes.ts): read through builtFile on each request.
    const server = createServer(async (req, res) => sendBuilt(req, res, (await builtFile(path))!, 'text/javascript', 'revalidate'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/checkout.js`;
    try {
      build('console.log("first build");');
      const old = (await get(url, { 'accept-encoding': 'br' })).headers.etag as string;
      build('console.log("the second build, longer");');
      const fresh = await get(url, { 'accept-encoding': 'br', 'if-none-match': old });
      expect(fresh.status).toBe(200);
      expect(brotliDecompressSync(fresh.body).toString()).toBe('console.log("the second build, longer");');
      expect(fresh.headers.etag).not.toBe(old);
      expect((await get(url, { 'accept-encoding': 'br', 'if-none-match': fresh.headers.etag as string })).status).toBe(304);
    } finally {
      server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('checkout.js on the wire', () => {
  const built = readFileSync(fromRoot('dist/checkout.js'));

  it('goes out as brotli or gzip when the browser takes them, each decompressing to the built file', async () => {
    const br = await get(api.url + '/checkout.js', { 'accept-encoding': 'gzip, deflate, br' });
    expect(br.status).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toBe('Accept-Encoding');
    expect(brotliDecompressSync(br.body).equals(built)).toBe(true);
    expect(br.body.length).toBeLessThan(built.length / 2);
    expect(Number(br.headers['content-length'])).toBe(br.body.length);

    const gz = await get(api.url + '/checkout.js', { 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.body).equals(built)).toBe(true);

    const plain = await get(api.url + '/checkout.js');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.equals(built)).toBe(true);
    expect(plain.headers['content-type']).toMatch(/^text\/javascript/);
  });

  it('is revalidated: the same ETag gets a 304 with no body, a stale one the file and the new ETag', async () => {
    const first = await get(api.url + '/checkout.js', { 'accept-encoding': 'br' });
    expect(first.headers['cache-control']).toBe('no-cache');
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^"[0-9a-f]{16}-br"$/);
    const again = await get(api.url + '/checkout.js', { 'accept-encoding': 'br', 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    expect(again.headers.etag).toBe(etag);
    const stale = await get(api.url + '/checkout.js', { 'accept-encoding': 'br', 'if-none-match': '"0123456789abcdef-br"' });
    expect(stale.status).toBe(200);
    expect(stale.headers.etag).toBe(etag);
    expect(brotliDecompressSync(stale.body).equals(built)).toBe(true);
  });

  it('the locales too, compressed and revalidated', async () => {
    const fr = await get(api.url + '/checkout/locales/fr.json', { 'accept-encoding': 'br' });
    expect(fr.status).toBe(200);
    expect(fr.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(fr.body).equals(readFileSync(fromRoot('dist/locales/fr.json')))).toBe(true);
    expect(fr.headers['access-control-allow-origin']).toBe('*');
    const again = await get(api.url + '/checkout/locales/fr.json', { 'accept-encoding': 'br', 'if-none-match': fr.headers.etag as string });
    expect(again.status).toBe(304);
  });
});

describe("the dashboard's assets", () => {
  it('are named by their hash in the page, cached for good under it; an old hash is gone; the plain name is revalidated', async () => {
    const html = await (await fetch(api.url + '/dashboard')).text();
    const script = /src="(\/dashboard\/assets\/dashboard\.[0-9a-f]{16}\.js)"/.exec(html)![1]!;
    const style = /href="(\/dashboard\/assets\/dashboard\.[0-9a-f]{16}\.css)"/.exec(html)![1]!;
    const js = await get(api.url + script, { 'accept-encoding': 'br' });
    expect(js.status).toBe(200);
    expect(js.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(brotliDecompressSync(js.body).equals(readFileSync(fromRoot('dist/dashboard/dashboard.js')))).toBe(true);
    expect((await get(api.url + style, { 'accept-encoding': 'gzip' })).headers['content-encoding']).toBe('gzip');
    expect((await get(api.url + '/dashboard/assets/dashboard.0123456789abcdef.js')).status).toBe(404);
    const plain = await get(api.url + '/dashboard/assets/dashboard.js');
    expect(plain.headers['cache-control']).toBe('no-cache');
  });
});
