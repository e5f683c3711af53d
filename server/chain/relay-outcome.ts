// What became of a relay the service sent: its receipt, or its nonce taken by another
// transaction. Asked by the request that sent it (relay.ts) and by the job that looks again at
// relays no request saw finish (relay-job.ts); apart from both, so the request's file does not
// import the job's (and, through the jobs' list, every feature a job runs).
import type { Address, PublicClient, TransactionReceipt } from 'viem';
import { lookAtNonce, REPLACED_AFTER_MS } from './nonce-look.ts';

/**
 * What became of a relay's transactions (`hashes`, at the gas wallet's `nonce`): the receipt of
 * the one mined; `dropped` when the head block shows another transaction of the gas wallet at
 * the nonce, or when the nonce was first seen used with none of them answering a receipt at
 * `usedSince` (ms since the epoch) and still is REPLACED_AFTER_MS later; `used` while the nonce
 * is seen used without either (a node counts a mined nonce before it serves that block's
 * receipts): the caller keeps when it first saw so, and asks again; undefined while the nonce is
 * free (still in the pool, or never broadcast).
 */
export async function relayOutcome(
  rpc: PublicClient,
  gas: Address,
  nonce: number,
  hashes: string[],
  usedSince?: number,
): Promise<TransactionReceipt | 'dropped' | 'used' | undefined> {
  const look = await lookAtNonce(rpc, gas, nonce, hashes);
  if (look === 'taken') return 'dropped';
  if (look === 'used' && usedSince !== undefined && Date.now() - usedSince >= REPLACED_AFTER_MS) return 'dropped';
  return look;
}
