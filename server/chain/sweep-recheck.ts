// A final sweep looked at again: one a reorganisation deeper than the confirmations
// took away is undone where its deposit still holds the money, so that the sweeper sweeps it
// again in the same tick; journaled already, its deposit entry is not written twice. What a
// sweep's timeline needs of a block, and whether a sweep with no receipt is gone, for both looks.
import {
  erc20Abi,
  parseEventLogs,
  TransactionNotFoundError,
  TransactionReceiptNotFoundError,
  type Address,
  type Hex,
  type PublicClient,
  type TransactionReceipt,
} from 'viem';
import { DepositFactory } from '../../contracts/artifacts.generated.ts';
import type { Network } from './networks.ts';
import type { SweepStore } from './sweep-store.ts';

/**
 * How far back final sweeps are looked at again on a chain that answers no `finalized` block:
 * 10,000 blocks, as counted transfers are (treasury-reconcile.ts's UNFINALIZED_WINDOW).
 */
export const SWEEP_RECHECK_WINDOW = 10_000n;

/** A final sweep a reorganisation deeper than the confirmations took away: its deposits that still hold the money are swept again. */
export interface Vanished {
  hash: Hex;
  /** Block it was recorded in. */
  block: bigint;
  /** The deposits swept again (they still held what the sweep had moved). */
  reopened: Array<{ address: string; token: string; amount: bigint }>;
  /** The deposits that hold less than the sweep had moved (their own transfer left the chain too, or another sweep moved it to the same payout): not swept again. */
  left: Array<{ address: string; token: string; amount: bigint; holds: bigint }>;
}

/**
 * Looks again at each final sweep above the chain's finalized block (on a
 * chain that answers none, the last SWEEP_RECHECK_WINDOW blocks): one receipt each. Mined where
 * it was recorded, nothing to do; mined again elsewhere, its new block is kept; gone (its block
 * off the chain, the transaction neither mined nor waiting in the pool) or reverted when mined
 * again, each deposit it moved that still holds at least what it had moved (its balance of the
 * token at the head) is unswept, final no more, and swept again in the sweeper's tick. Its deposit
 * entries stay journaled once: the merchant's balance is unchanged, and the treasury is short of
 * it until the new sweep lands (a `treasury_short` hold, lifted by itself once the new sweep is
 * final and the treasury holds what the journal owes). A deposit that holds less is left: its own
 * transfer left the chain too (the treasury reconciliation reverses it), or another sweep moved
 * it to the same payout address. Each write is once (unsweep takes final rows only), under the
 * chain's sweeper lease. A vanished sweep with nothing to sweep again is answered once (`leftTold`).
 */
export async function recheckFinalSweeps(
  rpc: PublicClient,
  network: Network,
  sweeps: Pick<SweepStore, 'finalSweeps' | 'sweepMoved' | 'unsweep'>,
  now: () => number,
  leftTold: Set<string>,
): Promise<Vanished[]> {
  const head = await rpc.getBlockNumber();
  let floor: bigint;
  try {
    floor = (await rpc.getBlock({ blockTag: 'finalized' })).number ?? 0n;
  } catch {
    floor = head > SWEEP_RECHECK_WINDOW ? head - SWEEP_RECHECK_WINDOW : 0n;
  }
  const found: Vanished[] = [];
  for (const sweep of await sweeps.finalSweeps(network.chainId, floor)) {
    const hash = sweep.hash as Hex;
    if (head < sweep.blockNumber) continue; // a node behind the others says nothing
    let receipt: TransactionReceipt | undefined;
    try {
      receipt = await rpc.getTransactionReceipt({ hash });
    } catch (error) {
      if (!(error instanceof TransactionReceiptNotFoundError)) continue;
    }
    if (receipt?.status === 'success' && receipt.blockHash === sweep.blockHash) continue;
    let idle = sweep.deposits;
    if (receipt?.status === 'success') {
      const ours = receipt.logs.filter((log) => log.address.toLowerCase() === network.factory.toLowerCase());
      const moved = new Set(
        parseEventLogs({ abi: DepositFactory.abi, eventName: 'Swept', logs: ours }).map((e) => `${e.args.deposit.toLowerCase()}/${e.args.token.toLowerCase()}`),
      );
      idle = sweep.deposits.filter((d) => !moved.has(`${d.address}/${d.token.toLowerCase()}`));
      await sweeps.sweepMoved(network.chainId, hash, {
        number: receipt.blockNumber,
        hash: receipt.blockHash,
        timeMs: await timeOf(rpc, receipt.blockHash, now),
      });
    } else if (!receipt && !(await gone(rpc, hash, sweep))) continue;
    if (idle.length === 0) continue;
    const holds = await Promise.all(
      idle.map((d) =>
        rpc.readContract({ address: d.token as Address, abi: erc20Abi, functionName: 'balanceOf', args: [d.address as Address], blockNumber: head }),
      ),
    );
    const reopened = idle.filter((d, i) => holds[i]! >= d.amount);
    const left = idle.flatMap((d, i) => (holds[i]! < d.amount ? [{ ...d, holds: holds[i]! }] : []));
    if (reopened.length && !(await sweeps.unsweep(network.chainId, hash, reopened, true))) continue; // another look undid it already
    if (!reopened.length && leftTold.has(hash)) continue; // said once: it stays final, and nothing is swept again
    leftTold.add(hash);
    found.push({ hash, block: sweep.blockNumber, reopened, left });
  }
  return found;
}

/** A block's time (epoch ms), for a payment's timeline; the service's clock when the node does not answer (the sweep is recorded all the same). */
export async function timeOf(rpc: PublicClient, blockHash: Hex, now: () => number): Promise<number> {
  const block = await rpc.getBlock({ blockHash }).catch(() => undefined);
  return block ? Number(block.timestamp) * 1000 : now();
}

/**
 * Whether a sweep with no receipt is gone: its recorded block is no longer on the chain and
 * it is neither mined nor waiting in the pool. A node that answers nothing (or an error) says
 * nothing about it.
 */
export async function gone(rpc: PublicClient, hash: Hex, sweep: { blockNumber: bigint; blockHash: string }): Promise<boolean> {
  const block = await rpc.getBlock({ blockNumber: sweep.blockNumber }).catch(() => undefined);
  if (!block || block.hash === sweep.blockHash) return false;
  try {
    await rpc.getTransaction({ hash }); // known: mined, or back in the pool and may be mined again
    return false;
  } catch (error) {
    return error instanceof TransactionNotFoundError;
  }
}
