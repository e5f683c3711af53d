// Whether each watched chain is followed closely enough to take payments: its node answers,
// and the watcher's cursor is within `maxLagBlocks` of the head. For GET /readyz.
import { createPublicClient, formatEther, formatGwei, type Address, type PublicClient } from 'viem';
import { gasStanding } from './deploy.ts';
import type { ChainStore } from './store.ts';
import { networkTransport, type Network } from './networks.ts';

export interface Check {
  name: string;
  ok: boolean;
  detail: string;
  /** A gas wallet's balance in its chain's coin (for /metrics). */
  gasBalance?: { chainId: number; amount: number };
  /** A treasury's coin, held on chain against owed by the journal, in whole coins (for /metrics). */
  treasury?: { chainId: number; coin: string; held: number; owed: number; surplus?: number };
  /** Ready, and still something the operator should look at (a treasury's surplus): named in /readyz's message. */
  warning?: boolean;
  /** How long the head of a chain's treasury queue has waited unmined, in seconds (for /metrics). */
  treasuryWait?: { chainId: number; seconds: number };
}

/**
 * The head of each treasury's queue: its oldest transaction signed and not yet mined
 * is ready while it has waited less than `stuckMs`; past it, every later withdrawal, swap and
 * partner transfer of the chain waits behind its nonce, and /readyz says so naming the chain.
 */
export function treasuryQueueReadiness(
  chains: Array<{ chainId: number; maxFeePerGas?: bigint }>,
  head: (chainId: number) => Promise<{ table: string; id: string; nonce: number | null; signedMs: number; replacements: number } | undefined>,
  stuckMs: number,
  now: () => number,
): () => Promise<Check[]> {
  return () =>
    Promise.all(
      chains.map(async ({ chainId, maxFeePerGas }): Promise<Check> => {
        const name = `treasury on chain ${chainId}`;
        const first = await head(chainId);
        if (!first) return { name, ok: true, detail: 'no transaction waits', treasuryWait: { chainId, seconds: 0 } };
        const waited = Math.max(0, now() - first.signedMs);
        const cap = maxFeePerGas !== undefined ? `; fee cap ${formatGwei(maxFeePerGas)} gwei` : '';
        return {
          name,
          ok: waited < stuckMs,
          detail: `the oldest unmined transaction (${first.table} ${first.id}, nonce ${first.nonce ?? '?'}) has waited ${Math.round(waited / 1000)} s with ${first.replacements} replacements${cap}; at most ${Math.round(stuckMs / 1000)} s`,
          treasuryWait: { chainId, seconds: waited / 1000 },
        };
      }),
    );
}

/**
 * `gasOf`: the gas wallet that sweeps a network, if any: it is ready while it holds enough for
 * GAS_LOW_SWEEPS sweeps at today's gas price (else deposits soon stop being swept).
 */
export function chainReadiness(
  networks: Network[],
  store: ChainStore,
  maxLagBlocks: number,
  gasOf: (network: Network) => Address | undefined = () => undefined,
): () => Promise<Check[]> {
  const clients = networks.map((network) => ({ network, rpc: createPublicClient({ cacheTime: 0, transport: networkTransport(network) }) as PublicClient }));
  const gasChecks = clients.flatMap(({ network, rpc }) => {
    const gas = gasOf(network);
    return gas ? [{ network, rpc, gas }] : [];
  });
  return async () => [
    ...(await Promise.all(
      clients.map(async ({ network, rpc }): Promise<Check> => {
        const name = `chain ${network.chainId} (${network.name})`;
        let head: bigint;
        const pinned = () => network.rpcPin?.standing(network.rpcUrls) ?? { wrong: [], none: false };
        try {
          head = await rpc.getBlockNumber();
        } catch {
          const { wrong, none } = pinned();
          return {
            name,
            ok: false,
            detail: none ? `every RPC URL answers another chain (${wrong.join(', ')}): out of rotation` : 'its RPC URLs do not answer',
          };
        }
        // A URL on another chain is out of rotation; the others still serve, and /readyz says which.
        const { wrong } = pinned();
        const aside = wrong.length ? `; out of rotation, answering another chain: ${wrong.join(', ')}` : '';
        const scanned = await store.scannedTo(network.chainId);
        if (scanned === undefined) return { name, ok: false, detail: `not watched yet (head ${head})${aside}` };
        const lag = head > scanned ? head - scanned : 0n;
        return { name, ok: lag <= BigInt(maxLagBlocks), detail: `${lag} blocks behind the head (${head}); at most ${maxLagBlocks}${aside}` };
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
