// The treasury's completed sends (withdrawals, refunds' sends) looked at
// again until final, as the reconciliation looks at counted deposits: a reorganisation deeper
// than the confirmations may still take one off the chain. One gone is sent again at its
// recorded transaction where that is still valid, or failed with its money back in the balance;
// either way undone in the journal and told by the send's own event (use-cases.ts undoSent).
// Transfers to the payout partner likewise: one gone is owed to the partner again
// (partner-transfer-store.ts undoSent), then sent again as recorded or failed and sent in the
// next batch. Swaps likewise (use-cases.ts undoSwap): one gone has its `swap_completed` entry
// negated, then is sent again as recorded (its router approval first, where that left the chain
// too) or failed with the coin it was to send back in the balance, told by SWAP_UPDATED. Called
// by the treasury job's tick, under its lease, also while the chain is held (it moves nothing:
// a swap gone holds the chain, short of the coin it was to receive, until it is undone).
import type { Address, Hex, TransactionReceipt } from 'viem';
import { undoSent, undoSwap } from './use-cases.ts';
import { swapView, withdrawalView } from './views.ts';
import { countedUpTo } from '../chain/networks.ts';
import { UNFINALIZED_WINDOW } from '../chain/treasury-reconcile.ts';
import { feeOf, Treasury } from '../chain/treasury.ts';
import type { JobDeps } from '../jobs/job.ts';
import type { TreasuryTable } from './treasury-store.ts';

type LookDeps = Pick<JobDeps, 'db' | 'withdrawals' | 'partnerTransfers' | 'swaps' | 'treasuryTxs' | 'balanceTransactions' | 'journal' | 'log' | 'now'>;

/** What one instance's sender keeps between looks, in memory (a restart, or another instance, looks twice again). */
export interface LookState {
  /** Completed sends found off the chain, by transaction, with the head then: undone only when found gone again at a later head. */
  gone: Map<string, bigint>;
  /** The head at which, and when, completed sends were last looked at (once a block, at most every LOOK_AGAIN_MS). */
  lookedAt?: bigint;
  lookedMs?: number;
  /** Sends already logged as having no receipt though their nonce is used and no other treasury transaction took it (logged once). */
  told?: Set<string>;
}

/** How often completed sends not yet final are looked at again, at most (and once a block): a tick with nothing else to do takes no lease meanwhile. */
export const LOOK_AGAIN_MS = 2_000;

/** Whether a receipt's block has the network's confirmations (and is at or below its safe or finalized block, where it names one). */
export async function counted(treasury: Treasury, receipt: TransactionReceipt): Promise<boolean> {
  const { network, rpc } = treasury;
  return receipt.blockNumber <= (await countedUpTo(rpc, await rpc.getBlockNumber(), network.confirmations, network.finality));
}

/** The block a receipt is in, as a send keeps it. */
export const blockOf = (receipt: TransactionReceipt) => ({ number: receipt.blockNumber, hash: receipt.blockHash as string });

/** Whether a look is due: completed sends not final on the chain, and LOOK_AGAIN_MS since the last look. */
export async function lookDue(deps: Pick<LookDeps, 'withdrawals' | 'partnerTransfers' | 'swaps' | 'now'>, chainId: number, look: LookState): Promise<boolean> {
  return (
    deps.now() - (look.lookedMs ?? 0) >= LOOK_AGAIN_MS &&
    ((await deps.withdrawals.anyNotFinal(chainId)) || (await deps.partnerTransfers.anyNotFinal(chainId)) || (await deps.swaps.anyNotFinal(chainId)))
  );
}

/** A completed send looked at again: a withdrawal or a refund's (`withdrawals`), a transfer to the payout partner, or a swap. */
interface Looked {
  id: string;
  /** Its table: its recorded replacements (the same transaction at its nonce) are its own. */
  table: TreasuryTable;
  /** What the log names it by. */
  purpose: string;
  /** What it moved to whom: the token's Transfer log of `amount` to `address` (a swap: what the pool gave the treasury). */
  token: string;
  address: string;
  amount: bigint;
  /** Mined again moving less (or reverting): sent again, for the sender to count what it did (a swap: the pool's price differs per block); else failed. */
  countAgain?: boolean;
  /** What its receipt says it moved: of `token` from the treasury to `address` (a swap: of the coin it receives, to the treasury). */
  moved(receipt: TransactionReceipt): bigint;
  txHash?: string | null;
  rawTx?: string | null;
  minedIn: { number: bigint; hash: string } | null;
  minedAgain(hash: string, block: { number: bigint; hash: string }, final: boolean): Promise<unknown>;
  /** Its counting undone (sent again, or failed); undefined when another look decided it first. */
  undo(result: { resend: true } | { failure: string }): Promise<{ state: string; failure?: string | null } | undefined>;
  /** How many times its counting was undone: the round of its gas when mined again. */
  unsent(): Promise<number>;
}

/**
 * Another recorded treasury transaction at `nonce` (none of `ours`: a send's own hash and its
 * replacements) with a counted receipt: what took the nonce. The one rule by which the sender's
 * settle and the look again fail a send as never to be mined.
 */
export async function nonceTakenBy(
  treasuryTxs: JobDeps['treasuryTxs'],
  treasury: Treasury,
  nonce: number,
  ours: string[],
): Promise<{ hash: string; block: bigint } | undefined> {
  const own = new Set(ours.map((h) => h.toLowerCase()));
  for (const other of await treasuryTxs.treasuryTxsAtNonce(treasury.network.chainId, nonce)) {
    if (own.has(other.toLowerCase())) continue;
    const theirs = await treasury.receipt(other as Hex);
    if (theirs && (await counted(treasury, theirs))) return { hash: other, block: theirs.blockNumber };
  }
  return undefined;
}

/** What took a looked-at send's nonce (see nonceTakenBy). */
const takenBy = async (deps: LookDeps, treasury: Treasury, send: Looked, nonce: number) =>
  nonceTakenBy(deps.treasuryTxs, treasury, nonce, [send.txHash!, ...(await deps.treasuryTxs.replacements(send.table, send.id)).map((r) => r.hash)]);

async function looked(deps: LookDeps, treasury: Treasury, chainId: number): Promise<Looked[]> {
  const now = deps.now;
  const sends = (await deps.withdrawals.notFinal(chainId)).map(
    (send): Looked => ({
      ...send,
      table: 'withdrawals',
      moved: (receipt) => treasury.moved(receipt, send.token as Address, send.address as Address, send.amount),
      minedAgain: (hash, block, final) => deps.withdrawals.minedIn(send.id, hash, block, final, now()),
      undo: (result) => undoSent(deps.balanceTransactions, send.id, send.txHash!, result, now(), withdrawalView),
      unsent: () => deps.withdrawals.unsentTimes(deps.db, send.id),
    }),
  );
  const partner = (await deps.partnerTransfers.notFinal(chainId)).map(
    (t): Looked => ({
      ...t,
      table: 'partner_transfers',
      moved: (receipt) => treasury.moved(receipt, t.token as Address, t.address as Address, t.amount),
      purpose: 'partnerTransfer',
      minedAgain: (hash, block, final) => deps.partnerTransfers.minedIn(t.id, hash, block, final, now()),
      undo: (result) => deps.partnerTransfers.undoSent(t.id, t.txHash!, result, now()),
      unsent: () => deps.partnerTransfers.unsentTimes(deps.db, t.id),
    }),
  );
  const swaps = (await deps.swaps.notFinal(chainId)).map(
    (s): Looked => ({
      ...s,
      table: 'swaps',
      purpose: 'swap',
      token: s.toToken,
      address: treasury.address,
      amount: s.amountOut ?? 0n,
      countAgain: true,
      // The pool's Transfer of the coin it gives to the treasury: the treasury moves none of it.
      moved: (receipt) => treasury.received(receipt, s.toToken as Address),
      minedAgain: (hash, block, final) => deps.swaps.minedIn(s.id, hash, block, final, now()),
      undo: async (result) => {
        // Its approval gone with it (no receipt): sent again before it, its gas journaled at the swap's next round.
        const approval = await deps.treasuryTxs.approval(s.id);
        const approvalGone = approval !== undefined && !(await treasury.receipt(approval.hash as Hex));
        const round = (await deps.swaps.unsentTimes(deps.db, s.id)) + 1;
        return undoSwap(
          deps.balanceTransactions,
          s.id,
          s.txHash!,
          'resend' in result ? { resend: true, approveRound: approvalGone ? round : 0 } : result,
          now(),
          swapView,
        );
      },
      unsent: () => deps.swaps.unsentTimes(deps.db, s.id),
    }),
  );
  return [...sends, ...partner, ...swaps];
}

/**
 * Completed sends looked at again, once a block, until final: at or below the chain's finalized
 * block (or UNFINALIZED_WINDOW blocks deep where the node answers none). Still on the chain (its
 * receipt successful, the token's Transfer log moving the amount to the destination): final once
 * deep enough. Gone (no receipt, the node's head past its block by the confirmations) at two
 * looks, the chain grown in between (a node that answered once without it moves nothing): its
 * nonce free, it goes back to pending and its recorded transaction is sent again by the sender;
 * its nonce taken at the counted depth by another recorded transaction of the treasury (its
 * receipt counted), it can never be mined: failed, its money back in the balance; its nonce used
 * and none other counted there (a node whose index lags), looked at again. A block the node does
 * not answer decides nothing. Mined again and not moving the amount (reverted, or a token
 * answering false), once counted: failed likewise. `lost`: the treasury lease went elsewhere.
 */
export async function lookAgain(deps: LookDeps, treasury: Treasury, look: LookState, lost: () => boolean): Promise<void> {
  const { log } = deps;
  const { network, rpc } = treasury;
  const chainId = network.chainId;
  if (deps.now() - (look.lookedMs ?? 0) < LOOK_AGAIN_MS) return;
  const sends = await looked(deps, treasury, chainId);
  if (sends.length === 0) return;
  look.lookedMs = deps.now();
  try {
    const head = await rpc.getBlockNumber();
    if (look.lookedAt === head) return;
    look.lookedAt = head;
    let floor: bigint;
    try {
      floor = (await rpc.getBlock({ blockTag: 'finalized' })).number ?? 0n;
    } catch {
      floor = head > UNFINALIZED_WINDOW ? head - UNFINALIZED_WINDOW : 0n;
    }
    const upTo = await countedUpTo(rpc, head, network.confirmations, network.finality);
    const blocks = new Map<bigint, string | null>();
    const hashAt = async (n: bigint) => {
      if (!blocks.has(n)) blocks.set(n, (await rpc.getBlock({ blockNumber: n }).catch(() => undefined))?.hash ?? null);
      return blocks.get(n);
    };
    for (const send of sends) {
      if (lost()) return;
      const hash = send.txHash as Hex;
      if (send.minedIn) {
        const at = await hashAt(send.minedIn.number);
        // No block there (a node behind or lagging, or an error): the node says nothing of it this look.
        if (at === null) continue;
        // Its block still the chain's (one look per block, not per send): still on the chain, as counted.
        if (send.minedIn.hash === at) {
          look.gone.delete(hash);
          if (send.minedIn.number <= floor) await send.minedAgain(hash, send.minedIn, true);
          continue;
        }
      }
      const undo = async (result: { resend: true } | { failure: string }) => {
        look.gone.delete(hash);
        const done = await send.undo(result);
        if (!done) return;
        log.error(
          { chainId, [send.purpose]: send.id, tx: hash, block: String(send.minedIn?.number), status: done.state, failure: done.failure },
          'deep reorganisation: a completed treasury send left the chain; its counting undone in the journal, the merchant told (a partner transfer: owed to the partner again)',
        );
      };
      const receipt = await treasury.receipt(hash);
      if (receipt) {
        look.gone.delete(hash);
        const moved = receipt.status === 'success' ? send.moved(receipt) : 0n;
        if (moved >= send.amount) {
          // Re-mined in another block (or counted before its block was kept): that block is looked at from now on.
          const block = blockOf(receipt);
          if (block.hash !== send.minedIn?.hash || block.number <= floor) await send.minedAgain(hash, block, block.number <= floor);
          continue;
        }
        // Mined again after a reorganisation, and this time it moved less: failed once counted, its gas paid again.
        if (receipt.blockNumber > upTo) continue;
        // A swap: pending again, the sender counts what this one did (its receipt in hand) and journals its gas.
        if (send.countAgain) {
          await undo({ resend: true });
          continue;
        }
        await undo({
          failure: `the transaction ${hash} was mined again in block ${receipt.blockNumber} after a reorganisation, and moved ${moved} of ${send.amount} (${receipt.status})`,
        });
        const round = await send.unsent();
        await deps.journal.gasSpent(chainId, hash, feeOf(receipt), `${send.purpose} ${send.id} mined again`, deps.now(), round);
        continue;
      }
      // A node behind the block it was counted in says nothing of it.
      if (send.minedIn && head < send.minedIn.number + BigInt(network.confirmations) - 1n) continue;
      const seen = look.gone.get(hash);
      if (seen === undefined || head <= seen) {
        if (seen === undefined) {
          look.gone.set(hash, head);
          log.warn(
            { chainId, [send.purpose]: send.id, tx: hash, block: String(send.minedIn?.number), head: String(head) },
            'a completed treasury send is not on the chain: looked at again once the chain has grown before it is undone',
          );
        }
        continue;
      }
      const nonce = Treasury.nonceOf(send.rawTx as Hex);
      if ((await rpc.getTransactionCount({ address: treasury.address, blockNumber: upTo })) > nonce) {
        // Its nonce used at the counted depth, by itself as well as by another (a node whose receipt
        // index lags, or it mined again): failed only when another recorded treasury transaction at
        // that nonce has a counted receipt, as the sender's settle decides (treasury-job.ts).
        const taker = await takenBy(deps, treasury, send, nonce);
        if (taker) {
          await undo({
            failure: `the transaction ${hash} left the chain in a reorganisation deeper than the confirmations, and another transaction took its nonce ${nonce} (the treasury's ${taker.hash}, in block ${taker.block}): it can never be mined`,
          });
        } else if (!(look.told ??= new Set()).has(hash)) {
          look.told.add(hash);
          log.warn(
            { chainId, [send.purpose]: send.id, tx: hash, nonce },
            'a completed treasury send has no receipt though its nonce is used, and no other recorded transaction of the treasury is counted at that nonce: looked at again (a node behind on its index, or the treasury key used elsewhere: look at the chain)',
          );
        }
      } else if (!(await treasury.nonceUsed(nonce))) await undo({ resend: true });
      // Else its nonce is used at the head, not yet at the counted depth: looked at again next block.
    }
  } catch (error) {
    log.warn({ err: error, chainId }, 'looking at completed treasury sends again failed; looked at again next block');
  }
}
