// Paying with one signature: the relay brings a checked EIP-3009 TransferWithAuthorization
// (relay-authorization.ts) on chain from the operator's gas wallet, within its caps
// (relay-caps.ts), one at a time per chain, each of its transactions recorded before it is
// broadcast (relay-store.ts) so that its gas is journaled once whenever it is mined
// (relay-job.ts). The watcher credits the transfer like any other.
import {
  createPublicClient,
  isAddressEqual,
  parseEventLogs,
  type Address,
  type Hex,
  type LocalAccount,
  type PublicClient,
  type TransactionReceipt,
} from 'viem';
import { EIP3009_ABI, relayCallData, type TransferAuthorization } from './relay-authorization.ts';
import { assertRelayAllowed, RELAY_DAY_MS, type RelayCost } from './relay-caps.ts';
import { networkTransport, type Network } from './networks.ts';
import { relayOutcome } from './relay-outcome.ts';
import type { ChainStore } from './store.ts';
import { feeOf } from './treasury.ts';
import { Sweeper, type Fees } from './sweeper.ts';
import { withLease } from '../storage/leases.ts';
import { randomUUID } from 'node:crypto';

/** Whose payment a relay pays: what its record names (its payer is the authorization's `from`). */
export interface RelayFor {
  merchantId: string;
  mode: string;
  reference: string;
}

/** What a relay's sender is told: `afford` what it would cost (it throws to send nothing, and answers the most it may cost once re-priced), `mined` its receipt. */
export interface RelayHooks {
  afford?: (cost: RelayCost) => Promise<bigint | undefined>;
  mined?: (receipt: TransactionReceipt) => Promise<void>;
}

/** The most gas one relayed transfer may use: an EIP-3009 transfer is ~60-90k, a contract wallet's ERC-1271 check adds its own. */
export const RELAY_GAS_CEILING = 300_000n;

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
    private readonly store: Pick<ChainStore, 'sweeps' | 'relays'>,
    private readonly instance: string,
    private readonly now: () => number,
    timeoutMs = 120_000,
  ) {
    this.rpc = createPublicClient({ cacheTime: 0, transport: networkTransport(network) }) as PublicClient;
    // A customer waits on it: re-priced after 20 s unmined, given up after `timeoutMs` (2 minutes; the relay job then journals it
    // whenever it is mined, and the same signature again answers whatever was). No holder: each relay takes the lease under its own name (send).
    this.sender = new Sweeper({ network, store, gas, now, replaceAfterMs: 20_000, timeoutMs });
  }

  /** What relays under way on this chain may still cost (wei), recorded before each was broadcast: a merchant's (of a mode), or every merchant's. */
  reserved(of?: { merchantId: string; mode: string }): Promise<bigint> {
    return this.store.relays.reserved(this.network.chainId, of);
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
   * 15 s. Once the lease is held: a payment relayed already, or a payer past its relays a day, is
   * refused (assertRelayAllowed); `afford` is shown what it would cost, and throws to send
   * nothing; each transaction is recorded before it is broadcast (its payment, payer, nonce, and
   * gas limit × max fee as the most it may cost); `mined` is told the receipt while the lease is
   * still held (so the next relay's `afford` sees what this one cost), and the record is done.
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
    payment: RelayFor,
    hooks: RelayHooks = {},
    waitMs = 15_000,
  ): Promise<{ receipt: TransactionReceipt } | { done: true } | { busy: true }> {
    const [chainId, data, leaseMs, until] = [this.network.chainId, relayCallData(a), 60_000, Date.now() + waitMs];
    const done = await this.turn(until);
    if (!done) return { busy: true }; // this instance's relays before it hold the gas wallet
    try {
      return await this.sendInTurn(token, a, payment, hooks, data, leaseMs, until, chainId);
    } finally {
      done();
    }
  }

  private async sendInTurn(
    token: Address,
    a: TransferAuthorization,
    payment: RelayFor,
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
          const relays = this.store.relays;
          assertRelayAllowed(this.network, payment.reference, a.from, {
            ofPayment: await relays.ofPayment(payment.merchantId, payment.mode, payment.reference),
            ofPayerToday: await relays.ofPayerSince(chainId, a.from, this.now() - RELAY_DAY_MS),
          });
          const fees: Fees = await this.sender.fees();
          const estimate = await this.rpc.estimateGas({ account: this.gas, to: token, data });
          const padded = (estimate * 6n) / 5n;
          const limit = padded < RELAY_GAS_CEILING ? padded : RELAY_GAS_CEILING;
          const maxFeePerGas = 'gasPrice' in fees ? fees.gasPrice : fees.maxFeePerGas;
          const most = await hooks.afford?.({ estimate, limit, maxFeePerGas, balance: await this.rpc.getBalance({ address: this.gas.address }) });
          // Recorded before each broadcast, with the most it may cost: mined after the customer stopped waiting
          // (or the service stopped), the relay job finds it and journals its gas.
          const record = { id: randomUUID(), chainId, ...payment, payer: a.from };
          const sent = { nonce: -1, hashes: [] as string[] };
          const signed = (hash: Hex, nonce: number, at: Fees) => {
            [sent.nonce, sent.hashes] = [nonce, [...sent.hashes, hash]];
            return relays.signed({ ...record, nonce, reservedWei: limit * ('gasPrice' in at ? at.gasPrice : at.maxFeePerGas) }, hash, this.now());
          };
          // Re-priced no higher than the max fee at which its gas limit stays within what it may cost.
          const ceiling = typeof most === 'bigint' ? most / limit : undefined;
          const { receipt } = await this.sender.send(token, data, fees, limit, lease, ceiling, signed).catch(async (error: unknown) => {
            // Its nonce taken by another transaction (seen in the head block) and none of its own mined: nothing was spent, and the
            // payment may be relayed again. Its nonce merely seen used without its receipt: left to the relay job (it may be mined).
            if (sent.hashes.length && (await relayOutcome(this.rpc, this.gas.address, sent.nonce, sent.hashes).catch(() => undefined)) === 'dropped')
              await relays.finished(record.id, 'dropped', this.now());
            throw error;
          });
          await hooks.mined?.(receipt);
          await relays.finished(record.id, { mined: receipt.transactionHash }, this.now());
          return { receipt };
        },
      );
      if (run.held) return run.value;
      if (Date.now() > until) return { busy: true }; // a sweep (or another instance's relay) holds the lease
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}
