// The service, composed: database → stores → background jobs → the HTTP pipeline. Used by main.ts (npm start), the demo and the tests
// alike. Composition only: what each part does lives in its folder (http/, api/, jobs/, storage/, chain/).
import type { Server } from 'node:http';
import type { KeyMode } from '../../contract/keys.ts';
import { catalog } from '../chain/catalog.ts';
import { serviceReadiness } from './readiness.ts';
import { configuredNetworks } from '../chain/configured.ts';
import { ownAddresses } from '../chain/own-addresses.ts';
import { moneyMovers, pinnedNetworks } from '../chain/compose.ts';
import { payoutCoinIn } from '../payouts/coin.ts';
import { FaultInjector } from '../http/faults.ts';
import { listen, pipeline } from '../http/pipeline.ts';
import { RateLimiter } from '../http/rate-limit.ts';
import { startJobs } from '../jobs/index.ts';
import { jobSettings } from '../jobs/job.ts';
import { PaymentChanges } from '../realtime/changes.ts';
import type { ServiceParts } from '../api/context.ts';
import { ROUTES } from '../api/table.ts';
import { served } from '../api/route.ts';
import { seedCatalogue } from './seed.ts';
import { ChainStore, sweepCounts } from '../chain/store.ts';
import { DashboardStore } from '../dashboard/store.ts';
import { AuditStore } from '../audit/store.ts';
import { memberById, memberLogins, memberRole, TeamStore } from '../team/store.ts';
import { Team } from '../team/use-cases.ts';
import { FactorStore, factorState } from '../factors/store.ts';
import { secretBox } from '../factors/secret-box.ts';
import { OpaqueIds } from '../http/opaque-ids.ts';
import { EmailStore, emailOutbox } from '../email/store.ts';
import { emailReads, teamPorts } from './parts.ts';
import { Mail } from '../email/use-cases.ts';
import { clientOf } from '../http/client.ts';
import { smtpSender } from '../email/smtp.ts';
import { PaymentList } from '../payments/list-store.ts';
import { AttentionStore } from '../payments/attention-store.ts';
import { RateHistoryStore } from '../rates/history-store.ts';
import { ProductStore } from '../products/store.ts';
import { subscriptionsOf } from '../subscriptions/compose.ts';
import { openDatabase, type Database, type Sql } from '../storage/db.ts';
import { lockDataDir } from '../storage/lock.ts';
import { operatorToken } from './operator-token.ts';
import { EventStore, type Attempt } from '../storage/events.ts';
import { LinkStore } from '../links/store.ts';
import { MerchantStore, merchantRows } from '../merchants/store.ts';
import { AccountCache } from '../storage/account-cache.ts';
import { migrate, schemaTemplate } from '../storage/migrations.ts';
import { PaymentStore, paymentGroups } from '../payments/store.ts';
import { Crediting } from '../payments/crediting.ts';
import { depositViews } from '../payments/deposit-views-store.ts';
import { PayoutStore, payoutsByState, payoutsSpentSince } from '../payouts/store.ts';
import { PayoutMoves } from '../payouts/use-cases.ts';
import { BankAccounts } from '../payouts/bank-accounts.ts';
import { RefundStore, refundsByState, refundsSpentSince } from '../refunds/store.ts';
import { refundView } from '../refunds/views.ts';
import { refundFollower } from '../refunds/use-cases.ts';
import { markOutsidePayment } from '../refunds/outside-store.ts';
import { WalletRefundStore } from '../refunds/wallet-store.ts';
import { swapsByState } from '../balances/swap-store.ts';
import { balanceStoresOf } from '../balances/store.ts';
import { checkTreasury } from '../chain/treasury-reconcile.ts';
import { withdrawalsByState } from '../balances/withdrawal-store.ts';
import { FeeStore } from '../merchants/fee-store.ts';
import { RELAYS_PER_CLIENT_PER_MINUTE } from '../payments/relay-routes.ts';
import { RateCache } from '../rates/cache.ts';
import { offeredCatalog } from '../rates/catalog.ts';
import { settings, type ServiceOptions } from './settings.ts';
import { createMetrics } from './metrics.ts';
import { MetricsStore } from '../storage/metrics.ts';
import { RateLimitStore } from '../storage/rate-limits.ts';
import { DestinationStore } from '../merchants/destination-store.ts';
import { Destinations } from '../merchants/destinations.ts';
import { IdempotencyStore } from '../storage/idempotency.ts';

export type { ServiceOptions } from './settings.ts';

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

export async function startService(given: ServiceOptions = {}): Promise<Service> {
  // Every default, applied once (settings.ts); nothing below falls back to one of its own.
  const options = settings(given);
  const { logger: log, now, instance, stateDir } = options;
  const configured = await configuredNetworks(options);
  const { treasuryAccounts } = configured;
  // An embedded database on disk takes one process: the lock says which, and where it listens.
  const lock = options.dataDir && !options.databaseUrl ? lockDataDir(options.dataDir, 'service') : undefined;
  let opened: Database | undefined;
  let token: string | undefined;
  let factors: FactorStore;
  let ids: OpaqueIds;
  try {
    opened = await openDatabase({ databaseUrl: options.databaseUrl, dataDir: options.dataDir, schema: await schemaTemplate() });
    // The lock is confirmed and the token read or made once the database is open: nothing a
    // new database is loaded from can replace them.
    lock?.confirm();
    token = options.adminToken || stateDir ? operatorToken(options.adminToken, stateDir ?? '') : undefined;
    await migrate(opened);
    // Authenticator secrets are kept sealed (factors/secret-box.ts): those kept plain before are sealed now.
    const box = secretBox(stateDir, token);
    factors = new FactorStore(opened, box);
    ids = new OpaqueIds(box.derive('opaque ids v1'));
    await factors.sealPlainSecrets();
  } catch (error) {
    await opened?.close().catch(() => {});
    lock?.release();
    throw error;
  }
  const db = opened;
  // Made before anything that counts into it; what it reads at scrape time is made below.
  const ratesConfig = options.rates;
  const rateHistory = new RateHistoryStore(db, options.rateHistoryDays * 86_400_000, ratesConfig.maxAgeMs);
  const rates = new RateCache(ratesConfig.providers, { ...ratesConfig, now, log, history: rateHistory });
  await rates.start();
  // /metrics reads each table through its owner's store (storage/tables.ts).
  const metricsStore = new MetricsStore(db, {
    paymentGroups: (nowMs) => paymentGroups(db, nowMs),
    byState: { payouts: () => payoutsByState(db), swaps: () => swapsByState(db), withdrawals: () => withdrawalsByState(db), refunds: () => refundsByState(db) },
    emailOutbox: () => emailOutbox(db),
    sweeps: () => sweepCounts(db),
  });
  const metrics = createMetrics({
    store: metricsStore,
    rates,
    readiness: () => readiness(),
    now,
    longPolls: () => changes.waiting,
    jobs: () => (jobs ? jobs.jobs : []),
  });
  const networks = pinnedNetworks(configured.networks, treasuryAccounts, {
    rpcEvents: (chainId) => metrics.rpcEvents(chainId),
    rpcChainCheckMs: options.rpcChainCheckMs,
    warn: (fields, message) => log.warn(fields, message),
  });
  const allNetworks = [...(networks.test ?? []), ...(networks.live ?? [])];
  // Rate limits: counted in the database shared by every instance on PostgreSQL, in this process on PGlite (one instance).
  const sharedWindows = db.kind === 'postgres' ? new RateLimitStore(db) : undefined;
  const limiter = (name: string, max: number, windowMs: number) => {
    metrics.knownRateLimit(name);
    return new RateLimiter(max, windowMs, now, { name, shared: sharedWindows, refused: metrics.rateLimitRefused });
  };

  const events = new EventStore(db);
  // The key, settlement and payout-address lookups of every request, kept in this process and
  // dropped on any change (from this instance at once, from others by NOTIFY): account-cache.ts.
  let accounts: AccountCache | undefined;
  const forget = (merchantId: string) => accounts?.forget(merchantId);
  const merchants = new MerchantStore(db, memberRole, now, forget);
  const chain = new ChainStore(db, depositViews);
  // A payment's history asks the chain's and the refunds' stores (refunds, made below, need the payments' store).
  const payments = new PaymentStore(db, {
    chain,
    refunds: { anyOf: (sql: Sql, paymentId: string): Promise<boolean> => refunds.anyOf(sql, paymentId) },
  });
  // What reaches a payment (credits, reversals, finishing a partial one): one transaction each.
  const crediting = new Crediting(db, payments, events, chain);
  const products = new ProductStore(db);
  const links = new LinkStore(db, products);
  // The stores of balance settlement (balances/store.ts), each handed the fragments of the tables it joins.
  const balances = balanceStoresOf(db, {
    forget,
    views: { chain: chain.views, payments: depositViews },
    limits: { merchants: merchantRows, payoutsSpentSince, refundsSpentSince },
    withdrawalDailyLimit: options.withdrawalDailyLimit,
    events,
  });
  const { journal, withdrawals, treasuryTxs, treasuryHolds } = balances;
  const fees = new FeeStore(db, { bps: options.feeBps, bearer: options.feeBearer }, forget);
  accounts = new AccountCache(
    {
      keyOwner: (key, kind) => merchants.keyOwner(key, kind),
      settlement: (id, mode) => journal.settlement(id, mode),
      payoutAddress: (id, mode, chainId) => merchants.payoutAddressUntil(id, mode, chainId),
      feeTerms: (id, mode) => fees.terms(id, mode),
    },
    now,
  );
  const cache = accounts;
  const payoutCoin = (mode: string) => payoutCoinIn(catalogue, mode as KeyMode);
  const destinations = new Destinations(db, new DestinationStore(db), events, options.newDestinationDelayMs, forget, withdrawals);
  const payouts = new PayoutStore(db, journal, payoutCoin, now);
  const payoutMoves = new PayoutMoves(db, { payouts, journal, events, withdrawals }, payoutCoin, destinations.delayMs);
  const bankAccounts = new BankAccounts(db, { payouts, journal, destinations });
  const attention = new AttentionStore(db, events, chain.views, { rates: rateHistory, markOutsidePayment });
  const refunds = new RefundStore(db, { payments, merchants }, options.supportRefundDailyLimit);
  const walletRefunds = new WalletRefundStore(db, payments);
  const refundTransactions = { db, refunds, wallet: walletRefunds, payments, journal, withdrawals, attention, events };
  // A refund's send is the treasury's row of purpose `refund`: the refund moves, and is told, in the transaction that moves it.
  withdrawals.follow('refund', refundFollower(refundTransactions, refundView));
  // Each network's gas wallet, treasury and relay of signed transfers (chain/compose.ts).
  const { treasuries, relayers, gasOf } = moneyMovers(networks, treasuryAccounts, {
    gasKey: options.gasKey,
    devChain: options.devChain,
    relayTimeoutMs: options.relayTimeoutMs,
    chain,
    instance,
    now,
  });
  const dashboard = new DashboardStore(db, options.accountLockoutFailures, merchantRows, { memberById, memberLogins, factorState });
  for (const seed of options.merchants) await merchants.seed(seed, now());
  if (options.demo) await seedCatalogue(products, now());

  const changes = new PaymentChanges({ perKey: options.maxLongPollsPerKey, perReference: options.maxLongPollsPerReference, total: options.maxLongPolls });
  await changes.start(db, (key) => cache.onChange(key));
  const retry = { baseMs: options.webhookRetryMs, capMs: options.webhookRetryCapMs, windowMs: options.webhookRetryWindowMs };
  let origin = '';
  const readiness = serviceReadiness({
    db,
    networks: allNetworks,
    live: networks.live ?? [],
    chain,
    gasOf,
    treasuryChains: [...treasuries.values()].map(({ treasury }) => treasury.network),
    treasuryTxs,
    treasuryHolds,
    rates,
    ratesFetched: ratesConfig.providers.some((p) => !p.fixed),
    settings: options,
    now,
  });
  const catalogue = offeredCatalog(
    // The payout address comes through the account cache, which keeps an entry no longer than the
    // address's own time: a live key's new address takes effect when its delay ends
    // (merchants/destination-store.ts), a moment no NOTIFY marks.
    catalog(
      networks,
      (merchantId, mode, chainId) => cache.payoutAddress(merchantId, mode, chainId),
      (merchantId, mode) => cache.settlement(merchantId, mode),
      (merchantId, mode) => cache.feeTerms(merchantId, mode),
    ),
    rates,
  );
  const idempotency = new IdempotencyStore(db);
  // E-mail: written to the outbox by requests, sent by its job through SMTP_URL (never logged).
  const emails = new EmailStore(db, emailReads);
  const mailSender = options.smtpUrl ? smtpSender(options.smtpUrl, options.mailFrom) : undefined;
  if (!mailSender) log.warn({}, 'e-mail is off (no SMTP_URL): invitation and sign-in links are answered to whoever asks, to pass on by hand');
  const subscriptions = subscriptionsOf(db, { events, chain, catalogue, payments, relayers, instance, now, log, quoteSeconds: options.quoteSeconds });
  const parts: ServiceParts = {
    ownAddresses: ownAddresses((address) => payments.isDepositAddress(db, address), allNetworks, gasOf),
    closeEnoughCents: options.closeEnoughCents,
    metrics,
    catalog: catalogue,
    rates,
    rateHistory,
    payments,
    crediting,
    chain,
    events,
    merchants,
    links,
    payouts,
    payoutMoves,
    bankAccounts,
    refunds,
    refundTransactions,
    acceptTransactions: { db, attention },
    walletRefunds,
    destinations,
    ...balances,
    fees,
    // On demand (the operator's endpoint): every chain looked at now, as the job does.
    reconcileTreasuries: () =>
      Promise.all(
        allNetworks.map((network) =>
          checkTreasury(network, { holds: treasuryHolds, journal, treasuryTxs, log, now, holdThreshold: options.treasuryHoldThreshold }),
        ),
      ),
    treasury: (mode, chainId) => treasuries.get(`${mode}/${chainId}`),
    relayer: (mode, chainId) => relayers.get(`${mode}/${chainId}`),
    dashboard,
    team: new Team(db, new TeamStore(db), teamPorts, forget),
    factors,
    mail: new Mail(emails, mailSender !== undefined, () => origin, now, db, events),
    audit: new AuditStore(db),
    ids,
    paymentList: new PaymentList(db, chain.views),
    attention,
    products,
    subscriptions,
    signIns: limiter('sign_in', options.signInsPerClient, 600_000),
    changes,
    config: {
      quoteMs: options.quoteSeconds * 1000,
      longPoll: options.longPoll,
      sandbox: options.sandbox,
      distDir: options.distDir,
      retry,
      rotationOverlapMs: 24 * 3_600_000,
      loopbackWebhooks: options.loopbackWebhooks,
      trustProxies: options.trustProxies,
      passwordHashCost: options.passwordHashCost,
    },
    now,
    origin: () => origin,
    faults: options.faults ? new FaultInjector() : undefined,
    readiness,
    linkCheckouts: {
      perClient: limiter('link_checkout_per_client', options.linkCheckoutsPerMinute.perClient, 60_000),
      perLink: limiter('link_checkout_per_link', options.linkCheckoutsPerMinute.perLink, 60_000),
    },
    idempotency,
    moneyMoves: limiter('money_moves', options.moneyMovesPerMinute, 60_000),
    publicInitializes: {
      perClient: limiter('public_initialize_per_client', options.publicInitializesPerMinute.perClient, 60_000),
      perKey: limiter('public_initialize_per_key', options.publicInitializesPerMinute.perKey, 60_000),
    },
    relaysPerClient: limiter('relay_per_client', RELAYS_PER_CLIENT_PER_MINUTE, 60_000),
    devChain: options.devChain,
    log,
  };

  // A dev chain (anvil) starts empty on every run: what was watched on the last one is gone.
  for (const network of allNetworks) if (network.dev) await chain.forget(network.chainId);
  const jobs = !options.jobs
    ? undefined
    : await startJobs({
        db,
        payments,
        crediting,
        events,
        merchants,
        payouts,
        payoutMoves,
        refunds,
        refundTransactions,
        subscriptions,
        chain,
        now,
        log,
        instance,
        retry,
        ...balances,
        idempotency,
        treasuries: [...treasuries.values()],
        networks: allNetworks,
        ...jobSettings(options),
        intervalMs: options.jobIntervalMs,
        signals: metrics.signals,
        emails,
        mailSender,
        origin: () => origin,
      });

  const requests: string[] = [];
  const { server, port } = await listen(
    pipeline({
      routes: ROUTES.map(served),
      owners: cache,
      sessions: dashboard,
      service: parts,
      log,
      requests,
      operatorToken: token,
      observe: metrics.observe,
      keyUsed: (account, req) => merchants.keyUsed(account.keyId!, clientOf(req, options.trustProxies), now()),
    }),
    options.port,
    options.host,
  );
  const listening = `http://127.0.0.1:${port}`;
  origin = options.publicUrl ?? listening;
  const { host } = options;
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
