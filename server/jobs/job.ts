// What every job is built from and what it is: the types each job imports, kept apart from
// the list of jobs (index.ts), which imports every job.
import type { Hex } from 'viem';
import type { RetryPolicy } from '../webhooks/rules.ts';
import type { DevChainPowers, Network } from '../chain/networks.ts';
import type { Logger } from '../service/log.ts';
import type { BalanceStores } from '../balances/store.ts';
import type { ChainStore } from '../chain/store.ts';
import type { Database } from '../storage/db.ts';
import type { EventStore } from '../storage/events.ts';
import type { EmailStore } from '../email/store.ts';
import type { MailSender } from '../email/smtp.ts';
import type { IdempotencyStore } from '../storage/idempotency.ts';
import type { MerchantStore } from '../merchants/store.ts';
import type { PaymentStore } from '../payments/store.ts';
import type { Crediting } from '../payments/crediting.ts';
import type { PayoutStore } from '../payouts/store.ts';
import type { PayoutMoves } from '../payouts/use-cases.ts';
import type { RefundStore } from '../refunds/store.ts';
import type { RefundTransactions } from '../refunds/use-cases.ts';
import type { SwapProvider, Treasury } from '../chain/treasury.ts';
import type { WatchStatus } from '../chain/watcher.ts';
import type { Subscriptions } from '../subscriptions/use-cases.ts';

/** What jobs tell /metrics (service/metrics.ts keeps the figures). */
export interface JobSignals {
  /** One webhook delivery attempt: delivered, or failed on an answer (`status`) or with none (`error`), and how long it took. */
  delivery(mode: string, outcome: 'delivered' | 'status' | 'error', seconds: number): void;
  /** A chain watcher's tick: is its node answering, and how far behind the head is it. */
  watched(chainId: number, status: WatchStatus): void;
}

export interface JobDeps extends BalanceStores {
  db: Database;
  payments: PaymentStore;
  /** What reaches a payment: the watcher's credits and reversals, partial payments finished when their quote ran out. */
  crediting: Crediting;
  events: EventStore;
  merchants: MerchantStore;
  payouts: PayoutStore;
  /** A bank payout's end: paid or returned to the balance. */
  payoutMoves: PayoutMoves;
  /** Refunds of payments: they follow their treasury transactions. */
  refunds: RefundStore;
  /** The stores a refund's use cases open their transaction on (wallet refunds' transfers, looked for on chain, among them). */
  refundTransactions: RefundTransactions;
  /** Subscriptions' charges, each period's at or after its start. */
  subscriptions?: Subscriptions;
  chain: ChainStore;
  /** Idempotency keys: those kept over a day are removed. */
  idempotency?: IdempotencyStore;
  /** Each network's treasury the service holds the key of, with its swap provider. */
  treasuries: Array<{ treasury: Treasury; swaps?: SwapProvider }>;
  networks: Network[];
  devChain?: DevChainPowers;
  gasKey?: Hex;
  now: () => number;
  log: Logger;
  /** Names this instance in leases and delivery records. */
  instance: string;
  retry: RetryPolicy;
  /** How often a job looks for due work it was not woken for. */
  intervalMs: number;
  webhookTimeoutMs: number;
  /** Whether test keys' events may go to this machine (WEBHOOKS_TO_LOOPBACK; on with the demo). */
  loopbackWebhooks: boolean;
  payoutCheckMs: number;
  sweepIntervalMs: number;
  reconcileIntervalMs: number;
  treasuryReconcileIntervalMs: number;
  treasuryHoldThreshold: string;
  watchIntervalMs: number;
  /** The longest wait between the watcher's attempts while its RPC endpoint fails. */
  watchBackoffCapMs: number;
  signals?: JobSignals;
  /** The e-mail outbox, and what sends it (undefined: e-mail is off, SMTP_URL unset). */
  emails: EmailStore;
  mailSender?: MailSender;
  mailRetryMs: number;
  /** The public origin, for the links e-mails hold. */
  origin: () => string;
  /** How long a treasury sender's lease lasts unless renewed (renewed every third of it while a tick runs): 120 s by default. */
  treasuryLeaseMs?: number;
  /** How long a treasury transaction waits unmined before it is re-priced (TREASURY_REPLACE_AFTER_MS); undefined: never. */
  treasuryReplaceAfterMs?: number;
}

export interface Job {
  name: string;
  /** Ticks run and failed, for a job that runs in ticks (loop.ts): /metrics counts them per job. */
  runs?: { readonly ok: number; readonly failed: number };
  start(): void;
  /** Stops it; work under way finishes (or is aborted, for deliveries) first. */
  stop(): Promise<void>;
  /** A NOTIFY channel that means "work is due now", from any instance. */
  wakeOn?: { channel: string; wake(): void };
}

/** The service's settings jobs read, as settings.ts names them: startService hands them over as they are. */
const JOB_SETTINGS = [
  'devChain',
  'gasKey',
  'webhookTimeoutMs',
  'loopbackWebhooks',
  'payoutCheckMs',
  'sweepIntervalMs',
  'reconcileIntervalMs',
  'treasuryReconcileIntervalMs',
  'treasuryHoldThreshold',
  'watchIntervalMs',
  'watchBackoffCapMs',
  'treasuryReplaceAfterMs',
  'mailRetryMs',
] as const satisfies ReadonlyArray<keyof JobDeps>;
type JobSettings = Pick<JobDeps, (typeof JOB_SETTINGS)[number]>;

/** Those of the service's settings jobs read, picked by name. */
export const jobSettings = (settings: JobSettings): JobSettings => Object.fromEntries(JOB_SETTINGS.map((name) => [name, settings[name]])) as JobSettings;
