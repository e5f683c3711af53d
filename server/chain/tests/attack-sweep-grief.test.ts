// Griefing a sweep batch. The sweeper estimates gas for the whole batch and adds a fifth. An
// attacker with payments in the batch (its own merchant account, references that sort first)
// sweeps its own deposits beforehand (anyone may call the factory; the money goes to its own
// payout), so the estimate prices them as empty; once the sweep is in the pool it sends each of
// them one base unit with a higher tip. Their sweeps now transfer, the batch runs out of gas,
// and the other merchants' deposits in it are not swept: either the whole transaction reverts
// (gas paid, claims left to run out) or the factory's catch reports them SweepFailed with an
// empty reason and the sweeper postpones them for an hour as if their token had refused.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createPublicClient, createWalletClient, http, parseUnits, type Address } from 'viem';
import { foundry } from 'viem/chains';
import { startService, type Service } from '../../service/app.ts';
import { DEMO_MERCHANT } from '../../service/seed.ts';
import { ChainStore } from '../store.ts';
import { depositViews } from '../../payments/deposit-views-store.ts';
import { DepositFactory, TestToken } from '../../../contracts/artifacts.generated.ts';
import { devAccount, devNetwork, type DevContracts } from '../../../devchain/deploy.ts';
import type { DevChain } from '../../../devchain/anvil.ts';
import { sharedDevChain } from '../../../devchain/shared.ts';
import { Sweeper } from '../sweeper.ts';
import { Watcher } from '../watcher.ts';
import { saltOf } from '../networks.ts';
import { caller, creditsOf } from '../../testing/chain.ts';

const { secretKey } = DEMO_MERCHANT.keys.test;
let chain: DevChain;
let contracts: DevContracts;
let api: Service;
let store: ChainStore;
const reader = () => createPublicClient({ chain: foundry, transport: http(chain.url) });
const rpc = (method: string, params: unknown[] = []) => reader().request({ method: method as 'eth_blockNumber', params: params as never });
const balance = (token: Address, owner: Address) => reader().readContract({ address: token, abi: TestToken.abi, functionName: 'balanceOf', args: [owner] });

beforeAll(async () => {
  ({ chain, contracts } = await sharedDevChain());
  api = await startService({ demo: true, networks: { test: devNetwork(chain.url, contracts, 1) }, jobs: false });
  store = new ChainStore(api.db, depositViews);
}, 60_000);
afterAll(async () => {
  await api?.close();
  await chain?.stop();
});
const request = caller(() => api.url);

it("an attacker's deposits in a batch cannot keep other merchants' deposits from being swept", { timeout: 90_000 }, async () => {
  const network = devNetwork(chain.url, contracts, 1);
  const payout = devAccount(9).address;
  await request('PUT', '/api/v1/payout_address', { chain_id: chain.chainId, address: payout }, secretKey);
  const customer = createWalletClient({ account: devAccount(1), chain: foundry, transport: http(chain.url) });
  const pay = async (to: Address, amount: bigint) =>
    reader().waitForTransactionReceipt({
      hash: await customer.writeContract({ address: contracts.tokens.USDT, abi: TestToken.abi, functionName: 'transfer', args: [to, amount] }),
      pollingInterval: 20,
    });
  const made = async (reference: string) =>
    (await request('POST', '/api/v1/transaction/initialize', { reference, coin: 'USDT', currency: 'USD', amount: 1 }, secretKey)).body.data.address as Address;
  const attacker: Array<{ reference: string; address: Address }> = [];
  for (let i = 0; i < 14; i++) attacker.push({ reference: `a-${String(i).padStart(2, '0')}`, address: await made(`a-${String(i).padStart(2, '0')}`) });
  const victims: Address[] = [];
  for (const reference of ['z-1', 'z-2']) victims.push(await made(reference));
  for (const a of attacker) await pay(a.address, parseUnits('1', 18));
  for (const v of victims) await pay(v, parseUnits('1', 18));
  const watcher = new Watcher({
    chainId: chain.chainId,
    rpcUrls: [chain.url],
    confirmations: 1,
    tokens: Object.values(contracts.tokens),
    store,
    credits: creditsOf(api),
    holder: 'g',
    startBlock: 1n,
    leaseMs: 0,
  });
  await watcher.tick();

  // 1. The attacker sweeps its own deposits first (to its own payout: nothing is taken).
  const attackerWallet = createWalletClient({ account: devAccount(2), chain: foundry, transport: http(chain.url) });
  const targets = attacker.map((a) => ({ payout, salt: saltOf(DEMO_MERCHANT.id, 'test', a.reference), token: contracts.tokens.USDT }));
  await reader().waitForTransactionReceipt({
    hash: await attackerWallet.writeContract({ address: network.factory, abi: DepositFactory.abi, functionName: 'sweep', args: [targets] }),
    pollingInterval: 20,
  });

  // 2. The service's sweep goes to the pool, estimated on empty attacker deposits.
  await rpc('evm_setAutomine', [false]);
  const gas = devAccount(6);
  const nonce = await reader().getTransactionCount({ address: gas.address });
  const sweeping = new Sweeper({ network, store, gas, batch: 20 }).tick();
  sweeping.catch(() => {});
  try {
    const end = Date.now() + 10_000;
    while ((await reader().getTransactionCount({ address: gas.address, blockTag: 'pending' })) === nonce) {
      if (Date.now() > end) throw new Error('the sweep never reached the pool');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // 3. Front-run: one base unit to each attacker deposit, with a higher tip.
    const fees = await reader().estimateFeesPerGas();
    let n = await reader().getTransactionCount({ address: devAccount(2).address, blockTag: 'pending' });
    for (const a of attacker) {
      await attackerWallet.writeContract({
        address: contracts.tokens.USDT,
        abi: TestToken.abi,
        functionName: 'transfer',
        args: [a.address, 1n],
        nonce: n++,
        maxFeePerGas: fees.maxFeePerGas * 10n + 10n ** 10n,
        maxPriorityFeePerGas: fees.maxPriorityFeePerGas * 10n + 10n ** 9n,
        gas: 100_000n,
      });
    }
    await rpc('evm_mine');
  } finally {
    await rpc('evm_setAutomine', [true]);
  }
  const result = await sweeping.then(
    (r) => r,
    (e: Error) => ({ error: e.message }),
  );
  console.log(JSON.stringify(result, (_k, v) => (typeof v === 'bigint' ? String(v) : v)));
  for (const v of victims) console.log('victim deposit holds', await balance(contracts.tokens.USDT, v));
  for (const v of victims) expect(await balance(contracts.tokens.USDT, v)).toBe(0n);
  await watcher.stop();
});
