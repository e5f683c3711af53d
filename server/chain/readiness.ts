// Whether each watched chain is followed closely enough to take payments: its node answers,
// and the watcher's cursor is within `maxLagBlocks` of the head. For GET /readyz.
import { createPublicClient, formatEther, type Address, type PublicClient } from 'viem';
import { gasStanding } from './deploy.ts';
import type { ChainStore } from './store.ts';
import { rpcTransport, type Network } from './networks.ts';

export interface Check {
  name: string;
  ok: boolean;
  detail: string;
  /** A gas wallet's balance in its chain's coin (for /metrics). */
  gasBalance?: { chainId: number; amount: number };
  /** A treasury's coin, held on chain against owed by the journal, in whole coins (for /metrics). */
  treasury?: { chainId: number; coin: string; held: number; owed: number };
}

/**
 * `gasOf`: the gas wallet that sweeps a network, if any: it is ready while it holds enough for
 * GAS_LOW_SWEEPS sweeps at today's gas price (else deposits soon stop being swept).
 */
export function chainReadiness(networks: Network[], store: ChainStore, maxLagBlocks: number, gasOf: (network: Network) => Address | undefined = () => undefined): () => Promise<Check[]> {
  const clients = networks.map((network) => ({ network, rpc: createPublicClient({ cacheTime: 0, transport: rpcTransport(network.rpcUrls, undefined, network.rpcEvents) }) as PublicClient }));
  const gasChecks = clients.flatMap(({ network, rpc }) => {
    const gas = gasOf(network);
    return gas ? [{ network, rpc, gas }] : [];
  });
  return async () => [
    ...(await Promise.all(
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
    )),
    ...(await Promise.all(
      gasChecks.map(async ({ network, rpc, gas }): Promise<Check> => {
        const name = `gas wallet on chain ${network.chainId}`;
        try {
          const standing = await gasStanding(rpc, gas);
          return { name, ok: !standing.low, detail: standing.detail, gasBalance: { chainId: network.chainId, amount: Number(formatEther(standing.balance)) } };
        } catch {
          return { name, ok: false, detail: 'its RPC URLs do not answer' };
        }
      }),
    )),
  ];
}

/**
 * A live network no gas wallet sweeps (GAS_WALLET_KEY unset, sweeps on): customers' money lands
 * in deposit addresses and never leaves them, so the service is not ready to take payments there.
 */
export function missingGasWallets(live: Network[], gasOf: (network: Network) => Address | undefined): Check[] {
  return live
    .filter((network) => !gasOf(network))
    .map((network) => ({
      name: `gas wallet on chain ${network.chainId}`,
      ok: false,
      detail: `none: live deposits on chain ${network.chainId} (${network.name}) are never swept; set GAS_WALLET_KEY`,
    }));
}
