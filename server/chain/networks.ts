// Networks and their coins, as data: what an operator configures (RPC URLs, confirmations,
// token contracts with their real decimals), and the dev chain's, made at start.
import { concat, encodeAbiParameters, fallback, getContractAddress, http, keccak256, toHex, type Address, type Hex, type LocalAccount, type Transport } from 'viem';
import type { Coin } from '../../contract/schemas.ts';
import { Deposit } from '../../contracts/artifacts.generated.ts';
import { toUnits } from '../../contract/money.ts';

export interface Token {
  symbol: Coin['symbol'];
  name: string;
  address: Address;
  decimals: number;
  /**
   * The smallest transfer that is money to this service, in whole tokens as decimal text
   * (0.01 by default): less is dust, recorded but never counted, told or swept on its own.
   */
  minimum?: string;
}

/** A token's minimum in its base units: its `minimum`, or 0.01 of the token. */
export const minimumUnits = (token: Pick<Token, 'decimals' | 'minimum'>): bigint =>
  token.minimum !== undefined ? toUnits(token.minimum, token.decimals)! : 10n ** BigInt(Math.max(token.decimals - 2, 0));

export interface Network {
  chainId: number;
  name: string;
  rpcUrls: string[];
  /** Blocks a transfer's block needs on top of it, itself included, before it counts. */
  confirmations: number;
  /** The deposit factory (contracts/Deposit.sol) on this chain. */
  factory: Address;
  tokens: Token[];
  /** Where a transaction can be looked at: `${explorer}/tx/${hash}`; none for a dev chain. */
  explorer?: string;
  /** A local dev chain: the sandbox may send real transfers from its funded dev accounts. */
  dev?: boolean;
}

/**
 * What only a local dev chain allows, handed to the service by whoever started that chain (the
 * demo, the tests: see devchain/): real transfers from a funded account for the sandbox's
 * buttons, and a known account that pays for sweeps. Production code never has these.
 */
export interface DevChainPowers {
  transfer(network: Network, token: Address, to: Address, amount: bigint): Promise<Hex>;
  gasAccount: LocalAccount;
}

/**
 * How the service talks to a network: each RPC URL retried briefly, and failed over in order
 * when there are several. `onRpc` hears every method called (the bench and tests count them).
 */
export function rpcTransport(urls: string[], onRpc?: (method: string) => void): Transport {
  const transports = urls.map((url) =>
    http(url, {
      retryCount: 2,
      retryDelay: 200,
      timeout: 10_000,
      onFetchRequest: async (request) => {
        if (onRpc) for (const call of [(await request.clone().json()) as { method: string } | Array<{ method: string }>].flat()) onRpc(call.method);
      },
    }),
  );
  return transports.length === 1 ? transports[0]! : fallback(transports, { retryCount: 1 });
}

/** The checkout's view of a network's coins. */
export const coinsOf = (network: Network): Coin[] =>
  network.tokens.map((t) => ({
    symbol: t.symbol,
    name: t.name,
    network: network.name,
    chainId: network.chainId,
    contractAddress: t.address,
    decimals: t.decimals,
    status: 'active',
    ...(network.explorer ? { explorer: network.explorer } : {}),
  }));

/**
 * Where payments' addresses come from. One scheme today (CREATE2 deposits); another (say,
 * addresses derived from a merchant's xpub) implements the same and the watcher is unchanged.
 */
export interface DepositAddresses {
  addressFor(input: { merchantId: string; mode: string; reference: string; payout: Address }): Address;
}

/** One salt per payment: its merchant, mode and reference. */
export const saltOf = (merchantId: string, mode: string, reference: string): Hex => keccak256(toHex(`${merchantId}/${mode}/${reference}`));

/** CREATE2 deposit addresses of `factory`: computed off-chain, bound to the payout address. */
export function create2Addresses(factory: Address): DepositAddresses {
  return {
    addressFor: ({ merchantId, mode, reference, payout }) =>
      getContractAddress({
        opcode: 'CREATE2',
        from: factory,
        salt: saltOf(merchantId, mode, reference),
        bytecode: concat([Deposit.bytecode, encodeAbiParameters([{ type: 'address' }], [payout])]),
      }),
  };
}
