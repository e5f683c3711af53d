// What the subscriptions' chain tests share: a service on the dev chain (one confirmation, no
// sweeps, its own jobs ticking once an hour so each test drives the charges), a fresh customer
// holding USDC and a little ETH, its approve, and the chain's clock moved on. The dev chain's
// powers (its network, accounts and RPC) are handed in by the test, as production never imports them.
import {
  createPublicClient,
  createWalletClient,
  erc20Abi,
  http,
  parseEther,
  parseUnits,
  type Address,
  type Hex,
  type LocalAccount,
  type PublicClient,
  type TransactionReceipt,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { TestToken } from '../../contracts/artifacts.generated.ts';
import type { DevChainPowers, Network } from '../chain/networks.ts';
import { startService, type Service } from '../service/app.ts';
import { DEMO_MERCHANT } from '../service/seed.ts';
import { caller, until } from './chain.ts';

export const { secretKey } = DEMO_MERCHANT.keys.test;
/** The operator's token of the tests' services: /metrics tells when the charge job's first tick ended. */
const OPERATOR_TOKEN = 'subscriptions-test-operator-token-0123456789';

/**
 * A service on `network` for the demo merchant, its payout address on the dev chain set to
 * `payout`, on the database the test names (`databaseOptions(kind)`, or a shared one with an
 * instance name): databases.ts reads vitest's context, which the built helpers cannot import.
 */
export async function subscriptionsService(
  network: Network,
  devChain: DevChainPowers,
  database: { databaseUrl?: string; instance?: string },
  payout: Address,
): Promise<Service> {
  const api = await startService({
    demo: true,
    networks: { test: network },
    devChain,
    watchIntervalMs: 100,
    sweepIntervalMs: 0,
    jobIntervalMs: 3_600_000,
    adminToken: OPERATOR_TOKEN,
    ...database,
  });
  const set = await caller(() => api.url)('PUT', '/api/v1/payout_address', { chain_id: network.chainId, address: payout }, secretKey);
  if (set.status !== 200) throw new Error(`payout address: ${set.status}`);
  // The charge job ticks once as the service starts. On PostgreSQL its lease waits behind every
  // other job's first tick (360 ms in a run of nine chain files here, more in CI's whole run),
  // so a tick still under way when a test made its subscription charged that subscription
  // itself, and the test's own first tick found nothing due. The tests drive each charge: they
  // start once that tick has ended.
  await until(
    "the charge job's first tick",
    async () => {
      const metrics = await (await fetch(`${api.url}/metrics`, { headers: { authorization: `Bearer ${OPERATOR_TOKEN}` } })).text();
      return /^service_job_(runs|failures)_total\{job="charge subscriptions"\} [1-9]/m.test(metrics);
    },
    20_000,
    50,
  );
  return api;
}

/** What `customers` gives a test (named: the build emits this file's declarations). */
export interface Customers {
  customer(amount: string): Promise<LocalAccount>;
  approve(who: LocalAccount, spender: Address, amount: string): Promise<TransactionReceipt>;
  balance(who: Address): Promise<bigint>;
  advance(seconds: number): Promise<void>;
  reader(): PublicClient;
}

/** Customers on the dev chain at `chainUrl()`: `funder` mints their USDC; `rpc` is the dev chain's JSON-RPC call. */
export function customers(o: {
  chainUrl: () => string;
  usdc: () => Address;
  funder: LocalAccount;
  rpc: (url: string, method: string, params?: unknown[]) => Promise<unknown>;
}): Customers {
  const reader = () => createPublicClient({ chain: foundry, transport: http(o.chainUrl()) });
  const mined = (hash: Hex) => reader().waitForTransactionReceipt({ hash, pollingInterval: 50 });
  const writer = (account: LocalAccount) => createWalletClient({ account, chain: foundry, transport: http(o.chainUrl()) });

  /** A fresh wallet holding `amount` USDC and 1 ETH for its approve. */
  async function customer(amount: string): Promise<LocalAccount> {
    const who = privateKeyToAccount(generatePrivateKey());
    await o.rpc(o.chainUrl(), 'anvil_setBalance', [who.address, `0x${parseEther('1').toString(16)}`]);
    await mined(
      await writer(o.funder).writeContract({ address: o.usdc(), abi: TestToken.abi, functionName: 'mint', args: [who.address, parseUnits(amount, 6)] }),
    );
    return who;
  }
  const approve = async (who: LocalAccount, spender: Address, amount: string) =>
    mined(await writer(who).writeContract({ address: o.usdc(), abi: erc20Abi, functionName: 'approve', args: [spender, parseUnits(amount, 6)] }));
  const balance = (who: Address) => reader().readContract({ address: o.usdc(), abi: erc20Abi, functionName: 'balanceOf', args: [who] });
  /** The chain's clock moved on by `seconds` (a block mined at that time): never a real wait. */
  const advance = async (seconds: number) => {
    await o.rpc(o.chainUrl(), 'evm_increaseTime', [seconds]);
    await o.rpc(o.chainUrl(), 'evm_mine');
  };
  return { customer, approve, balance, advance, reader };
}
