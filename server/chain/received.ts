// What a deposit address really received of a token that takes a fee on transfer its Transfer
// event does not show (item 7): its balance's gain over the block, read with two
// balanceOf calls per address, token and block, and only for tokens the network flags
// (`feeOnTransfer`): every other token costs nothing more than its Transfer logs.
import { erc20Abi, type Address, type PublicClient } from 'viem';

interface Received {
  blockNumber: bigint;
  token: string;
  recipient: string;
  amount: bigint;
}

/**
 * Sets each flagged-token transfer's amount to its share of what its address's balance gained in
 * its block (the event's value split in proportion where several came in one block; the last
 * takes the remainder). Never more than the events say, never below 0: money leaving the address
 * in the same block (a sweep) can make the gain smaller than what came in, which credits less,
 * never more, and leaves the rest to be swept and reported by reconciliation.
 */
export async function receivedAmounts(rpc: Pick<PublicClient, 'readContract'>, transfers: Received[], flagged: Set<string>): Promise<void> {
  const groups = new Map<string, Received[]>();
  for (const t of transfers) {
    if (!flagged.has(t.token)) continue;
    const key = `${t.recipient}/${t.token}/${t.blockNumber}`;
    groups.set(key, [...(groups.get(key) ?? []), t]);
  }
  for (const group of groups.values()) {
    const { recipient, token, blockNumber } = group[0]!;
    const balance = (at: bigint) =>
      rpc.readContract({ address: token as Address, abi: erc20Abi, functionName: 'balanceOf', args: [recipient as Address], blockNumber: at });
    const [before, after] = await Promise.all([balance(blockNumber - 1n), balance(blockNumber)]);
    const said = group.reduce((sum, t) => sum + t.amount, 0n);
    const gained = after - before < 0n ? 0n : after - before > said ? said : after - before;
    let left = gained;
    for (const [i, t] of group.entries()) {
      const share = i === group.length - 1 ? left : (gained * t.amount) / said;
      left -= share;
      t.amount = share;
    }
  }
}
