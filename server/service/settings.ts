// Every setting of the service and its default, written once, here. startService() parses the
// options it is given with `Settings` (so a test that passes three options gets the same
// defaults as `npm start`), and config.ts reads the environment into `CommandSettings`, the same
// schema with the two defaults a command has of its own (a known port, a data directory).
// Nothing else applies a default to a setting: server/tests/settings.test.ts holds that.
import { randomBytes } from 'node:crypto';
import type { Hex } from 'viem';
import * as z from 'zod/mini';
import { fieldErrors } from '../../contract/field-errors.ts';
import type { KeyMode } from '../../contract/keys.ts';
import type { DevChainPowers, Network } from '../chain/networks.ts';
import { MAX_BACKOFF_MS } from '../chain/watcher.ts';
import type { RateProvider } from '../domain/rates.ts';
import { isFeeBearer, MAX_FEE_BPS, type FeeBearer } from '../domain/fees.ts';
import { createLogger, type Logger } from './log.ts';
import { PASSWORD_HASH_COSTS } from '../merchants/sign-in-rules.ts';
import { fromRoot } from './paths.ts';
import { builtInRates } from '../rates/config.ts';
import { DEMO_MERCHANT } from './seed.ts';
import type { MerchantSeed } from '../merchants/store.ts';

/** A whole number of at least 0 (ms, seconds, counts); the environment's variables have narrower ranges (config.ts). */
const whole = z.int({ error: 'a whole number' }).check(z.nonnegative({ error: 'a whole number of at least 0' }));
const text = z.string({ error: 'text' });
const flag = z.boolean({ error: 'true or false' });
/** A value the service is handed in code (a clock, a logger, networks): not checked here; its type says what it is. */
const given = <T>() => z.custom<T>();

export const SETTINGS_SHAPE = {
  port: z._default(whole, 0),
  host: z._default(text, '127.0.0.1'),
  /**
   * The origin customers and merchants reach, such as https://pay.example.com: every URL the
   * service hands out (links, cover photos, hosted pages) is on it. The listening address by default.
   */
  publicUrl: z.optional(text),
  /** postgres://… to use a PostgreSQL server; otherwise PGlite in `dataDir`. */
  databaseUrl: z.optional(text),
  /** PGlite's directory; undefined (and no databaseUrl) keeps everything in memory (tests). */
  dataDir: z.optional(text),
  /** Where the operator token is kept when ADMIN_TOKEN is not set: `dataDir` by default (DATA_DIR, also with PostgreSQL). */
  stateDir: z.optional(text),
  /** How long a quote stays open, in seconds. */
  quoteSeconds: z._default(whole, 900),
  /** The service's clock (tests move it); Date.now by default. */
  now: z._default(given<() => number>(), () => Date.now),
  /** Honour `?wait=` on verify (a long poll). Off, the API answers at once, like a plain poll. */
  longPoll: z._default(flag, true),
  /** Simulated deposits for test keys (on by default). */
  sandbox: z._default(flag, true),
  /** Tests only: make `faults` available to misbehave on purpose (never with a live key). */
  faults: z._default(flag, false),
  /** First webhook retry delay; later ones double, up to `webhookRetryCapMs`, for `webhookRetryWindowMs`. */
  webhookRetryMs: z._default(whole, 5_000),
  webhookRetryCapMs: z._default(whole, 3_600_000),
  webhookRetryWindowMs: z._default(whole, 3 * 86_400_000),
  /**
   * The SMTP server e-mail is sent through (SMTP_URL), smtp://user:password@host:587 or
   * smtps://…:465 (never logged). Unset: e-mail is off, logged once at start, and links are
   * handed to whoever asked for them to pass on by hand (docs/email.md).
   */
  smtpUrl: z.optional(text),
  /** Who e-mails are from (MAIL_FROM): `no-reply@` the public origin's host by default. */
  mailFrom: z.optional(text),
  /** The first retry of an e-mail the SMTP server refused; later ones double, up to an hour, for three days. */
  mailRetryMs: z._default(whole, 30_000),
  /** How long a merchant's endpoint has to answer one delivery. */
  webhookTimeoutMs: z._default(whole, 10_000),
  /**
   * Whether test keys may have webhooks sent to this machine (loopback): a developer's own
   * instance. Off by default, since on a shared instance any merchant holds a test key and
   * could reach the operator's own services; on with `demo` unless said otherwise.
   */
  loopbackWebhooks: z.optional(flag),
  /**
   * The sandbox's demo merchant and its catalogue, whose keys (live ones too) are public in the
   * README: for the demo and the tests only, never a service anyone else can reach. Off by default.
   */
  demo: z._default(flag, false),
  /** Merchants made sure of at start; none by default (the demo merchant with `demo`). */
  merchants: z.optional(given<MerchantSeed[]>()),
  /** Where checkout.js is served from. */
  distDir: z._default(text, () => fromRoot('dist/')),
  /**
   * The EVM networks each mode's payments are made on (one, or a list: USDT on BNB Smart Chain
   * and USDC on Ethereum at once): coins, RPC URLs, confirmations, the deposit factory. Without
   * any, a mode uses the static catalogue and only the sandbox pays.
   */
  networks: z.optional(given<Partial<Record<KeyMode, Network | Network[]>>>()),
  /** For a local dev chain only (devchain/): the sandbox's payer and the sweeps' gas account. */
  devChain: z.optional(given<DevChainPowers>()),
  /** How often the chain watcher looks for new blocks. */
  watchIntervalMs: z._default(whole, 1000),
  /**
   * The longest wait between the chain watcher's attempts while its RPC endpoint fails: the
   * wait doubles from `watchIntervalMs` up to this. A test shortens it to sit through an outage
   * longer than the whole backoff in a few seconds.
   */
  watchBackoffCapMs: z._default(whole, MAX_BACKOFF_MS),
  /**
   * The operator's gas-only wallet (a private key) that pays for sweeps on every network; a
   * dev chain uses a dev account when none is given. Without one, deposits are not swept.
   */
  gasKey: z.optional(given<Hex>()),
  /** A file holding the treasury's private key (TREASURY_KEY_FILE), for networks with a `treasury` and no `treasuryKeyFile` of their own. */
  treasuryKeyFile: z.optional(text),
  /**
   * A file holding the treasury key of the test networks (TEST_TREASURY_KEY_FILE) with no
   * `treasuryKeyFile` of their own; TREASURY_KEY_FILE when unset. A live treasury whose key or
   * address is also a test network's is refused at start.
   */
  testTreasuryKeyFile: z.optional(text),
  /** How many days the fetched coin rates are kept, to credit money in another coin at the rate of its arrival (RATE_HISTORY_DAYS). */
  rateHistoryDays: z._default(whole, 90),
  /**
   * How short of due a payment may be left by crediting money in another coin or on another chain
   * and still be settled, in hundredths of the payment's coin (CLOSE_ENOUGH_CENTS; 1: one cent of
   * a dollar stablecoin; 0: exactly due or nothing). Without it, 10 USDC at 0.999 left a 10 USDT
   * payment incomplete by 0.01, with nothing to close it but another transfer.
   */
  closeEnoughCents: z._default(whole, 1),
  /** How old an RPC URL's answer to eth_chainId may be before the next call through it asks again (RPC_CHAIN_CHECK_MS). */
  rpcChainCheckMs: z._default(whole, 60_000),
  /** How long a treasury transaction may wait unmined before it is signed again at its nonce with higher fees (TREASURY_REPLACE_AFTER_MS). */
  treasuryReplaceAfterMs: z._default(whole, 60_000),
  /** How long the oldest unmined treasury transaction of a chain may wait before GET /readyz fails (TREASURY_STUCK_MS). */
  treasuryStuckMs: z._default(whole, 600_000),
  /**
   * How many US dollars a merchant may move out of its balance in 24 hours, per mode, as
   * decimal text (WITHDRAWAL_DAILY_LIMIT), where the operator set no limit of its own for that
   * merchant (merchant withdrawal-limit): a stolen secret key cannot empty a balance at once.
   */
  withdrawalDailyLimit: z._default(text, '10000'),
  /**
   * The operator's fee on each payment, in basis points (FEE_BPS; 100 is 1%, at most 1000),
   * where it set none of its own for the merchant (merchant fee): none by default. On `wallet`
   * settlement the deposit contract sends it to the network's `feeAddress` (else its treasury);
   * on `balance` settlement it is journaled to the operator's fee account.
   */
  feeBps: z._default(whole.check(z.maximum(MAX_FEE_BPS, { error: `at most ${MAX_FEE_BPS} basis points (10%)` })), 0),
  /** Who bears that fee (FEE_BEARER): `customer` (added to the price, shown as the operator fee) or `merchant` (deducted from what it receives). */
  feeBearer: z._default(z.custom<FeeBearer>(isFeeBearer, { error: 'customer or merchant' }), 'customer'),
  /**
   * How many US dollars a merchant's support members may refund in 24 hours, per mode, as
   * decimal text (SUPPORT_REFUND_DAILY_LIMIT), where the merchant set no limit of its own
   * (PUT /api/v1/refunds/support_limit). Support refunds only through the customer's claim link.
   */
  supportRefundDailyLimit: z._default(text, '100'),
  /**
   * How long a live key's new destination of money waits before it is used: a payout address
   * replacing one, a bank account or new bank details, a wallet never withdrawn to
   * (NEW_DESTINATION_DELAY_SECONDS; 0: at once). The owner is told at once and may cancel it.
   * Test keys' changes are always at once.
   */
  newDestinationDelayMs: z._default(whole, 86_400_000),
  /** How long a relay's request waits for it to be mined (relayed later, the relay job journals it): 2 minutes. */
  relayTimeoutMs: z._default(whole, 120_000),
  /** How often deposits are swept to their payout addresses (0: never). */
  sweepIntervalMs: z._default(whole, 60_000),
  /** GET /readyz: how many blocks a watcher may be behind its chain's head. */
  readyMaxLagBlocks: z._default(whole, 50),
  /** How often each deposit's ledger is compared with the chain (0: never). */
  reconcileIntervalMs: z._default(whole, 600_000),
  /**
   * How often each treasury (every token and the native coin, per chain) is compared with the
   * journal, and counted transfers not yet final are looked at again for a deep reorganisation (0: never).
   */
  treasuryReconcileIntervalMs: z._default(whole, 60_000),
  /**
   * How much of a coin, in whole coins as decimal text, a treasury may be short of what the
   * journal owes before money movements on its chain are held (409 treasury_held) until the
   * operator resolves it. "0": any shortfall holds.
   */
  treasuryHoldThreshold: z._default(text, '0'),
  /** Payments a hosted link page may make a minute, per client address and per link. */
  linkCheckoutsPerMinute: z.prefault(z.object({ perClient: z._default(whole, 20), perLink: z._default(whole, 600) }), {}),
  /** Payments the public key may start a minute (initialize: anyone holds that key), per client and per key. */
  publicInitializesPerMinute: z.prefault(z.object({ perClient: z._default(whole, 30), perKey: z._default(whole, 1200) }), {}),
  /** Withdrawals, swaps and bank payouts one merchant may ask for a minute, per mode: 429 past it. */
  moneyMovesPerMinute: z._default(whole, 30),
  /** Dashboard sign-ins (and password settings) one client may try in ten minutes, whatever the e-mail. */
  signInsPerClient: z._default(whole, 30),
  /**
   * Wrong dashboard passwords for one e-mail from every client together (within the failures'
   * memory) that lock it for everyone; the owner's new sign-in link lifts it.
   */
  accountLockoutFailures: z._default(whole, 100),
  /**
   * Dashboard passwords' scrypt cost, as log2 N (PASSWORD_HASH_COST): 2^15 is 32 MiB and ~0.5 s
   * of a core a hash. The environment may only raise it (config.ts); tests lower it in code.
   * A stored hash names its own cost, so a change applies to passwords set after it.
   */
  passwordHashCost: z._default(
    whole.check(
      z.minimum(PASSWORD_HASH_COSTS.lowest, { error: `at least ${PASSWORD_HASH_COSTS.lowest}` }),
      z.maximum(PASSWORD_HASH_COSTS.highest, { error: `at most ${PASSWORD_HASH_COSTS.highest} (2^17: 128 MiB a hash)` }),
    ),
    15,
  ),
  /** How many reverse proxies of the operator's stand in front (TRUST_PROXIES): rate limits then read the client from X-Forwarded-For. */
  trustProxies: z._default(whole, 0),
  /** Long polls one key may hold at once on one instance. */
  maxLongPollsPerKey: z._default(whole, 20),
  /** Long polls one public key may hold on one payment, and all keys on one instance. */
  maxLongPollsPerReference: z._default(whole, 4),
  maxLongPolls: z._default(whole, 1000),
  /** How often background jobs look for work they were not woken for. */
  jobIntervalMs: z._default(whole, 1000),
  /** How long after its creation a payout's provider is asked again. */
  payoutCheckMs: z._default(whole, 2000),
  /** Run the background jobs (webhook delivery, payouts); tests of storage turn them off. */
  jobs: z._default(flag, true),
  /** Silent by default (LOG_LEVEL says otherwise); `npm start` logs at info (log.ts). */
  logger: z.optional(given<Logger>()),
  /** Names this instance in logs and delivery records: a random one by default. */
  instance: z.optional(text),
  /** The operator's token (ADMIN_TOKEN); without it, one is made into `stateDir`'s operator-token (0600). */
  adminToken: z.optional(text),
  /**
   * Where exchange rates come from (RATES_FILE): providers asked every `refreshMs`, a rate older
   * than `maxAgeMs` never prices a quote, a coin more than `maxDeviationBps` off its peg is
   * inactive. The built-in fixed table by default, marked fixed in every quote.
   */
  rates: z.prefault(
    z.object({
      providers: z._default(given<RateProvider[]>(), builtInRates),
      maxAgeMs: z._default(whole, 900_000),
      refreshMs: z._default(whole, 60_000),
      maxDeviationBps: z._default(whole, 100),
    }),
    {},
  ),
};

/** The settings with their plain defaults: what the environment is read into, and what a caller may pass. */
export const Fields = z.object(SETTINGS_SHAPE);

/** What startService() is given: every setting optional, each with its default below. */
export type ServiceOptions = z.input<typeof Fields>;

/** The defaults that follow from other settings, or are made at start: applied by startService only, so a caller's `demo: true` still brings the demo merchant. */
const resolve = (s: z.output<typeof Fields>) => ({
  ...s,
  loopbackWebhooks: s.loopbackWebhooks ?? s.demo,
  merchants: s.merchants ?? (s.demo ? [DEMO_MERCHANT] : []),
  stateDir: s.stateDir ?? s.dataDir,
  mailFrom: s.mailFrom ?? `no-reply@${s.publicUrl ? new URL(s.publicUrl).hostname : 'localhost'}`,
  logger: s.logger ?? createLogger(process.env.LOG_LEVEL ?? 'silent'),
  instance: s.instance ?? `svc-${randomBytes(3).toString('hex')}`,
});

/** What startService() applies to its options: every default, once. */
export const Settings = z.pipe(Fields, z.transform(resolve));
export type ResolvedSettings = z.output<typeof Settings>;

/**
 * The settings of `npm start` and the operator's commands (from the environment): the same,
 * but listening on a known port and keeping state in a directory (`dataDir` follows it unless
 * DATABASE_URL is set; config.ts).
 */
export const CommandSettings = z.extend(Fields, { port: z._default(whole, 4010), stateDir: z._default(text, '.data') });

/** Options checked and completed with every default; a wrong one is named (`quoteSeconds: …`). */
export function settings(options: ServiceOptions): ResolvedSettings {
  const parsed = Settings.safeParse(options, { reportInput: true });
  if (!parsed.success)
    throw new Error(
      `startService: ${fieldErrors(parsed.error)
        .map((e) => `${e.field}: ${e.message}`)
        .join('; ')}`,
    );
  return parsed.data;
}
