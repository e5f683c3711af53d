// The chain watcher: reads Transfer logs of a network's token contracts from a cursor kept in
// the database, records those to deposit addresses, counts them on their payments once they
// have the network's confirmations, and takes them back if their block leaves the chain.
// Its cost per block does not grow with the number of open payments: one eth_getLogs per
// range of blocks for every token at once, matched against deposit addresses in one query.
import { BaseError, createPublicClient, parseAbiItem, type PublicClient } from 'viem';
import { countedUpTo, rpcTransport, type ChainPin, type Finality, type RpcEvents } from './networks.ts';
import type { ChainStore, Cursor, SeenTransfer, TransferState } from './store.ts';
import { creditConfirmed, type PaymentCredits } from './confirmed.ts';
import { receivedAmounts } from './received.ts';
import { withLease } from '../storage/leases.ts';

/**
 * The longest wait between attempts while the RPC endpoint fails: short enough that the
 * watcher is back within seconds of the endpoint, long enough not to hammer a provider.
 */
export const MAX_BACKOFF_MS = 10_000;

/**
 * The longest the watcher's loop goes on a quiet chain (the head the last full tick left: the
 * same number, the same hash) asking the node only for its head: then a full tick, whatever the
 * head. What does not follow a new block waits at most this long (a credit retried after a
 * failure does not: a failed tick is followed by a full one). Kept under a third of the lease,
 * which only a full tick renews.
 */
export const QUIET_MS = 5_000;

export const TRANSFER = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');

export interface WatcherOptions {
  chainId: number;
  /** One or more RPC URLs: viem's fallback transport fails over between them in order. */
  rpcUrls: string[];
  /** A transfer counts once its block has this many blocks on top of it, itself included. */
  confirmations: number;
  /** And, where set, once its block is at or below the chain's own safe or finalized block. */
  finality?: Finality;
  /** The token contracts of this network the service takes. */
  tokens: `0x${string}`[];
  /** Per token (lower-case address): transfers below this many base units are dust. */
  minimums?: Map<string, bigint>;
  store: ChainStore;
  credits: PaymentCredits;
  /** Who this instance is, for the watcher lease. */
  holder: string;
  now?: () => number;
  /** The first block to scan on a chain never watched before; the current head by default. */
  startBlock?: bigint;
  /** Blocks per eth_getLogs call (providers cap it). */
  maxRange?: bigint;
  /**
   * Up to this many deposit addresses on the chain, the node is asked only for transfers to
   * them (a topic filter: on a busy token, a thousandth of the logs); beyond, for all of the
   * tokens' transfers, matched here. 1,000 by default; 0 never filters.
   */
  filterUpTo?: number;
  /** How far back block hashes are kept and compared. */
  reorgDepth?: bigint;
  leaseMs?: number;
  /** Counts every RPC call, for the bench and the tests. */
  onRpc?: (method: string) => void;
  /** Told of the RPC's failed calls and failovers (/metrics). */
  rpcEvents?: RpcEvents;
  /** The chain id its RPC URLs must answer (Network.rpcPin). */
  rpcPin?: ChainPin;
  /**
   * The other chains of this chain's mode whose payments' deposit addresses are this chain's too
   * (Network.sameAddresses): money sent here to one of them is recorded as `unexpected` (never
   * counted: it is not the payment's token on the payment's chain), told, and swept here.
   */
  others?: { mode: string; chainIds: number[] };
  /** Tokens (lower-case addresses) that take a fee on transfer: credited what the address gained (Token.feeOnTransfer). */
  feeOnTransfer?: string[];
  /** Told after each tick how the chain is followed (/metrics): whichever instance holds the lease. */
  onStatus?: (status: WatchStatus) => void;
  /** The loop's longest run of quiet turns (QUIET_MS by default; 0: every turn a full tick); at most a third of leaseMs. */
  quietMs?: number;
  /** The clock quiet turns are measured by, in ms: performance.now() by default (a test's own). */
  monotonic?: () => number;
}

/** Whether the node answered the head, and how many blocks the chain's cursor is behind it (unknown until it answers). */
export interface WatchStatus {
  rpcUp: boolean;
  lagBlocks?: bigint;
}

export interface TickResult {
  skipped?: boolean;
  /** The loop's turn found the head the last full tick left, and asked nothing more (start()). */
  quiet?: boolean;
  /** The node answered a head below what was already scanned: a lagging node, so nothing was done. */
  lagging?: boolean;
  head?: bigint;
  scanned?: { from: bigint; to: bigint };
  /**
   * The head block's hash as this tick vouched for it: the top of its scan when that reached the
   * head, or the stored hash of the head block that its reorganisation check found unchanged.
   */
  headHash?: string;
  reorgedFrom?: bigint;
  seen: number;
  credited: number;
}

export class Watcher {
  readonly rpc: PublicClient;
  private readonly now: () => number;
  /** Blocks per eth_getLogs call: maxRange, halved each time a provider says it is too wide. */
  private range: bigint;
  private readonly reorgDepth: bigint;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private stopped = false;
  private running: Promise<unknown> | undefined;
  private readonly feeTokens: Set<string>;
  /** The head the last full tick of the loop left the chain at, and its hash; when that tick began (o.monotonic). */
  private settled: { head: bigint; hash: string; at: number } | undefined;
  private readonly monotonic: () => number;

  constructor(private readonly o: WatcherOptions) {
    this.now = o.now ?? Date.now;
    this.monotonic = o.monotonic ?? (() => performance.now());
    this.feeTokens = new Set((o.feeOnTransfer ?? []).map((t) => t.toLowerCase()));
    this.range = o.maxRange ?? 2000n;
    // Hashes are kept at least as deep as a transfer needs confirmations: a reorganisation of a
    // block still confirming must be seen.
    const depth = o.reorgDepth ?? 64n;
    this.reorgDepth = depth > BigInt(o.confirmations) ? depth : BigInt(o.confirmations);
    // cacheTime 0: viem otherwise answers eth_blockNumber from a 4 s cache, and the watcher
    // must see each new head.
    this.rpc = createPublicClient({ cacheTime: 0, transport: rpcTransport(o.rpcUrls, o.onRpc, o.rpcEvents, o.rpcPin) }) as PublicClient;
  }

  /** The node's head; told to onStatus when the node does not answer. */
  private async head(): Promise<bigint> {
    try {
      return await this.rpc.getBlockNumber();
    } catch (error) {
      this.o.onStatus?.({ rpcUp: false });
      throw error;
    }
  }

  /**
   * One turn of the loop: a full tick, or, on a quiet chain, two questions to the node and none
   * to the database. Quiet means the head is the block the last full tick left the chain at (its
   * number and its hash: a block replaced at the same height is not quiet) and that tick began
   * less than quietMs ago (the lease it renewed has two thirds of its time left at least). Only
   * a full tick that held the chain and vouched for the head's hash (headHash) settles it: after
   * a failed one, a skipped one (another instance's lease) or a lagging node's, the next turn is
   * a full tick.
   */
  async turn(): Promise<TickResult> {
    const quietMs = Math.min(this.o.quietMs ?? QUIET_MS, (this.o.leaseMs ?? 30_000) / 3);
    const head = await this.head();
    const settled = this.settled;
    this.settled = undefined;
    if (settled && settled.head === head && this.monotonic() - settled.at < quietMs) {
      if ((await this.rpc.getBlock({ blockNumber: head })).hash === settled.hash) {
        this.settled = settled;
        this.o.onStatus?.({ rpcUp: true, lagBlocks: 0n });
        return { seen: 0, credited: 0, head, quiet: true };
      }
    }
    if (this.stopped) return { seen: 0, credited: 0, head };
    const began = this.monotonic();
    const done = await this.tick(head);
    if (quietMs > 0 && done.headHash) this.settled = { head, hash: done.headHash, at: began };
    return done;
  }

  /** One step: check for a reorganisation, scan the next range, count what is deep enough. `known`: the head, when the caller has just asked it. */
  async tick(known?: bigint): Promise<TickResult> {
    const { chainId, store, holder } = this.o;
    // The head first: it is also where a chain never watched before starts (one call a tick).
    const head = known ?? (await this.head());
    const start: Cursor = { number: this.o.startBlock !== undefined ? this.o.startBlock - 1n : head, hash: null };
    const leaseMs = this.o.leaseMs ?? 30_000;
    let cursor: Cursor | undefined;
    // A slow tick (a slow node, a wide range) must not outlive its lease, or a second instance
    // would watch the same chain at once: the lease is renewed while the tick runs, and a tick
    // whose renewal failed writes nothing more. (Released only when the watcher stops.)
    const run = await withLease(
      {
        take: async () => {
          const claimed = await store.claim(chainId, holder, this.now(), leaseMs, start);
          cursor ??= claimed;
          return claimed !== undefined;
        },
        ms: leaseMs,
      },
      (lease) => this.step(head, cursor!, lease.signal),
    );
    if (this.o.onStatus) {
      // The lag as this instance sees it: its own cursor, or (another instance watching) the stored one.
      const at = run.held ? (run.value.scanned?.to ?? cursor!.number) : await store.scannedTo(chainId);
      this.o.onStatus({ rpcUp: true, ...(at === undefined ? {} : { lagBlocks: head > at ? head - at : 0n }) });
    }
    return run.held ? run.value : { seen: 0, credited: 0, skipped: true };
  }

  /** The tick's work; each write only while `held` (the lease) is not aborted. */
  private async step(head: bigint, claimed: Cursor, held: AbortSignal): Promise<TickResult> {
    const { chainId, store } = this.o;
    const result: TickResult = { seen: 0, credited: 0, head };
    let cursor = claimed;
    // A head below the cursor is a node behind the others (a load balancer's lagging backend),
    // not a reorganisation: blocks it has not seen yet are not gone. Skip the tick; a real
    // reorganisation shows as a changed hash at or below the head, checked next.
    if (head < cursor.number) return { ...result, lagging: true };

    // Stored hashes are compared from the highest down: the first that still matches vouches
    // for every block below it (each block names its parent), so a quiet chain costs one call.
    // Only some blocks' hashes are kept, so the fork lies somewhere above the highest match:
    // everything from just above it is scanned again, not only from the lowest changed block
    // (a payment re-mined into a block in between would otherwise never be seen).
    for (const block of await store.blocks(chainId, cursor.number - this.reorgDepth)) {
      const onChain = (await this.rpc.getBlock({ blockNumber: block.number })).hash;
      if (onChain === block.hash) {
        if (result.reorgedFrom !== undefined) result.reorgedFrom = block.number + 1n;
        else if (block.number === head) result.headHash = onChain;
        break;
      }
      // No stored block matched (yet): as deep as what is kept.
      result.reorgedFrom = block.number;
    }
    held.throwIfAborted();
    if (result.reorgedFrom !== undefined) {
      await store.rewind(chainId, result.reorgedFrom, this.now());
      cursor = { number: result.reorgedFrom - 1n, hash: null };
    }
    // Credits of transfers whose block left the chain are taken back: those of this rewind, and
    // any a stopped instance left between its rewind and taking them back.
    for (const gone of await store.orphanedCredits(chainId)) await this.o.credits.uncredit(gone);

    if (cursor.number < head) {
      const from = cursor.number + 1n;
      let to: bigint;
      let logs: Awaited<ReturnType<typeof this.getLogs>>;
      // Read after the head: a payment made after this list gets its address after it, and its
      // money lands in a block above the head, scanned next time.
      const limit = this.o.filterUpTo ?? 1000;
      const recipients = limit > 0 ? await store.depositAddresses(chainId, limit + 1, this.o.others) : [];
      const filter = limit > 0 && recipients.length <= limit ? (recipients as `0x${string}`[]) : undefined;
      for (;;) {
        to = from + this.range - 1n < head ? from + this.range - 1n : head;
        try {
          logs = filter?.length === 0 ? [] : await this.getLogs(from, to, filter);
          break;
        } catch (error) {
          // A provider's cap on blocks or results: ask for half the range, and keep asking for
          // that from now on, rather than the same range for ever.
          if (!isRangeLimit(error) || this.range === 1n) throw error;
          this.range = this.range / 2n;
        }
      }
      const watched = new Map((await store.watched([...new Set(logs.map((l) => l.args.to!.toLowerCase()))])).map((w) => [w.address, w]));
      const found: Array<{ transfer: SeenTransfer; asked: boolean }> = [];
      const blocks = new Map<bigint, string>();
      for (const log of logs) {
        const payment = watched.get(log.args.to!.toLowerCase());
        // A zero-value Transfer needs no allowance (anyone can emit one from anyone): it moves
        // nothing, so it is no money to record, tell or sweep.
        if (!payment || log.removed || log.args.value === 0n) continue;
        // A payment of another chain of the mode, paid here by mistake: its address is this chain's too.
        const here = payment.chainId === chainId;
        if (!here && !(this.o.others?.chainIds.includes(payment.chainId) && payment.mode === this.o.others.mode)) continue;
        const transfer: SeenTransfer = {
          chainId,
          txHash: log.transactionHash!,
          logIndex: log.logIndex!,
          blockNumber: log.blockNumber!,
          blockHash: log.blockHash!,
          token: log.address.toLowerCase(),
          sender: log.args.from!.toLowerCase(),
          recipient: log.args.to!.toLowerCase(),
          amount: log.args.value!,
          paymentId: payment.id,
        };
        found.push({ transfer, asked: here && transfer.token === payment.token.toLowerCase() });
        blocks.set(transfer.blockNumber, transfer.blockHash);
      }
      // A token that takes a fee its event does not show: what the address gained, not what the event says.
      if (this.feeTokens.size)
        await receivedAmounts(
          this.rpc,
          found.map((f) => f.transfer),
          this.feeTokens,
        );
      const seen: Array<SeenTransfer & { state: TransferState }> = found.map(({ transfer, asked }) => {
        const dust = transfer.amount < (this.o.minimums?.get(transfer.token) ?? 1n);
        return { ...transfer, state: dust ? 'dust' : asked ? 'seen' : 'unexpected' };
      });
      // A transfer arrived when its block was made, not when this watcher got to it (a watcher
      // behind the chain, after an outage or a restart, must not call money that came in time
      // late). The block's own time, never later than now: one call per block with a transfer.
      const made = new Map<string, number>();
      for (const hash of new Set(seen.map((t) => t.blockHash)))
        made.set(hash, Number((await this.rpc.getBlock({ blockHash: hash as `0x${string}` })).timestamp) * 1000);
      for (const t of seen) t.seenMs = Math.min(made.get(t.blockHash) ?? this.now(), this.now());
      const top = await this.rpc.getBlock({ blockNumber: to });
      blocks.set(to, top.hash!);
      held.throwIfAborted();
      await store.record(
        chainId,
        seen,
        [...blocks].map(([number, hash]) => ({ number, hash })),
        { number: to, hash: top.hash! },
        to - this.reorgDepth,
        this.now(),
      );
      result.scanned = { from, to };
      if (to === head) result.headHash = top.hash!;
      result.seen = seen.length;
    }

    // A transfer in block b has head - b + 1 confirmations.
    const upTo = await countedUpTo(this.rpc, head, this.o.confirmations, this.o.finality);
    held.throwIfAborted();
    for (const { transfer, outcome } of await creditConfirmed(store, this.o.credits, chainId, upTo, held)) {
      if (outcome === 'credited') result.credited++;
      else await this.tell(transfer, outcome);
    }
    // Money in another token is told once it is as deep as money that counts: a transfer that
    // a reorganisation takes away before then was never money to tell of.
    // (And late money a stopped instance marked but did not tell.)
    for (const t of await store.untold(chainId, upTo)) await this.tell(t, t.state === 'late' ? 'late' : 'unexpected');
    // A new block is one more confirmation for whatever is still confirming: tell its checkouts.
    if (result.scanned) await store.notifyConfirming(chainId);
    return result;
  }

  /** Tells the merchant of money that cannot count, once: a transfer brought back by a reorganisation was told the first time. */
  private async tell(t: SeenTransfer, why: 'late' | 'unexpected'): Promise<void> {
    if (t.toldMs !== undefined) return;
    await this.o.credits.unmatched(t, why);
    await this.o.store.told(t, this.now());
  }

  private getLogs(from: bigint, to: bigint, recipients?: `0x${string}`[]) {
    return this.rpc.getLogs({ address: this.o.tokens, event: TRANSFER, args: recipients ? { to: recipients } : undefined, fromBlock: from, toBlock: to });
  }

  /**
   * Turns every `intervalMs` until stop() (turn(): a full tick, or a quiet one on a chain with no
   * new block); an RPC outage backs off (doubling, at most `maxBackoffMs` between attempts), then
   * catches up from the cursor.
   */
  start(intervalMs: number, onError: (error: unknown) => void = () => {}, maxBackoffMs = MAX_BACKOFF_MS): void {
    let failures = 0;
    const loop = async () => {
      if (this.stopped) return;
      let wait = intervalMs;
      try {
        // Catching up: keep going while whole ranges come back.
        for (let i = 0; i < 50 && !this.stopped; i++) {
          const done = await (this.running = this.turn());
          failures = 0;
          if (!done.scanned || done.scanned.to === done.head) break;
        }
      } catch (error) {
        failures++;
        wait = Math.min(intervalMs * 2 ** failures, maxBackoffMs);
        onError(error);
      }
      if (!this.stopped) this.timer = setTimeout(loop, wait);
    };
    void loop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running?.catch(() => {});
    await this.o.store.release(this.o.chainId, this.o.holder);
  }
}

/** Whether an RPC error is a provider's limit on a log query's blocks or results (each words it its own way). */
function isRangeLimit(error: unknown): boolean {
  if (!(error instanceof BaseError)) return false;
  const said = [error.details, error.shortMessage, error.message].join(' ');
  return (
    !!error.walk((e) => (e as { code?: number }).code === -32005) ||
    /block range|range (is )?too (large|wide)|more than \d+ (results|blocks|logs)|too many (results|blocks|logs)|limit exceeded|response size|exceeds? the (range|limit)/i.test(
      said,
    )
  );
}
