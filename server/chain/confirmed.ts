// Where the watcher's confirmed transfers go: counted on their payments a block at a time, each
// block in one transaction with the marks that say so (the payments' side is
// payments/chain-credits.ts).
import type { Sql } from '../storage/db.ts';
import type { ChainStore, SeenTransfer } from './store.ts';

/** Where confirmed and reorganised transfers go: the payments (implemented over storage). */
export interface PaymentCredits {
  /**
   * Counts a block's transfers on their payments in `tx` (the transaction that also marks them):
   * per transfer, 'credited', 'late' when the payment takes no more, 'unexpected' when it is not
   * in the payment's token (both recorded and told, never counted).
   */
  creditBlock(transfers: SeenTransfer[], tx: Sql): Promise<Array<'credited' | 'late' | 'unexpected'>>;
  /** Takes a credited transfer back (its block left the chain), telling the merchant. */
  uncredit(transfer: SeenTransfer): Promise<void>;
  /** Tells the merchant of money that cannot count: late, or a token the payment did not ask for. */
  unmatched(transfer: SeenTransfer, why: 'late' | 'unexpected'): Promise<void>;
}

/**
 * Counts the transfers in blocks up to `upTo`, a block at a time, each block in one transaction:
 * its credits, their events and the marks that say they were made commit together, or, on any
 * failure (or the lease lost before the commit), none does and the block is counted again on the
 * next tick. A few statements per block and per transfer, not a transaction for each transfer.
 */
export async function creditConfirmed(
  store: ChainStore,
  credits: PaymentCredits,
  chainId: number,
  upTo: bigint,
  held?: AbortSignal,
): Promise<Array<{ transfer: SeenTransfer; outcome: 'credited' | 'late' | 'unexpected' }>> {
  const byBlock = new Map<bigint, SeenTransfer[]>();
  for (const t of await store.confirmable(chainId, upTo)) byBlock.set(t.blockNumber, [...(byBlock.get(t.blockNumber) ?? []), t]);
  const done: Array<{ transfer: SeenTransfer; outcome: 'credited' | 'late' | 'unexpected' }> = [];
  for (const block of byBlock.values()) {
    held?.throwIfAborted();
    const outcomes = await store.atomically(async (tx) => {
      const outcomes = await credits.creditBlock(block, tx);
      await store.markAll(
        tx,
        chainId,
        block.map((t, i) => ({ txHash: t.txHash, logIndex: t.logIndex, state: outcomes[i]! })),
      );
      held?.throwIfAborted();
      return outcomes;
    });
    block.forEach((transfer, i) => done.push({ transfer, outcome: outcomes[i]! }));
  }
  return done;
}
