// Reconciliation: what the ledger says each deposit address holds, against what the chain says
// it holds, at a block deep enough not to move. A difference is money the events did not tell
// the truth about (a fee-on-transfer token credited 10.1 while the deposit held 9.999), a
// transfer the watcher missed, or a sweep not recorded: each is reported, never corrected by guess.
import { createPublicClient, erc20Abi, type Address, type PublicClient } from 'viem';
import type { ChainStore } from './store.ts';
import { networkTransport, type Network } from './networks.ts';

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
  /** Every line of the ledger, with the chain's balance where it was looked at this time (else the last look's). */
  deposits: DepositLine[];
  /** How many lines were looked at on the chain this time: those whose ledger moved, those never seen, and those not seen for `recheckMs`. */
  checked: number;
  /** The lines whose ledger and chain disagree. */
  differences: DepositLine[];
  /** Differences not found before (by any instance): to tell. */
  fresh: DepositLine[];
}

export interface ReconcileOptions {
  rpc?: PublicClient;
  now?: () => number;
  /** A line that agreed and whose ledger has not moved is looked at again after this long (a day). */
  recheckMs?: number;
}

/**
 * Looks at the deposit lines that need it, not every line every time: one whose ledger moved
 * since it last agreed with the chain, one never looked at, one that disagreed, and one not
 * looked at for `recheckMs` (money can leave a deposit without the ledger moving: a sweep by
 * someone else, a token that rebases). Each look is recorded; a difference is told once.
 */
export async function reconcile(network: Network, store: Pick<ChainStore, 'checks'>, options: ReconcileOptions = {}): Promise<Reconciliation> {
  const rpc = options.rpc ?? (createPublicClient({ cacheTime: 0, transport: networkTransport(network) }) as PublicClient);
  const now = options.now ?? Date.now;
  const atBlock = (await rpc.getBlockNumber()) - BigInt(network.confirmations) + 1n;
  const lines = await store.checks.depositHoldings(network.chainId, atBlock);
  const last = await store.checks.depositChecks(network.chainId);
  const deposits: DepositLine[] = [];
  const fresh: DepositLine[] = [];
  let checked = 0;
  for (const line of lines) {
    const before = last.get(`${line.address}/${line.token}`);
    const settled = before && before.held === line.held && before.onChain === before.held && now() - before.checkedMs < (options.recheckMs ?? 86_400_000);
    let onChain: bigint;
    if (settled) onChain = before.onChain;
    else {
      onChain = await rpc.readContract({
        address: line.token as Address,
        abi: erc20Abi,
        functionName: 'balanceOf',
        args: [line.address as Address],
        blockNumber: atBlock,
      });
      checked++;
    }
    const d: DepositLine = {
      reference: line.reference,
      merchantId: line.merchantId,
      mode: line.mode,
      address: line.address,
      token: line.token,
      credited: line.credited,
      swept: line.swept,
      held: line.held,
      onChain,
    };
    deposits.push(d);
    if (!settled && (await store.checks.recordCheck(network.chainId, line.address, line.token, line.held, onChain, now())) && line.held !== onChain)
      fresh.push(d);
  }
  return { chainId: network.chainId, atBlock, deposits, checked, differences: deposits.filter((d) => d.held !== d.onChain), fresh };
}
