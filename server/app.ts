// The service, composed: database → stores → background jobs → the HTTP pipeline. Used by
// main.ts (npm start), the demo and the tests alike. Composition only: what each part does
// lives in its folder (http/, routes/, jobs/, storage/, chain/).
import { privateKeyToAccount } from 'viem/accounts';
import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { Hex } from 'viem';
import type { KeyMode } from '../contract/keys.ts';
import { catalog } from './chain/catalog.ts';
import { chainReadiness } from './chain/readiness.ts';
import { verifyNetwork } from './chain/deploy.ts';
import type { DevChainPowers, Network } from './chain/networks.ts';
import { fieldOf, networkList } from './chain/config.ts';
import { DEFAULT_RETRY } from './webhooks/rules.ts';
import { FaultInjector } from './http/faults.ts';
import { listen, pipeline } from './http/pipeline.ts';
import { RateLimiter } from './http/rate-limit.ts';
import { startJobs } from './jobs/index.ts';
import { createLogger, type Logger } from './log.ts';
import { fromRoot } from './paths.ts';
import { PaymentChanges } from './realtime/changes.ts';
import type { ServiceParts } from './routes/context.ts';
import { ROUTES } from './routes/table.ts';
import { served } from './routes/route.ts';
import { DEMO_MERCHANT, seedCatalogue } from './seed.ts';
import { ChainStore } from './chain/store.ts';
import { DashboardStore } from './dashboard/store.ts';
import { PaymentList } from './payments/list-store.ts';
import { ProductStore } from './products/store.ts';
import { answers, openDatabase, type Database } from './storage/db.ts';
import { lockDataDir } from './storage/lock.ts';
import { operatorToken } from './operator-token.ts';
import { EventStore, type Attempt } from './storage/events.ts';
import { LinkStore } from './links/store.ts';
import { MerchantStore, type MerchantSeed } from './merchants/store.ts';
import { AccountCache } from './storage/account-cache.ts';
import { migrate } from './storage/migrations.ts';
import { PaymentStore } from './payments/store.ts';
import { PayoutStore } from './payouts/store.ts';
import { BalanceTransactionStore } from './balances/store.ts';
import { JournalStore } from './balances/journal-store.ts';
import { PartnerTransferStore } from './balances/partner-transfer-store.ts';
import { SwapStore } from './balances/swap-store.ts';
import { TreasuryTxStore } from './balances/treasury-store.ts';
import { WithdrawalStore } from './balances/withdrawal-store.ts';
import { routerSwaps, Treasury, treasuryAccount, type SwapProvider } from './chain/treasury.ts';
import type { RateProvider } from './domain/rates.ts';
import { RateCache } from './rates/cache.ts';
import { offeredCatalog } from './rates/catalog.ts';
import { builtInRates } from './rates/config.ts';
import { createMetrics } from './metrics.ts';
import { MetricsStore } from './storage/metrics.ts';
import { DestinationStore } from './merchants/destination-store.ts';
import { COINS, CURRENCIES } from '../contract/fields.ts';

export interface ServiceOptions {
  port?: number;
  host?: string;
  /**
   * The origin customers and merchants reach, such as https://pay.example.com: every URL the
   * service hands out (links, cover photos, hosted pages) is on it. The listening address by default.
   */
  publicUrl?: string;
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
  /**
   * Whether test keys may have webhooks sent to this machine (loopback): a developer's own
   * instance. Off by default, since on a shared instance any merchant holds a test key and
   * could reach the operator's own services; on with `demo` unless said otherwise.
   */
  loopbackWebhooks?: boolean;
  /**
   * The sandbox's demo merchant and its catalogue, whose keys (live ones too) are public in the
   * README: for the demo and the tests only, never a service anyone else can reach. Off by default.
   */
  demo?: boolean;
  /** Merchants made sure of at start; none by default (the demo merchant with `demo`). */
  merchants?: MerchantSeed[];
  /** Where checkout.js is served from. */
  distDir?: string;
  /**
   * The EVM networks each mode's payments are made on (one, or a list: USDT on BNB Smart Chain
   * and USDC on Ethereum at once): coins, RPC URLs, confirmations, the deposit factory. Without
   * any, a mode uses the static catalogue and only the sandbox pays.
   */
  networks?: Partial<Record<KeyMode, Network | Network[]>>;
  /** For a local dev chain only (devchain/): the sandbox's payer and the sweeps' gas account. */
  devChain?: DevChainPowers;
  /** How often the chain watcher looks for new blocks (1 s by default). */
  watchIntervalMs?: number;
  /**
   * The operator's gas-only wallet (a private key) that pays for sweeps on every network; a
   * dev chain uses a dev account when none is given. Without one, deposits are not swept.
   */
  gasKey?: Hex;
  /** A file holding the treasury's private key (TREASURY_KEY_FILE), for networks with a `treasury` and no `treasuryKeyFile` of their own. */
  treasuryKeyFile?: string;
  /**
   * How much of each coin a merchant may withdraw to wallets in 24 hours, per mode, in whole
   * tokens (WITHDRAWAL_DAILY_LIMIT; "10000" by default), where the operator set no limit of its
   * own for that merchant (merchant withdrawal-limit): a stolen secret key cannot empty a balance at once.
   */
  withdrawalDailyLimit?: string;
  /**
   * How long a live key's new destination of money waits before it is used: a payout address
   * replacing one, a bank account or new bank details, a wallet never withdrawn to
   * (NEW_DESTINATION_DELAY_SECONDS; 24 hours by default; 0: at once). The owner is told at once
   * and may cancel it. Test keys' changes are always at once.
   */
  newDestinationDelayMs?: number;
  /** How often deposits are swept to their payout addresses (60 s by default; 0: never). */
  sweepIntervalMs?: number;
  /** GET /readyz: how many blocks a watcher may be behind its chain's head (50). */
  readyMaxLagBlocks?: number;
  /** How often each deposit's ledger is compared with the chain (10 min by default; 0: never). */
  reconcileIntervalMs?: number;
  /** Long polls one key may hold at once on one instance. */
  /** Payments a hosted link page may make a minute, per client address (20) and per link (600). */
  linkCheckoutsPerMinute?: { perClient?: number; perLink?: number };
  /** Payments the public key may start a minute (initialize: anyone holds that key): 30 per client, 1,200 per key by default. */
  publicInitializesPerMinute?: { perClient?: number; perKey?: number };
  /** Dashboard sign-ins (and password settings) one client may try in ten minutes, whatever the e-mail (30). */
  signInsPerClient?: number;
  /** Wrong dashboard passwords for one e-mail from every client together that lock it for all (100). */
  accountLockoutFailures?: number;
  /** How many reverse proxies of the operator's stand in front (TRUST_PROXIES): rate limits then read the client from X-Forwarded-For. */
  trustProxies?: number;
  maxLongPollsPerKey?: number;
  /** Long polls one public key may hold on one payment, and all keys on one instance. */
  maxLongPollsPerReference?: number;
  maxLongPolls?: number;
  /** How often background jobs look for work they were not woken for. */
  jobIntervalMs?: number;
  /** How long after its creation a payout's provider is asked again. */
  payoutCheckMs?: number;
  /** Run the background jobs (webhook delivery, payouts); tests of storage turn them off. */
  jobs?: boolean;
  logger?: Logger;
  /** Names this instance in logs and delivery records. */
  instance?: string;
  /** The operator's token (ADMIN_TOKEN); without it, one is made into `stateDir`'s operator-token (0600). */
  adminToken?: string;
  /**
   * Where exchange rates come from (RATES_FILE): providers asked every `refreshMs`, a rate older
   * than `maxAgeMs` never prices a quote, a coin more than `maxDeviationBps` off its peg is
   * inactive. The built-in fixed table by default, marked fixed in every quote.
   */
  rates?: { providers: RateProvider[]; maxAgeMs?: number; refreshMs?: number; maxDeviationBps?: number };
  /** Where the operator token is kept when ADMIN_TOKEN is not set: `dataDir` by default (DATA_DIR, also with PostgreSQL). */
  stateDir?: string;
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

export async function startService(options: ServiceOptions = {}): Promise<Service> {
  const log = options.logger ?? createLogger(process.env.LOG_LEVEL ?? 'silent');
  const now = options.now ?? Date.now;
  const instance = options.instance ?? `svc-${randomBytes(3).toString('hex')}`;
  // Each mode's networks, as a list whichever way they were given.
  const networks: Partial<Record<KeyMode, Network[]>> = {};
  for (const mode of ['test', 'live'] as const) if (options.networks?.[mode]) networks[mode] = networkList(options.networks[mode]);
  const allNetworks = [...(networks.test ?? []), ...(networks.live ?? [])];
  // Each configured public chain, of both modes, is checked against the chain itself before
  // anything is taken on it (a dev chain is deployed by whoever started it, moments ago).
  for (const mode of ['test', 'live'] as const) {
    for (const [i, network] of (networks[mode] ?? []).entries()) {
      if (!network.dev) await verifyNetwork(network, fieldOf(mode, i, Array.isArray(options.networks?.[mode])), options.gasKey ? privateKeyToAccount(options.gasKey).address : undefined);
    }
  }
  // An embedded database on disk takes one process: the lock says which, and where it listens.
  const lock = options.dataDir && !options.databaseUrl ? lockDataDir(options.dataDir, 'service') : undefined;
  const stateDir = options.stateDir ?? options.dataDir;
  let opened: Database | undefined;
  let token: string | undefined;
  try {
    opened = await openDatabase({ databaseUrl: options.databaseUrl, dataDir: options.dataDir });
    // The lock is confirmed and the token read or made once the database is open: nothing a
    // new database is loaded from can replace them (issue 34).
    lock?.confirm();
    token = options.adminToken || stateDir ? operatorToken(options.adminToken, stateDir ?? '') : undefined;
    await migrate(opened);
  } catch (error) {
    await opened?.close().catch(() => {});
    lock?.release();
    throw error;
  }
  const db = opened;

  const events = new EventStore(db);
  // The key, settlement and payout-address lookups of every request, kept in this process and
  // dropped on any change (from this instance at once, from others by NOTIFY): account-cache.ts.
  let accounts: AccountCache | undefined;
  const forget = (merchantId: string) => accounts?.forget(merchantId);
  const merchants = new MerchantStore(db, now, forget);
  const payments = new PaymentStore(db, events);
  const links = new LinkStore(db);
  const journal = new JournalStore(db, forget);
  const swaps = new SwapStore(db);
  const withdrawals = new WithdrawalStore(db, options.withdrawalDailyLimit);
  const partnerTransfers = new PartnerTransferStore(db, journal);
  const treasuryTxs = new TreasuryTxStore(db);
  const balanceTransactions = new BalanceTransactionStore(db, { journal, swaps, withdrawals, events });
  accounts = new AccountCache({ keyOwner: (key, kind) => merchants.keyOwner(key, kind), settlement: (id, mode) => journal.settlement(id, mode), payoutAddress: (id, mode, chainId) => merchants.payoutAddress(id, mode, chainId) }, now);
  const cache = accounts;
  // Bank payouts pay collected USDT: of the first of the mode's networks that takes it.
  const payoutCoin = (mode: string) => {
    const usdt = catalogue.coins(mode as KeyMode).find((c) => c.symbol === 'USDT');
    return usdt && { chainId: usdt.chainId, token: usdt.contractAddress.toLowerCase(), decimals: usdt.decimals };
  };
  const destinations = new DestinationStore(db, events, options.newDestinationDelayMs ?? 24 * 3_600_000);
  const payouts = new PayoutStore(db, journal, events, payoutCoin, withdrawals, destinations, now);
  // Each network's treasury (balance settlement): its key from a file, never logged; swaps through its router.
  const treasuries = new Map<string, { treasury: Treasury; swaps?: SwapProvider }>();
  for (const mode of ['test', 'live'] as const) {
    for (const network of networks[mode] ?? []) {
      const account = treasuryAccount(network, options.treasuryKeyFile, options.devChain?.treasuryAccount);
      if (!account) continue;
      const treasury = new Treasury(network, account);
      treasuries.set(`${mode}/${network.chainId}`, { treasury, ...(network.swapRouter ? { swaps: routerSwaps(treasury, network.swapRouter) } : {}) });
    }
  }
  const chain = new ChainStore(db);
  const dashboard = new DashboardStore(db, options.accountLockoutFailures);
  for (const seed of options.merchants ?? (options.demo ? [DEMO_MERCHANT] : [])) await merchants.seed(seed, now());
  if (options.demo) await seedCatalogue(links);

  const changes = new PaymentChanges({ perKey: options.maxLongPollsPerKey ?? 20, perReference: options.maxLongPollsPerReference ?? 4, total: options.maxLongPolls ?? 1000 });
  await changes.start(db, (key) => cache.onChange(key));
  const retry = {
    baseMs: options.webhookRetryMs ?? DEFAULT_RETRY.baseMs,
    capMs: options.webhookRetryCapMs ?? DEFAULT_RETRY.capMs,
    windowMs: options.webhookRetryWindowMs ?? DEFAULT_RETRY.windowMs,
  };
  let origin = '';
  // The gas wallet that sweeps each network: GAS_WALLET_KEY's, or on a dev chain the dev account handed in.
  const gasOf = (network: Network) => (options.gasKey ? privateKeyToAccount(options.gasKey).address : network.dev ? options.devChain?.gasAccount.address : undefined);
  const chainsReady = chainReadiness(allNetworks, chain, options.readyMaxLagBlocks ?? 50, gasOf);
  const ratesConfig = { ...builtInRates(), ...options.rates };
  const rates = new RateCache(ratesConfig.providers, { ...ratesConfig, now, log });
  await rates.start();
  const readiness = async () => [
    await answers(db).then((ok) => (ok ? { name: 'database', ok: true, detail: db.kind } : { name: 'database', ok: false, detail: `${db.kind} does not answer` })),
    ...(await chainsReady()),
    // Fetched rates age; a fixed table's never do, so it has no check.
    ...(ratesConfig.providers.some((p) => !p.fixed) ? [rates.readiness({ fiat: CURRENCIES.filter((c) => c !== 'USD'), coins: [...COINS] })] : []),
  ];
  const catalogue = offeredCatalog(
    // The payout address is read from the database on each payment, not the cache: a live key's
    // new address takes effect at its own time (merchants/destination-store.ts), which no NOTIFY marks.
    catalog(networks, (merchantId, mode, chainId) => merchants.payoutAddress(merchantId, mode, chainId), (merchantId, mode) => cache.settlement(merchantId, mode)),
    rates,
  );
  const metrics = createMetrics({ store: new MetricsStore(db), rates, readiness, now });
  const parts: ServiceParts = {
    metrics,
    catalog: catalogue,
    rates,
    payments,
    chain,
    events,
    merchants,
    links,
    payouts,
    destinations,
    journal,
    swaps,
    withdrawals,
    partnerTransfers,
    treasuryTxs,
    balanceTransactions,
    treasury: (mode, chainId) => treasuries.get(`${mode}/${chainId}`),
    dashboard,
    paymentList: new PaymentList(db),
    products: new ProductStore(db),
    signIns: new RateLimiter(options.signInsPerClient ?? 30, 600_000, now),
    changes,
    config: {
      quoteMs: (options.quoteSeconds ?? 900) * 1000,
      longPoll: options.longPoll ?? true,
      sandbox: options.sandbox ?? true,
      distDir: options.distDir ?? fromRoot('dist/'),
      retry,
      rotationOverlapMs: 24 * 3_600_000,
      loopbackWebhooks: options.loopbackWebhooks ?? options.demo ?? false,
      trustProxies: options.trustProxies ?? 0,
    },
    now,
    origin: () => origin,
    faults: options.faults ? new FaultInjector() : undefined,
    readiness,
    linkCheckouts: {
      perClient: new RateLimiter(options.linkCheckoutsPerMinute?.perClient ?? 20, 60_000, now),
      perLink: new RateLimiter(options.linkCheckoutsPerMinute?.perLink ?? 600, 60_000, now),
    },
    publicInitializes: {
      perClient: new RateLimiter(options.publicInitializesPerMinute?.perClient ?? 30, 60_000, now),
      perKey: new RateLimiter(options.publicInitializesPerMinute?.perKey ?? 1200, 60_000, now),
    },
    devChain: options.devChain,
    log,
  };

  // A dev chain (anvil) starts empty on every run: what was watched on the last one is gone.
  for (const network of allNetworks) if (network.dev) await chain.forget(network.chainId);
  const jobs =
    options.jobs === false ? undefined : (
      await startJobs({
        db, payments, events, merchants, payouts, chain, now, log, instance, retry, journal, swaps, withdrawals, partnerTransfers, treasuryTxs, balanceTransactions,
        treasuries: [...treasuries.values()],
        networks: allNetworks,
        devChain: options.devChain,
        gasKey: options.gasKey,
        intervalMs: options.jobIntervalMs ?? 1000,
        webhookTimeoutMs: options.webhookTimeoutMs ?? 10_000,
        loopbackWebhooks: options.loopbackWebhooks ?? options.demo ?? false,
        payoutCheckMs: options.payoutCheckMs ?? 2000,
        sweepIntervalMs: options.sweepIntervalMs ?? 60_000,
        reconcileIntervalMs: options.reconcileIntervalMs ?? 600_000,
        watchIntervalMs: options.watchIntervalMs ?? 1000,
      })
    );

  const requests: string[] = [];
  const { server, port } = await listen(pipeline({ routes: ROUTES.map(served), owners: cache, sessions: dashboard, service: parts, log, requests, operatorToken: token, observe: metrics.observe }), options.port ?? 0, options.host ?? '127.0.0.1');
  const listening = `http://127.0.0.1:${port}`;
  origin = options.publicUrl ?? listening;
  const host = options.host ?? '127.0.0.1';
  lock?.announce(/^(0\.0\.0\.0|::|127\.0\.0\.1|localhost)$/.test(host) ? listening : `http://${host.includes(':') ? `[${host}]` : host}:${port}`);
  log.info({ url: listening, publicUrl: origin, database: db.kind, instance }, 'service started');

  let closing: Promise<void> | undefined;
  return {
    url: listening,
    server,
    db,
    parts,
    requests,
    faults: parts.faults,
    deliveries: () => events.allAttempts(),
    close: () =>
      (closing ??= (async () => {
        rates.stop();
        await jobs?.stop();
        await changes.close();
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
        await db.close();
        lock?.release();
      })()),
  };
}
