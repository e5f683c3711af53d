// The stub API: the public-key endpoints the checkout uses, the sandbox deposit, and the
// checkout script itself, served from the API's origin as the real service would.
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isSecretKey, publicKeyMode, type KeyMode } from '../../src/options/keys.ts';
import { fieldErrors } from '../../src/wire/field-errors.ts';
import { jsonObject, REFERENCE_PATTERN } from '../../src/wire/fields.ts';
import { DepositBody, InitializeBody, MAX_WAIT_SECONDS, WebhookBody, type Verification } from '../../src/wire/schemas.ts';
import type * as z from 'zod/mini';
import { COINS, DEMO_MERCHANT, type Merchant } from './catalog.ts';
import { FaultInjector, type Call } from './faults.ts';
import { WebhookSender } from './webhooks.ts';
import { hostedRoutes } from './hosted.ts';
import { linkRoutes } from './link-routes.ts';
import { payoutRoutes } from './payout-routes.ts';
import { PayoutStore } from './payouts.ts';
import { LinkStore } from './links.ts';
import type { FormFile } from './multipart.ts';
import { cors, HttpError, readJson, sendError, sendJson } from './http.ts';
import { PaymentStore } from './store.ts';
import { fromRoot } from '../paths.ts';

export interface StubApiOptions {
  port?: number;
  host?: string;
  /** How long a quote stays open, in seconds. */
  quoteSeconds?: number;
  merchants?: Merchant[];
  /** Where checkout.js is served from. */
  distDir?: string;
  now?: () => number;
  /** Honour `?wait=` on verify (a long poll). Off, the API answers at once, like a plain poll. */
  longPoll?: boolean;
  /** Tests only: make `faults` available to misbehave on purpose (never with a live key). */
  faults?: boolean;
  /** First webhook retry delay (doubling after each failure). */
  webhookRetryMs?: number;
}

export interface StubApi {
  /** The API's origin, e.g. http://127.0.0.1:4010 */
  url: string;
  server: Server;
  store: PaymentStore;
  /** Requests served, by "METHOD /path" (path parameters kept), for tests to count. */
  requests: string[];
  links: LinkStore;
  payouts: PayoutStore;
  /** Present when started with `faults: true`. */
  faults?: FaultInjector;
  webhooks: WebhookSender;
  close(): Promise<void>;
}

const DEFAULT_DIST = fromRoot('dist/');

function parse<S extends z.ZodMiniType>(schema: S, body: unknown): z.output<S> {
  const result = schema.safeParse(body, { reportInput: true });
  if (!result.success) {
    const errors = fieldErrors(result.error);
    throw new HttpError(400, 'Invalid request body: ' + errors.map((e) => `${e.field}: ${e.message}`).join('; '), errors);
  }
  return result.data;
}

export async function startStubApi(options: StubApiOptions = {}): Promise<StubApi> {
  const merchants = options.merchants ?? [DEMO_MERCHANT];
  const store = new PaymentStore({ quoteMs: (options.quoteSeconds ?? 900) * 1000, now: options.now });
  const distDir = options.distDir ?? DEFAULT_DIST;
  const requests: string[] = [];
  const faults = options.faults ? new FaultInjector() : undefined;
  const webhooks = new WebhookSender(options.webhookRetryMs);
  let origin = '';
  const links = new LinkStore(() => origin);
  const files = new Map<string, FormFile>();
  const payouts = new PayoutStore(store);
  /** True when an injected fault answered instead of the route (test keys only). */
  const faulted = (call: Call, mode: KeyMode, req: IncomingMessage, res: ServerResponse) =>
    faults && mode === 'test' ? faults.apply(call, req, res) : Promise.resolve(false);

  function authenticate(req: IncomingMessage): { merchant: Merchant; mode: KeyMode } {
    const key = req.headers['x-api-key'];
    if (typeof key !== 'string' || key === '') {
      throw new HttpError(401, 'Missing x-api-key header: send your public key (pk_test_… or pk_live_…)');
    }
    if (isSecretKey(key)) {
      throw new HttpError(401, 'A secret key was sent to a public endpoint. Never expose it in a browser; roll it now.');
    }
    const mode = publicKeyMode(key);
    const merchant = mode && merchants.find((m) => m.keys[mode].publicKey === key);
    if (!mode || !merchant) throw new HttpError(401, 'Unknown public key');
    return { merchant, mode };
  }

  /** Initialize and verify: the widget's public key, or a merchant server's secret key. */
  const eitherKey = (req: IncomingMessage) => (req.headers.authorization ? authenticateSecret(req) : authenticate(req));

  /** Secret endpoints: `Authorization: Bearer sk_…`, from merchant servers only. */
  function authenticateSecret(req: IncomingMessage): { merchant: Merchant; mode: KeyMode } {
    const match = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '');
    if (!match) throw new HttpError(401, 'Missing Authorization: Bearer <secret key> header');
    if (!isSecretKey(match[1])) throw new HttpError(401, 'A public key cannot authorize this endpoint: send your secret key, from your server');
    for (const merchant of merchants) {
      for (const mode of ['test', 'live'] as const) {
        if (merchant.keys[mode].secretKey === match[1]) return { merchant, mode };
      }
    }
    throw new HttpError(401, 'Unknown secret key');
  }

  /** ?wait=<1..30>&since=<status:amountPaid>, both or neither. */
  function longPollOf(query: URLSearchParams): { seconds: number; since: string } | undefined {
    if (!query.has('wait') && !query.has('since')) return undefined;
    const seconds = Number(query.get('wait'));
    const since = query.get('since') ?? '';
    if (!Number.isInteger(seconds) || seconds < 1 || seconds > MAX_WAIT_SECONDS) {
      throw new HttpError(400, `wait: expected whole seconds from 1 to ${MAX_WAIT_SECONDS}, received ${JSON.stringify(query.get('wait'))}`);
    }
    if (!/^[a-z]+:[\d.]+$/.test(since)) {
      throw new HttpError(400, `since: expected a status and amount such as pending:0, received ${JSON.stringify(since)}`);
    }
    return { seconds, since };
  }

  async function route(req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams): Promise<void> {
    const method = req.method ?? 'GET';
    if (method === 'GET' && (path === '/checkout.js' || path === '/checkout.js.map')) {
      const file = await readFile(distDir + path.slice(1)).catch(() => {
        throw new HttpError(404, `${path} is not built yet: run npm run build`);
      });
      res.writeHead(200, {
        'content-type': path.endsWith('.js') ? 'text/javascript; charset=utf-8' : 'application/json',
        'cache-control': 'no-cache',
      });
      res.end(file);
      return;
    }
    if (await hostedRoutes({ links, payments: store }, req, res, path)) return;
    if (await payoutRoutes({ payouts, secretKey: authenticateSecret, parse }, req, res, path, query)) return;
    if (await linkRoutes({ links, files, publicKey: authenticate, secretKey: authenticateSecret, parse, origin: () => origin }, req, res, path, query)) {
      return;
    }
    if (method === 'GET' && path === '/api/v1/coins') {
      const { mode } = authenticate(req);
      if (await faulted('coins', mode, req, res)) return;
      return sendJson(res, 200, { status: 'success', statusCode: 200, message: 'Coins retrieved', data: COINS[mode] });
    }
    if (method === 'POST' && path === '/api/v1/transaction/initialize') {
      const { merchant, mode } = eitherKey(req);
      const body = parse(InitializeBody, await readJson(req));
      if (await faulted('initialize', mode, req, res)) return;
      if (body.payment_link !== undefined) {
        const link = links.find(body.payment_link);
        if (!link || link.merchant !== merchant || link.mode !== mode) {
          throw new HttpError(404, `payment_link: no payment link ${body.payment_link}`, [{ field: 'payment_link', message: 'expected a payment link of yours' }]);
        }
        if (!link.isActive) throw new HttpError(409, `Payment link ${link.slug} is deactivated: it cannot receive payments`);
      }
      const coin = COINS[mode].find((c) => c.symbol === body.coin);
      if (!coin || coin.status !== 'active') {
        throw new HttpError(400, `coin: ${body.coin} is not available on this network`, [
          { field: 'coin', message: `expected an active coin, received ${body.coin}` },
        ]);
      }
      const { transaction, created } = store.initialize(merchant, mode, {
        reference: String(body.reference),
        coin,
        currency: body.currency,
        amount: body.amount,
        acceptPartialPayment: body.accept_partial_payment ?? false,
        customerName: body.customer_name?.trim() ?? '',
        customerEmail: body.customer_email?.trim() ?? '',
        metadata: body.metadata === undefined ? null : (jsonObject(body.metadata) ?? null),
      });
      const statusCode = created ? 201 : 200;
      const message = created ? 'Transaction initialized' : 'Transaction already initialized';
      return sendJson(res, statusCode, { status: 'success', statusCode, message, data: transaction });
    }
    const verify = /^\/api\/v1\/transaction\/verify\/([^/]+)$/.exec(path);
    if (method === 'GET' && verify) {
      const { merchant, mode } = eitherKey(req);
      const reference = decodeURIComponent(verify[1]);
      if (!REFERENCE_PATTERN.test(reference)) throw new HttpError(400, `reference: ${JSON.stringify(reference)} is not a valid reference`);
      const wait = longPollOf(query);
      if (await faulted('verify', mode, req, res)) return;
      let data: Verification;
      if (wait && options.longPoll !== false) {
        const gone = new AbortController();
        res.on('close', () => gone.abort()); // the client went away: stop waiting for it
        data = await store.waitForChange(merchant, mode, reference, wait.since, wait.seconds * 1000, gone.signal);
        if (gone.signal.aborted) return;
      } else {
        data = store.verify(merchant, mode, reference);
      }
      return sendJson(res, 200, { status: 'success', statusCode: 200, message: 'Transaction status', data });
    }
    if (method === 'POST' && path === '/api/v1/sandbox/deposit') {
      const { merchant, mode } = authenticate(req);
      if (mode !== 'test') throw new HttpError(403, 'The sandbox only takes test keys (pk_test_…): a live payment needs a real transfer');
      const body = parse(DepositBody, await readJson(req));
      const data = store.deposit(merchant, mode, String(body.reference), body.kind);
      webhooks.send(merchant, mode, data);
      return sendJson(res, 200, { status: 'success', statusCode: 200, message: 'Deposit simulated', data });
    }
    if (method === 'PUT' && path === '/api/v1/webhook') {
      const { merchant, mode } = authenticateSecret(req);
      const { url } = parse(WebhookBody, await readJson(req));
      webhooks.configure(merchant, mode, url);
      return sendJson(res, 200, { status: 'success', statusCode: 200, message: 'Webhook URL saved', data: { url } });
    }
    throw new HttpError(404, `No endpoint ${method} ${path}`);
  }

  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://stub');
    const path = url.pathname;
    requests.push(`${req.method} ${path}`);
    cors(res);
    // The stub's own clock, which tests may set apart from the browser's.
    res.setHeader('date', new Date((options.now ?? Date.now)()).toUTCString());
    if (req.method === 'OPTIONS') {
      res.writeHead(204).end();
      return;
    }
    try {
      await route(req, res, path, url.searchParams);
    } catch (error) {
      if (error instanceof HttpError) return sendError(res, error);
      console.error('stub API:', error);
      sendError(res, new HttpError(500, 'Internal error in the stub API'));
    }
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  origin = `http://127.0.0.1:${port}`;
  return {
    url: origin,
    links,
    payouts,
    server,
    store,
    requests,
    faults,
    webhooks,
    close: () =>
      new Promise((resolve) => {
        webhooks.close();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
