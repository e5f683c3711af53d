// The operator's treasury on a network (merchants on `balance` settlement): its key, read
// from a file and never logged; its token balances; transfers out of it (withdrawals); and
// swaps through a Uniswap v2 router (SwapProvider). Every transaction is signed first and its
// hash and bytes handed back before it is sent, so the caller records it: after a crash the
// same transaction is sent again, never a second one.
import { readFileSync } from 'node:fs';
import {
  createPublicClient,
  createWalletClient,
  encodeFunctionData,
  type Chain,
  erc20Abi,
  keccak256,
  parseAbi,
  parseEventLogs,
  parseTransaction,
  TransactionReceiptNotFoundError,
  type Address,
  type Hex,
  type LocalAccount,
  type PublicClient,
  type TransactionReceipt,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { chainOf, networkTransport, type Network } from './networks.ts';

/**
 * The treasury's account: from `network.treasuryKeyFile`, else `keyFile` (TREASURY_KEY_FILE),
 * else (a dev chain only) the account the dev chain handed in. Throws, never showing the key,
 * when the file is unreadable, not a key, or the key is not the network's treasury address.
 */
export function treasuryAccount(network: Network, keyFile: string | undefined, dev: LocalAccount | undefined): LocalAccount | undefined {
  if (!network.treasury) return undefined;
  const file = network.treasuryKeyFile ?? keyFile;
  let account: LocalAccount | undefined;
  if (file) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8').trim();
    } catch (error) {
      throw new Error(`treasury key of ${network.name}: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    }
    if (!/^(0x)?[0-9a-fA-F]{64}$/.test(text)) throw new Error(`treasury key of ${network.name}: ${file} does not hold a private key (64 hex digits)`);
    account = privateKeyToAccount((text.startsWith('0x') ? text : `0x${text}`) as Hex);
  } else if (network.dev) account = dev;
  if (account && account.address.toLowerCase() !== network.treasury.toLowerCase()) {
    throw new Error(`treasury key of ${network.name}: its address ${account.address} is not the network's treasury ${network.treasury}`);
  }
  return account;
}

/**
 * A live treasury that is also a test network's: the same address, so the same key,
 * which every test-mode merchant's withdrawals and the testnet's operators could then use. Throws
 * naming both networks; `accounts` are the keys read (a live network's key is checked against its
 * address, so an address shared is a key shared).
 */
export function refuseSharedTreasuries(live: Network[], test: Network[], accounts: Map<Network, LocalAccount>): void {
  const testAddresses = new Map<string, Network>();
  for (const network of test) {
    for (const address of [network.treasury, accounts.get(network)?.address]) if (address) testAddresses.set(address.toLowerCase(), network);
  }
  for (const network of live) {
    for (const address of [network.treasury, accounts.get(network)?.address]) {
      const shared = address && testAddresses.get(address.toLowerCase());
      if (shared) {
        throw new Error(
          `treasury of ${network.name} (live, chain ${network.chainId}): ${address} is also the treasury of the test network ${shared.name} (chain ${shared.chainId}); give each a key of its own (a network's "treasuryKeyFile", or TEST_TREASURY_KEY_FILE for test networks)`,
        );
      }
    }
  }
}

/** A transaction signed and not yet sent: its hash, to record, its bytes, to send, and its nonce. */
export interface Signed {
  hash: Hex;
  raw: Hex;
  nonce: number;
}

/**
 * What a mined transaction cost its sender in the native coin, in wei: gas used at its
 * effective price, plus the L1 data fee an OP Stack rollup's receipt carries (l1Fee).
 */
export function feeOf(receipt: TransactionReceipt): bigint {
  const l1 = (receipt as { l1Fee?: bigint | null }).l1Fee;
  return receipt.gasUsed * receipt.effectiveGasPrice + (typeof l1 === 'bigint' ? l1 : 0n);
}

/** What the chain says of a recorded transaction: mined (and how it went), or not yet. */
export type Outcome = { mined: true; ok: boolean; receipt: TransactionReceipt } | { mined: false };

/**
 * Where swaps are made. The dev chain's (and any chain with a Uniswap v2 router, such as
 * PancakeSwap v2 on BNB Smart Chain) is `routerSwaps`; an aggregator (1inch, 0x, ParaSwap)
 * implements the same: a price for an amount, and a signed transaction that fails on chain
 * when it would give less than a floor.
 */
export interface SwapProvider {
  /** What the pool gives for `amountIn` of `from` now, in `to`'s base units. */
  quote(from: Address, to: Address, amountIn: bigint): Promise<bigint>;
  /**
   * The approval the swap of `amountIn` of `from` needs first, signed (exactly that amount, never
   * more: a router bug or a wrong router could take no other merchant's money), or undefined when
   * the allowance already covers it. The caller records it before sending it.
   */
  approval(from: Address, amountIn: bigint, nonceAtLeast?: number): Promise<Signed | undefined>;
  /** The swap, signed (at a nonce no lower than `nonceAtLeast`), once its approval is mined: all or nothing on chain, reverting when it would give less than `minimumOut`. */
  sign(from: Address, to: Address, amountIn: bigint, minimumOut: bigint, nonceAtLeast?: number): Promise<Signed>;
  /** What the swap's receipt says the treasury received of `to`. */
  received(receipt: TransactionReceipt, to: Address): bigint;
}

/** A swap the pool refuses before it is sent (it would give less than its floor): fails at once, nothing sent. */
export class SwapRefused extends Error {}

const ROUTER = parseAbi([
  'function getAmountsOut(uint256 amountIn, address[] path) view returns (uint256[] amounts)',
  'function swapExactTokensForTokens(uint256 amountIn, uint256 amountOutMin, address[] path, address to, uint256 deadline) returns (uint256[] amounts)',
]);

export class Treasury {
  readonly rpc: PublicClient;
  private readonly wallet;

  constructor(
    readonly network: Network,
    readonly account: LocalAccount,
  ) {
    const transport = networkTransport(network);
    this.rpc = createPublicClient({ cacheTime: 0, transport }) as PublicClient;
    this.wallet = createWalletClient({ account, transport });
    this.chain = chainOf(network);
  }

  /** The chain every signature names: the network's configured id, whatever a node answers. */
  readonly chain: Chain;

  get address(): Address {
    return this.account.address;
  }

  /** The treasury's native coin (what pays its gas), at a block or the latest. */
  nativeBalance(blockNumber?: bigint): Promise<bigint> {
    return this.rpc.getBalance({ address: this.address, ...(blockNumber !== undefined ? { blockNumber } : {}) });
  }

  balanceOf(token: Address, blockNumber?: bigint): Promise<bigint> {
    return this.rpc.readContract({
      address: token,
      abi: erc20Abi,
      functionName: 'balanceOf',
      args: [this.address],
      ...(blockNumber !== undefined ? { blockNumber } : {}),
    });
  }

  /**
   * Signs a call from the treasury at its next nonce: counting its transactions still in the
   * node's pool, and never below `nonceAtLeast` (past the treasury's recorded transactions still
   * under way, which a node may have dropped or never seen: two at one nonce, one is never mined).
   */
  async sign(to: Address, data: Hex, nonceAtLeast = 0): Promise<Signed> {
    const pending = await this.rpc.getTransactionCount({ address: this.address, blockTag: 'pending' });
    const nonce = Math.max(pending, nonceAtLeast);
    const request = (await this.wallet.prepareTransactionRequest({ chain: this.chain, to, data, nonce } as never)) as Record<string, unknown>;
    // Never above the network's fee cap (maxFeeGwei): such a transaction waits, re-priced up to the cap.
    const cap = this.network.maxFeePerGas;
    if (cap !== undefined) {
      for (const field of ['maxFeePerGas', 'maxPriorityFeePerGas', 'gasPrice'])
        if (typeof request[field] === 'bigint' && (request[field] as bigint) > cap) request[field] = cap;
    }
    const raw = (await this.wallet.signTransaction(request as never)) as Hex;
    return { hash: keccak256(raw), raw, nonce };
  }

  /**
   * The transaction `raw` again (its nonce, call and gas limit) with higher fees, to replace it
   * in the pool: at least an eighth more (what a node takes as a replacement) and at
   * least what the chain asks now (twice the base fee, plus the tip), never above the network's
   * `maxFeePerGas`. Undefined when the cap leaves no room for a replacement.
   */
  async replacement(raw: Hex): Promise<Signed | undefined> {
    const tx = parseTransaction(raw);
    const cap = this.network.maxFeePerGas;
    const up = (n: bigint) => n + n / 8n + 1n;
    const most = (a: bigint, b: bigint) => (a > b ? a : b);
    const base = { chainId: this.network.chainId, to: tx.to!, data: tx.data, nonce: tx.nonce!, gas: tx.gas!, value: tx.value ?? 0n };
    let signed: Hex;
    if (tx.type === 'eip1559') {
      const [block, tip] = await Promise.all([this.rpc.getBlock({ blockTag: 'latest' }), this.rpc.estimateMaxPriorityFeePerGas().catch(() => 1_000_000_000n)]);
      const priorityFloor = up(tx.maxPriorityFeePerGas ?? 0n);
      const feeFloor = up(tx.maxFeePerGas ?? 0n);
      let priority = most(priorityFloor, tip);
      let maxFee = most(feeFloor, (block.baseFeePerGas ?? 0n) * 2n + priority);
      if (cap !== undefined && maxFee > cap) maxFee = cap;
      if (priority > maxFee) priority = maxFee;
      if (maxFee < feeFloor || priority < priorityFloor) return undefined;
      signed = await this.account.signTransaction({ ...base, type: 'eip1559', maxFeePerGas: maxFee, maxPriorityFeePerGas: priority });
    } else {
      const floor = up(tx.gasPrice ?? 0n);
      let gasPrice = most(floor, await this.rpc.getGasPrice());
      if (cap !== undefined && gasPrice > cap) gasPrice = cap;
      if (gasPrice < floor) return undefined;
      signed = await this.account.signTransaction({ ...base, type: 'legacy', gasPrice });
    }
    return { hash: keccak256(signed), raw: signed, nonce: tx.nonce! };
  }

  /** What a signed transaction may pay per gas at most (EIP-1559's max fee, or its gas price), in wei. */
  static maxFeeOf(raw: Hex): bigint {
    const tx = parseTransaction(raw);
    return tx.maxFeePerGas ?? tx.gasPrice ?? 0n;
  }

  /** A token transfer out of the treasury, signed. */
  transfer(token: Address, to: Address, amount: bigint, nonceAtLeast = 0): Promise<Signed> {
    return this.sign(token, encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, amount] }), nonceAtLeast);
  }

  /**
   * What a mined transaction's receipt says the treasury moved of `token` to `to`: the sum of
   * that token's Transfer logs from the treasury to it. A receipt's status alone says
   * the call did not revert, not that the token moved: a token that answers `false` instead of
   * reverting succeeds having moved nothing, and logs nothing. A token flagged `feeOnTransfer`
   * logs what arrives, and its fee apart (as Tether's contract does with its fee on) or not at all
   * (burnt): once some of it reached `to`, the send moved what it was `asked` to, the fee the
   * token's (what left the treasury; all its Transfer logs from the treasury when they say more).
   */
  moved(receipt: TransactionReceipt, token: Address, to: Address, asked = 0n): bigint {
    const sum = (logs: Array<{ args: { value?: bigint } }>) => logs.reduce((total, log) => total + (log.args.value ?? 0n), 0n);
    const out = parseEventLogs({ abi: erc20Abi, eventName: 'Transfer', logs: receipt.logs, strict: false }).filter(
      (log) => log.address.toLowerCase() === token.toLowerCase() && log.args.from?.toLowerCase() === this.address.toLowerCase(),
    );
    const reached = sum(out.filter((log) => log.args.to?.toLowerCase() === to.toLowerCase()));
    const feeOnTransfer = this.network.tokens.some((t) => t.feeOnTransfer && t.address.toLowerCase() === token.toLowerCase());
    if (!feeOnTransfer || reached === 0n) return reached;
    const left = sum(out);
    return left > asked ? left : asked;
  }

  /** What a mined transaction's receipt says the treasury received of `token` (a swap's output): the sum of that token's Transfer logs to the treasury. */
  received(receipt: TransactionReceipt, token: Address): bigint {
    return parseEventLogs({ abi: erc20Abi, eventName: 'Transfer', logs: receipt.logs })
      .filter((log) => log.address.toLowerCase() === token.toLowerCase() && log.args.to.toLowerCase() === this.address.toLowerCase())
      .reduce((sum, log) => sum + log.args.value, 0n);
  }

  /** Sends a recorded transaction (again): a node that has it already, or mined it, is fine. */
  async send(raw: Hex): Promise<void> {
    try {
      await this.rpc.sendRawTransaction({ serializedTransaction: raw });
    } catch (error) {
      if (!/already known|nonce too low|known transaction|already imported/i.test((error as Error).message)) throw error;
    }
  }

  /** Waits up to `ms` for a recorded transaction to be mined. */
  async outcome(hash: Hex, ms = 30_000): Promise<Outcome> {
    try {
      const receipt = await this.rpc.waitForTransactionReceipt({ hash, timeout: ms, pollingInterval: 200 });
      return { mined: true, ok: receipt.status === 'success', receipt };
    } catch {
      return { mined: false };
    }
  }

  /**
   * A transaction's receipt now, without waiting: undefined when the node says it has none.
   * Any other failure (a timeout, a rate limit, a node down) throws: it says nothing either way.
   */
  async receipt(hash: Hex): Promise<TransactionReceipt | undefined> {
    try {
      return await this.rpc.getTransactionReceipt({ hash });
    } catch (error) {
      if (error instanceof TransactionReceiptNotFoundError) return undefined;
      throw error;
    }
  }

  /**
   * Whether a mined transaction of the treasury has used `nonce`. That alone never says the
   * transaction signed at it was not the one mined (a node behind on its index answers no
   * receipt for a transaction it mined): see the treasury job's `settle`.
   */
  async nonceUsed(nonce: number): Promise<boolean> {
    return (await this.rpc.getTransactionCount({ address: this.address, blockTag: 'latest' })) > nonce;
  }

  /** The nonce a recorded transaction was signed at. */
  static nonceOf(raw: Hex): number {
    return parseTransaction(raw).nonce ?? 0;
  }
}

/** Swaps through a Uniswap v2 router from the treasury: approves the router for exactly what a swap spends, then one swap transaction. */
export function routerSwaps(treasury: Treasury, router: Address, deadlineSeconds = 600): SwapProvider {
  return {
    async quote(from, to, amountIn) {
      const amounts = await treasury.rpc.readContract({ address: router, abi: ROUTER, functionName: 'getAmountsOut', args: [amountIn, [from, to]] });
      return amounts[amounts.length - 1]!;
    },
    async approval(from, amountIn, nonceAtLeast = 0) {
      const allowance = await treasury.rpc.readContract({ address: from, abi: erc20Abi, functionName: 'allowance', args: [treasury.address, router] });
      if (allowance >= amountIn) return undefined;
      return treasury.sign(from, encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [router, amountIn] }), nonceAtLeast);
    },
    async sign(from, to, amountIn, minimumOut, nonceAtLeast = 0) {
      const deadline = BigInt(Math.floor(Date.now() / 1000) + deadlineSeconds);
      const args = [amountIn, minimumOut, [from, to], treasury.address, deadline] as const;
      // Tried first: a swap the pool would refuse now (its price moved past the floor) is never sent.
      // Sent, the router still refuses it on chain should the price move in between: all or nothing.
      try {
        await treasury.rpc.simulateContract({ account: treasury.account, address: router, abi: ROUTER, functionName: 'swapExactTokensForTokens', args });
      } catch (error) {
        if (/INSUFFICIENT_OUTPUT_AMOUNT/.test((error as Error).message)) {
          throw new SwapRefused(`the pool would give less than the minimum of the quote: its price moved past the slippage limit`);
        }
        throw error;
      }
      return treasury.sign(router, encodeFunctionData({ abi: ROUTER, functionName: 'swapExactTokensForTokens', args }), nonceAtLeast);
    },
    received(receipt, to) {
      return treasury.received(receipt, to);
    },
  };
}
