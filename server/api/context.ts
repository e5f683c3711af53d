// What every route handler is given: the request, its checked input, its account, and the
// service's parts.
import type { OwnAddresses } from '../chain/own-addresses.ts';
import type { Catalog } from '../chain/catalog.ts';
import type { DevChainPowers } from '../chain/networks.ts';
import type { Check } from '../chain/readiness.ts';
import type { Relayer } from '../chain/relay.ts';
import type { TreasuryCheck } from '../chain/treasury-reconcile.ts';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type * as z from 'zod/mini';
import type { FormFile } from '../http/multipart.ts';
import type { Account } from '../domain/account.ts';
import type { RetryPolicy } from '../webhooks/rules.ts';
import type { FaultInjector } from '../http/faults.ts';
import type { RateLimiter } from '../http/rate-limit.ts';
import type { Reply } from '../http/respond.ts';
import type { Logger } from '../service/log.ts';
import type { BalanceStores } from '../balances/store.ts';
import type { PaymentChanges } from '../realtime/changes.ts';
import type { ChainStore } from '../chain/store.ts';
import type { DashboardStore } from '../dashboard/store.ts';
import type { PaymentList } from '../payments/list-store.ts';
import type { ProductStore } from '../products/store.ts';
import type { Subscriptions } from '../subscriptions/use-cases.ts';
import type { EventStore } from '../storage/events.ts';
import type { LinkStore } from '../links/store.ts';
import type { MerchantStore } from '../merchants/store.ts';
import type { PaymentStore } from '../payments/store.ts';
import type { PayoutStore } from '../payouts/store.ts';
import type { PayoutMoves } from '../payouts/use-cases.ts';
import type { BankAccounts } from '../payouts/bank-accounts.ts';
import type { RefundStore } from '../refunds/store.ts';
import type { RefundTransactions } from '../refunds/use-cases.ts';
import type { AttentionStore } from '../payments/attention-store.ts';
import type { AcceptTransactions } from '../payments/accept.ts';
import type { RateHistoryStore } from '../rates/history-store.ts';
import type { Destinations } from '../merchants/destinations.ts';
import type { FeeStore } from '../merchants/fee-store.ts';
import type { WalletRefundStore } from '../refunds/wallet-store.ts';
import type { IdempotencyStore } from '../storage/idempotency.ts';
import type { SwapProvider, Treasury } from '../chain/treasury.ts';
import type { KeyMode } from '../../contract/keys.ts';
import type { RateCache } from '../rates/cache.ts';
import type { Metrics } from '../service/metrics.ts';
import type { AuditStore } from '../audit/store.ts';
import type { Team } from '../team/use-cases.ts';
import type { FactorStore } from '../factors/store.ts';
import type { Mail } from '../email/use-cases.ts';
import type { OpaqueIds } from '../http/opaque-ids.ts';
import type { Crediting } from '../payments/crediting.ts';

export interface ServiceParts extends BalanceStores {
  /** The service's own addresses, never where money goes out. */
  ownAddresses: OwnAddresses;
  /** How short of due a credit may leave a payment and still settle it, in hundredths of its coin (CLOSE_ENOUGH_CENTS). */
  closeEnoughCents: number;
  /** The coins of each mode, and its network when one is configured. */
  catalog: Catalog;
  payments: PaymentStore;
  /** What reaches a payment: the sandbox's credits, finishing an accepted partial payment. */
  crediting: Crediting;
  /** What the chain watchers recorded: transfers still confirming, for the status answer. */
  chain: ChainStore;
  events: EventStore;
  merchants: MerchantStore;
  links: LinkStore;
  payouts: PayoutStore;
  /** A bank payout's initiation (its USDT reserved) and its end (paid or returned). */
  payoutMoves: PayoutMoves;
  /** A merchant's bank accounts added, changed and deleted (a live key's new ones wait the delay). */
  bankAccounts: BankAccounts;
  /** Refunds of payments. */
  refunds: RefundStore;
  /** The stores a refund's use cases open their transaction on. */
  refundTransactions: RefundTransactions;
  /** What each payment needs of its merchant, and resolving it: money that did not count as asked. */
  attention: AttentionStore;
  /** The stores accepting a payment's case opens its transaction on. */
  acceptTransactions: AcceptTransactions;
  /** Refunds on wallet settlement: the merchant's transfer looked for on chain, or named and checked. */
  walletRefunds: WalletRefundStore;
  /** The operator's fee terms per merchant and mode (the default: FEE_BPS, FEE_BEARER). */
  fees: FeeStore;
  /** A live key's new destinations of money, each waiting the operator's delay, cancellable by the owner. */
  destinations: Destinations;
  /** A network's treasury of a mode and its swap provider, where it has a treasury whose key the service holds. */
  treasury(mode: KeyMode, chainId: number): { treasury: Treasury; swaps?: SwapProvider } | undefined;
  /** A network's relay of signed transfers, where it has a gas wallet. */
  relayer(mode: KeyMode, chainId: number): Relayer | undefined;
  /** The merchant's members and invitations. */
  team: Team;
  /** Each person's passkeys, authenticator apps, recovery codes and step-ups. */
  factors: FactorStore;
  /** E-mail: written to the outbox, sent by its job; `on` false without SMTP_URL. */
  mail: Mail;
  /** Who did what: every write of a session or a secret key, append-only. */
  audit: AuditStore;
  /** Row numbers answered as opaque ids (the audit log's, the statement's). */
  ids: OpaqueIds;
  /** The dashboard's sign-in: links, logins, sessions, wrong-password counts. */
  dashboard: DashboardStore;
  /** The payments list and each payment's timeline. */
  paymentList: PaymentList;
  /** The merchant's products and their prices. */
  products: ProductStore;
  /** Plans, subscriptions and their charges. */
  subscriptions: Subscriptions;
  /** Dashboard sign-ins and password settings a client may try in ten minutes (any e-mail). */
  signIns: RateLimiter;
  /** Exchange rates: fresh or the operator's fixed table, each with its source and time. */
  rates: RateCache;
  /** The coin rates the cache fetched, kept RATE_HISTORY_DAYS: money in another coin credited at the rate of its arrival. */
  rateHistory: RateHistoryStore;
  /** Prometheus metrics, for GET /metrics (operator token). */
  metrics: Metrics;
  changes: PaymentChanges;
  config: {
    quoteMs: number;
    longPoll: boolean;
    /** Simulated deposits for test keys. */
    sandbox: boolean;
    distDir: string;
    retry: RetryPolicy;
    /** How long the old webhook secret still signs after a rotation. */
    rotationOverlapMs: number;
    /** Whether test keys may have webhooks sent to this machine (see ServiceOptions.loopbackWebhooks). */
    loopbackWebhooks: boolean;
    /** Reverse proxies in front of the service (TRUST_PROXIES), for clientOf. */
    trustProxies: number;
    /** Dashboard passwords' scrypt cost, log2 N (ServiceOptions.passwordHashCost). */
    passwordHashCost: number;
  };
  now(): number;
  /** The service's own public origin, for links and file URLs. */
  origin(): string;
  faults?: FaultInjector;
  /** What GET /readyz checks: the database, and each watched chain's lag. */
  readiness(): Promise<Check[]>;
  /** Every chain's treasury reconciled now, as its job does (the operator's endpoint). */
  reconcileTreasuries(): Promise<TreasuryCheck[]>;
  /** How many payments a hosted link page may make a minute, per client address and per link. */
  linkCheckouts: { perClient: RateLimiter; perLink: RateLimiter };
  /** Each Idempotency-Key's request digest, lease and first answer, for 24 hours. */
  idempotency: IdempotencyStore;
  /** Withdrawals, swaps and bank payouts a merchant may ask for a minute, per mode (429 past it). */
  moneyMoves: RateLimiter;
  /** Initializes made with the public key, which anyone holds. */
  publicInitializes: { perClient: RateLimiter; perKey: RateLimiter };
  /** Signed transfers a client address may ask the service to relay a minute. */
  relaysPerClient: RateLimiter;
  /** A local dev chain's powers, where the demo or a test started one. */
  devChain?: DevChainPowers;
  log: Logger;
}

/** The schemas a route declares for its input; the pipeline hands the handler their output. */
export interface Schemas {
  params?: z.ZodMiniType;
  query?: z.ZodMiniType;
  body?: z.ZodMiniType;
}
type Out<S, K extends keyof Schemas, Default> = S extends { [key in K]: infer T extends z.ZodMiniType } ? z.output<T> : Default;

/**
 * A request's context. `K`: the parts of the service its handler may use; each routes file
 * declares its own (`type Uses = 'payments' | 'now' …`), and a part it did not name does not
 * compile (server/tests/fixtures/undeclared-part.ts; server/tests/dependencies.test.ts).
 */
export interface Ctx<S extends Schemas = {}, K extends keyof ServiceParts = keyof ServiceParts> {
  req: IncomingMessage;
  res: ServerResponse;
  /** The path's parameters, decoded, and checked by the route's `params` schema where it has one. */
  params: Out<S, 'params', Record<string, string>>;
  /** The query string, checked by the route's `query` schema (without one: each name's last value). */
  query: Out<S, 'query', Record<string, string>>;
  /** The body, read (JSON, or a multipart form's text fields) and checked by the route's `body` schema. */
  body: Out<S, 'body', undefined>;
  /** A multipart form's files, by field name (empty for a JSON body). */
  files: Map<string, FormFile>;
  /** The body as sent (JSON, or a form's text fields), before its schema: what a step-up is bound to. */
  sent?: unknown;
  /** Who is calling; present on every route whose auth is not 'none'. */
  account: Account;
  /** The service's parts its routes file declared: stores, catalogue, config, clock. */
  service: Pick<ServiceParts, K>;
}

/** A context before its route is known: any input. */
export type AnyCtx = Ctx<Required<Schemas>>;

/** A JSON reply, or undefined when the handler answered itself (HTML, files, scripts). */
export type Handler<S extends Schemas = {}, K extends keyof ServiceParts = keyof ServiceParts> = (ctx: Ctx<S, K>) => Promise<Reply | undefined>;
