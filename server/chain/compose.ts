// The chain's part of a service's start: each configured network made ready to be watched (its RPC
// failures counted, its chain id checked again at runtime, its sibling chains known), then what
// moves money on it: its gas wallet, its treasury and its relay of signed transfers.
import type { Hex, LocalAccount } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { KeyMode } from '../../contract/keys.ts';
import { ChainPin, withSameAddresses, type DevChainPowers, type Network, type RpcEvents } from './networks.ts';
import { Relayer } from './relay.ts';
import type { ChainStore } from './store.ts';
import { routerSwaps, Treasury, type SwapProvider } from './treasury.ts';

type Networks = Partial<Record<KeyMode, Network[]>>;

/**
 * The networks as the service watches them (copies: the caller's objects stay as given): each
 * network's RPC calls tell /metrics of their failures (`rpcEvents`), each URL's chain id is checked
 * again at runtime (one answering another chain is out of rotation), and each knows the other chains
 * of its mode its deposit addresses are on (money sent on the wrong one is seen). The treasury
 * accounts are keyed by the new copies too.
 */
export function pinnedNetworks(
  networks: Networks,
  treasuryAccounts: Map<Network, LocalAccount>,
  o: { rpcEvents(chainId: number): RpcEvents; rpcChainCheckMs: number; warn(fields: Record<string, unknown>, message: string): void },
): Networks {
  const pinned: Networks = {};
  for (const mode of ['test', 'live'] as const) {
    const list = networks[mode];
    if (!list) continue;
    pinned[mode] = withSameAddresses(mode, list).map((n, i) => {
      const copy = { ...n, rpcEvents: o.rpcEvents(n.chainId), rpcPin: new ChainPin(n.chainId, o.rpcChainCheckMs, o.warn) };
      const account = treasuryAccounts.get(list[i]!);
      if (account) treasuryAccounts.set(copy, account);
      return copy;
    });
  }
  return pinned;
}

/**
 * What moves money on each network, by `mode/chainId`: its treasury (balance settlement: its key
 * from a file, never logged; swaps through its router) and its relay of signed transfers; and the
 * gas wallet that pays its sweeps and relays: GAS_WALLET_KEY's, or on a dev chain the dev account
 * handed in.
 */
export function moneyMovers(
  networks: Networks,
  treasuryAccounts: Map<Network, LocalAccount>,
  o: { gasKey?: Hex; devChain?: DevChainPowers; chain: ChainStore; instance: string; now: () => number; relayTimeoutMs: number },
) {
  const gasKeyAccount = o.gasKey ? privateKeyToAccount(o.gasKey) : undefined;
  const gasAccountOf = (network: Network) => gasKeyAccount ?? (network.dev ? o.devChain?.gasAccount : undefined);
  const treasuries = new Map<string, { treasury: Treasury; swaps?: SwapProvider }>();
  const relayers = new Map<string, Relayer>();
  for (const mode of ['test', 'live'] as const) {
    for (const network of networks[mode] ?? []) {
      const account = treasuryAccounts.get(network);
      const treasury = account && new Treasury(network, account);
      if (treasury)
        treasuries.set(`${mode}/${network.chainId}`, { treasury, ...(network.swapRouter ? { swaps: routerSwaps(treasury, network.swapRouter) } : {}) });
      const gas = gasAccountOf(network);
      if (gas) relayers.set(`${mode}/${network.chainId}`, new Relayer(network, gas, o.chain, o.instance, o.now, o.relayTimeoutMs));
    }
  }
  return { treasuries, relayers, gasOf: (network: Network) => gasAccountOf(network)?.address };
}
