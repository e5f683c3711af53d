// Reconciliation, every RECONCILE_INTERVAL_MS (10 min): per deposit and token, what the ledger
// says the address holds against the chain's balance. A difference is logged and told to the
// merchant once (DEPOSIT_DISCREPANCY), by whichever instance found it first; the figures are
// the operator's to investigate. Lines that agreed and have not moved are looked at daily.
import { reconcile } from '../chain/reconcile.ts';
import type { Job, JobDeps } from './index.ts';
import { loopJob } from './loop.ts';

export function reconcileJobs(deps: JobDeps): Job[] {
  if (deps.reconcileIntervalMs <= 0) return [];
  return deps.networks.map((network) => {
    const check = async () => {
      const { atBlock, deposits, checked, differences, fresh } = await reconcile(network, deps.chain, { now: deps.now });
      deps.log.info({ chainId: network.chainId, atBlock: String(atBlock), deposits: deposits.length, checked, differences: differences.length }, 'reconciliation');
      // Told once, whichever instance found it first and however often the job runs.
      for (const d of fresh) {
        const data = { reference: d.reference, address: d.address, token: d.token, chainId: network.chainId, atBlock: String(atBlock), ledger: String(d.held), onChain: String(d.onChain) };
        deps.log.warn(data, 'reconciliation: a deposit holds other than its transfers say');
        await deps.payments.report({ merchant: { id: d.merchantId } as never, mode: d.mode as 'test' | 'live' }, 'DEPOSIT_DISCREPANCY', data, deps.now());
      }
    };
    return loopJob(`reconcile chain ${network.chainId}`, check, deps.reconcileIntervalMs, (error) => deps.log.warn({ err: error, chainId: network.chainId }, 'reconciliation failed; retrying'));
  });
}
