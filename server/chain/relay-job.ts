// Relays the customer stopped waiting for: each relay is recorded before it is broadcast
// (relay.ts), and one not seen mined while its request waited (it timed out, the service
// stopped) is looked at again here, as the treasury's sends are until final
// (balances/sends-final.ts), every watcher interval: its receipt found, its gas is journaled
// once (keyed by chain and transaction, as the request would have); its nonce taken by another
// transaction and none of its own mined, it is dropped (no gas spent, nothing journaled). Its
// nonce seen used with no receipt of its own is not enough: a node counts a mined nonce before
// it serves that block's receipts, so it is dropped only once the head block shows another
// transaction at the nonce, or once it stays so for REPLACED_AFTER_MS from the first look that
// saw it (kept by the job between ticks; a restart only starts that wait again).
import { createPublicClient, type Address, type PublicClient } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { networkTransport, type Network } from './networks.ts';
import type { RelayStore } from './relay-store.ts';
import { relayOutcome } from './relay-outcome.ts';
import { feeOf } from './treasury.ts';
import type { Job, JobDeps } from '../jobs/job.ts';
import { loopJob } from '../jobs/loop.ts';

/** The journal's memo of a relay's gas: the payment, the transaction, and whether it reverted. */
export const relayGasMemo = (reference: string, txHash: string, reverted: boolean) =>
  `payment ${reference} paid by signature, relayed in ${txHash}${reverted ? ' (reverted: moved nothing)' : ''}`;

type FinishDeps = Pick<JobDeps, 'journal' | 'log' | 'now'> & { relays: RelayStore };

/**
 * Each relay on `network` recorded and not yet finished, looked at once: mined (journaled),
 * dropped, or left for the next look. `usedSince`: for each relay whose nonce a look saw used
 * with none of its transactions answering a receipt, when the first such look was (ms since the
 * epoch); the caller keeps it across looks.
 */
export async function finishRelays(deps: FinishDeps, network: Network, rpc: PublicClient, gas: Address, usedSince: Map<string, number>): Promise<void> {
  const chainId = network.chainId;
  const unfinished = await deps.relays.unfinished(chainId);
  for (const id of usedSince.keys()) if (!unfinished.some((relay) => relay.id === id)) usedSince.delete(id);
  for (const relay of unfinished) {
    const receipt = await relayOutcome(rpc, gas, relay.nonce, relay.txHashes, usedSince.get(relay.id));
    if (receipt === 'used') {
      if (!usedSince.has(relay.id)) usedSince.set(relay.id, Date.now());
      continue;
    }
    if (!receipt) continue;
    usedSince.delete(relay.id);
    if (receipt === 'dropped') {
      await deps.relays.finished(relay.id, 'dropped', deps.now());
      deps.log.warn(
        { chainId, reference: relay.reference, nonce: relay.nonce, tx: relay.txHashes },
        'a relay was not mined: another transaction took its nonce',
      );
      continue;
    }
    const owner = { merchant: { id: relay.merchantId }, mode: relay.mode } as Parameters<FinishDeps['journal']['sponsoredGas']>[0];
    const hash = receipt.transactionHash;
    const fee = feeOf(receipt);
    const journaled = await deps.journal.sponsoredGas(owner, chainId, hash, fee, relayGasMemo(relay.reference, hash, receipt.status !== 'success'), deps.now());
    await deps.relays.finished(relay.id, { mined: hash }, deps.now());
    if (journaled)
      deps.log.info(
        { chainId, reference: relay.reference, tx: hash, gasWei: String(fee) },
        'a relay mined after its request stopped waiting: its gas journaled',
      );
  }
}

/** The parts of JobDeps this job uses: jobs/index.ts hands it these alone. */
export const relayUses = ['networks', 'gasKey', 'devChain', 'chain', 'journal', 'log', 'now', 'watchIntervalMs'] as const;

export function relayJobs(deps: Pick<JobDeps, (typeof relayUses)[number]>): Job[] {
  if (deps.watchIntervalMs <= 0) return [];
  return deps.networks.flatMap((network) => {
    // The gas wallet the relays were sent from, as app.ts's Relayer has it.
    const gas = deps.gasKey ? privateKeyToAccount(deps.gasKey) : network.dev ? deps.devChain?.gasAccount : undefined;
    if (!gas) return [];
    const rpc = createPublicClient({ cacheTime: 0, transport: networkTransport(network) }) as PublicClient;
    const usedSince = new Map<string, number>();
    const finish = () => finishRelays({ journal: deps.journal, log: deps.log, now: deps.now, relays: deps.chain.relays }, network, rpc, gas.address, usedSince);
    return [
      loopJob(`relays on chain ${network.chainId}`, finish, deps.watchIntervalMs, (error) =>
        deps.log.warn({ err: error, chainId: network.chainId }, 'looking at unfinished relays failed; retrying'),
      ),
    ];
  });
}
