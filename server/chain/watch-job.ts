// One chain watcher per configured network: a lease in the database keeps each chain to one
// instance at a time; what it finds becomes credits through the payment credits (payments/chain-credits.ts).
import { minimumUnits } from './networks.ts';
import { Watcher } from './watcher.ts';
import type { Job, JobDeps } from '../jobs/job.ts';
import { paymentCredits } from '../payments/chain-credits.ts';

/** The parts of JobDeps this job uses: jobs/index.ts hands it these alone. */
export const watchUses = [
  'payments',
  'crediting',
  'merchants',
  'now',
  'networks',
  'chain',
  'instance',
  'watchIntervalMs',
  'watchBackoffCapMs',
  'log',
  'signals',
] as const;

export function watchJobs(deps: Pick<JobDeps, (typeof watchUses)[number]>): Job[] {
  const credits = paymentCredits({ payments: deps.payments, crediting: deps.crediting, merchants: deps.merchants, now: deps.now });
  return deps.networks.map((network) => {
    const watcher = new Watcher({
      chainId: network.chainId,
      rpcUrls: network.rpcUrls,
      confirmations: network.confirmations,
      finality: network.finality,
      maxRange: network.logRange !== undefined ? BigInt(network.logRange) : undefined,
      reorgDepth: network.reorgDepth !== undefined ? BigInt(network.reorgDepth) : undefined,
      tokens: network.tokens.map((t) => t.address),
      minimums: new Map(network.tokens.map((t) => [t.address.toLowerCase(), minimumUnits(t)])),
      store: deps.chain,
      credits,
      holder: deps.instance,
      now: deps.now,
      // A dev chain (anvil) starts empty on every run: it is watched from its first block.
      startBlock: network.dev ? 1n : undefined,
      leaseMs: 15_000,
      rpcEvents: network.rpcEvents,
      rpcPin: network.rpcPin,
      others: network.sameAddresses,
      feeOnTransfer: network.tokens.filter((t) => t.feeOnTransfer).map((t) => t.address.toLowerCase()),
      onStatus: (status) => deps.signals?.watched(network.chainId, status),
    });
    return {
      name: `watch chain ${network.chainId}`,
      start: () => watcher.start(deps.watchIntervalMs, (error) => deps.log.warn({ err: error }, 'chain watcher: RPC failed; retrying'), deps.watchBackoffCapMs),
      stop: () => watcher.stop(),
    };
  });
}
