// Prometheus metrics for the operator (GET /metrics, behind the operator token), made with
// prom-client on a registry of this service's own (several services may share a process in
// tests). Counters are kept as requests are answered; the rest is read at scrape time: payments
// by status, the webhook queue, sweeps, exchange rates' ages and what GET /readyz checks
// (each chain watcher's lag among them).
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import type { Check } from './chain/readiness.ts';
import { statusOf } from './payments/rules.ts';
import type { RateCache } from './rates/cache.ts';
import type { MetricsStore } from './storage/metrics.ts';

export interface Metrics {
  /** For the HTTP pipeline: one answered request. */
  observe(method: string, route: string, status: number): void;
  /** A merchant's payments started by anyone (public key, link page) passed the minute's watched ceiling. */
  ceilingPassed(kind: 'public_initialize' | 'link_checkout', mode: string): void;
  /** The exposition text, and its content type. */
  scrape(): Promise<{ contentType: string; text: string }>;
}

/** A readiness check's lag, as chain/readiness.ts words it ("12 blocks behind the head (…)"). */
export const lagOf = (check: Check): number | undefined => {
  const found = /^(\d+) blocks behind the head/.exec(check.detail);
  return found ? Number(found[1]) : undefined;
};

export function createMetrics(deps: { store: MetricsStore; rates: RateCache; readiness: () => Promise<Check[]>; now: () => number }): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'service_' });
  const requests = new Counter({ name: 'service_http_requests_total', help: 'Requests answered, by method, route (the route table\'s path) and status', labelNames: ['method', 'route', 'status'], registers: [registry] });
  const ceilings = new Counter({
    name: 'service_public_payments_ceiling_passed_total',
    help: 'Times one merchant\'s payments started by anyone (public key, link page) passed the minute\'s ceiling: alerted, not refused',
    labelNames: ['kind', 'mode'],
    registers: [registry],
  });
  new Gauge({
    name: 'service_payments',
    help: 'Payments by key mode and status',
    labelNames: ['mode', 'status'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const g of await deps.store.paymentGroups(deps.now())) {
        // The status rule itself, on a stand-in with the group's facts.
        const status = statusOf({ paid: g.full ? 2n : g.some ? 1n : 0n, due: 2n, settledMs: g.settled ? 0 : null, expiresMs: g.expired ? 0 : 2 }, 1);
        this.inc({ mode: g.mode, status }, g.count);
      }
    },
  });
  new Gauge({
    name: 'service_webhook_queue_depth',
    help: 'Webhook events waiting to be delivered',
    registers: [registry],
    async collect() {
      this.set((await deps.store.webhookQueue()).depth);
    },
  });
  new Gauge({
    name: 'service_webhook_queue_oldest_seconds',
    help: 'How long the oldest webhook event waiting to be delivered has waited (0 when none)',
    registers: [registry],
    async collect() {
      const { oldestMs } = await deps.store.webhookQueue();
      this.set(oldestMs === null ? 0 : Math.max(0, (deps.now() - oldestMs) / 1000));
    },
  });
  new Gauge({
    name: 'service_transfers_counted',
    help: 'Transfers counted to deposit addresses, per chain, swept to the payout address or not yet',
    labelNames: ['chain', 'swept'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const s of await deps.store.sweeps()) this.set({ chain: String(s.chainId), swept: String(s.swept) }, s.count);
    },
  });
  new Gauge({
    name: 'service_exchange_rate_age_seconds',
    help: 'How old each exchange rate is (a fixed table\'s: 0), by kind (fiat per dollar, dollars per coin) and name',
    labelNames: ['kind', 'name', 'fixed'],
    registers: [registry],
    collect() {
      this.reset();
      for (const a of deps.rates.ages()) this.set({ kind: a.kind, name: a.name, fixed: String(a.fixed) }, a.seconds);
    },
  });
  new Gauge({
    name: 'service_exchange_rate_fetch_failures',
    help: 'Failed fetches of each rate provider since the service started',
    labelNames: ['provider'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [provider, n] of deps.rates.failures) this.set({ provider }, n);
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
    name: 'service_chain_watcher_lag_blocks',
    help: 'How many blocks each chain\'s watcher is behind its head',
    labelNames: ['chain'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const c of await checks()) {
        const lag = lagOf(c);
        if (lag !== undefined) this.set({ chain: c.name }, lag);
      }
    },
  });
  new Gauge({
    name: 'service_gas_wallet_balance',
    help: 'What each chain\'s gas wallet holds, in the chain\'s own coin (ETH, BNB, POL…): sweeps stop when it runs dry',
    labelNames: ['chain'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const c of await checks()) if (c.gasBalance) this.set({ chain: String(c.gasBalance.chainId) }, c.gasBalance.amount);
    },
  });
  return {
    observe: (method, route, status) => requests.inc({ method, route, status: String(status) }),
    ceilingPassed: (kind, mode) => ceilings.inc({ kind, mode }),
    scrape: async () => ({ contentType: registry.contentType, text: await registry.metrics() }),
  };
}
