// The service's configuration, from the environment, checked once: a wrong value stops the
// start with a message that names the variable. Each variable is read into its setting of
// settings.ts, which holds every default: nothing here says what an unset variable means.
import { networksFromFile } from '../chain/config.ts';
import { checkToken } from './operator-token.ts';
import { ratesFromFile } from '../rates/config.ts';
import { CommandSettings, type ServiceOptions } from './settings.ts';
import { isDailyLimit } from '../../contract/operator.ts';
import { isFeeBearer, MAX_FEE_BPS } from '../domain/fees.ts';
import { PASSWORD_HASH_COSTS } from '../merchants/sign-in-rules.ts';
import type * as z from 'zod/mini';

export type Config = z.output<typeof CommandSettings> & {
  /** SERVICE_URL: where the operator's commands reach a running service (else DATA_DIR's lock says). */
  serviceUrl?: string;
};

type Reader = (raw: string, name: string) => unknown;

/** A whole number from `min` to `max`, in the variable's own unit. */
const int =
  (min: number, max: number): Reader =>
  (raw, name) => {
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max)
      throw new Error(`${name}: expected a whole number from ${min} to ${max}, received ${JSON.stringify(raw)}`);
    return value;
  };

const flag: Reader = (raw, name) => {
  if (!/^(true|false|1|0|on|off)$/i.test(raw)) throw new Error(`${name}: expected true or false, received ${JSON.stringify(raw)}`);
  return /^(true|1|on)$/i.test(raw);
};

const text: Reader = (raw) => raw;

/** The gas wallet's private key: checked, and never repeated in a message (it is a secret). */
const gasKey: Reader = (raw) => {
  if (!/^0x[0-9a-fA-F]{64}$/.test(raw.trim())) throw new Error('GAS_WALLET_KEY: expected a private key of 0x and 64 hex digits (the value is not shown)');
  return raw.trim();
};

const databaseUrl: Reader = (raw) => {
  if (!/^postgres(ql)?:\/\//.test(raw)) throw new Error('DATABASE_URL: expected a postgres://… URL');
  return raw;
};

/**
 * Each variable, the setting it is read into, and how (with the operator's range: wider values
 * are for tests, which pass options in code). docs/operating.md's table lists the same, held
 * equal by server/tests/settings.test.ts.
 */
export const ENVIRONMENT: Record<
  string,
  { setting: keyof ServiceOptions; read: Reader /** The setting is in ms, the variable in seconds. */; seconds?: true }
> = {
  PORT: { setting: 'port', read: int(0, 65535) },
  HOST: { setting: 'host', read: text },
  PUBLIC_URL: { setting: 'publicUrl', read: (raw) => publicUrl(raw) },
  DATABASE_URL: { setting: 'databaseUrl', read: databaseUrl },
  // The operator token's file lives in DATA_DIR, with PostgreSQL too; the database only without DATABASE_URL.
  DATA_DIR: { setting: 'stateDir', read: text },
  QUOTE_SECONDS: { setting: 'quoteSeconds', read: int(10, 86_400) },
  SANDBOX: { setting: 'sandbox', read: flag },
  // Unset: off, or on with the demo merchant (a developer's own instance).
  WEBHOOKS_TO_LOOPBACK: { setting: 'loopbackWebhooks', read: flag },
  TRUST_PROXIES: { setting: 'trustProxies', read: int(0, 10) },
  // Never below the default from here: a lower cost is for tests, in code.
  PASSWORD_HASH_COST: { setting: 'passwordHashCost', read: int(15, PASSWORD_HASH_COSTS.highest) },
  WEBHOOK_RETRY_MS: { setting: 'webhookRetryMs', read: int(10, 3_600_000) },
  WEBHOOK_RETRY_CAP_MS: { setting: 'webhookRetryCapMs', read: int(10, 86_400_000) },
  WEBHOOK_RETRY_WINDOW_MS: { setting: 'webhookRetryWindowMs', read: int(1000, 30 * 86_400_000) },
  SMTP_URL: { setting: 'smtpUrl', read: (raw) => smtpUrl(raw) },
  MAIL_FROM: { setting: 'mailFrom', read: (raw) => mailFrom(raw) },
  MAIL_RETRY_MS: { setting: 'mailRetryMs', read: int(1000, 3_600_000) },
  WEBHOOK_TIMEOUT_MS: { setting: 'webhookTimeoutMs', read: int(100, 60_000) },
  JOB_INTERVAL_MS: { setting: 'jobIntervalMs', read: int(10, 60_000) },
  PAYOUT_CHECK_MS: { setting: 'payoutCheckMs', read: int(10, 86_400_000) },
  NETWORKS_FILE: { setting: 'networks', read: (raw) => networksFromFile(raw) },
  GAS_WALLET_KEY: { setting: 'gasKey', read: gasKey },
  // The treasury's key stays in its file: only the path is in the environment (read at start, never logged).
  TREASURY_KEY_FILE: { setting: 'treasuryKeyFile', read: text },
  TEST_TREASURY_KEY_FILE: { setting: 'testTreasuryKeyFile', read: text },
  RATE_HISTORY_DAYS: { setting: 'rateHistoryDays', read: int(1, 3650) },
  CLOSE_ENOUGH_CENTS: { setting: 'closeEnoughCents', read: int(0, 10_000) },
  RPC_CHAIN_CHECK_MS: { setting: 'rpcChainCheckMs', read: int(100, 86_400_000) },
  TREASURY_REPLACE_AFTER_MS: { setting: 'treasuryReplaceAfterMs', read: int(100, 86_400_000) },
  TREASURY_STUCK_MS: { setting: 'treasuryStuckMs', read: int(1000, 86_400_000) },
  WITHDRAWAL_DAILY_LIMIT: { setting: 'withdrawalDailyLimit', read: (raw) => dailyLimit(raw) },
  FEE_BPS: { setting: 'feeBps', read: int(0, MAX_FEE_BPS) },
  FEE_BEARER: { setting: 'feeBearer', read: (raw, name) => feeBearer(raw, name) },
  SUPPORT_REFUND_DAILY_LIMIT: { setting: 'supportRefundDailyLimit', read: (raw) => dailyLimit(raw, 'SUPPORT_REFUND_DAILY_LIMIT') },
  MONEY_MOVES_PER_MINUTE: { setting: 'moneyMovesPerMinute', read: int(1, 100_000) },
  NEW_DESTINATION_DELAY_SECONDS: { setting: 'newDestinationDelayMs', read: int(0, 30 * 86_400), seconds: true },
  SWEEP_INTERVAL_MS: { setting: 'sweepIntervalMs', read: int(0, 86_400_000) },
  RECONCILE_INTERVAL_MS: { setting: 'reconcileIntervalMs', read: int(0, 86_400_000) },
  TREASURY_RECONCILE_INTERVAL_MS: { setting: 'treasuryReconcileIntervalMs', read: int(0, 86_400_000) },
  TREASURY_HOLD_THRESHOLD: { setting: 'treasuryHoldThreshold', read: (raw) => holdThreshold(raw) },
  READY_MAX_LAG_BLOCKS: { setting: 'readyMaxLagBlocks', read: int(1, 1_000_000) },
  SEED_DEMO_MERCHANT: { setting: 'demo', read: (raw) => raw === 'true' },
  ADMIN_TOKEN: { setting: 'adminToken', read: (raw) => checkToken(raw, 'ADMIN_TOKEN') },
  RATES_FILE: { setting: 'rates', read: (raw) => ratesFromFile(raw) },
};

export function configFromEnv(env: NodeJS.ProcessEnv = process.env): Config {
  const options: Record<string, unknown> = {};
  for (const [name, { setting, read, seconds }] of Object.entries(ENVIRONMENT)) {
    const raw = env[name];
    if (raw !== undefined && raw !== '') options[setting] = seconds ? (read(raw, name) as number) * 1000 : read(raw, name);
  }
  const parsed = CommandSettings.safeParse(options);
  if (!parsed.success) {
    // Not expected (each reader checks its own), but if the schema refuses a value, it is named by its variable.
    const issue = parsed.error.issues[0];
    const name = Object.keys(ENVIRONMENT).find((n) => ENVIRONMENT[n].setting === issue.path[0]) ?? String(issue.path[0]);
    throw new Error(`${name}: ${issue.message}`);
  }
  const config = parsed.data;
  return { ...config, dataDir: config.databaseUrl ? undefined : config.stateDir, serviceUrl: env.SERVICE_URL || undefined };
}

/** SMTP_URL: smtp:// or smtps://, with a host; its password is never echoed in an error. */
function smtpUrl(raw: string): string {
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    url = undefined;
  }
  if (!url || !/^smtps?:$/.test(url.protocol) || !url.hostname)
    throw new Error('SMTP_URL: expected smtp://user:password@host:587 or smtps://user:password@host:465');
  return raw;
}

/** MAIL_FROM: an address, alone or after a name: no-reply@pay.example.com, or Pay <no-reply@pay.example.com>. */
function mailFrom(raw: string): string {
  if (!/^(?:[^<>\r\n]*<[^\s<>@]+@[^\s<>@]+>|[^\s<>@]+@[^\s<>@]+)$/.test(raw.trim()))
    throw new Error(
      `MAIL_FROM: expected an address such as no-reply@pay.example.com or "Pay <no-reply@pay.example.com>", received ${JSON.stringify(raw.slice(0, 80))}`,
    );
  return raw.trim();
}

/** WITHDRAWAL_DAILY_LIMIT: US dollars a day per merchant and mode, across coins and networks, as decimal text ("10000"). */
function dailyLimit(raw: string, name = 'WITHDRAWAL_DAILY_LIMIT'): string {
  if (!isDailyLimit(raw.trim()))
    throw new Error(
      `${name}: expected US dollars as decimal text, such as 10000 or 2500.50 (0 allows no withdrawals), received ${JSON.stringify(raw.slice(0, 40))}`,
    );
  return raw.trim();
}

/** FEE_BEARER: who bears the operator's fee, customer or merchant. */
function feeBearer(raw: string, name: string): string {
  if (!isFeeBearer(raw.trim())) throw new Error(`${name}: expected customer or merchant, received ${JSON.stringify(raw.slice(0, 40))}`);
  return raw.trim();
}

/** TREASURY_HOLD_THRESHOLD: whole coins as decimal text ("0", "25.5"). */
function holdThreshold(raw: string): string {
  if (!/^\d{1,18}(\.\d{1,18})?$/.test(raw.trim()))
    throw new Error(`TREASURY_HOLD_THRESHOLD: expected whole coins as decimal text, such as 0 or 25.5, received ${JSON.stringify(raw.slice(0, 40))}`);
  return raw.trim();
}

/** PUBLIC_URL: an http(s) origin, no path, no trailing slash, as every URL handed out starts. */
function publicUrl(raw: string): string {
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
