// A merchant's web site, on an origin of its own: serves public/ with the API's origin and
// the merchant's public key written into the page.
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, normalize } from 'node:path';
import { randomBytes } from 'node:crypto';
import { ServiceClient, ServiceError } from '../../sdk/client.ts';
import { verifyWebhook, WebhookError, type ServiceEvent } from '../../sdk/webhook.ts';
import { fromRoot } from '../paths.ts';

/** The shop's catalogue: what each item the page sells costs, by the id it puts in metadata. */
const CATALOGUE: Record<string, { amount: string; currency: string }> = { 'beans-1kg': { amount: '24.50', currency: 'USD' } };

/** A page-made order's price, from the items its metadata names (the page sells one item). */
function priceOf(metadata: Record<string, unknown> | null | undefined): Order['price'] {
  const items = Array.isArray(metadata?.items) ? (metadata.items as unknown[]) : [];
  return items.length === 1 && typeof items[0] === 'string' ? CATALOGUE[items[0]] : undefined;
}

class TooLarge extends Error {}
const MAX_BODY_BYTES = 64 * 1024;

/** A request body of at most 64 KiB: past that the request fails before more is kept. */
async function readBody(req: IncomingMessage): Promise<Buffer> {
  if (Number(req.headers['content-length'] ?? 0) > MAX_BODY_BYTES) throw new TooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new TooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** Where the merchant backend takes DEPOSIT_TRANSACTION deliveries. */
export const WEBHOOK_PATH = '/webhooks/service';

export interface Order {
  reference: string;
  /** What the order costs, as this shop priced it; a payment of anything else does not pay it. */
  price?: { amount: string; currency: string };
  paid: boolean;
  /**
   * A settled payment: the customer paid part of the amount and the merchant (accepting
   * partial payments) took it as the payment. What arrived, against what was due.
   */
  partlyPaid?: { amountPaid: number; actualAmount: number; coin: string };
  /** Why a confirmed payment did not mark the order paid (another amount or currency). */
  problem?: string;
  /** How many times a webhook marked it paid: 1 at most, whatever arrives. */
  timesMarkedPaid: number;
  events: string[];
}

export interface MerchantSite {
  /** http://localhost:<port>: another origin than the API's http://127.0.0.1:<port>. */
  url: string;
  server: Server;
  /** The merchant backend's view: orders by reference, as its webhook handler keeps them. */
  orders: Map<string, Order>;
  close(): Promise<void>;
}

const PUBLIC_DIR = fromRoot('public/');
const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

/**
 * Scripts only from the payment service, no inline styles, no eval: the strictest a shop might
 * set, as the README asks it for the checkout (worker-src data:, for the worker in which
 * checkout.js loads ICU's number tables off the page's thread). `/csp.html?worker=refused`
 * leaves that line out, as a policy written before it would.
 */
export const strictPolicy = (apiUrl: string, worker = true) =>
  [
    "default-src 'none'",
    `script-src ${apiUrl}`,
    ...(worker ? ['worker-src data:'] : []),
    `connect-src ${apiUrl}`,
    "style-src 'self'",
    "img-src 'self' data:",
    "base-uri 'none'",
    "form-action 'self'",
  ].join('; ');

export async function startMerchantSite(options: {
  apiUrl: string;
  publicKey: string;
  /** For creating payments from the server (the SDK). */
  secretKey?: string;
  /** The webhook signing secret (whsec_…): the shop will not start without it. */
  webhookSecret: string;
  port?: number;
}): Promise<MerchantSite> {
  if (!options.webhookSecret) throw new Error('startMerchantSite: webhookSecret is required; without it no webhook could be trusted');
  const orders = new Map<string, Order>();
  const seenEvents = new Set<string>();

  /** The merchant's webhook handler: genuine and fresh deliveries only, each event once. */
  async function receiveWebhook(req: IncomingMessage, res: ServerResponse) {
    const body = await readBody(req);
    let event: ServiceEvent;
    try {
      event = verifyWebhook(body, req.headers, options.webhookSecret);
    } catch (error) {
      const reason = error instanceof WebhookError ? error.reason : 'malformed_body';
      res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ refused: reason }));
      return;
    }
    if (seenEvents.has(event.id)) {
      // Already handled: say so with a 2xx, or the service would keep retrying it.
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ duplicate: true }));
      return;
    }
    seenEvents.add(event.id);
    if (event.event !== 'DEPOSIT_TRANSACTION') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ignored: event.event }));
      return;
    }
    const { reference, status, fiatAmount, currency } = event.data;
    const order = orders.get(reference) ?? { reference, price: priceOf(event.data.metadata), paid: false, timesMarkedPaid: 0, events: [] };
    order.events.push(`${event.id} ${status}`);
    if ((status === 'confirmed' || status === 'settled') && !order.paid) {
      // A status alone is not enough: the payment must be for this order's amount and currency.
      const paid = `${fiatAmount.toFixed(2)} ${currency}`;
      const due = order.price ? `${Number(order.price.amount).toFixed(2)} ${order.price.currency}` : undefined;
      if (due !== paid) {
        order.problem = due ? `paid ${paid}, but the order costs ${due}` : `paid ${paid} for an order this shop does not know`;
      } else if (status === 'confirmed') {
        order.paid = true;
        order.timesMarkedPaid++;
        order.problem = order.partlyPaid = undefined;
      } else {
        // Settled: part of the amount arrived, and this shop accepts that as the payment.
        const { amountPaid, actualAmount, coin } = event.data;
        order.partlyPaid = { amountPaid, actualAmount, coin };
        order.problem = undefined;
      }
    }
    orders.set(reference, order);
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true }));
  }

  /**
   * The second way to integrate: the merchant's server creates the payment with the SDK
   * (secret key, server-side amount) and the page opens the widget on its reference.
   */
  const service = options.secretKey ? new ServiceClient({ publicKey: options.publicKey, secretKey: options.secretKey, baseUrl: options.apiUrl }) : undefined;
  async function createOrder(req: IncomingMessage, res: ServerResponse) {
    const body = await readBody(req);
    const reply = (status: number, answer: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    if (!service) return reply(501, { message: 'This shop has no secret key to create payments with' });
    try {
      const { amount, currency, email } = JSON.parse(body.toString() || '{}');
      const payment = await service.initializePayment({
        reference: 'order_' + randomBytes(6).toString('hex'),
        coin: 'USDT',
        currency,
        amount,
        customerEmail: email || undefined,
      });
      orders.set(payment.reference, { reference: payment.reference, price: { amount: String(amount), currency }, paid: false, timesMarkedPaid: 0, events: [] });
      reply(201, { reference: payment.reference, amount, currency });
    } catch (error) {
      reply(error instanceof ServiceError ? error.status : 400, { message: (error as Error).message });
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', 'http://shop');
    const path = url.pathname;
    if (req.method === 'POST' && path === WEBHOOK_PATH) return receiveWebhook(req, res);
    if (req.method === 'POST' && path === '/orders') return createOrder(req, res);
    const order = /^\/orders\/([^/]+)$/.exec(path);
    if (req.method === 'GET' && order) {
      const found = orders.get(decodeURIComponent(order[1]));
      res.writeHead(found ? 200 : 404, { 'content-type': 'application/json' }).end(JSON.stringify(found ?? { error: 'no such order' }));
      return;
    }
    const file = normalize(path === '/' ? '/index.html' : path).replace(/^(\.\.[/\\])+/, '');
    try {
      let body: Buffer | string = await readFile(PUBLIC_DIR + file.slice(1));
      if (file.endsWith('.html')) {
        body = body.toString('utf8').replaceAll('%API_ORIGIN%', options.apiUrl).replaceAll('%PUBLIC_KEY%', options.publicKey);
      }
      const headers: Record<string, string> = { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-cache' };
      if (file === '/csp.html') headers['content-security-policy'] = strictPolicy(options.apiUrl, url.searchParams.get('worker') !== 'refused');
      res.writeHead(200, headers);
      res.end(body);
    } catch {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found');
    }
  }

  // One boundary around every request: a bad target, a bad escape, a body cut off or too
  // large is that request's problem, never the shop's.
  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      const status = error instanceof TooLarge ? 413 : 400;
      if (!res.headersSent && !res.destroyed)
        res
          .writeHead(status, { 'content-type': 'application/json', connection: 'close' })
          .end(JSON.stringify({ error: status === 413 ? 'body too large' : 'bad request' }));
      req.resume();
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://localhost:${port}`,
    server,
    orders,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
