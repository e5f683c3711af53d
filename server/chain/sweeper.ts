// Sweeping: what deposit addresses received moves on to the payout addresses they are bound
// to, many deposits in one transaction, with gas paid by the operator's gas-only wallet. That
// wallet holds no merchant money and its key cannot move any: the factory sends a deposit's
// tokens only to the payout address inside its CREATE2 address (contracts/Deposit.sol).
import { BaseError, createPublicClient, createWalletClient, parseEventLogs, type Address, type Hex, type LocalAccount, type PublicClient, type Transport } from 'viem';
import type { ChainStore, SweepTarget } from '../storage/chain.ts';
import { DepositFactory } from '../../contracts/artifacts.generated.ts';
import { rpcTransport, saltOf, type Network } from './networks.ts';

/** A deposit left out of a sweep: whose, which token, and the revert that said why. */
export interface Stuck {
  reference: string;
  token: string;
  reason: string;
}

export interface SweeperOptions {
  network: Network;
  store: ChainStore;
  /** The operator's gas-only wallet: it pays for sweeps and can do nothing else with deposits. */
  gas: LocalAccount;
  /** Deposits per transaction: ~200k gas a deposit on its first sweep (it deploys the deposit), ~13k later. */
  batch?: number;
  /** How long a claimed sweep is left to its sweeper before another may try it. */
  claimMs?: number;
  /** How long a deposit whose sweep fails on its own (a frozen address, a paused token) waits before it is tried again. */
  stuckMs?: number;
  now?: () => number;
}

export class Sweeper {
  private readonly rpc: PublicClient;
  private readonly transport: Transport;

  constructor(private readonly o: SweeperOptions) {
    this.transport = rpcTransport(o.network.rpcUrls);
    this.rpc = createPublicClient({ cacheTime: 0, transport: this.transport }) as PublicClient;
  }

  /**
   * Sweeps one batch of deposits whose money has its confirmations; answers what it did. Each
   * deposit is tried alone first (a call, no gas): one that would fail (its token froze the
   * address, or is paused) is left out and named, so it never holds its neighbours back. The
   * sweep counts only when its own transaction is mined and succeeded: a replaced or
   * cancelled transaction moved nothing.
   */
  async tick(): Promise<{ swept: number; moved?: number; hash?: Hex; stuck: Stuck[] }> {
    const { network, store } = this.o;
    const now = this.o.now ?? Date.now;
    const maxBlock = (await this.rpc.getBlockNumber()) - BigInt(network.confirmations) + 1n;
    const claimed = await store.claimSweeps(network.chainId, maxBlock, now(), this.o.claimMs ?? 300_000, this.o.batch ?? 20);
    const stuck: Stuck[] = [];
    const targets: SweepTarget[] = [];
    for (const target of claimed) {
      const reason = await this.failure([target]);
      if (reason === undefined) targets.push(target);
      else {
        stuck.push({ reference: target.reference, token: target.token, reason });
        await store.postponeSweep(network.chainId, target, maxBlock, now() + (this.o.stuckMs ?? 3_600_000));
      }
    }
    if (targets.length === 0) return { swept: 0, stuck };
    const wallet = createWalletClient({ account: this.o.gas, transport: this.transport });
    const hash = await wallet.writeContract({ chain: null, address: network.factory, abi: DepositFactory.abi, functionName: 'sweep', args: [targets.map(this.arg)] });
    const receipt = await this.rpc.waitForTransactionReceipt({ hash, pollingInterval: 250, timeout: 120_000 });
    // A replacement's receipt is not this sweep's: its claim runs out and the deposits are tried again.
    if (receipt.transactionHash !== hash) throw new Error(`sweep ${hash} on chain ${network.chainId} was replaced by ${receipt.transactionHash}`);
    // A reverted sweep moved nothing: likewise.
    if (receipt.status !== 'success') throw new Error(`sweep ${hash} on chain ${network.chainId} reverted`);
    // Mined, ours and successful: the factory swept every target (one with nothing left, say a
    // second sweep, moves nothing and emits no Swept). The events say which moved money.
    const moved = parseEventLogs({ abi: DepositFactory.abi, eventName: 'Swept', logs: receipt.logs }).filter((log) => log.address.toLowerCase() === network.factory.toLowerCase()).length;
    await store.swept(network.chainId, targets, maxBlock, hash);
    return { swept: targets.length, moved, hash, stuck };
  }

  private readonly arg = (t: SweepTarget) => ({ payout: t.payout as Address, salt: saltOf(t.merchantId, t.mode, t.reference), token: t.token as Address });

  /** Why a sweep of these targets would fail, from a call that spends nothing; undefined when it would not. */
  private async failure(targets: SweepTarget[]): Promise<string | undefined> {
    try {
      await this.rpc.simulateContract({ account: this.o.gas, address: this.o.network.factory, abi: DepositFactory.abi, functionName: 'sweep', args: [targets.map(this.arg)] });
      return undefined;
    } catch (error) {
      // A revert is the deposit's; anything else (the node unreachable) is not a verdict on it.
      if (error instanceof BaseError && error.walk((e) => (e as { name?: string }).name === 'ContractFunctionRevertedError')) return error.shortMessage;
      throw error;
    }
  }
}
