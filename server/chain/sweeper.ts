// Sweeping: what deposit addresses received moves on to the payout addresses they are bound
// to, many deposits in one transaction, with gas paid by the operator's gas-only wallet. That
// wallet holds no merchant money and its key cannot move any: the factory sends a deposit's
// tokens only to the payout address inside its CREATE2 address (server/chain/contracts).
import { createPublicClient, createWalletClient, type Address, type Hex, type LocalAccount, type PublicClient, type Transport } from 'viem';
import type { ChainStore } from '../storage/chain.ts';
import { DepositFactory } from '../../contracts/artifacts.generated.ts';
import { rpcTransport, saltOf, type Network } from './networks.ts';

export interface SweeperOptions {
  network: Network;
  store: ChainStore;
  /** The operator's gas-only wallet: it pays for sweeps and can do nothing else with deposits. */
  gas: LocalAccount;
  /** Deposits per transaction: ~200k gas a deposit on its first sweep (it deploys the deposit), ~13k later. */
  batch?: number;
  /** How long a claimed sweep is left to its sweeper before another may try it. */
  claimMs?: number;
  now?: () => number;
}

export class Sweeper {
  private readonly rpc: PublicClient;
  private readonly transport: Transport;

  constructor(private readonly o: SweeperOptions) {
    this.transport = rpcTransport(o.network.rpcUrls);
    this.rpc = createPublicClient({ cacheTime: 0, transport: this.transport }) as PublicClient;
  }

  /** Sweeps one batch of deposits whose money has its confirmations; answers what it did. */
  async tick(): Promise<{ swept: number; hash?: Hex }> {
    const { network, store } = this.o;
    const now = this.o.now ?? Date.now;
    const maxBlock = (await this.rpc.getBlockNumber()) - BigInt(network.confirmations) + 1n;
    const targets = await store.claimSweeps(network.chainId, maxBlock, now(), this.o.claimMs ?? 300_000, this.o.batch ?? 20);
    if (targets.length === 0) return { swept: 0 };
    const wallet = createWalletClient({ account: this.o.gas, transport: this.transport });
    const hash = await wallet.writeContract({
      chain: null,
      address: network.factory,
      abi: DepositFactory.abi,
      functionName: 'sweep',
      args: [targets.map((t) => ({ payout: t.payout as Address, salt: saltOf(t.merchantId, t.mode, t.reference), token: t.token as Address }))],
    });
    const receipt = await this.rpc.waitForTransactionReceipt({ hash, pollingInterval: 250, timeout: 120_000 });
    // A reverted sweep moved nothing: its claim runs out and the deposits are tried again.
    if (receipt.status !== 'success') throw new Error(`sweep ${hash} on chain ${network.chainId} reverted`);
    await store.swept(network.chainId, targets, maxBlock, hash);
    return { swept: targets.length, hash };
  }
}
