// The service, assembled: database → stores → jobs → HTTP. Used by main.ts (npm start), the
// demo and the tests alike. One error boundary around every request: nothing a client
// sends can end the process.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isSecretKey, publicKeyMode } from '../contract/keys.ts';
import type { Account } from './domain/account.ts';
import { DomainError, NotFound, Unauthorized } from './domain/errors.ts';
import { DEFAULT_RETRY, type RetryPolicy } from './domain/webhooks.ts';
import { FaultInjector } from './http/faults.ts';
import { cors, errorReply, internalError, sendJson, type Reply } from './http/respond.ts';
import { Router } from './http/router.ts';
import { JobLoop } from './jobs/loop.ts';
import { payoutSettlement, sandboxPayoutProvider } from './jobs/payouts.ts';
import { webhookDelivery } from './jobs/webhooks.ts';
import { createLogger, type Logger } from './log.ts';
import { fromRoot } from './paths.ts';
import { PaymentChanges } from './realtime/changes.ts';
import type { Ctx, Handler, ServiceParts } from './routes/context.ts';
import { ROUTES } from './routes/table.ts';
import { openDatabase, type Database } from './storage/db.ts';
import { EventStore, type Attempt } from './storage/events.ts';
import { LinkStore } from './storage/links.ts';
import { MerchantStore, type MerchantSeed } from './storage/merchants.ts';
import { migrate } from './storage/migrations.ts';
import { PaymentStore } from './storage/payments.ts';
import { PayoutStore } from './storage/payouts.ts';
import { DEMO_MERCHANT, seedCatalogue } from './seed.ts';
import { verificationView } from './views/payments.ts';
import { catalog } from './chain/catalog.ts';
import type { DevChainPowers, Network } from './chain/networks.ts';
import { Watcher } from './chain/watcher.ts';
import { Sweeper } from './chain/sweeper.ts';
import { privateKeyToAccount } from 'viem/accounts';
import type { Hex } from 'viem';
import { ChainStore } from './storage/chain.ts';
import { paymentLedger } from './jobs/ledger.ts';
import type { KeyMode } from '../contract/keys.ts';

export interface ServiceOptions {
  port?: number;
  host?: string;
  /** postgres://… to use a PostgreSQL server; otherwise PGlite in `dataDir`. */
  databaseUrl?: string;
  /** PGlite's directory; undefined (and no databaseUrl) keeps everything in memory (tests). */
  dataDir?: string;
  /** How long a quote stays open, in seconds. */
  quoteSeconds?: number;
  /** The service's clock (tests move it); Date.now by default. */
  now?: () => number;
  /** Honour `?wait=` on verify (a long poll). Off, the API answers at once, like a plain poll. */
  longPoll?: boolean;
  /** Simulated deposits for test keys (on by default). */
  sandbox?: boolean;
  /** Tests only: make `faults` available to misbehave on purpose (never with a live key). */
  faults?: boolean;
  /** First webhook retry delay; later ones double, up to `webhookRetryCapMs`, for `webhookRetryWindowMs`. */
  webhookRetryMs?: number;
  webhookRetryCapMs?: number;
  webhookRetryWindowMs?: number;
  /** How long a merchant's endpoint has to answer one delivery (10 s by default). */
  webhookTimeoutMs?: number;
  /** Merchants made sure of at start; the demo merchant by default. */
  merchants?: MerchantSeed[];
  /** Where checkout.js is served from. */
  distDir?: string;
  /**
   * The EVM network each mode's payments are made on: coins, RPC URLs, confirmations, the
   * deposit factory. Without one, a mode uses the static catalogue and only the sandbox pays.
   */
  networks?: Partial<Record<KeyMode, Network>>;
  /** For a local dev chain only (devchain/): the sandbox's payer and the sweeps' gas account. */
  devChain?: DevChainPowers;
  /** How often the chain watcher looks for new blocks (1 s by default). */
  watchIntervalMs?: number;
  /**
   * The operator's gas-only wallet (a private key) that pays for sweeps on every network; a
   * dev chain uses a dev account when none is given. Without one, deposits are not swept.
   */
  gasKey?: Hex;
  /** How often deposits are swept to their payout addresses (60 s by default; 0: never). */
  sweepIntervalMs?: number;
  /** Long polls one key may hold at once on one instance. */
  maxLongPollsPerKey?: number;
  /** How often background jobs look for work they were not woken for. */
  jobIntervalMs?: number;
  /** How long after its creation a payout's provider is asked again. */
  payoutCheckMs?: number;
  /** Run the background jobs (webhook delivery, payouts); tests of storage turn them off. */
  jobs?: boolean;
  logger?: Logger;
  /** Names this instance in logs and delivery records. */
  instance?: string;
}

export interface Service {
  /** The service's origin, e.g. http://127.0.0.1:4010 */
  url: string;
  server: Server;
  db: Database;
  parts: ServiceParts;
  /** The last requests served, "METHOD /path", for tests to count (at most 2,000 kept). */
  requests: string[];
  faults?: FaultInjector;
  /** Every webhook delivery attempt so far, with its body, oldest first. */
  deliveries(): Promise<Array<Attempt & { body: string }>>;
  close(): Promise<void>;
}

const REQUEST_LOG_SIZE = 2000;

export async function startService(options: ServiceOptions = {}): Promise<Service> {
  const log = options.logger ?? createLogger(process.env.LOG_LEVEL ?? 'silent');
  const now = options.now ?? Date.now;
  const instance = options.instance ?? `svc-${randomBytes(3).toString('hex')}`;
  const db = await openDatabase({ databaseUrl: options.databaseUrl, dataDir: options.dataDir });
  await migrate(db);

  const events = new EventStore(db);
  const merchants = new MerchantStore(db);
  const payments = new PaymentStore(db, events);
  const links = new LinkStore(db);
  const payouts = new PayoutStore(db, payments, events);
  for (const seed of options.merchants ?? [DEMO_MERCHANT]) await merchants.seed(seed, now());
  await seedCatalogue(links);

  const changes = new PaymentChanges(options.maxLongPollsPerKey ?? 20);
  await changes.start(db);
  const retry: RetryPolicy = {
    baseMs: options.webhookRetryMs ?? DEFAULT_RETRY.baseMs,
    capMs: options.webhookRetryCapMs ?? DEFAULT_RETRY.capMs,
    windowMs: options.webhookRetryWindowMs ?? DEFAULT_RETRY.windowMs,
  };
  let origin = '';
  const faults = options.faults ? new FaultInjector() : undefined;
  const networks = options.networks ?? {};
  const chainStore = new ChainStore(db);
  const parts: ServiceParts = {
    catalog: catalog(networks, (merchantId, chainId) => merchants.payoutAddress(merchantId, chainId)),
    payments,
    chain: chainStore,
    events,
    merchants,
    links,
    payouts,
    changes,
    config: {
      quoteMs: (options.quoteSeconds ?? 900) * 1000,
      longPoll: options.longPoll ?? true,
      sandbox: options.sandbox ?? true,
      distDir: options.distDir ?? fromRoot('dist/'),
      retry,
      rotationOverlapMs: 24 * 3_600_000,
    },
    now,
    origin: () => origin,
    faults,
    devChain: options.devChain,
    log,
  };

  // Background work: the outbox, and payouts. Both claim rows with SKIP LOCKED, so any number
  // of instances may run them; a NOTIFY from any instance wakes them at once.
  const jobError = (error: unknown) => log.error({ err: error }, 'background job failed');
  const delivery = webhookDelivery({ events, merchants, retry, now, log, instance, timeoutMs: options.webhookTimeoutMs ?? 10_000 });
  const deliveryLoop = new JobLoop(delivery.tick, options.jobIntervalMs ?? 1000, jobError);
  const payoutLoop = new JobLoop(
    payoutSettlement({ payouts, provider: sandboxPayoutProvider, now, log, checkEveryMs: options.payoutCheckMs ?? 2000 }),
    options.jobIntervalMs ?? 1000,
    jobError,
  );
  // Accepted partial payments whose quote ran out are settled by the service, not the browser.
  const settleLoop = new JobLoop(
    async () => {
      while ((await payments.settleExpired(now(), { type: 'DEPOSIT_TRANSACTION', data: (p) => verificationView(p, now(), true) })) > 0);
    },
    options.jobIntervalMs ?? 1000,
    jobError,
  );
  const stopListening = [
    await db.listen('events_due', () => options.jobs !== false && deliveryLoop.wake()),
    await db.listen('payouts_due', () => options.jobs !== false && payoutLoop.wake()),
  ];
  // One watcher per configured network; a lease in the database keeps it to one instance.
  // A dev chain (anvil) starts empty on every run: what was watched on the last one is gone.
  for (const network of Object.values(networks)) if (network.dev) await chainStore.forget(network.chainId);
  const ledger = paymentLedger({ db, payments, merchants, now });
  const watchers = Object.values(networks).map(
    (network) =>
      new Watcher({
        chainId: network.chainId,
        rpcUrls: network.rpcUrls,
        confirmations: network.confirmations,
        tokens: network.tokens.map((t) => t.address),
        store: chainStore,
        ledger,
        holder: instance,
        now,
        startBlock: network.dev ? 1n : undefined,
        leaseMs: 15_000,
      }),
  );
  // Sweeps, where a gas wallet pays for them: batched, any instance (claims keep them apart).
  const sweepLoops = Object.values(networks).flatMap((network) => {
    const gas = options.gasKey ? privateKeyToAccount(options.gasKey) : network.dev ? options.devChain?.gasAccount : undefined;
    const every = options.sweepIntervalMs ?? 60_000;
    if (!gas || every <= 0) {
      if (every > 0) log.warn({ chainId: network.chainId }, 'no gas wallet (GAS_WALLET_KEY): deposits on this network are not swept');
      return [];
    }
    const sweeper = new Sweeper({ network, store: chainStore, gas, now });
    const sweep = async () => {
      const done = await sweeper.tick();
      if (done.swept) log.info({ chainId: network.chainId, deposits: done.swept, tx: done.hash }, 'deposits swept to their payout addresses');
    };
    return [new JobLoop(sweep, every, (error) => log.warn({ err: error, chainId: network.chainId }, 'sweep failed; retrying'))];
  });
  if (options.jobs !== false) {
    for (const loop of sweepLoops) loop.start();
    deliveryLoop.start();
    payoutLoop.start();
    settleLoop.start();
    for (const watcher of watchers) watcher.start(options.watchIntervalMs ?? 1000, (error) => log.warn({ err: error }, 'chain watcher: RPC failed; retrying'));
  }

  const router = new Router<Handler>(ROUTES);
  const requests: string[] = [];

  async function authenticate(req: IncomingMessage, auth: 'public' | 'secret' | 'either'): Promise<Account> {
    const bearer = req.headers.authorization;
    if (auth === 'secret' || (auth === 'either' && bearer)) {
      const match = /^Bearer (\S+)$/.exec(bearer ?? '');
      if (!match) throw new Unauthorized('Missing Authorization: Bearer <secret key> header');
      if (!isSecretKey(match[1])) throw new Unauthorized('A public key cannot authorize this endpoint: send your secret key, from your server');
      const account = await merchants.authenticate(match[1], 'secret');
      if (!account) throw new Unauthorized('Unknown secret key');
      return account;
    }
    const key = req.headers['x-api-key'];
    if (typeof key !== 'string' || key === '') throw new Unauthorized('Missing x-api-key header: send your public key (pk_test_… or pk_live_…)');
    if (isSecretKey(key)) throw new Unauthorized('A secret key was sent to a public endpoint. Never expose it in a browser; roll it now.');
    const account = publicKeyMode(key) && (await merchants.authenticate(key, 'public'));
    if (!account) throw new Unauthorized('Unknown public key');
    return account;
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<Reply | undefined> {
    // Parsing the target is inside the boundary: `GET http://[/` must not throw outside it.
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://service.invalid');
    } catch {
      throw new NotFound('Malformed request target');
    }
    requests.push(`${req.method} ${url.pathname}`);
    if (requests.length > REQUEST_LOG_SIZE) requests.splice(0, requests.length - REQUEST_LOG_SIZE);
    if (req.method === 'OPTIONS') return { status: 204, body: undefined };
    const found = router.match(req.method ?? 'GET', url.pathname);
    if (!('spec' in found)) {
      const reply = errorReply(new NotFound(`No endpoint ${req.method} ${url.pathname.slice(0, 200)}`));
      if (found.allowed.length) return { ...reply, status: 405, body: { status: 'error', statusCode: 405, message: `${req.method} is not allowed here; use ${found.allowed.join(', ')}` }, headers: { allow: found.allowed.join(', ') } };
      return reply;
    }
    const { spec, params } = found;
    const account = spec.auth === 'none' ? (undefined as unknown as Account) : await authenticate(req, spec.auth);
    const ctx: Ctx = { req, res, params, query: url.searchParams, account, s: parts };
    return spec.handler(ctx);
  }

  const server = createServer((req, res) => {
    const started = performance.now();
    cors(res);
    // The service's own clock, which tests may set apart from the browser's.
    res.setHeader('date', new Date(now()).toUTCString());
    handle(req, res)
      .then((reply) => reply, (error: unknown) => {
        if (error instanceof DomainError) return errorReply(error);
        log.error({ err: error, method: req.method }, 'unexpected error answering a request');
        return internalError();
      })
      .then((reply) => {
        if (reply && reply.status === 204) {
          if (!res.headersSent) res.writeHead(204).end();
        } else if (reply) {
          sendJson(res, reply.status, reply.body, reply.headers);
        }
        // A body the handler did not read (an error came first) is drained, not kept.
        if (!req.complete) req.resume();
        log.info({ method: req.method, path: (req.url ?? '').split('?')[0].slice(0, 200), status: res.statusCode, ms: Math.round(performance.now() - started) }, 'request');
      })
      .catch((error) => log.error({ err: error }, 'could not answer a request'));
  });
  server.on('clientError', (_error, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\n\r\n');
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  origin = `http://127.0.0.1:${port}`;
  log.info({ url: origin, database: db.kind, instance }, 'service started');

  let closing: Promise<void> | undefined;
  return {
    url: origin,
    server,
    db,
    parts,
    requests,
    faults,
    deliveries: () => events.allAttempts(),
    close: () =>
      (closing ??= (async () => {
        delivery.close();
        await Promise.all([deliveryLoop.stop(), payoutLoop.stop(), settleLoop.stop(), ...sweepLoops.map((l) => l.stop()), ...watchers.map((w) => w.stop())]);
        await changes.close();
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
        await Promise.all(stopListening.map((stop) => stop()));
        await db.close();
      })()),
  };
}
