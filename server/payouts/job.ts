// Processes payouts through the payout provider: pending → processing (handed over) → paid or
// failed (as the provider reports). Each change writes a PAYOUT_UPDATED event.
import type { Payout, PayoutProvider } from './rules.ts';
import type { Logger } from '../service/log.ts';
import type { PayoutStore } from './store.ts';
import type { PayoutMoves } from './use-cases.ts';
import type { Job, JobDeps } from '../jobs/job.ts';
import { loopJob } from '../jobs/loop.ts';

export interface PayoutProcessingDeps {
  payouts: PayoutStore;
  moves: PayoutMoves;
  provider: PayoutProvider;
  now: () => number;
  log: Logger;
  /** How long to wait before asking the provider again. */
  checkEveryMs: number;
}

export function payoutProcessing(deps: PayoutProcessingDeps) {
  const report = (payout: Payout) => payout;
  return async function tick(): Promise<void> {
    const due = await deps.payouts.claimDue(deps.now(), 60_000, 20);
    for (const { payout, bank } of due) {
      const next = () => deps.now() + deps.checkEveryMs;
      try {
        if (payout.status === 'pending') {
          if (!bank) {
            await deps.moves.advance(
              payout,
              { status: 'failed', failure: 'The bank account was deleted before the payout was sent', checkAtMs: null },
              deps.now(),
              report,
            );
            continue;
          }
          const ref = await deps.provider.submit(payout, bank);
          await deps.moves.advance(payout, { status: 'processing', providerRef: ref, checkAtMs: next() }, deps.now(), report);
        } else {
          const result = await deps.provider.check(payout.providerRef!, payout, bank);
          if ('reason' in result) await deps.moves.advance(payout, { status: 'failed', failure: result.reason, checkAtMs: null }, deps.now(), report);
          else if (result.status === 'paid') await deps.moves.advance(payout, { status: 'paid', checkAtMs: null }, deps.now(), report);
          else await deps.moves.advance(payout, { status: 'processing', checkAtMs: next() }, deps.now(), report);
        }
        deps.log.info({ payout: payout.id, from: payout.status }, 'payout advanced');
      } catch (error) {
        deps.log.warn({ err: error, payout: payout.id }, 'payout provider unavailable; will ask again');
        await deps.moves.advance(payout, { status: payout.status, checkAtMs: next() }, deps.now(), report);
      }
    }
  };
}

/**
 * The sandbox's stand-in for a banking partner: accepts every payout, reports it paid on
 * the next check, except to an account number ending in 0000, which the "bank" rejects.
 * A real off-ramp needs a banking partner's API behind the same interface.
 */
export const sandboxPayoutProvider: PayoutProvider = {
  async submit(payout) {
    return `sandbox_${payout.id}`;
  },
  async check(_ref, _payout, bank) {
    return bank?.account_number?.endsWith('0000') ? { status: 'failed', reason: 'The bank rejected the account number' } : { status: 'paid' };
  },
};

/** Payouts go through the sandbox's provider: the only one the service ships (see README). */
/** The parts of JobDeps this job uses: jobs/index.ts hands it these alone. */
export const payoutUses = ['payouts', 'payoutMoves', 'now', 'log', 'payoutCheckMs', 'intervalMs'] as const;

export function payoutJob(deps: Pick<JobDeps, (typeof payoutUses)[number]>): Job {
  const tick = payoutProcessing({
    payouts: deps.payouts,
    moves: deps.payoutMoves,
    provider: sandboxPayoutProvider,
    now: deps.now,
    log: deps.log,
    checkEveryMs: deps.payoutCheckMs,
  });
  return loopJob('settle payouts', tick, deps.intervalMs, (error) => deps.log.error({ err: error }, 'background job failed'), { wakeOn: 'payouts_due' });
}
