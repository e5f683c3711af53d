// The service's background work. Each job registers itself in JOBS below with what it runs
// and the NOTIFY channel that wakes it; startService starts and stops them together. Jobs
// claim their rows (SKIP LOCKED, leases), so any number of instances may run them all.
import type { Hex } from 'viem';
import type { RetryPolicy } from '../domain/webhooks.ts';
import type { DevChainPowers, Network } from '../chain/networks.ts';
import type { Logger } from '../log.ts';
import type { ChainStore } from '../storage/chain.ts';
import type { Database } from '../storage/db.ts';
import type { EventStore } from '../storage/events.ts';
import type { MerchantStore } from '../storage/merchants.ts';
import type { PaymentStore } from '../storage/payments.ts';
import type { PayoutStore } from '../storage/payouts.ts';
import type { BalanceTransactions } from '../domain/balances.ts';
import type { JournalStore } from '../storage/journal.ts';
import type { PartnerTransferStore } from '../storage/partner-transfers.ts';
import type { SwapStore } from '../storage/swaps.ts';
import type { TreasuryTxStore } from '../storage/treasury-txs.ts';
import type { WithdrawalStore } from '../storage/withdrawals.ts';
import type { SwapProvider, Treasury } from '../chain/treasury.ts';
import { treasuryJobs } from './treasury.ts';
import { payoutJob } from './payouts.ts';
import { reconcileJobs } from './reconcile.ts';
import { settleJob } from './settle.ts';
import { sweepJobs } from './sweep.ts';
import { watchJobs } from './watch.ts';
import { webhookJob } from './webhooks.ts';

export interface JobDeps {
  db: Database;
  payments: PaymentStore;
  events: EventStore;
  merchants: MerchantStore;
  payouts: PayoutStore;
  chain: ChainStore;
  /** The double-entry journal, balances and the settlement choice (balance settlement). */
  journal: JournalStore;
  swaps: SwapStore;
  withdrawals: WithdrawalStore;
  /** What is owed to the payout partner, and the treasury's transfers paying it. */
  partnerTransfers: PartnerTransferStore;
  /** The transactions the treasury records before sending, its nonces and its lease. */
  treasuryTxs: TreasuryTxStore;
  /** The one-transaction port the balance use cases (domain/balances.ts) run in. */
  balanceTransactions: BalanceTransactions;
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
  watchIntervalMs: number;
  /** How long a treasury sender's lease lasts unless renewed (renewed every third of it while a tick runs): 120 s by default. */
  treasuryLeaseMs?: number;
}

export interface Job {
  name: string;
  start(): void;
  /** Stops it; work under way finishes (or is aborted, for deliveries) first. */
  stop(): Promise<void>;
  /** A NOTIFY channel that means "work is due now", from any instance. */
  wakeOn?: { channel: string; wake(): void };
}

const JOBS: Array<(deps: JobDeps) => Job | Job[]> = [webhookJob, payoutJob, settleJob, watchJobs, sweepJobs, reconcileJobs, treasuryJobs];

/** Starts every registered job; the answer stops them all. */
export async function startJobs(deps: JobDeps): Promise<{ stop(): Promise<void> }> {
  const jobs = JOBS.flatMap((register) => register(deps));
  const unlisten = await Promise.all(jobs.flatMap((job) => (job.wakeOn ? [deps.db.listen(job.wakeOn.channel, job.wakeOn.wake)] : [])));
  for (const job of jobs) job.start();
  return {
    async stop() {
      await Promise.all(jobs.map((job) => job.stop()));
      await Promise.all(unlisten.map((stop) => stop()));
    },
  };
}
