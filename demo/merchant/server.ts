// A merchant's web site, on an origin of its own: serves public/ with the API's origin and
// the merchant's public key written into the page.
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface MerchantSite {
  /** http://localhost:<port>: another origin than the API's http://127.0.0.1:<port>. */
  url: string;
  server: Server;
  close(): Promise<void>;
}

// build/demo/merchant or demo/merchant: public/ sits at the package root either way.
const PUBLIC_DIR = fileURLToPath(new URL('../../public/', import.meta.url).href.replace('/build/public/', '/public/'));
const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

/** Scripts only from the payment service, no inline styles, no eval: the strictest a shop might set. */
export const strictPolicy = (apiUrl: string) =>
  [
    "default-src 'none'",
    `script-src ${apiUrl}`,
    `connect-src ${apiUrl}`,
    "style-src 'self'",
    "img-src 'self' data:",
    "base-uri 'none'",
    "form-action 'self'",
  ].join('; ');

export async function startMerchantSite(options: { apiUrl: string; publicKey: string; port?: number }): Promise<MerchantSite> {
  const server = createServer(async (req, res) => {
    const path = new URL(req.url ?? '/', 'http://shop').pathname;
    const file = normalize(path === '/' ? '/index.html' : path).replace(/^(\.\.[/\\])+/, '');
    try {
      let body: Buffer | string = await readFile(PUBLIC_DIR + file.slice(1));
      if (file.endsWith('.html')) {
        body = body
          .toString('utf8')
          .replaceAll('%API_ORIGIN%', options.apiUrl)
          .replaceAll('%PUBLIC_KEY%', options.publicKey);
      }
      const headers: Record<string, string> = { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-cache' };
      if (file === '/csp.html') headers['content-security-policy'] = strictPolicy(options.apiUrl);
      res.writeHead(200, headers);
      res.end(body);
    } catch {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found');
    }
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://localhost:${port}`,
    server,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
