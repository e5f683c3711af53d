// The service's configuration, from the environment, checked once: a wrong value stops the
// start with a message that names the variable.
import type { ServiceOptions } from './app.ts';
import { networksFromFile } from './chain/config.ts';
import { checkToken } from './operator-token.ts';
import { ratesFromFile } from './rates/config.ts';
import { isDailyLimit } from '../contract/operator.ts';

export interface Config extends ServiceOptions {
  port: number;
  host: string;
  /** SERVICE_URL: where the operator's commands reach a running service (else DATA_DIR's lock says). */
  serviceUrl?: string;
}

function int(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) throw new Error(`${name}: expected a whole number from ${min} to ${max}, received ${JSON.stringify(raw)}`);
  return value;
}

function flag(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^(true|false|1|0|on|off)$/i.test(raw)) throw new Error(`${name}: expected true or false, received ${JSON.stringify(raw)}`);
  return /^(true|1|on)$/i.test(raw);
}

/** The gas wallet's private key: checked, and never repeated in a message (it is a secret). */
function gasKey(raw: string | undefined): `0x${string}` | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (!/^0x[0-9a-fA-F]{64}$/.test(raw.trim())) throw new Error('GAS_WALLET_KEY: expected a private key of 0x and 64 hex digits (the value is not shown)');
  return raw.trim() as `0x${string}`;
}

export function configFromEnv(env: NodeJS.ProcessEnv = process.env): Config {
  const databaseUrl = env.DATABASE_URL || undefined;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) throw new Error('DATABASE_URL: expected a postgres://… URL');
  return {
    port: int(env, 'PORT', 4010, 0, 65535),
    host: env.HOST || '127.0.0.1',
    databaseUrl,
    dataDir: databaseUrl ? undefined : env.DATA_DIR || '.data',
    quoteSeconds: int(env, 'QUOTE_SECONDS', 900, 10, 86_400),
    sandbox: flag(env, 'SANDBOX', true),
    // Unset: off, or on with the demo merchant (a developer's own instance).
    ...(env.WEBHOOKS_TO_LOOPBACK !== undefined ? { loopbackWebhooks: flag(env, 'WEBHOOKS_TO_LOOPBACK', false) } : {}),
    trustProxies: int(env, 'TRUST_PROXIES', 0, 0, 10),
    webhookRetryMs: int(env, 'WEBHOOK_RETRY_MS', 5000, 10, 3_600_000),
    webhookRetryCapMs: int(env, 'WEBHOOK_RETRY_CAP_MS', 3_600_000, 10, 86_400_000),
    webhookRetryWindowMs: int(env, 'WEBHOOK_RETRY_WINDOW_MS', 3 * 86_400_000, 1000, 30 * 86_400_000),
    webhookTimeoutMs: int(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 100, 60_000),
    jobIntervalMs: int(env, 'JOB_INTERVAL_MS', 1000, 10, 60_000),
    payoutCheckMs: int(env, 'PAYOUT_CHECK_MS', 2000, 10, 86_400_000),
    networks: env.NETWORKS_FILE ? networksFromFile(env.NETWORKS_FILE) : undefined,
    gasKey: gasKey(env.GAS_WALLET_KEY),
    // The treasury's key stays in its file: only the path is in the environment (read at start, never logged).
    treasuryKeyFile: env.TREASURY_KEY_FILE || undefined,
    withdrawalDailyLimit: dailyLimit(env.WITHDRAWAL_DAILY_LIMIT),
    moneyMovesPerMinute: int(env, 'MONEY_MOVES_PER_MINUTE', 30, 1, 100_000),
    newDestinationDelayMs: int(env, 'NEW_DESTINATION_DELAY_SECONDS', 86_400, 0, 30 * 86_400) * 1000,
    sweepIntervalMs: int(env, 'SWEEP_INTERVAL_MS', 60_000, 0, 86_400_000),
    reconcileIntervalMs: int(env, 'RECONCILE_INTERVAL_MS', 600_000, 0, 86_400_000),
    readyMaxLagBlocks: int(env, 'READY_MAX_LAG_BLOCKS', 50, 1, 1_000_000),
    demo: env.SEED_DEMO_MERCHANT === 'true',
    publicUrl: publicUrl(env.PUBLIC_URL),
    adminToken: env.ADMIN_TOKEN ? checkToken(env.ADMIN_TOKEN, 'ADMIN_TOKEN') : undefined,
    // The operator token's file lives in DATA_DIR, with PostgreSQL too.
    stateDir: env.DATA_DIR || '.data',
    serviceUrl: env.SERVICE_URL || undefined,
    rates: env.RATES_FILE ? ratesFromFile(env.RATES_FILE) : undefined,
  };
}

/** WITHDRAWAL_DAILY_LIMIT: US dollars a day per merchant and mode, across coins and networks, as decimal text ("10000"). */
function dailyLimit(raw: string | undefined): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (!isDailyLimit(raw.trim())) throw new Error(`WITHDRAWAL_DAILY_LIMIT: expected US dollars as decimal text, such as 10000 or 2500.50 (0 allows no withdrawals), received ${JSON.stringify(raw.slice(0, 40))}`);
  return raw.trim();
}

/** PUBLIC_URL: an http(s) origin, no path, no trailing slash, as every URL handed out starts. */
function publicUrl(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`PUBLIC_URL: expected an origin such as https://pay.example.com, received ${JSON.stringify(raw.slice(0, 80))}`);
  }
  if (!/^https?:$/.test(url.protocol) || url.pathname !== '/' || url.search || url.hash || url.username) {
    throw new Error(`PUBLIC_URL: expected an origin such as https://pay.example.com (no path, query or user), received ${JSON.stringify(raw.slice(0, 80))}`);
  }
  return url.origin;
}
