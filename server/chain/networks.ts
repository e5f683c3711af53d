// Networks and their coins, as data: what an operator configures (RPC URLs, confirmations,
// token contracts with their real decimals), and the dev chain's, made at start.
import {
  concat,
  defineChain,
  fallback,
  type Chain,
  shouldThrow,
  getContractAddress,
  http,
  keccak256,
  numberToHex,
  size,
  toHex,
  type Address,
  type Hex,
  type LocalAccount,
  type Transport,
} from 'viem';
import type { Coin } from '../../contract/schemas.ts';
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
  /**
   * The smallest withdrawal of it to a wallet, in whole tokens as decimal text ("1" by default:
   * a dollar of a dollar stablecoin): less costs the operator more gas than it moves.
   */
  withdrawalMinimum?: string;
  /**
   * The token takes a fee on transfer that its Transfer event does not show: a deposit is
   * credited what its balance gained (balanceOf before and after the block, read only for these
   * tokens), and a balance-settled sweep journals what the treasury gained.
   */
  feeOnTransfer?: boolean;
  /**
   * The token takes signed transfers (EIP-3009's transferWithAuthorization), in this EIP-712
   * domain: its name and version as the token itself hashes them (USDC: "USD Coin", "2"). A
   * customer without the chain's native coin may then pay by one signature, which the service
   * relays (server/chain/relay.ts). Checked against the token's DOMAIN_SEPARATOR at each relay.
   */
  eip3009?: { name: string; version: string };
  /**
   * The network's fee on a withdrawal of it to a wallet, charged to the merchant beside the
   * amount and kept by the operator (whose treasury pays the transaction's gas), in whole tokens
   * as decimal text: none ("0") by default.
   */
  withdrawalFee?: string;
}

/** A token's withdrawal fee in its base units: its `withdrawalFee`, or 0. */
export const withdrawalFeeUnits = (token: Pick<Token, 'decimals' | 'withdrawalFee'>): bigint =>
  token.withdrawalFee !== undefined ? toUnits(token.withdrawalFee, token.decimals)! : 0n;

/** A token's smallest withdrawal in its base units: its `withdrawalMinimum`, or one whole token. */
export const withdrawalMinimumUnits = (token: Pick<Token, 'decimals' | 'withdrawalMinimum'>): bigint =>
  token.withdrawalMinimum !== undefined ? toUnits(token.withdrawalMinimum, token.decimals)! : 10n ** BigInt(token.decimals);

/**
 * The treasury's terms for any send of a token (balances/ledger-rules.ts's SendTerms): its
 * `withdrawalMinimum` and `withdrawalFee`, the one rule for withdrawals, refunds, send-backs and
 * bank payouts. Undefined for a token of no network (the sandbox's).
 */
export const sendTermsOf = (token: Pick<Token, 'decimals' | 'withdrawalMinimum' | 'withdrawalFee'> | undefined) =>
  token && { minimum: withdrawalMinimumUnits(token), fee: withdrawalFeeUnits(token) };

/** A network's token by address (any case). */
export const tokenOf = (network: Pick<Network, 'tokens'> | undefined, address: string): Token | undefined =>
  network?.tokens.find((t) => t.address.toLowerCase() === address.toLowerCase());

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
  /** The most a sweep pays per gas, in wei (EIP-1559's max fee, or the gas price): above it, sweeps wait. */
  maxFeePerGas?: bigint;
  /** Blocks per eth_getLogs call to start with (halved when the provider refuses): 2,000 by default. */
  logRange?: number;
  /** How many recent block hashes are kept to notice a reorganisation: 64 by default, never fewer than `confirmations`. */
  reorgDepth?: number;
  /**
   * Where the chain names its own safe or finalized block (post-merge Ethereum and its rollups,
   * BNB Smart Chain's fast finality): money counts only once its block is at or below that
   * block, as well as having its confirmations.
   */
  finality?: Finality;
  /**
   * The operator's treasury on this network: where deposits of merchants on `balance`
   * settlement are swept, and what swaps, withdrawals and bank payouts are paid from. Its key
   * is read from `treasuryKeyFile` (or TREASURY_KEY_FILE), never from this file, never logged.
   */
  treasury?: Address;
  /** A file holding the treasury's private key (0x and 64 hex digits): TREASURY_KEY_FILE by default. */
  treasuryKeyFile?: string;
  /**
   * Where the deposit contract sends the operator's fee on `wallet`-settled payments (bound
   * into each such deposit address): `feeAddress`, else the treasury. Neither: no fee is charged
   * on this network's wallet-settled payments (on `balance` settlement the fee is journaled).
   */
  feeAddress?: Address;
  /** A Uniswap v2 router (or one with its interface: PancakeSwap v2 on BNB Smart Chain) the treasury swaps through. */
  swapRouter?: Address;
  /** How far a swap quote's pool price may be from the rate provider's, in basis points (a thin or moved pool is refused): 100 (1%) by default. */
  swapRateLimitBps?: number;
  /**
   * The payout partner's deposit address on this network: the USDT owed to it for bank payouts
   * it paid is sent there from the treasury, in batches (see `partnerMinimum`). None: it stays owed.
   */
  payoutPartner?: Address;
  /** Send what is owed to the payout partner once it reaches this much (whole USDT as decimal text): "1000" by default. */
  partnerMinimum?: string;
  /** …or once the oldest of it has waited this many minutes: 60 by default. */
  partnerMaxWaitMinutes?: number;
  /** Set by startService, never by a NETWORKS_FILE: told of this network's RPC errors and failovers (/metrics). */
  rpcEvents?: RpcEvents;
  /** Set by startService, never by a NETWORKS_FILE: each RPC URL's chain id, checked again at runtime; a URL on another chain is out of rotation. */
  rpcPin?: ChainPin;
  /**
   * Set by startService, never by a NETWORKS_FILE: the other chains of this network's mode whose
   * deposit addresses are this chain's too (the same factory, and a salt without the chain id):
   * money sent here to one of their payments is recorded, told and swept here.
   */
  sameAddresses?: { mode: string; chainIds: number[] };
}

/** Each network of a mode with the other chains of that mode that share its factory, so its deposit addresses (sameAddresses). */
export const withSameAddresses = (mode: string, list: Network[]): Network[] =>
  list.map((n) => {
    const chainIds = list.filter((o) => o.chainId !== n.chainId && o.factory.toLowerCase() === n.factory.toLowerCase()).map((o) => o.chainId);
    return chainIds.length ? { ...n, sameAddresses: { mode, chainIds } } : n;
  });

/** One RPC URL as a log or /readyz may show it: its origin only (a provider's URL often carries its API key in the path or query). */
export const originOf = (url: string): string => {
  try {
    return new URL(url).origin;
  } catch {
    return 'an RPC URL';
  }
};

/**
 * The chain id a network's RPC URLs must answer: each URL is asked again once its
 * last answer is `recheckMs` old, before the next call through it; one that answers another
 * chain is out of rotation (its calls fail at once, and fallback() moves on to the next URL),
 * logged once, and back once it answers the right chain again. None left: /readyz fails.
 */
export class ChainPin {
  private readonly urls = new Map<string, { checkedMs: number; answered?: number; checking?: Promise<void> }>();

  constructor(
    readonly chainId: number,
    private readonly recheckMs: number,
    private readonly tell: (fields: Record<string, unknown>, message: string) => void = () => {},
    private readonly now: () => number = Date.now,
  ) {}

  /** Throws when `url` answers another chain (asking it again first once its last answer is old); `ask` is its own eth_chainId. */
  async check(url: string, ask: () => Promise<unknown>): Promise<void> {
    let state = this.urls.get(url);
    if (!state) this.urls.set(url, (state = { checkedMs: -Infinity }));
    if (this.now() - state.checkedMs >= this.recheckMs) {
      state.checking ??= (async () => {
        try {
          const answered = Number(await ask());
          const was = state.answered;
          state.answered = answered;
          state.checkedMs = this.now();
          if (answered !== this.chainId && was !== answered)
            this.tell(
              { chainId: this.chainId, answered, rpc: originOf(url) },
              'an RPC URL answers another chain: out of rotation, nothing is read from or sent through it',
            );
          if (answered === this.chainId && was !== undefined && was !== this.chainId)
            this.tell({ chainId: this.chainId, rpc: originOf(url) }, 'an RPC URL answers its chain again: back in rotation');
        } finally {
          state.checking = undefined;
        }
      })();
      await state.checking;
    }
    if (state.answered !== undefined && state.answered !== this.chainId) {
      throw new Error(`${originOf(url)} answers chain ${state.answered}, not ${this.chainId}: out of rotation`);
    }
  }

  /** The URLs last seen answering another chain (their origins), and whether every URL asked so far did. */
  standing(urls: string[]): { wrong: string[]; none: boolean } {
    const wrong = urls.filter((u) => {
      const answered = this.urls.get(u)?.answered;
      return answered !== undefined && answered !== this.chainId;
    });
    return { wrong: wrong.map(originOf), none: wrong.length === urls.length };
  }
}

/** What a network's RPC transport tells /metrics. */
export interface RpcEvents {
  /** A call to one of its URLs failed (after that URL's own retries); a node's answer that a call reverts is not a failure. */
  error(): void;
  /** …and was tried on the next URL. */
  failover(): void;
}

export type Finality = 'safe' | 'finalized';

/**
 * The highest block whose money counts: `confirmations` below the head, and no higher than the
 * chain's own safe or finalized block when the network names one.
 */
export async function countedUpTo(
  rpc: { getBlock(args: { blockTag: Finality }): Promise<{ number: bigint | null }> },
  head: bigint,
  confirmations: number,
  finality?: Finality,
): Promise<bigint> {
  const deep = head - BigInt(confirmations) + 1n;
  if (!finality) return deep;
  const tagged = (await rpc.getBlock({ blockTag: finality })).number ?? 0n;
  return tagged < deep ? tagged : deep;
}

/**
 * What only a local dev chain allows, handed to the service by whoever started that chain (the
 * demo, the tests: see devchain/): real transfers from a funded account for the sandbox's
 * buttons, and a known account that pays for sweeps. Production code never has these.
 */
export interface DevChainPowers {
  transfer(network: Network, token: Address, to: Address, amount: bigint): Promise<Hex>;
  gasAccount: LocalAccount;
  /** The treasury's account on a dev chain (a known dev account): balances, swaps, withdrawals. */
  treasuryAccount?: LocalAccount;
}

/**
 * How the service talks to a network: each RPC URL retried briefly, and failed over in order
 * when there are several. `onRpc` hears every method called (the bench and tests count them).
 */
export function rpcTransport(urls: string[], onRpc?: (method: string) => void, events?: RpcEvents, pin?: ChainPin): Transport {
  const transports = urls.map((url) => {
    const made = http(url, {
      retryCount: 2,
      retryDelay: 200,
      timeout: 10_000,
      onFetchRequest: async (request) => {
        if (onRpc) for (const call of [(await request.clone().json()) as { method: string } | Array<{ method: string }>].flat()) onRpc(call.method);
      },
    });
    return pin ? pinnedTo(made, url, pin) : made;
  });
  const told = events ? transports.map((t, i) => toldOf(t, events, i < transports.length - 1)) : transports;
  return told.length === 1 ? told[0]! : fallback(told, { retryCount: 1 });
}

/** A transport whose every call first has `pin` check its URL's chain id (a plain error when it answers another chain: fallback() moves on). */
const pinnedTo =
  (transport: Transport, url: string, pin: ChainPin): Transport =>
  (params) => {
    const made = transport(params);
    return {
      ...made,
      request: (async (args: Parameters<typeof made.request>[0], options?: Parameters<typeof made.request>[1]) => {
        await pin.check(url, () => made.request({ method: 'eth_chainId' }));
        return made.request(args, options);
      }) as typeof made.request,
    };
  };

/** The transport of a network as startService configured it: its URLs, /metrics events and chain id pin. */
export const networkTransport = (network: Network, onRpc?: (method: string) => void): Transport =>
  rpcTransport(network.rpcUrls, onRpc, network.rpcEvents, network.rpcPin);

/** What a signature names as its chain: the network's configured chain id, never what a node answers. */
export const chainOf = (network: Pick<Network, 'chainId' | 'name' | 'rpcUrls'>): Chain =>
  defineChain({
    id: network.chainId,
    name: network.name,
    nativeCurrency: { name: 'native', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: network.rpcUrls } },
  });

/** A transport that tells `events` of each failed call, and (`next`: a URL follows it) of the failover fallback() then makes. */
const toldOf =
  (transport: Transport, events: RpcEvents, next: boolean): Transport =>
  (params) => {
    const made = transport(params);
    return {
      ...made,
      request: (async (args: Parameters<typeof made.request>[0], options?: Parameters<typeof made.request>[1]) => {
        try {
          return await made.request(args, options);
        } catch (error) {
          // fallback() hands these back at once rather than asking the next URL: answers, not outages.
          if (shouldThrow(error as Error)) throw error;
          events.error();
          if (next) events.failover();
          throw error;
        }
      }) as typeof made.request,
    };
  };

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
  addressFor(input: { merchantId: string; mode: string; reference: string; payout: Address; fee?: DepositFee | null }): Address;
}

/** An operator's fee bound into a deposit address: `numerator / denominator` of what it holds goes to `to`. */
export interface DepositFee {
  to: Address;
  numerator: number;
  denominator: number;
}

/** The deposit's immutable args: the payout alone, or (a fee) payout, fee address, numerator, denominator (contracts/Deposit.sol argsOf). */
export const depositArgs = (payout: Address, fee?: DepositFee | null): Hex =>
  fee && fee.numerator > 0 ? concat([payout, fee.to, numberToHex(fee.numerator, { size: 2 }), numberToHex(fee.denominator, { size: 2 })]) : payout;

/** One salt per payment: its merchant, mode and reference. */
export const saltOf = (merchantId: string, mode: string, reference: string): Hex => keccak256(toHex(`${merchantId}/${mode}/${reference}`));

/**
 * The code a deposit is created with: an EIP-1167 minimal proxy to `implementation` with the
 * payout address appended (OpenZeppelin's Clones, "with immutable args"), byte for byte.
 */
export function depositInitCode(implementation: Address, payout: Address, fee?: DepositFee | null): Hex {
  const args = depositArgs(payout, fee);
  return concat([
    '0x61',
    numberToHex(size(args) + 0x2d, { size: 2 }),
    '0x3d81600a3d39f3363d3d373d3d3d363d73',
    implementation,
    '0x5af43d82803e903d91602b57fd5bf3',
    args,
  ]);
}

/** The factory's deposit code: the first contract it created, in its constructor (a contract's nonce starts at 1). */
export const implementationOf = (factory: Address): Address => getContractAddress({ opcode: 'CREATE', from: factory, nonce: 1n });

/** The most payout addresses whose init code hash one factory's addresses keep (a merchant's each; past it, all are dropped). */
const INIT_CODE_HASHES = 10_000;
const byFactory = new Map<string, DepositAddresses>();

/**
 * CREATE2 deposit addresses of `factory`: computed off-chain, bound to the payout address.
 * Kept per factory, with each payout address's init code hash: every initialize asks for one,
 * and the factory's implementation address (an RLP and a keccak) and the init code's keccak are
 * the same for every payment to one payout address; only the salt and the address's own hash
 * are new per payment.
 */
export function create2Addresses(factory: Address): DepositAddresses {
  const known = byFactory.get(factory.toLowerCase());
  if (known) return known;
  const implementation = implementationOf(factory);
  const hashes = new Map<string, Hex>();
  const initCodeHash = (payout: Address, fee?: DepositFee | null): Hex => {
    // The fee's address and fraction are part of the init code, so of the key.
    const key = fee ? `${payout.toLowerCase()}:${fee.to.toLowerCase()}:${fee.numerator}/${fee.denominator}` : payout.toLowerCase();
    let hash = hashes.get(key);
    if (hash === undefined) {
      if (hashes.size >= INIT_CODE_HASHES) hashes.clear();
      hash = keccak256(depositInitCode(implementation, payout, fee));
      hashes.set(key, hash);
    }
    return hash;
  };
  const addresses: DepositAddresses = {
    addressFor: ({ merchantId, mode, reference, payout, fee }) =>
      getContractAddress({ opcode: 'CREATE2', from: factory, salt: saltOf(merchantId, mode, reference), bytecodeHash: initCodeHash(payout, fee) }),
  };
  byFactory.set(factory.toLowerCase(), addresses);
  return addresses;
}
