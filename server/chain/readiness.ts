// Whether each watched chain is followed closely enough to take payments: its node answers,
// and the watcher's cursor is within `maxLagBlocks` of the head. For GET /readyz.
import { createPublicClient, type PublicClient } from 'viem';
import type { ChainStore } from '../storage/chain.ts';
import { rpcTransport, type Network } from './networks.ts';

export interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

export function chainReadiness(networks: Network[], store: ChainStore, maxLagBlocks: number): () => Promise<Check[]> {
  const clients = networks.map((network) => ({ network, rpc: createPublicClient({ cacheTime: 0, transport: rpcTransport(network.rpcUrls) }) as PublicClient }));
  return () =>
    Promise.all(
      clients.map(async ({ network, rpc }): Promise<Check> => {
        const name = `chain ${network.chainId} (${network.name})`;
        let head: bigint;
        try {
          head = await rpc.getBlockNumber();
        } catch {
          return { name, ok: false, detail: 'its RPC URLs do not answer' };
        }
        const scanned = await store.scannedTo(network.chainId);
        if (scanned === undefined) return { name, ok: false, detail: `not watched yet (head ${head})` };
        const lag = head > scanned ? head - scanned : 0n;
        return { name, ok: lag <= BigInt(maxLagBlocks), detail: `${lag} blocks behind the head (${head}); at most ${maxLagBlocks}` };
      }),
    );
}
