// What became of a relay the service sent: its receipt, or its nonce taken by another
// transaction. Asked by the request that sent it (relay.ts) and by the job that looks again at
// relays no request saw finish (relay-job.ts); apart from both, so the request's file does not
// import the job's (and, through the jobs' list, every feature a job runs).
import type { Address, Hex, PublicClient, TransactionReceipt } from 'viem';

/**
 * What became of a relay's transactions (`hashes`, at the gas wallet's `nonce`): the receipt of
 * the one mined; `dropped` when the nonce went to another transaction and none of them was
 * mined; undefined while neither (still in the pool, or never broadcast and its nonce still free).
 */
export async function relayOutcome(rpc: PublicClient, gas: Address, nonce: number, hashes: string[]): Promise<TransactionReceipt | 'dropped' | undefined> {
  const receiptOf = async (): Promise<TransactionReceipt | undefined> => {
    for (const hash of hashes) {
      const receipt = await rpc.getTransactionReceipt({ hash: hash as Hex }).catch(() => undefined);
      if (receipt) return receipt;
    }
    return undefined;
  };
  const receipt = await receiptOf();
  if (receipt) return receipt;
  if ((await rpc.getTransactionCount({ address: gas, blockTag: 'latest' })) <= nonce) return undefined;
  // Asked again after the nonce: one of ours may be mined between the two questions.
  return (await receiptOf()) ?? 'dropped';
}
