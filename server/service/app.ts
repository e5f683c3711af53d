// The service, composed: database → stores → background jobs → the HTTP pipeline. Used by main.ts (npm start), the demo and the tests
// alike. Composition only: what each part does lives in its folder (http/, routes/, jobs/, storage/, chain/).
import { privateKeyToAccount } from 'viem/accounts';
import type { Server } from 'node:http';
import type { KeyMode } from '../../contract/keys.ts';
import { catalog } from '../chain/catalog.ts';
import { chainReadiness, missingGasWallets, treasuryQueueReadiness } from '../chain/readiness.ts';
import { configuredNetworks } from '../chain/configured.ts';
import { ownAddresses } from '../chain/own-addresses.ts';
import { ChainPin, withSameAddresses, type Network } from '../chain/networks.ts';
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
import { FactorStore, factorState } from '../factors/store.ts';
import { secretBox } from '../factors/secret-box.ts';
import { OpaqueIds } from '../http/opaque-ids.ts';
import { EmailStore, emailOutbox } from '../email/store.ts';
import { Mail } from '../email/use-cases.ts';
import { clientOf } from '../http/client.ts';
import { smtpSender } from '../email/smtp.ts';
import { PaymentList } from '../payments/list-store.ts';
import { AttentionStore } from '../payments/attention-store.ts';
import { RateHistoryStore } from '../rates/history-store.ts';
import { ProductStore } from '../products/store.ts';
import { subscriptionsOf } from '../subscriptions/compose.ts';
import { answers, openDatabase, type Database, type Sql } from '../storage/db.ts';
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
import { RefundStore, refundsByState, refundsSpentSince } from '../refunds/store.ts';
import { refundView } from '../refunds/views.ts';
import { markOutsidePayment } from '../refunds/outside-store.ts';
import { WalletRefundStore } from '../refunds/wallet-store.ts';
import { BalanceTransactionStore } from '../balances/store.ts';
import { JournalStore } from '../balances/journal-store.ts';
import { PartnerTransferStore } from '../balances/partner-transfer-store.ts';
import { SwapStore, swapsByState } from '../balances/swap-store.ts';
import { TreasuryTxStore } from '../balances/treasury-store.ts';
import { TreasuryHoldStore } from '../balances/treasury-hold-store.ts';
import { checkTreasury, treasuryReadiness } from '../chain/treasury-reconcile.ts';
import { WithdrawalStore, withdrawalsByState } from '../balances/withdrawal-store.ts';
import { FeeStore } from '../merchants/fee-store.ts';
import { routerSwaps, Treasury, type SwapProvider } from '../chain/treasury.ts';
import { Relayer } from '../chain/relay.ts';
import { RELAYS_PER_CLIENT_PER_MINUTE } from '../payments/relay-routes.ts';
import { RateCache } from '../rates/cache.ts';
import { offeredCatalog } from '../rates/catalog.ts';
import { settings, type ServiceOptions } from './settings.ts';
import { createMetrics } from './metrics.ts';
import { MetricsStore } from '../storage/metrics.ts';
import { RateLimitStore } from '../storage/rate-limits.ts';
import { DestinationStore } from '../merchants/destination-store.ts';
import { IdempotencyStore } from '../storage/idempotency.ts';
import { COINS, CURRENCIES } from '../../contract/fields.ts';

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
  const { networks, treasuryAccounts } = await configuredNetworks(options);
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
  // Each network's RPC calls tell /metrics of their failures (copies: the caller's objects stay as given).
  // …and each URL's chain id is checked again at runtime: one answering another chain is out of rotation.
  const pinLog = (fields: Record<string, unknown>, message: string) => log.warn(fields, message);
  for (const mode of ['test', 'live'] as const) {
    // …and each knows the other chains of its mode its deposit addresses are on: money sent on the wrong one is seen.
    const list = networks[mode];
    networks[mode] =
      list &&
      withSameAddresses(mode, list).map((n, i) => {
        const pinned = { ...n, rpcEvents: metrics.rpcEvents(n.chainId), rpcPin: new ChainPin(n.chainId, options.rpcChainCheckMs, pinLog) };
        const account = treasuryAccounts.get(list[i]!);
        if (account) treasuryAccounts.set(pinned, account);
        return pinned;
      });
  }
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
  const journal = new JournalStore(db, forget, { chain: chain.views, payments: depositViews });
  const swaps = new SwapStore(db);
  const withdrawals = new WithdrawalStore(db, options.withdrawalDailyLimit, { merchants: merchantRows, payoutsSpentSince, refundsSpentSince });
  const fees = new FeeStore(db, { bps: options.feeBps, bearer: options.feeBearer }, forget);
  const partnerTransfers = new PartnerTransferStore(db, journal);
  const treasuryTxs = new TreasuryTxStore(db);
  const treasuryHolds = new TreasuryHoldStore(db, journal, { chain: chain.views, payments: depositViews });
  const balanceTransactions = new BalanceTransactionStore(db, { journal, swaps, withdrawals, events });
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
  const destinations = new DestinationStore(db, events, options.newDestinationDelayMs, forget, withdrawals);
  const payouts = new PayoutStore(db, journal, payoutCoin, destinations, now);
  const payoutMoves = new PayoutMoves(db, { payouts, journal, events, withdrawals }, payoutCoin, destinations.delayMs);
  const attention = new AttentionStore(db, events, chain.views, { rates: rateHistory, markOutsidePayment });
  const refunds = new RefundStore(db, { journal, withdrawals, events, attention, payments, merchants }, options.supportRefundDailyLimit);
  // A refund's send is the treasury's row of purpose `refund`: the refund moves, and is told, in the transaction that moves it.
  withdrawals.follow('refund', refunds.follower(refundView));
  const walletRefunds = new WalletRefundStore(db, events, payments);
  // The gas wallet of each network, which pays its sweeps and relays: GAS_WALLET_KEY's, or on a dev chain the dev account handed in.
  const gasKeyAccount = options.gasKey ? privateKeyToAccount(options.gasKey) : undefined;
  const gasAccountOf = (network: Network) => gasKeyAccount ?? (network.dev ? options.devChain?.gasAccount : undefined);
  const gasOf = (network: Network) => gasAccountOf(network)?.address;
  // Each network's treasury (balance settlement: its key from a file, never logged; swaps through its router)
  // and its relay of signed transfers, sent by its gas wallet.
  const treasuries = new Map<string, { treasury: Treasury; swaps?: SwapProvider }>();
  const relayers = new Map<string, Relayer>();
  for (const mode of ['test', 'live'] as const) {
    for (const network of networks[mode] ?? []) {
      const account = treasuryAccounts.get(network);
      const treasury = account && new Treasury(network, account);
      if (treasury)
        treasuries.set(`${mode}/${network.chainId}`, { treasury, ...(network.swapRouter ? { swaps: routerSwaps(treasury, network.swapRouter) } : {}) });
      const gas = gasAccountOf(network);
      if (gas) relayers.set(`${mode}/${network.chainId}`, new Relayer(network, gas, chain, instance, now, options.relayTimeoutMs));
    }
  }
  const dashboard = new DashboardStore(db, options.accountLockoutFailures, merchantRows, { memberById, memberLogins, factorState });
  for (const seed of options.merchants) await merchants.seed(seed, now());
  if (options.demo) await seedCatalogue(products, now());

  const changes = new PaymentChanges({ perKey: options.maxLongPollsPerKey, perReference: options.maxLongPollsPerReference, total: options.maxLongPolls });
  await changes.start(db, (key) => cache.onChange(key));
  const retry = { baseMs: options.webhookRetryMs, capMs: options.webhookRetryCapMs, windowMs: options.webhookRetryWindowMs };
  let origin = '';
  const chainsReady = chainReadiness(allNetworks, chain, options.readyMaxLagBlocks, gasOf);
  const gasMissing = options.sweepIntervalMs > 0 ? missingGasWallets(networks.live ?? [], gasOf) : [];
  const treasuriesReady = treasuryQueueReadiness(
    [...treasuries.values()].map(({ treasury }) => treasury.network),
    (chainId) => treasuryTxs.queueHead(chainId),
    options.treasuryStuckMs,
    now,
  );
  const readiness = async () => [
    await answers(db).then((ok) =>
      ok ? { name: 'database', ok: true, detail: db.kind } : { name: 'database', ok: false, detail: `${db.kind} does not answer` },
    ),
    ...(await chainsReady()),
    ...(await treasuriesReady()),
    ...gasMissing,
    ...(await treasuryReadiness(allNetworks, treasuryHolds)),
    // Fetched rates age; a fixed table's never do, so it has no check.
    ...(ratesConfig.providers.some((p) => !p.fixed) ? [rates.readiness({ fiat: CURRENCIES.filter((c) => c !== 'USD'), coins: [...COINS] })] : []),
  ];
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
  const emails = new EmailStore(db);
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
    refunds,
    walletRefunds,
    destinations,
    journal,
    swaps,
    withdrawals,
    fees,
    partnerTransfers,
    treasuryTxs,
    treasuryHolds,
    balanceTransactions,
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
    team: new TeamStore(db, forget),
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
        walletRefunds,
        subscriptions,
        chain,
        now,
        log,
        instance,
        retry,
        journal,
        swaps,
        withdrawals,
        partnerTransfers,
        treasuryTxs,
        treasuryHolds,
        balanceTransactions,
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
