// Refunds on `wallet` settlement follow the merchant's transfer on chain: each tick
// looks for the transfer of each ready refund and counts the confirmations of each sent one
// (refunds/wallet.ts), each change a REFUND_UPDATED event. Safe on any number of instances:
// each refund is locked and moves once; one transaction pays one refund only.
import { walletChain, type WalletChain } from './wallet-chain.ts';
import { watchWalletRefunds } from './wallet.ts';
import { refundView } from './views.ts';
import type { Job, JobDeps } from '../jobs/job.ts';
import { loopJob } from '../jobs/loop.ts';

/** The parts of JobDeps this job uses: jobs/index.ts hands it these alone. */
export const walletRefundUses = ['refundTransactions', 'networks', 'now', 'log', 'intervalMs'] as const;

export function walletRefundJob(deps: Pick<JobDeps, (typeof walletRefundUses)[number]>): Job {
  const chains = new Map<number, WalletChain>();
  const chainOf = (chainId: number) => {
    const network = deps.networks.find((n) => n.chainId === chainId);
    if (network && !chains.has(chainId)) chains.set(chainId, walletChain(network));
    return chains.get(chainId);
  };
  const watch = async () => {
    for (const r of await watchWalletRefunds(deps.refundTransactions, chainOf, deps.now(), refundView))
      deps.log.info({ refund: r.id, status: r.state, tx: r.txHash }, 'wallet refund moved on');
  };
  return loopJob("wallet refunds follow the merchant's transfer", watch, deps.intervalMs, (error) =>
    deps.log.warn({ err: error }, 'following wallet refunds failed; retrying'),
  );
}
