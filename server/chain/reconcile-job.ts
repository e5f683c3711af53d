// Reconciliation, every RECONCILE_INTERVAL_MS (10 min): per deposit and token, what the ledger
// says the address holds against the chain's balance. A difference is logged and told to the
// merchant once (DEPOSIT_DISCREPANCY), by whichever instance found it first; the figures are
// the operator's to investigate. Lines that agreed and have not moved are looked at daily.
import { reconcile } from './reconcile.ts';
import type { Job, JobDeps } from '../jobs/job.ts';
import { loopJob } from '../jobs/loop.ts';

/** The parts of JobDeps this job uses: jobs/index.ts hands it these alone. */
export const reconcileUses = ['reconcileIntervalMs', 'networks', 'chain', 'now', 'log', 'crediting'] as const;

export function reconcileJobs(deps: Pick<JobDeps, (typeof reconcileUses)[number]>): Job[] {
  if (deps.reconcileIntervalMs <= 0) return [];
  return deps.networks.map((network) => {
    const check = async () => {
      const { atBlock, deposits, checked, differences, fresh } = await reconcile(network, deps.chain, { now: deps.now });
      // Per token, in base units: counted toward payments, moved on by sweeps, held by the ledger's account, held on the chain.
      const totals: Record<string, { credited: string; swept: string; held: string; onChain: string }> = {};
      for (const d of deposits) {
        const t = (totals[d.token] ??= { credited: '0', swept: '0', held: '0', onChain: '0' });
        t.credited = String(BigInt(t.credited) + d.credited);
        t.swept = String(BigInt(t.swept) + d.swept);
        t.held = String(BigInt(t.held) + d.held);
        t.onChain = String(BigInt(t.onChain) + d.onChain);
      }
      deps.log.info(
        { chainId: network.chainId, atBlock: String(atBlock), deposits: deposits.length, checked, differences: differences.length, totals },
        'reconciliation',
      );
      // Told once, whichever instance found it first and however often the job runs.
      for (const d of fresh) {
        const data = {
          reference: d.reference,
          address: d.address,
          token: d.token,
          chainId: network.chainId,
          atBlock: String(atBlock),
          ledger: String(d.held),
          onChain: String(d.onChain),
        };
        deps.log.warn(data, 'reconciliation: a deposit holds other than its transfers say');
        await deps.crediting.tell({ merchant: { id: d.merchantId } as never, mode: d.mode as 'test' | 'live' }, 'DEPOSIT_DISCREPANCY', data, deps.now());
      }
    };
    return loopJob(`reconcile chain ${network.chainId}`, check, deps.reconcileIntervalMs, (error) =>
      deps.log.warn({ err: error, chainId: network.chainId }, 'reconciliation failed; retrying'),
    );
  });
}
