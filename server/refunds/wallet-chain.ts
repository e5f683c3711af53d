// What the service reads of a network for refunds on `wallet` settlement: its head,
// the Transfer logs of one token to one address in a range of blocks, and a transaction's
// receipt. Read only: the merchant's wallet sends the refund, the service holds no key for it.
import { createPublicClient, TransactionReceiptNotFoundError, type Address, type Hex, type PublicClient } from 'viem';
import { networkTransport, type Network } from '../chain/networks.ts';
import { TRANSFER } from '../chain/watcher.ts';
import type { ChainLog } from './wallet-rules.ts';

export interface WalletChain {
  chainId: number;
  /** Blocks a transfer's block needs on top of it, itself included, before it counts. */
  confirmations: number;
  /** Blocks per eth_getLogs call. */
  logRange: number;
  head(): Promise<bigint>;
  /** Transfers of `token` to `to` in [fromBlock, toBlock], oldest first. */
  transfersTo(token: string, to: string, fromBlock: bigint, toBlock: bigint): Promise<Array<{ txHash: string; block: bigint; value: bigint }>>;
  /** The transaction's receipt, or undefined when no block holds it (not mined, or reorganised away). */
  receipt(hash: string): Promise<{ status: 'success' | 'reverted'; block: bigint; logs: ChainLog[] } | undefined>;
}

export function walletChain(network: Network): WalletChain {
  const rpc = createPublicClient({ cacheTime: 0, transport: networkTransport(network) }) as PublicClient;
  return {
    chainId: network.chainId,
    confirmations: network.confirmations,
    logRange: network.logRange ?? 2000,
    head: () => rpc.getBlockNumber({ cacheTime: 0 }),
    async transfersTo(token, to, fromBlock, toBlock) {
      const logs = await rpc.getLogs({ address: token as Address, event: TRANSFER, args: { to: to as Address }, fromBlock, toBlock, strict: true });
      return logs.filter((l) => !l.removed).map((l) => ({ txHash: l.transactionHash, block: l.blockNumber, value: l.args.value }));
    },
    async receipt(hash) {
      try {
        const r = await rpc.getTransactionReceipt({ hash: hash as Hex });
        return {
          status: r.status,
          block: r.blockNumber,
          logs: r.logs.map((l) => ({ address: l.address, topics: l.topics, data: l.data, logIndex: l.logIndex })),
        };
      } catch (error) {
        if (error instanceof TransactionReceiptNotFoundError) return undefined;
        throw error;
      }
    },
  };
}
