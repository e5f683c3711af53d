// Sweeping: what deposit addresses received moves on to the payout addresses they are bound
// to, many deposits in one transaction, with gas paid by the operator's gas-only wallet. That
// wallet holds no merchant money and its key cannot move any: a deposit sends what it holds
// only to the payout address inside its CREATE2 address (contracts/Deposit.sol).
//
// One sweeper per chain at a time (a lease in the database, so instances sharing the gas key
// never race for its nonce); each sweep at the nonce the chain says is next, with fees under
// the network's cap, replaced with higher fees when it is not mined in time, and counted only
// when one of its own transactions is mined. A sweep is final once its block has the network's
// confirmations; until then each tick looks at it again, and one whose block left the chain is
// undone so that its deposits are swept again (and, on balance settlement, not journaled). Final
// sweeps are looked at again until the chain finalizes them (sweep-recheck.ts).
import {
  BaseError,
  erc20Abi,
  TransactionReceiptNotFoundError,
  createPublicClient,
  createWalletClient,
  decodeErrorResult,
  encodeFunctionData,
  keccak256,
  parseEventLogs,
  type Address,
  type Hex,
  type LocalAccount,
  type PublicClient,
  type TransactionReceipt,
  type Transport,
  zeroAddress,
} from 'viem';
import type { ChainStore } from './store.ts';
import type { SweepTarget } from './sweep-store.ts';
import { gone, recheckFinalSweeps, timeOf, type Vanished } from './sweep-recheck.ts';
import { lookAtNonce, REPLACED_AFTER_MS } from './nonce-look.ts';
import { withLease, type HeldLease } from '../storage/leases.ts';
import { DepositFactory } from '../../contracts/artifacts.generated.ts';
import { chainOf, countedUpTo, create2Addresses, minimumUnits, networkTransport, saltOf, type DepositFee, type Network } from './networks.ts';
import { feeFraction } from '../domain/fees.ts';

/** The fee bound into a target's deposit (contracts/Deposit.sol), or null. */
const depositFeeOf = (t: SweepTarget): DepositFee | null => (t.fee ? { to: t.fee.to as Address, ...feeFraction(t.fee) } : null);

/** A deposit left out of a sweep: whose, which token, and the revert that said why. */
export interface Stuck {
  reference: string;
  token: string;
  reason: string;
}

export interface SweeperOptions {
  network: Network;
  store: Pick<ChainStore, 'sweeps'>;
  /** The operator's gas-only wallet: it pays for sweeps and can do nothing else with deposits. */
  gas: LocalAccount;
  /** Who this instance is, for the sweeper lease. */
  holder?: string;
  /** Deposits per transaction: ~83k gas a deposit on its first sweep (it deploys the deposit's proxy), ~30k later. */
  batch?: number;
  /** How long a claimed sweep is left to its sweeper before another may try it. */
  claimMs?: number;
  /** How long a deposit whose sweep fails on its own (a frozen address, a paused token) waits before it is tried again. */
  stuckMs?: number;
  /** How long a sweep may wait in the pool before it is sent again with higher fees. */
  replaceAfterMs?: number;
  /** How long a sweep is waited for, replacements included, before the tick gives up (its claims then run out). */
  timeoutMs?: number;
  /**
   * How long the gas wallet's nonce may be seen used with none of our transactions answering a
   * receipt before the sweep counts as replaced by another's (at once when the head block shows
   * that other transaction): a node counts a mined nonce before it serves that block's receipts
   * (anvil does, under load), and behind a load balancer the two questions may reach nodes a
   * block apart. 5 s.
   */
  replacedAfterMs?: number;
  leaseMs?: number;
  /** How often final sweeps still above the chain's finalized block are looked at again (a reorganisation deeper than the confirmations); 60 s. */
  recheckMs?: number;
  /** Told at once of final sweeps found taken away (before this tick's sweep, which may wait long to be mined). */
  onVanished?: (vanished: Vanished[]) => Promise<void>;
  now?: () => number;
}

export interface SweepResult {
  swept: number;
  moved?: number;
  hash?: Hex;
  /** Every transaction sent for this sweep, the mined one last: more than one when fees were raised. */
  sent?: Hex[];
  stuck: Stuck[];
  /** Another instance holds this chain's sweeper lease. */
  skipped?: boolean;
  /** Earlier sweeps whose block now has its confirmations. */
  final?: number;
  /** Earlier sweeps that left the chain (a reorganisation) or failed when mined again: their deposits are swept again. */
  undone?: Hex[];
  /** Final sweeps a reorganisation deeper than the confirmations took away, found at this tick's look again. */
  vanished?: Vanished[];
}

/**
 * The gas limit of a sweep of `count` targets: the node's estimate and a fifth more, never below
 * what each target could cost if it were full and undeployed when mined (anyone may sweep a
 * deposit first, so it estimates as empty, and fill it again just before ours), and never above
 * what the factory lets a batch spend (contracts/Deposit.sol gives each target's sweep at most
 * 150k gas, a deposit's deployment and its event ~60k more): a wrong node's estimate, or a
 * target that would burn whatever it is given, cannot make the gas wallet pay for a block.
 */
export function sweepGasLimit(estimate: bigint, count: number): bigint {
  const floor = 60_000n + 150_000n * BigInt(count);
  const ceiling = 60_000n + 250_000n * BigInt(count);
  const padded = (estimate * 6n) / 5n;
  const limit = padded > floor ? padded : floor;
  return limit < ceiling ? limit : ceiling;
}

/** Fees of one transaction: EIP-1559 where the chain has a base fee, a gas price where not. */
export type Fees = { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint } | { gasPrice: bigint };

export class Sweeper {
  private readonly rpc: PublicClient;
  private readonly transport: Transport;

  /**
   * Per token: how much late or other-token money a deposit must hold before it is swept on
   * its own, a hundred times the token's dust minimum (1 token by default). Less waits for
   * money that counts, or for more.
   */
  private readonly unmatchedMinimums: Map<string, bigint>;

  /** When final sweeps are next looked at again (recheckMs), and the vanished ones told with nothing to sweep again. */
  private nextRecheck = 0;
  private readonly leftTold = new Set<string>();

  constructor(private readonly o: SweeperOptions) {
    this.unmatchedMinimums = new Map(o.network.tokens.map((t) => [t.address.toLowerCase(), minimumUnits(t) * 100n]));
    this.transport = networkTransport(o.network);
    this.rpc = createPublicClient({ cacheTime: 0, transport: this.transport }) as PublicClient;
  }

  /**
   * Sweeps one batch of deposits whose money has its confirmations; answers what it did. The
   * factory sweeps each deposit on its own: one that fails (its token froze the address, or is
   * paused) is named by a SweepFailed event, left out for a while and reported, and never
   * holds its neighbours back. The sweep counts only when one of its own transactions is
   * mined and succeeded: one replaced by someone else's (a cancel) moved nothing.
   */
  async tick(): Promise<SweepResult> {
    const { network, store } = this.o;
    const now = this.o.now ?? Date.now;
    const holder = this.o.holder ?? 'sweeper';
    const leaseMs = this.o.leaseMs ?? 60_000;
    // One sweeper per chain; one that lost its lease (a tick that outlived it) sends nothing more.
    const run = await withLease(
      {
        take: () => store.sweeps.leaseSweeper(network.chainId, holder, now(), leaseMs),
        // Each sweep waits for its own transaction, so the next may come from any instance.
        release: () => store.sweeps.releaseSweeper(network.chainId, holder),
        ms: leaseMs,
      },
      async (lease) => {
        // Sweeps under way are looked at before and after this one: with one confirmation, a
        // sweep is final in the tick that sent it. Final ones now and then (one gone is swept again now).
        const vanished = await this.recheck(now);
        if (vanished.length) await this.o.onVanished?.(vanished);
        const [before, result, after] = [await this.lookAtFinality(), await this.sweepOnce(now, lease), await this.lookAtFinality()];
        const undone = [...before.undone, ...after.undone];
        return { ...result, final: before.final + after.final, undone, ...(vanished.length ? { vanished } : {}) };
      },
    );
    return run.held ? run.value : { swept: 0, stuck: [], skipped: true };
  }

  private async sweepOnce(now: () => number, lease: HeldLease): Promise<SweepResult> {
    const { network, store } = this.o;
    // Fees first: above the cap nothing is claimed, and the deposits wait for a cheaper block.
    const fees = await this.fees();
    const maxBlock = await countedUpTo(this.rpc, await this.rpc.getBlockNumber(), network.confirmations, network.finality);
    const targets = await store.sweeps.claimSweeps(
      network.chainId,
      maxBlock,
      now(),
      this.o.claimMs ?? 300_000,
      this.o.batch ?? 20,
      this.unmatchedMinimums,
      network.treasury,
    );
    if (targets.length === 0) return { swept: 0, stuck: [] };
    // A batch without a fee deposit is the plain sweep (the same calldata and gas as before fees).
    const data = targets.some((t) => t.fee)
      ? encodeFunctionData({ abi: DepositFactory.abi, functionName: 'sweepWithFees', args: [targets.map(this.feeArg)] })
      : encodeFunctionData({ abi: DepositFactory.abi, functionName: 'sweep', args: [targets.map(this.arg)] });
    let receipt: TransactionReceipt, sent: Hex[];
    const broadcast: Hex[] = []; // what of this sweep reached the node
    try {
      const limit = sweepGasLimit(await this.rpc.estimateGas({ account: this.o.gas, to: network.factory, data }), targets.length); // unused gas is not paid for
      ({ receipt, sent } = await this.send(network.factory, data, fees, limit, lease, undefined, undefined, broadcast));
    } catch (error) {
      // Refused for want of gas before any of it reached the node (viem's InsufficientFundsError misses anvil's capital I): the claims end now, not in 5 min.
      if (broadcast.length === 0 && error instanceof BaseError && /insufficient funds/i.test(error.message))
        for (const t of targets) await store.sweeps.postponeSweep(network.chainId, t, maxBlock, now());
      throw error;
    }
    const hash = receipt.transactionHash;
    // A reverted sweep moved nothing: its claims run out and the deposits are tried again.
    if (receipt.status !== 'success') throw new Error(`sweep ${hash} on chain ${network.chainId} reverted`);
    const ours = receipt.logs.filter((log) => log.address.toLowerCase() === network.factory.toLowerCase());
    const failed = new Map(
      parseEventLogs({ abi: DepositFactory.abi, eventName: 'SweepFailed', logs: ours }).map((e) => [
        `${e.args.deposit.toLowerCase()}/${e.args.token.toLowerCase()}`,
        reasonOf(e.args.reason),
      ]),
    );
    const addresses = create2Addresses(network.factory);
    const stuck: Stuck[] = [];
    const done: SweepTarget[] = [];
    for (const t of targets) {
      const deposit = addresses
        .addressFor({ merchantId: t.merchantId, mode: t.mode, reference: t.reference, payout: t.payout as Address, fee: depositFeeOf(t) })
        .toLowerCase();
      const reason = failed.get(`${deposit}/${t.token.toLowerCase()}`);
      if (reason === undefined) done.push(t);
      else {
        stuck.push({ reference: t.reference, token: t.token, reason });
        await store.sweeps.postponeSweep(network.chainId, t, maxBlock, now() + (this.o.stuckMs ?? 3_600_000));
      }
    }
    // The events say which deposits moved money (one with nothing left, say a second sweep, emits none).
    const sweptEvents = parseEventLogs({ abi: DepositFactory.abi, eventName: 'Swept', logs: ours });
    const moved = sweptEvents.length;
    if (done.length)
      await store.sweeps.swept(network.chainId, done, hash, {
        number: receipt.blockNumber,
        hash: receipt.blockHash,
        firstLog: receipt.logs[0]?.logIndex ?? 0,
        timeMs: await timeOf(this.rpc, receipt.blockHash, now),
      });
    await this.feesTaken(
      done,
      sweptEvents.map((e) => e.args),
      receipt.blockNumber,
      hash,
    );
    return { swept: done.length, moved, hash, sent, stuck };
  }

  /**
   * Of a token with a fee on transfer (Token.feeOnTransfer), what each payout address gained in
   * the sweep's block, split over the deposits it moved in proportion to what each sent (their
   * Swept events): kept per transfer, so that a balance-settled deposit is journaled at what the
   * treasury holds. Two balanceOf calls per payout and such token; none for any other token.
   * (Another movement of the payout's token in the same block, say a treasury withdrawal, would
   * be counted in: reconciliation then reports the difference, never hides it.)
   */
  private async feesTaken(
    done: SweepTarget[],
    swept: Array<{ deposit: Address; token: Address; payout: Address; amount: bigint }>,
    block: bigint,
    hash: Hex,
  ): Promise<void> {
    const { network, store } = this.o;
    const flagged = new Set(network.tokens.filter((t) => t.feeOnTransfer).map((t) => t.address.toLowerCase()));
    if (flagged.size === 0) return;
    const addresses = create2Addresses(network.factory);
    const groups = new Map<string, Array<{ target: SweepTarget; sent: bigint }>>();
    for (const target of done) {
      if (!flagged.has(target.token.toLowerCase())) continue;
      const deposit = addresses
        .addressFor({ merchantId: target.merchantId, mode: target.mode, reference: target.reference, payout: target.payout as Address })
        .toLowerCase();
      const sent = swept.find((e) => e.deposit.toLowerCase() === deposit && e.token.toLowerCase() === target.token.toLowerCase())?.amount ?? 0n;
      if (sent === 0n) continue;
      const key = `${target.payout.toLowerCase()}/${target.token.toLowerCase()}`;
      groups.set(key, [...(groups.get(key) ?? []), { target, sent }]);
    }
    for (const [key, group] of groups) {
      const [payout, token] = key.split('/') as [Address, Address];
      const balance = (at: bigint) => this.rpc.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [payout], blockNumber: at });
      const [before, after] = await Promise.all([balance(block - 1n), balance(block)]);
      const total = group.reduce((sum, g) => sum + g.sent, 0n);
      const gained = after - before < 0n ? 0n : after - before > total ? total : after - before;
      if (gained === total) continue;
      let left = gained;
      for (const [i, g] of group.entries()) {
        const share = i === group.length - 1 ? left : (gained * g.sent) / total;
        left -= share;
        await store.sweeps.sweptReceived(network.chainId, hash, g.target.paymentId, g.target.token, share);
      }
    }
  }

  /**
   * Looks at each recorded sweep that is not final: mined where it was recorded and deep
   * enough, it becomes final; mined again elsewhere (a reorganisation), it is recorded there,
   * and each deposit it moved nothing from this time (a SweepFailed, or no Swept: the money
   * came back after it) is undone; reverted, it is undone; gone, it is undone, and its
   * deposits are swept again. Gone means its recorded block is no longer on the chain and the
   * transaction is neither mined nor waiting in the pool: a node that answers nothing (behind
   * its peers, or an error such as a rate limit) says nothing about a sweep, which then waits.
   */
  private async lookAtFinality(): Promise<{ final: number; undone: Hex[] }> {
    const { network, store } = this.o;
    const open = await store.sweeps.openSweeps(network.chainId);
    const out = { final: 0, undone: [] as Hex[] };
    if (open.length === 0) return out;
    const head = await this.rpc.getBlockNumber();
    const upTo = await countedUpTo(this.rpc, head, network.confirmations, network.finality);
    for (const sweep of open) {
      const hash = sweep.hash as Hex;
      if (head < sweep.blockNumber) continue;
      let receipt: TransactionReceipt | undefined;
      try {
        receipt = await this.rpc.getTransactionReceipt({ hash });
      } catch (error) {
        if (!(error instanceof TransactionReceiptNotFoundError)) continue;
      }
      if (receipt ? receipt.status !== 'success' : await gone(this.rpc, hash, sweep)) {
        await store.sweeps.unsweep(network.chainId, hash);
        out.undone.push(hash);
        continue;
      }
      if (!receipt) continue;
      if (receipt.blockHash !== sweep.blockHash) {
        const ours = receipt.logs.filter((log) => log.address.toLowerCase() === network.factory.toLowerCase());
        const moved = new Set(
          parseEventLogs({ abi: DepositFactory.abi, eventName: 'Swept', logs: ours }).map(
            (e) => `${e.args.deposit.toLowerCase()}/${e.args.token.toLowerCase()}`,
          ),
        );
        const idle = sweep.deposits.filter((d) => !moved.has(`${d.address}/${d.token.toLowerCase()}`));
        if (idle.length && (await store.sweeps.unsweep(network.chainId, hash, idle))) out.undone.push(hash);
        await store.sweeps.sweepMoved(network.chainId, hash, {
          number: receipt.blockNumber,
          hash: receipt.blockHash,
          timeMs: await timeOf(this.rpc, receipt.blockHash, this.o.now ?? Date.now),
        });
      }
      if (receipt.blockNumber <= upTo) {
        await store.sweeps.sweepFinal(network.chainId, hash);
        out.final++;
      }
    }
    return out;
  }

  /** Final sweeps taken away, every `recheckMs` (sweep-recheck.ts). */
  private async recheck(now: () => number): Promise<Vanished[]> {
    if (now() < this.nextRecheck) return [];
    this.nextRecheck = now() + (this.o.recheckMs ?? 60_000);
    return recheckFinalSweeps(this.rpc, this.o.network, this.o.store.sweeps, now, this.leftTold);
  }

  private readonly arg = (t: SweepTarget) => ({ payout: t.payout as Address, salt: saltOf(t.merchantId, t.mode, t.reference), token: t.token as Address });
  private readonly feeArg = (t: SweepTarget) => {
    const fee = depositFeeOf(t);
    return { ...this.arg(t), feeTo: fee?.to ?? zeroAddress, feeNumerator: fee?.numerator ?? 0, feeDenominator: fee?.denominator ?? 1 };
  };

  /**
   * Sends `data` to the factory at the gas wallet's next nonce, and waits for it. Not mined
   * within `replaceAfterMs`: the same transaction again at the same nonce with fees an eighth
   * higher (the least a node takes as a replacement), never past the network's cap. Answers
   * the receipt of whichever of ours was mined; throws when the nonce went to a transaction
   * that is not ours (none of ours answering a receipt for `replacedAfterMs` after the nonce
   * was seen used), or when nothing was mined in `timeoutMs`. Each send (a replacement too)
   * only while the lease is still held: LeaseLost otherwise, and the claims run out. A relay
   * (server/chain/relay.ts) is sent this way too, under the same lease, re-priced no higher than
   * its `feeCeiling` (the max fee, or gas price, at which it stays within its caps), each of its
   * transactions shown to `signed` before it is broadcast (the relay records it there). `sent` gets each hash the node took, thrown or not.
   */
  async send(
    to: Address,
    data: Hex,
    initial: Fees,
    limit: bigint,
    lease: HeldLease,
    feeCeiling?: bigint,
    signed?: (hash: Hex, nonce: number, fees: Fees) => Promise<void>,
    sent: Hex[] = [],
  ): Promise<{ receipt: TransactionReceipt; sent: Hex[] }> {
    const { network, gas } = this.o;
    const wallet = createWalletClient({ account: gas, transport: this.transport });
    // The nonce after the last mined transaction: a sweep of ours left in the pool by a stopped
    // instance is replaced by this one rather than queued behind it.
    const nonce = await this.rpc.getTransactionCount({ address: gas.address, blockTag: 'latest' });
    let fees = initial;
    const submit = async () => {
      await lease.hold();
      const request = await wallet.prepareTransactionRequest({ chain: chainOf(network), to, data, nonce, gas: limit, ...fees } as Parameters<
        typeof wallet.prepareTransactionRequest
      >[0]);
      const raw = await gas.signTransaction(request as Parameters<typeof gas.signTransaction>[0]);
      await signed?.(keccak256(raw), nonce, fees);
      try {
        sent.push(await wallet.sendRawTransaction({ serializedTransaction: raw }));
      } catch (error) {
        // A node that already has one of ours at this nonce with close fees says so; the next
        // bump goes higher. Anything else (the node unreachable) ends this try.
        if (!(error instanceof BaseError && /underpriced|already known|nonce too low/i.test(error.message))) throw error;
      }
    };
    await submit();
    const started = Date.now();
    let last = started;
    /** When the nonce was first seen used with none of ours answering a receipt. */
    let used: number | undefined;
    for (;;) {
      // Replaced when the head block shows another transaction at the nonce, or once the nonce
      // is seen used with none of ours answering a receipt for a while (its receipt may be late).
      const look = await lookAtNonce(this.rpc, gas.address, nonce, sent);
      if (typeof look === 'object') return { receipt: look, sent };
      if (look) {
        used ??= Date.now();
        if (look === 'taken' || Date.now() - used >= (this.o.replacedAfterMs ?? REPLACED_AFTER_MS))
          throw new Error(`sweep ${sent[0] ?? '(not sent)'} on chain ${network.chainId} was replaced by another transaction at nonce ${nonce}`);
        await new Promise((resolve) => setTimeout(resolve, 250));
        continue;
      }
      if (Date.now() - started > (this.o.timeoutMs ?? 600_000))
        throw new Error(`sweep on chain ${network.chainId} not mined after ${sent.length} sends; left to the next sweep`);
      if (Date.now() - last > (this.o.replaceAfterMs ?? 60_000)) {
        const bumped = this.bump(fees, feeCeiling);
        if (bumped) {
          fees = bumped;
          await submit();
        }
        last = Date.now();
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  /** What the chain asks now, capped at the network's `maxFeePerGas`; throws when even the base fee is above the cap. */
  async fees(): Promise<Fees> {
    const cap = this.o.network.maxFeePerGas;
    const block = await this.rpc.getBlock({ blockTag: 'latest' });
    if (block.baseFeePerGas == null) {
      const gasPrice = await this.rpc.getGasPrice();
      if (cap !== undefined && gasPrice > cap) throw new Error(`gas price ${gasPrice} on chain ${this.o.network.chainId} is above the cap ${cap}; sweeps wait`);
      return { gasPrice };
    }
    if (cap !== undefined && block.baseFeePerGas > cap)
      throw new Error(`base fee ${block.baseFeePerGas} on chain ${this.o.network.chainId} is above the cap ${cap}; sweeps wait`);
    const tip = await this.rpc.estimateMaxPriorityFeePerGas().catch(() => 1_000_000_000n);
    let maxFeePerGas = block.baseFeePerGas * 2n + tip;
    if (cap !== undefined && maxFeePerGas > cap) maxFeePerGas = cap;
    return { maxFeePerGas, maxPriorityFeePerGas: tip < maxFeePerGas ? tip : maxFeePerGas };
  }

  /** Fees an eighth higher, or undefined when that would pass the network's cap or `ceiling`. */
  private bump(fees: Fees, ceiling?: bigint): Fees | undefined {
    const up = (n: bigint) => n + n / 8n + 1n;
    const network = this.o.network.maxFeePerGas;
    const cap = ceiling === undefined || (network !== undefined && network < ceiling) ? network : ceiling;
    const next: Fees =
      'gasPrice' in fees ? { gasPrice: up(fees.gasPrice) } : { maxFeePerGas: up(fees.maxFeePerGas), maxPriorityFeePerGas: up(fees.maxPriorityFeePerGas) };
    const top = 'gasPrice' in next ? next.gasPrice : next.maxFeePerGas;
    return cap !== undefined && top > cap ? undefined : next;
  }
}

/** A failed deposit's revert, in words: the token's own reason when it gave one. */
export function reasonOf(data: Hex): string {
  try {
    const decoded = decodeErrorResult({ abi: [{ type: 'error', name: 'Error', inputs: [{ name: 'message', type: 'string' }] }], data });
    return String(decoded.args[0]);
  } catch {
    return data === '0x' ? 'reverted without a reason' : `reverted with ${data.slice(0, 74)}`;
  }
}
