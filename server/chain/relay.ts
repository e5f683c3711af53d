// Paying with one signature: what the relay checks of an EIP-3009
// TransferWithAuthorization before it spends any gas on it. The customer signs a transfer of
// exactly what is due, to the payment's own deposit address, on the payment's chain; the relay
// only brings it on chain, and the watcher credits the transfer like any other (since `to` is
// signed, whoever sends it pays this payment's address and nothing else).
import {
  BaseError,
  createPublicClient,
  HttpRequestError,
  TimeoutError,
  WebSocketRequestError,
  encodeFunctionData,
  hashDomain,
  isAddressEqual,
  parseAbi,
  parseEventLogs,
  parseSignature,
  size,
  type Address,
  type Hex,
  type LocalAccount,
  type PublicClient,
  type TransactionReceipt,
} from 'viem';
import { Conflict, invalidField, RelayDeclined, Unavailable } from '../domain/errors.ts';
import { networkTransport, type Network, type Token } from './networks.ts';
import type { ChainStore } from './store.ts';
import { feeOf } from './treasury.ts';
import { Sweeper, type Fees } from './sweeper.ts';
import { withLease } from '../storage/leases.ts';
import { randomUUID } from 'node:crypto';

/** The calls of EIP-3009 the relay makes or reads, with both signature forms (USDC v2.2 takes bytes; every version v, r, s). */
export const EIP3009_ABI = parseAbi([
  'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)',
  'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature)',
  'function authorizationState(address authorizer, bytes32 nonce) view returns (bool)',
  'function DOMAIN_SEPARATOR() view returns (bytes32)',
  'function balanceOf(address owner) view returns (uint256)',
  'event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)',
  'event Transfer(address indexed from, address indexed to, uint256 value)',
]);

export const TRANSFER_WITH_AUTHORIZATION_TYPES = {
  TransferWithAuthorization: [
    { name: 'from', type: 'address' },
    { name: 'to', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' },
    { name: 'validBefore', type: 'uint256' },
    { name: 'nonce', type: 'bytes32' },
  ],
} as const;

/** What a relay's sender is told: `afford` what it would cost (it throws to send nothing, and answers the most it may cost once re-priced), `mined` its receipt. */
export interface RelayHooks {
  afford?: (cost: RelayCost) => Promise<bigint | undefined>;
  mined?: (receipt: TransactionReceipt) => Promise<void>;
}

/** A signed TransferWithAuthorization, as the customer's wallet made it. */
export interface TransferAuthorization {
  from: Address;
  to: Address;
  value: bigint;
  validAfter: bigint;
  validBefore: bigint;
  nonce: Hex;
  signature: Hex;
}

/** What the authorization must pay: the payment's chain, token, deposit address and what is still due. */
export interface RelayTarget {
  chainId: number;
  token: Address;
  address: Address;
  due: bigint;
}

/** The most gas one relayed transfer may use: an EIP-3009 transfer is ~60-90k, a contract wallet's ERC-1271 check adds its own. */
export const RELAY_GAS_CEILING = 300_000n;

/** Time left before validBefore that a relay still takes: time to be mined (a block or two, and a re-price). */
export const RELAY_MARGIN_SECONDS = 30n;

// The relay's settings of a network (NETWORKS_FILE, read by config.ts), declared beside the relay that reads them.
declare module './networks.ts' {
  interface Network {
    /**
     * Paying with one signature: the most one relay may cost the gas wallet, in wei of the native
     * coin: the gas limit it is sent with × its max fee, re-pricings included (a relay is never
     * re-priced past it); one that would cost more at the fee it would be sent with is refused and
     * the customer pays by transfer. RELAY_MAX_GAS_WEI by default.
     */
    relayMaxGasWei?: bigint;
    /** The most one merchant's relays (of a mode) may cost on this chain in 24 hours, in wei, as journaled: RELAY_DAILY_GAS_WEI by default. */
    relayDailyGasWei?: bigint;
  }
}

/** What a relay would cost, asked before it is sent: the node's gas estimate, the gas limit and max fee it would be sent with, and the gas wallet's balance (wei). */
export interface RelayCost {
  estimate: bigint;
  limit: bigint;
  maxFeePerGas: bigint;
  balance: bigint;
}

/**
 * The most one relay may cost the gas wallet where the network sets no `relayMaxGasWei`: 10^13
 * wei (0.00001 ETH). An EIP-3009 transfer is ~60-90k gas (sent with a limit of 72-108k), so it holds up to a max fee of ~0.09
 * gwei: a rollup's (Base, Optimism, Arbitrum: 0.001 to 0.05 gwei) many times over, and never
 * Ethereum's (a max fee of twice the base fee and a tip, 0.5 gwei and more), where the customer
 * pays by transfer.
 */
export const RELAY_MAX_GAS_WEI = 10_000_000_000_000n;
/** The most relays may cost for one merchant on one chain in 24 hours where the network sets no `relayDailyGasWei`: 10^16 wei (0.01 ETH), a thousand relays at the cap. */
export const RELAY_DAILY_GAS_WEI = 10_000_000_000_000_000n;
/** The window of the daily cap. */
export const RELAY_DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Whether the gas wallet may pay for a relay that would cost `cost`, asked before anything is
 * sent, with the most it can spend: its gas limit × the max fee it would be sent with, within the
 * network's cap per payment; `spentToday` (the merchant's sponsored gas on this chain in the last
 * 24 hours, journaled) and that within its daily cap; and the gas wallet holding it. Answers the
 * most the relay may cost once re-priced: what both caps leave it (it is re-priced no higher).
 * Each refusal a RelayDeclined (409 `relay_declined`) naming `gas.payment_cap`, `gas.daily_cap` or
 * `gas.wallet`: pay by transfer.
 */
export function assertRelayAffordable(network: Network, cost: RelayCost, spentToday: bigint): bigint {
  const spend = cost.limit * cost.maxFeePerGas;
  const perPayment = network.relayMaxGasWei ?? RELAY_MAX_GAS_WEI;
  const daily = network.relayDailyGasWei ?? RELAY_DAILY_GAS_WEI;
  const declined = (field: string, message: string) =>
    new RelayDeclined(`${field}: ${message}; nothing was sent, pay with a transfer`, [{ field, message: `${message}; pay with a transfer` }]);
  if (spend > perPayment)
    throw declined('gas.payment_cap', `relaying it may cost ${spend} wei on ${network.name}, more than the ${perPayment} wei one relay may cost`);
  if (spentToday + spend > daily)
    throw declined(
      'gas.daily_cap',
      `this merchant's relays on ${network.name} cost ${spentToday} wei in the last 24 hours; ${spend} more would pass the ${daily} wei a day`,
    );
  if (cost.balance < spend)
    throw declined('gas.wallet', `the gas wallet on ${network.name} holds ${cost.balance} wei, less than the ${spend} wei this relay needs`);
  return perPayment < daily - spentToday ? perPayment : daily - spentToday;
}

/** The token's EIP-712 domain, as configured (`"eip3009": { "name", "version" }`), on this network. */
export function authorizationDomain(network: Network, token: Token) {
  if (!token.eip3009) throw new Error(`${token.symbol} on chain ${network.chainId} does not sign (no eip3009 in its network file)`);
  return { name: token.eip3009.name, version: token.eip3009.version, chainId: network.chainId, verifyingContract: token.address };
}

/** The call that brings the authorization on chain: v, r, s for a key's 65-byte signature (every USDC version takes it), the bytes otherwise (ERC-1271). */
export function relayCallData(a: TransferAuthorization): Hex {
  const head = [a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce] as const;
  if (size(a.signature) === 65) {
    const { r, s, v, yParity } = parseSignature(a.signature);
    return encodeFunctionData({ abi: EIP3009_ABI, functionName: 'transferWithAuthorization', args: [...head, Number(v ?? BigInt(27 + yParity)), r, s] });
  }
  return encodeFunctionData({ abi: EIP3009_ABI, functionName: 'transferWithAuthorization', args: [...head, a.signature] });
}

/**
 * Everything checked before any gas is spent, cheapest first; each refusal names its field
 * (400), a nonce already used on the chain is a 409. The chain is asked: the token's domain
 * (its DOMAIN_SEPARATOR against the configured one), the signature (a key's, or a contract
 * wallet's through ERC-1271 / ERC-6492, by viem's verifyTypedData), the nonce
 * (authorizationState), the payer's balance, and last the call itself, simulated from `relayer`.
 */
export async function checkAuthorization(
  rpc: PublicClient,
  network: Network,
  target: RelayTarget,
  chainId: number,
  a: TransferAuthorization,
  nowSeconds: bigint,
  relayer: Address,
): Promise<void> {
  if (chainId !== target.chainId || chainId !== network.chainId)
    throw invalidField('chain_id', `expected ${target.chainId}, the payment's chain, received ${chainId}`);
  const token = network.tokens.find((t) => isAddressEqual(t.address, target.token));
  if (!token?.eip3009)
    throw invalidField(
      'authorization',
      `${token?.symbol ?? target.token} on chain ${network.chainId} takes no signed transfer (EIP-3009): pay with a transfer`,
    );
  if (!isAddressEqual(a.to, target.address)) throw invalidField('authorization.to', `expected the payment's deposit address ${target.address}`);
  if (a.value !== target.due) throw invalidField('authorization.value', `expected ${target.due} (what is due, in base units), received ${a.value}`);
  if (a.validBefore <= nowSeconds + RELAY_MARGIN_SECONDS)
    throw invalidField('authorization.validBefore', `expired, or too close to expiring to be mined (at least ${RELAY_MARGIN_SECONDS} s from now)`);
  if (a.validAfter >= nowSeconds) throw invalidField('authorization.validAfter', 'not valid yet');
  const domain = authorizationDomain(network, token);
  const separator = await rpc.readContract({ address: token.address, abi: EIP3009_ABI, functionName: 'DOMAIN_SEPARATOR' });
  if (
    separator !==
    hashDomain({
      domain: { ...domain, chainId: BigInt(domain.chainId) },
      types: {
        EIP712Domain: [
          { name: 'name', type: 'string' },
          { name: 'version', type: 'string' },
          { name: 'chainId', type: 'uint256' },
          { name: 'verifyingContract', type: 'address' },
        ],
      },
    })
  ) {
    throw new Error(
      `${token.symbol} on chain ${network.chainId}: the configured eip3009 domain (${domain.name}, ${domain.version}) is not the token's DOMAIN_SEPARATOR`,
    );
  }
  const { signature, ...message } = a;
  const signed = await rpc.verifyTypedData({
    address: a.from,
    domain,
    types: TRANSFER_WITH_AUTHORIZATION_TYPES,
    primaryType: 'TransferWithAuthorization',
    message,
    signature,
  });
  if (!signed) throw invalidField('signature', `not a TransferWithAuthorization signed by ${a.from} for this token on chain ${network.chainId}`);
  if (await rpc.readContract({ address: token.address, abi: EIP3009_ABI, functionName: 'authorizationState', args: [a.from, a.nonce] })) {
    throw new Conflict('authorization.nonce: used or canceled on the chain already', [
      { field: 'authorization.nonce', message: 'used or canceled on the chain already' },
    ]);
  }
  const balance = await rpc.readContract({ address: token.address, abi: EIP3009_ABI, functionName: 'balanceOf', args: [a.from] });
  if (balance < a.value) throw invalidField('authorization.from', `holds ${balance} of ${token.symbol}, less than ${a.value}`);
  try {
    await rpc.call({ account: relayer, to: token.address, data: relayCallData(a) });
  } catch (error) {
    // The node not answering is no refusal of the token's: a 503, sent again later.
    if (error instanceof BaseError && error.walk((e) => e instanceof HttpRequestError || e instanceof TimeoutError || e instanceof WebSocketRequestError))
      throw new Unavailable(`the node of ${network.name} did not answer the relay's simulation; send the same signature again shortly`);
    throw invalidField('authorization', `the token refuses it: ${(error as Error).message.split('\n')[0]}`);
  }
}

/** Where a used authorization went: the transaction that used it, and whether it paid `to` `value` from `from`. */
export interface UsedAuthorization {
  txHash: Hex;
  paid: boolean;
  /** Who sent that transaction: the gas wallet, or someone who brought the same signature on chain first. */
  sender: Address;
  /** What it cost its sender, in wei of the native coin. */
  fee: bigint;
}

/**
 * A network's relay: the gas wallet's sender (the sweeper's, under its lease, so a relay never
 * races a sweep for the wallet's nonce) and the reads the checks make.
 */
export class Relayer {
  readonly rpc: PublicClient;
  private readonly sender: Sweeper;
  /** The relay that holds the gas wallet in this instance last: each relay waits for the one before it (see send). */
  private queue: Promise<void> = Promise.resolve();

  constructor(
    readonly network: Network,
    readonly gas: LocalAccount,
    private readonly store: Pick<ChainStore, 'sweeps'>,
    private readonly instance: string,
    private readonly now: () => number,
  ) {
    this.rpc = createPublicClient({ cacheTime: 0, transport: networkTransport(network) }) as PublicClient;
    // A customer waits on it: re-priced after 20 s unmined, given up after 2 minutes (the same signature again then answers whatever was mined).
    // Its holder is never used: each relay takes the lease under its own name (send).
    this.sender = new Sweeper({ network, store, gas, holder: `${instance}/relay`, now, replaceAfterMs: 20_000, timeoutMs: 120_000 });
  }

  /**
   * Waits for this instance's relays on this chain queued before it, at most until `until`
   * (ms since the epoch): the release to call once done, or undefined when the wait ran out (its
   * place in the queue is then passed on as soon as the relay before it is done).
   */
  private async turn(until: number): Promise<(() => void) | undefined> {
    const before = this.queue;
    let release!: () => void;
    this.queue = new Promise<void>((resolve) => (release = resolve));
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), Math.max(until - Date.now(), 0))));
    const mine = await Promise.race([before.then(() => true as const), late]);
    clearTimeout(timer);
    if (mine) return release;
    void before.then(release);
    return undefined;
  }

  /** Whether `from`'s nonce is used (or canceled) on the token. */
  used(token: Address, from: Address, nonce: Hex): Promise<boolean> {
    return this.rpc.readContract({ address: token, abi: EIP3009_ABI, functionName: 'authorizationState', args: [from, nonce] });
  }

  /**
   * The transaction that used `from`'s nonce, found by its AuthorizationUsed event in the last
   * blocks the network's log range allows (an authorization lives as long as its quote), and
   * whether it moved `value` from `from` to `to` (a canceled nonce has no such transaction).
   */
  async usedBy(token: Address, a: Pick<TransferAuthorization, 'from' | 'to' | 'value' | 'nonce'>): Promise<UsedAuthorization | undefined> {
    const head = await this.rpc.getBlockNumber();
    const range = BigInt(this.network.logRange ?? 2000);
    const logs = await this.rpc.getLogs({
      address: token,
      event: EIP3009_ABI.find((item) => item.type === 'event' && item.name === 'AuthorizationUsed') as Extract<
        (typeof EIP3009_ABI)[number],
        { name: 'AuthorizationUsed' }
      >,
      args: { authorizer: a.from, nonce: a.nonce },
      fromBlock: head > range ? head - range : 0n,
      toBlock: head,
    });
    const log = logs.at(-1);
    if (!log?.transactionHash) return undefined;
    const receipt = await this.rpc.getTransactionReceipt({ hash: log.transactionHash });
    const transfers = parseEventLogs({ abi: EIP3009_ABI, eventName: 'Transfer', logs: receipt.logs.filter((l) => isAddressEqual(l.address, token)) });
    const paid = transfers.some((t) => isAddressEqual(t.args.from, a.from) && isAddressEqual(t.args.to, a.to) && t.args.value === a.value);
    return { txHash: log.transactionHash, paid, sender: receipt.from, fee: feeOf(receipt) };
  }

  /**
   * Brings a checked authorization on chain from the gas wallet as a sweep is sent (the sweeper's
   * nonce, fees and re-pricing), under the chain's sweeper lease (never racing a sweep for the
   * wallet's nonce), unless it is used meanwhile; `busy` when the gas wallet is not free within
   * 15 s. Once the lease is held: `afford` is shown what it would cost, and throws to send
   * nothing; `mined` is told the receipt while the lease is still held (so the next relay's
   * `afford` sees what this one cost).
   *
   * One relay at a time per chain: within this instance, each waits its turn in the relayer's
   * queue (take the lease, the caps, send, journal, release, in that order, before the next one
   * starts, so the next one's daily cap counts what this one cost, and no two of them take the
   * same nonce); across instances, the lease, taken under a name of this relay's own, held
   * exactly while it is in flight and released by that name only (so finishing never frees the
   * lease of another relay, and a sweep of another instance waits until the relay is done).
   */
  async send(
    token: Address,
    a: TransferAuthorization,
    hooks: RelayHooks = {},
    waitMs = 15_000,
  ): Promise<{ receipt: TransactionReceipt } | { done: true } | { busy: true }> {
    const [chainId, data, leaseMs, until] = [this.network.chainId, relayCallData(a), 60_000, Date.now() + waitMs];
    const done = await this.turn(until);
    if (!done) return { busy: true }; // this instance's relays before it hold the gas wallet
    try {
      return await this.sendInTurn(token, a, hooks, data, leaseMs, until, chainId);
    } finally {
      done();
    }
  }

  private async sendInTurn(
    token: Address,
    a: TransferAuthorization,
    hooks: RelayHooks,
    data: Hex,
    leaseMs: number,
    until: number,
    chainId: number,
  ): Promise<{ receipt: TransactionReceipt } | { done: true } | { busy: true }> {
    const holder = `${this.instance}/relay/${randomUUID()}`;
    for (;;) {
      const run = await withLease(
        {
          take: () => this.store.sweeps.leaseSweeper(chainId, holder, this.now(), leaseMs),
          release: () => this.store.sweeps.releaseSweeper(chainId, holder),
          ms: leaseMs,
        },
        async (lease): Promise<{ receipt: TransactionReceipt } | { done: true }> => {
          if (await this.used(token, a.from, a.nonce)) return { done: true };
          const fees: Fees = await this.sender.fees();
          const estimate = await this.rpc.estimateGas({ account: this.gas, to: token, data });
          const padded = (estimate * 6n) / 5n;
          const limit = padded < RELAY_GAS_CEILING ? padded : RELAY_GAS_CEILING;
          const maxFeePerGas = 'gasPrice' in fees ? fees.gasPrice : fees.maxFeePerGas;
          const most = await hooks.afford?.({ estimate, limit, maxFeePerGas, balance: await this.rpc.getBalance({ address: this.gas.address }) });
          // Re-priced no higher than the max fee at which its gas limit stays within what it may cost.
          const { receipt } = await this.sender.send(token, data, fees, limit, lease, typeof most === 'bigint' ? most / limit : undefined);
          await hooks.mined?.(receipt);
          return { receipt };
        },
      );
      if (run.held) return run.value;
      if (Date.now() > until) return { busy: true }; // a sweep (or another instance's relay) holds the lease
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}
