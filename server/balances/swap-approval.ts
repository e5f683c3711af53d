// A swap's approval of the pool's router, sent by the treasury's sender (balances/treasury-job.ts)
// before the swap itself: signed and recorded once, sent until mined, its gas journaled; and sent
// again, as recorded, when a reorganisation took it off the chain with its swap (sends-final.ts).
import type { Hex, TransactionReceipt } from 'viem';
import { counted } from './sends-final.ts';
import type { Signed, Treasury } from '../chain/treasury.ts';
import type { JobDeps } from '../jobs/job.ts';

/** What of a treasury sender's tick these use. */
interface SwapTick {
  deps: Pick<JobDeps, 'treasuryTxs' | 'log'>;
  treasury: Treasury;
}

/**
 * Whether a swap's approval of the router is mined (or none was needed), so that the swap may
 * be signed. The approval is signed for exactly the swap's amount, recorded on the swap before
 * it is sent (the first recorded stays), sent again each tick until mined, and its gas journaled
 * once mined (once: the journal's entry is keyed by its hash). A reverted approval throws, and
 * the next tick signs another.
 */
export async function approved(
  tick: SwapTick,
  swapId: string,
  sign: () => Promise<Signed | undefined>,
  gas: (receipt: TransactionReceipt, memo: string) => Promise<unknown>,
): Promise<boolean> {
  const { deps, treasury } = tick;
  let recorded = await deps.treasuryTxs.approval(swapId);
  if (!recorded) {
    const signed = await sign();
    if (!signed) return true;
    recorded = await deps.treasuryTxs.recordApproval(swapId, signed);
    if (!recorded) return false;
  }
  await sendRecorded(tick, recorded);
  const done = await treasury.outcome(recorded.hash as Hex, 5_000);
  if (!done.mined) return false;
  await gas(done.receipt, `approving the swap router for swap ${swapId}`);
  if (!done.ok) {
    await deps.treasuryTxs.approvalFailed(swapId);
    throw new Error(`the approval ${recorded.hash} of the swap router for swap ${swapId} reverted; another is signed next tick`);
  }
  return true;
}

/**
 * A swap's recorded approval that a reorganisation took off the chain with the swap: sent again
 * (`send`) each tick until mined (before the swap, whose nonce follows it), its gas journaled at
 * `round` once counted (once: the journal's entry is keyed by its hash and round).
 */
export async function approvedAgain(
  tick: SwapTick,
  swapId: string,
  round: number,
  gas: (receipt: TransactionReceipt, memo: string, round?: number) => Promise<unknown>,
  send: boolean,
): Promise<void> {
  const { deps, treasury } = tick;
  const recorded = await deps.treasuryTxs.approval(swapId);
  if (!recorded) return;
  const receipt = await treasury.receipt(recorded.hash as Hex);
  if (receipt) {
    if (await counted(treasury, receipt)) await gas(receipt, `approving the swap router for swap ${swapId}, again`, round);
    return;
  }
  if (!send) return;
  await sendRecorded(tick, recorded);
}

/** A swap's recorded approval sent (again); a node refusing it (mined already, its fee) is logged, and it is sent again next tick. */
async function sendRecorded({ deps, treasury }: SwapTick, recorded: { hash: string; raw: string }): Promise<void> {
  await treasury
    .send(recorded.raw as Hex)
    .catch((error: unknown) =>
      deps.log.warn(
        { err: error, chainId: treasury.network.chainId, tx: recorded.hash },
        "the node refused a swap's recorded approval; it is sent again next tick",
      ),
    );
}
