// Prometheus metrics for the operator (GET /metrics, behind the operator token), made with
// prom-client on a registry of this service's own (several services may share a process in
// tests). Counters and histograms are kept as things happen (requests answered, webhook
// deliveries, RPC failures, rate-limit refusals), the chain watchers set their own gauges, and
// the rest is read at scrape time: payments, payouts, swaps and withdrawals by state, the
// webhook queue, sweeps, exchange rates' ages and what GET /readyz checks. Every family is in
// docs/operating.md's table (server/tests/metrics-families.test.ts holds the two equal), and
// `promtool check metrics` passes the whole (server/tests/promtool.test.ts). A `chain` label
// is always the chain id.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Check } from '../chain/readiness.ts';
import type { RpcEvents } from '../chain/networks.ts';
import type { JobSignals } from '../jobs/job.ts';
import { statusOf } from '../payments/rules.ts';
import { STATUSES } from '../../contract/schemas.ts';
import { REFUND_STATES } from '../../contract/refunds.ts';
import type { RateCache } from '../rates/cache.ts';
import type { MetricsStore } from '../storage/metrics.ts';

export interface Metrics {
  /** For the HTTP pipeline: one answered request, and how long it took. */
  observe(method: string, route: string, status: number, seconds: number): void;
  /** For the jobs: webhook deliveries and the chain watchers' ticks. */
  signals: JobSignals;
  /** For a network's RPC transport (networks.ts): its failed calls and failovers. */
  rpcEvents(chainId: number): RpcEvents;
  /** A request refused by the rate limit so named (a 429). */
  rateLimitRefused(limit: string): void;
  /** A rate limit made: its refusals are shown from 0. */
  knownRateLimit(limit: string): void;
  /** A merchant's payments started by anyone (public key, link page) passed the minute's watched ceiling. */
  ceilingPassed(kind: 'public_initialize' | 'link_checkout', mode: string): void;
  /** Paying with one signature: a relay request's outcome, the field a refusal named, the gas (wei) a relay sent by the gas wallet cost. */
  relay(outcome: RelayOutcome, detail?: { field?: string; chainId?: number; gasWei?: bigint }): void;
  /** The exposition text, and its content type. */
  scrape(): Promise<{ contentType: string; text: string }>;
}

// prom-client's defaults also count Node's active handles, requests and resources as gauges
// named _total, which Prometheus's rules keep for counters: left out (the same gauges by type,
// service_nodejs_active_handles and the rest, stay).
const MISNAMED_DEFAULTS = ['service_nodejs_active_handles_total', 'service_nodejs_active_requests_total', 'service_nodejs_active_resources_total'];

export interface MetricsDeps {
  store: MetricsStore;
  rates: RateCache;
  readiness: () => Promise<Check[]>;
  now: () => number;
  /** Long polls held now on this instance. */
  longPolls: () => number;
  /** The background jobs running on this instance (none before they start, or with jobs off), with their ticks. */
  jobs: () => ReadonlyArray<{ name: string; runs?: { readonly ok: number; readonly failed: number } }>;
}

/** What became of a relay request: sent by the gas wallet, found on the chain already (the same signature again, or a front-run), refused (4xx), or failed (5xx). */
export const RELAY_OUTCOMES = ['relayed', 'already_on_chain', 'refused', 'failed'] as const;
export type RelayOutcome = (typeof RELAY_OUTCOMES)[number];
/** The fields a relay refusal may name (server/chain/relay-authorization.ts, server/payments/relay-routes.ts; the caps: server/chain/relay-caps.ts); any other counts as "other". */
export const RELAY_FIELDS: readonly string[] = [
  ...['chain_id', 'authorization', 'signature', 'reference', 'other'],
  ...['to', 'value', 'validBefore', 'validAfter', 'from', 'nonce'].map((f) => `authorization.${f}`),
  ...['payment_cap', 'daily_cap', 'instance_cap', 'wallet'].map((f) => `gas.${f}`),
];

/** The labels every counter shows from start, at 0: a rate of nothing is 0, not an absent series. */
const MODES = ['test', 'live'] as const;

export function createMetrics(deps: MetricsDeps): Metrics {
  const registry = new Registry();
  /** The chains whose RPC calls report here (rpcEvents, asked for once per network at start). */
  const watched = new Set<string>();
  collectDefaultMetrics({ register: registry, prefix: 'service_' });
  for (const name of MISNAMED_DEFAULTS) registry.removeSingleMetric(name);
  const requests = new Counter({
    name: 'service_http_requests_total',
    help: "Requests answered, by method, route (the route table's path) and status",
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
  });
  const durations = new Histogram({
    name: 'service_http_request_duration_seconds',
    help: 'How long requests took to answer, by method and route (the route table\'s path, or "unmatched": never the URL itself); a long poll counts its wait',
    labelNames: ['method', 'route'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [registry],
  });
  const deliveries = new Counter({
    name: 'service_webhook_delivery_attempts_total',
    help: 'Webhook deliveries attempted, by key mode',
    labelNames: ['mode'],
    registers: [registry],
  });
  const deliveryFailures = new Counter({
    name: 'service_webhook_delivery_failures_total',
    help: 'Webhook deliveries that failed, by key mode and reason: status (the endpoint answered other than 2xx) or error (no answer: refused, timed out, unreachable)',
    labelNames: ['mode', 'reason'],
    registers: [registry],
  });
  const deliveryDurations = new Histogram({
    name: 'service_webhook_delivery_duration_seconds',
    help: 'How long each webhook delivery attempt took, by key mode',
    labelNames: ['mode'],
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  for (const mode of MODES) {
    deliveries.inc({ mode }, 0);
    for (const reason of ['status', 'error']) deliveryFailures.inc({ mode, reason }, 0);
    deliveryDurations.zero({ mode });
  }
  const rpcErrors = new Counter({
    name: 'service_rpc_errors_total',
    help: "Failed calls to a chain's RPC URLs (after each URL's own retries), by chain id",
    labelNames: ['chain'],
    registers: [registry],
  });
  const rpcFailovers = new Counter({
    name: 'service_rpc_failovers_total',
    help: "Calls moved to a chain's next RPC URL after one failed, by chain id",
    labelNames: ['chain'],
    registers: [registry],
  });
  const refusals = new Counter({
    name: 'service_rate_limit_refusals_total',
    help: 'Requests refused by a rate limit (429), by limit',
    labelNames: ['limit'],
    registers: [registry],
  });
  const rpcUp = new Gauge({
    name: 'service_chain_rpc_up',
    help: "Whether each chain's node answered its watcher's last call for the head: 1 yes, 0 no (by chain id)",
    labelNames: ['chain'],
    registers: [registry],
  });
  const lags = new Gauge({
    name: 'service_chain_watcher_lag_blocks',
    help: "How many blocks each chain's watched cursor is behind its head, by chain id, as last measured (kept while the node does not answer: see service_chain_rpc_up)",
    labelNames: ['chain'],
    registers: [registry],
  });
  new Gauge({
    name: 'service_long_polls_held',
    help: 'Long polls (verify and events with ?wait=) held open now on this instance',
    registers: [registry],
    collect() {
      this.set(deps.longPolls());
    },
  });
  for (const [name, table, help, states] of [
    ['service_payouts', 'payouts', 'Bank payouts by key mode and state', ['pending', 'processing', 'paid', 'failed']],
    ['service_swaps', 'swaps', 'Swaps by key mode and state', ['quoted', 'pending', 'completed', 'failed']],
    ['service_withdrawals', 'withdrawals', 'Withdrawals to wallets by key mode and state', ['pending', 'completed', 'failed']],
    ['service_refunds', 'refunds', 'Refunds by key mode and state', REFUND_STATES],
  ] as const) {
    new Gauge({
      name,
      help,
      labelNames: ['mode', 'state'],
      registers: [registry],
      async collect() {
        this.reset();
        for (const mode of MODES) for (const state of states) this.set({ mode, state }, 0);
        for (const g of await deps.store.byState(table)) this.set({ mode: g.mode, state: g.state }, g.count);
      },
    });
  }
  const ceilings = new Counter({
    name: 'service_public_payments_ceiling_passed_total',
    help: "Times one merchant's payments started by anyone (public key, link page) passed the minute's ceiling: alerted, not refused",
    labelNames: ['kind', 'mode'],
    registers: [registry],
  });
  for (const kind of ['public_initialize', 'link_checkout']) for (const mode of MODES) ceilings.inc({ kind, mode }, 0);
  const relays = new Counter({
    name: 'service_relays_total',
    help: 'Signed transfers asked to be relayed (paying with one signature), by outcome',
    labelNames: ['outcome'],
    registers: [registry],
  });
  for (const outcome of RELAY_OUTCOMES) relays.inc({ outcome }, 0);
  const relayRefusals = new Counter({
    name: 'service_relay_refusals_total',
    help: 'Relays refused before any gas was spent, by the field the refusal named',
    labelNames: ['field'],
    registers: [registry],
  });
  for (const field of RELAY_FIELDS) relayRefusals.inc({ field }, 0);
  const relayGas = new Counter({
    name: 'service_relay_gas_wei_total',
    help: "What the transactions the gas wallet sent to relay signed transfers cost, in wei of the chain's native coin, by chain",
    labelNames: ['chain'],
    registers: [registry],
  });
  new Gauge({
    name: 'service_payments',
    help: 'Payments by key mode and status',
    labelNames: ['mode', 'status'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const mode of MODES) for (const status of STATUSES) this.set({ mode, status }, 0);
      for (const g of await deps.store.paymentGroups(deps.now())) {
        // The status rule itself, on a stand-in with the group's facts.
        const status = statusOf({ paid: g.full ? 2n : g.some ? 1n : 0n, due: 2n, settledMs: g.settled ? 0 : null, expiresMs: g.expired ? 0 : 2 }, 1);
        this.inc({ mode: g.mode, status }, g.count);
      }
    },
  });
  /** A queue's two gauges: how many wait (`<name>_depth`), and how long the oldest has (`<name>_oldest_seconds`, 0 when none). */
  const queue = (name: string, depthHelp: string, oldestHelp: string, read: () => Promise<{ depth: number; oldestMs: number | null }>) => {
    new Gauge({
      name: `${name}_depth`,
      help: depthHelp,
      registers: [registry],
      async collect() {
        this.set((await read()).depth);
      },
    });
    new Gauge({
      name: `${name}_oldest_seconds`,
      help: oldestHelp,
      registers: [registry],
      async collect() {
        const { oldestMs } = await read();
        this.set(oldestMs === null ? 0 : Math.max(0, (deps.now() - oldestMs) / 1000));
      },
    });
  };
  queue(
    'service_webhook_queue',
    'Webhook events waiting to be delivered',
    'How long the oldest webhook event waiting to be delivered has waited (0 when none)',
    () => deps.store.webhookQueue(),
  );
  queue(
    'service_email_outbox',
    'E-mails waiting in the outbox to be sent (retries included)',
    'How long the oldest e-mail waiting in the outbox has waited since it was written (0 when none)',
    () => deps.store.emailOutbox(),
  );
  new Gauge({
    name: 'service_transfers_counted',
    help: 'Transfers counted to deposit addresses, per chain, swept to the payout address or not yet',
    labelNames: ['chain', 'swept'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const chain of watched) for (const swept of ['true', 'false']) this.set({ chain, swept }, 0);
      for (const s of await deps.store.sweeps()) this.set({ chain: String(s.chainId), swept: String(s.swept) }, s.count);
    },
  });
  new Gauge({
    name: 'service_exchange_rate_age_seconds',
    help: "How old each exchange rate is (a fixed table's: 0), by kind (fiat per dollar, dollars per coin) and name",
    labelNames: ['kind', 'name', 'fixed'],
    registers: [registry],
    collect() {
      this.reset();
      for (const a of deps.rates.ages()) this.set({ kind: a.kind, name: a.name, fixed: String(a.fixed) }, a.seconds);
    },
  });
  new Counter({
    name: 'service_exchange_rate_fetch_failures_total',
    help: 'Failed fetches of each rate provider since the service started',
    labelNames: ['provider'],
    registers: [registry],
    collect() {
      // The rate cache counts; this reads its count.
      this.reset();
      for (const provider of deps.rates.providerNames) this.inc({ provider }, 0);
      for (const [provider, n] of deps.rates.failures) this.inc({ provider }, n);
    },
  });
  /** Each job's ticks, summed over the jobs of one name (one per chain for some), read at scrape time. */
  const jobTicks = (which: 'ok' | 'failed') => {
    const sums = new Map<string, number>();
    for (const job of deps.jobs()) if (job.runs) sums.set(job.name, (sums.get(job.name) ?? 0) + job.runs[which]);
    return sums;
  };
  new Counter({
    name: 'service_job_runs_total',
    help: 'Ticks each background job ran to the end since the service started, by job',
    labelNames: ['job'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [job, n] of jobTicks('ok')) this.inc({ job }, n);
    },
  });
  new Counter({
    name: 'service_job_failures_total',
    help: 'Ticks of each background job that failed (logged; the job runs again) since the service started, by job',
    labelNames: ['job'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [job, n] of jobTicks('failed')) this.inc({ job }, n);
    },
  });
  // One readiness round per scrape feeds both gauges below.
  let round: Promise<Check[]> | undefined;
  const checks = () => (round ??= deps.readiness().finally(() => setTimeout(() => (round = undefined), 0)));
  new Gauge({
    name: 'service_ready',
    help: 'Each GET /readyz check: 1 ready, 0 not',
    labelNames: ['check'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const c of await checks()) this.set({ check: c.name }, c.ok ? 1 : 0);
    },
  });
  new Gauge({
    name: 'service_gas_wallet_balance',
    help: "What each chain's gas wallet holds, in the chain's own coin (ETH, BNB, POL…): sweeps stop when it runs dry",
    labelNames: ['chain'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const c of await checks()) if (c.gasBalance) this.set({ chain: String(c.gasBalance.chainId) }, c.gasBalance.amount);
    },
  });
  for (const [name, help, figure] of [
    ['service_treasury_held', "What each chain's treasury holds on chain of each coin (whole coins), as the last reconciliation found it", 'held'],
    [
      'service_treasury_owed',
      "What the journal says each chain's treasury owes of each coin (merchants' balances, fees, owed to the payout partner; whole coins)",
      'owed',
    ],
    [
      'service_treasury_surplus',
      "What each chain's treasury holds of each token past what the journal owes and what is on its way in (whole coins; 0 normally): the books missed something",
      'surplus',
    ],
  ] as const) {
    new Gauge({
      name,
      help,
      labelNames: ['chain', 'coin'],
      registers: [registry],
      async collect() {
        this.reset();
        for (const c of await checks()) if (c.treasury) this.set({ chain: String(c.treasury.chainId), coin: c.treasury.coin }, c.treasury[figure] ?? 0);
      },
    });
  }
  new Gauge({
    name: 'service_treasury_stuck_seconds',
    help: "How long the oldest unmined transaction of each chain's treasury (the head of its queue) has waited; 0 when none waits",
    labelNames: ['chain'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const c of await checks()) if (c.treasuryWait) this.set({ chain: String(c.treasuryWait.chainId) }, c.treasuryWait.seconds);
    },
  });
  return {
    observe: (method, route, status, seconds) => {
      requests.inc({ method, route, status: String(status) });
      durations.observe({ method, route }, seconds);
    },
    signals: {
      delivery: (mode, outcome, seconds) => {
        deliveries.inc({ mode });
        if (outcome !== 'delivered') deliveryFailures.inc({ mode, reason: outcome });
        deliveryDurations.observe({ mode }, seconds);
      },
      watched: (chainId, status) => {
        const chain = String(chainId);
        rpcUp.set({ chain }, status.rpcUp ? 1 : 0);
        if (status.lagBlocks !== undefined) lags.set({ chain }, Number(status.lagBlocks));
      },
    },
    rpcEvents: (chainId) => {
      // Asked for once per watched chain at start: its counters shown from 0.
      const chain = String(chainId);
      watched.add(chain);
      rpcErrors.inc({ chain }, 0);
      rpcFailovers.inc({ chain }, 0);
      relayGas.inc({ chain }, 0);
      return { error: () => rpcErrors.inc({ chain }), failover: () => rpcFailovers.inc({ chain }) };
    },
    rateLimitRefused: (limit) => refusals.inc({ limit }),
    knownRateLimit: (limit) => refusals.inc({ limit }, 0),
    ceilingPassed: (kind, mode) => ceilings.inc({ kind, mode }),
    relay: (outcome, detail = {}) => {
      relays.inc({ outcome });
      if (outcome === 'refused') relayRefusals.inc({ field: RELAY_FIELDS.includes(detail.field ?? '') ? detail.field! : 'other' });
      if (detail.gasWei !== undefined && detail.chainId !== undefined) relayGas.inc({ chain: String(detail.chainId) }, Number(detail.gasWei));
    },
    scrape: async () => ({ contentType: registry.contentType, text: await registry.metrics() }),
  };
}
