// Subscriptions' charges on chain: the gas wallet, which the customer approved once for price ×
// periods of an ERC-20, calls transferFrom(customer, the charge payment's deposit address,
// price), sent as a sweep is (the sweeper's nonce, fees, re-pricing) under the chain's sweeper
// lease, so a charge never races a sweep or a relay for the gas wallet's nonce. The watcher
// then credits the transfer like any other. What is due and when is server/subscriptions/'s.
import { encodeFunctionData, erc20Abi, type Address, type LocalAccount, type PublicClient, type TransactionReceipt } from 'viem';
import { randomUUID } from 'node:crypto';
import type { Network } from './networks.ts';
import type { Relayer } from './relay.ts';
import type { ChainStore } from './store.ts';
import { Sweeper } from './sweeper.ts';
import { withLease } from '../storage/leases.ts';

/** The most gas one transferFrom may use (a token's is ~35-60k). */
export const CHARGE_GAS_CEILING = 150_000n;

export interface ChargeTransfer {
  token: Address;
  from: Address;
  to: Address;
  amount: bigint;
}

/** A network's charger: the gas wallet's transferFrom of approved allowances. */
export class Charger {
  readonly rpc: PublicClient;
  readonly network: Network;
  readonly gas: LocalAccount;
  private readonly sender: Sweeper;

  /** The relay's network, node and gas wallet: the charging address is the gas wallet that relays. */
  constructor(
    relayer: Pick<Relayer, 'network' | 'gas' | 'rpc'>,
    private readonly store: Pick<ChainStore, 'sweeps'>,
    private readonly instance: string,
    private readonly now: () => number,
  ) {
    ({ rpc: this.rpc, network: this.network, gas: this.gas } = relayer);
    const { network, gas } = this;
    this.sender = new Sweeper({ network, store, gas, holder: `${instance}/charge`, now, replaceAfterMs: 20_000, timeoutMs: 120_000 });
  }

  /** The chain's clock: the latest block's time, in ms. A period is charged at or after its start by this clock. */
  async clockMs(): Promise<number> {
    return Number((await this.rpc.getBlock({ blockTag: 'latest' })).timestamp) * 1000;
  }

  /** Why the transfer cannot go through now (the allowance or the balance short, or the token refusing it), or undefined. */
  async refusal(t: ChargeTransfer): Promise<string | undefined> {
    const allowance = await this.rpc.readContract({ address: t.token, abi: erc20Abi, functionName: 'allowance', args: [t.from, this.gas.address] });
    if (allowance < t.amount) return `allowance: ${t.from} allows the charging address ${allowance}, less than ${t.amount}`;
    const balance = await this.rpc.readContract({ address: t.token, abi: erc20Abi, functionName: 'balanceOf', args: [t.from] });
    if (balance < t.amount) return `balance: ${t.from} holds ${balance}, less than ${t.amount}`;
    try {
      await this.rpc.call({ account: this.gas.address, to: t.token, data: this.data(t) });
    } catch (error) {
      return `token: ${(error as Error).message.split('\n')[0]}`;
    }
    return undefined;
  }

  private data(t: ChargeTransfer) {
    return encodeFunctionData({ abi: erc20Abi, functionName: 'transferFrom', args: [t.from, t.to, t.amount] });
  }

  /**
   * Sends the transfer from the gas wallet under the chain's sweeper lease, its own holder's
   * name; `ready` is asked once the lease is held, right before sending (false: nothing sent).
   * `busy` when the lease is not free within `waitMs`. Throws when the transaction was sent and
   * not seen mined (the caller then never sends it again on its own).
   */
  async send(t: ChargeTransfer, ready: () => Promise<boolean>, waitMs = 15_000): Promise<{ receipt: TransactionReceipt } | { stopped: true } | { busy: true }> {
    const chainId = this.network.chainId;
    const holder = `${this.instance}/charge/${randomUUID()}`;
    const until = Date.now() + waitMs;
    for (;;) {
      const run = await withLease(
        {
          take: () => this.store.sweeps.leaseSweeper(chainId, holder, this.now(), 60_000),
          release: () => this.store.sweeps.releaseSweeper(chainId, holder),
          ms: 60_000,
        },
        async (lease): Promise<{ receipt: TransactionReceipt } | { stopped: true }> => {
          if (!(await ready())) return { stopped: true };
          const fees = await this.sender.fees();
          const estimate = await this.rpc.estimateGas({ account: this.gas, to: t.token, data: this.data(t) });
          const padded = (estimate * 6n) / 5n;
          const { receipt } = await this.sender.send(t.token, this.data(t), fees, padded < CHARGE_GAS_CEILING ? padded : CHARGE_GAS_CEILING, lease);
          return { receipt };
        },
      );
      if (run.held) return run.value;
      if (Date.now() > until) return { busy: true };
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}
