// Reconciliation: what the ledger says each deposit address holds, against what the chain says
// it holds, at a block deep enough not to move. A difference is money the events did not tell
// the truth about (a fee-on-transfer token credited 10.1 while the deposit held 9.999), a
// transfer the watcher missed, or a sweep not recorded: each is reported, never corrected by guess.
import { createPublicClient, erc20Abi, type Address, type PublicClient } from 'viem';
import type { ChainStore } from '../storage/chain.ts';
import { rpcTransport, type Network } from './networks.ts';

export interface DepositLine {
  reference: string;
  merchantId: string;
  mode: string;
  address: string;
  token: string;
  /** Base units: counted toward the payment, moved on by sweeps, and held now by the ledger's account and by the chain's. */
  credited: bigint;
  swept: bigint;
  held: bigint;
  onChain: bigint;
}

export interface Reconciliation {
  chainId: number;
  atBlock: bigint;
  deposits: DepositLine[];
  /** The lines whose ledger and chain disagree. */
  differences: DepositLine[];
}

export async function reconcile(network: Network, store: ChainStore, rpc: PublicClient = createPublicClient({ cacheTime: 0, transport: rpcTransport(network.rpcUrls) }) as PublicClient): Promise<Reconciliation> {
  const atBlock = (await rpc.getBlockNumber()) - BigInt(network.confirmations) + 1n;
  const lines = await store.ledgerOfDeposits(network.chainId, atBlock);
  const deposits: DepositLine[] = [];
  for (const line of lines) {
    const onChain = await rpc.readContract({ address: line.token as Address, abi: erc20Abi, functionName: 'balanceOf', args: [line.address as Address], blockNumber: atBlock });
    deposits.push({ reference: line.reference, merchantId: line.merchantId, mode: line.mode, address: line.address, token: line.token, credited: line.credited, swept: line.swept, held: line.held, onChain });
  }
  return { chainId: network.chainId, atBlock, deposits, differences: deposits.filter((d) => d.held !== d.onChain) };
}
