// What became of the transactions a wallet sent at one nonce (a sweep, a charge, a relay), asked
// of a node that may count a mined nonce before it serves that block's receipts (anvil does under
// load: 169 of 3,000 sends; behind a load balancer the questions may reach nodes a block apart).
// Shared by the sweeper's wait (sweeper.ts) and the relay's later looks (relay-outcome.ts), so
// that neither takes a mined transaction whose receipt is late for one replaced by another's.
import type { Address, Hex, PublicClient, TransactionReceipt } from 'viem';

/**
 * How long a nonce may be seen used with none of our transactions answering a receipt, and no
 * other transaction seen at it, before ours count as replaced: 5 s.
 */
export const REPLACED_AFTER_MS = 5_000;

/**
 * One look at `hashes`, sent from `from` at `nonce`: the receipt of the one mined; `taken` when
 * the nonce is used and the head block holds another transaction of `from` at it; `used` when
 * the nonce is used and none of ours answers a receipt (mined, its receipt not served yet; or
 * taken by another in an earlier block): look again, and count them replaced only once it stays
 * so for REPLACED_AFTER_MS; undefined while the nonce is free.
 */
export async function lookAtNonce(
  rpc: PublicClient,
  from: Address,
  nonce: number,
  hashes: readonly string[],
): Promise<TransactionReceipt | 'taken' | 'used' | undefined> {
  const receiptOf = async (): Promise<TransactionReceipt | undefined> => {
    for (const hash of hashes) {
      const receipt = await rpc.getTransactionReceipt({ hash: hash as Hex }).catch(() => undefined);
      if (receipt) return receipt;
    }
    return undefined;
  };
  const receipt = await receiptOf();
  if (receipt) return receipt;
  if ((await rpc.getTransactionCount({ address: from, blockTag: 'latest' })) <= nonce) return undefined;
  // The nonce is used: one of ours may have been mined between the two questions.
  const mined = await receiptOf();
  if (mined) return mined;
  const head = await rpc.getBlock({ blockTag: 'latest', includeTransactions: true }).catch(() => undefined);
  const taker = head?.transactions.find((t) => t.from.toLowerCase() === from.toLowerCase() && t.nonce === nonce);
  return taker && !hashes.some((hash) => hash.toLowerCase() === taker.hash.toLowerCase()) ? 'taken' : 'used';
}
