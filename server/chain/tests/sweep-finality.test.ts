// A sweep is money moved only once its block has the network's confirmations (second
// review). Recorded as swept at its first receipt, a sweep whose block then left the chain stayed
// "swept" while its deposit still held the money: nothing swept it again, and on balance
// settlement the merchant's balance held money the treasury never received. And reconciliation,
// which reads the chain `confirmations` below the head, reported every deposit swept in the
// last few blocks as a discrepancy.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, createWalletClient, http, parseUnits, type Address } from 'viem';
import { foundry } from 'viem/chains';
import { startService } from '../../service/app.ts';
import { DEMO_MERCHANT } from '../../service/seed.ts';
import { ChainStore } from '../store.ts';
import { depositViews } from '../../payments/deposit-views-store.ts';
import { TestToken } from '../../../contracts/artifacts.generated.ts';
import { devAccount, devNetwork, type DevContracts } from '../../../devchain/deploy.ts';
import type { DevChain } from '../../../devchain/anvil.ts';
import { sharedDevChain } from '../../../devchain/shared.ts';
import { DEV_CHAIN_POWERS } from '../../../devchain/sandbox.ts';
import { reconcile } from '../reconcile.ts';
import { Sweeper } from '../sweeper.ts';
import { Watcher } from '../watcher.ts';
import { caller, creditsOf } from '../../testing/chain.ts';

const { secretKey } = DEMO_MERCHANT.keys.test;
const gas = devAccount(6);
let chain: DevChain;
let contracts: DevContracts;
const reader = () => createPublicClient({ chain: foundry, transport: http(chain.url) });
const balance = (token: Address, owner: Address) => reader().readContract({ address: token, abi: TestToken.abi, functionName: 'balanceOf', args: [owner] });
const rpc = (method: string, params: unknown[] = []) => reader().request({ method: method as 'eth_blockNumber', params: params as never });

beforeAll(async () => {
  ({ chain, contracts } = await sharedDevChain());
}, 60_000);
afterAll(async () => {
  await chain?.stop();
});

/** A service on the dev chain with `confirmations`, its store, and a watcher (ticked by hand). */
async function service(confirmations: number) {
  const network = devNetwork(chain.url, contracts, confirmations);
  const api = await startService({ demo: true, networks: { test: network }, devChain: DEV_CHAIN_POWERS, jobs: false });
  const store = new ChainStore(api.db, depositViews);
  await store.forget(chain.chainId);
  const watcher = new Watcher({
    chainId: chain.chainId,
    rpcUrls: [chain.url],
    confirmations,
    tokens: Object.values(contracts.tokens),
    store,
    credits: creditsOf(api),
    holder: 'finality',
    startBlock: (await reader().getBlockNumber()) + 1n,
    leaseMs: 0,
  });
  const request = caller(() => api.url);
  const pay = async (reference: string, amount = '10') => {
    const made = await request('POST', '/api/v1/transaction/initialize', { reference, coin: 'USDT', currency: 'USD', amount: 10 }, secretKey);
    const to = made.body.data.address as Address;
    const customer = createWalletClient({ account: devAccount(1), chain: foundry, transport: http(chain.url) });
    await reader().waitForTransactionReceipt({
      hash: await customer.writeContract({ address: contracts.tokens.USDT, abi: TestToken.abi, functionName: 'transfer', args: [to, parseUnits(amount, 18)] }),
      pollingInterval: 50,
    });
    return to;
  };
  return {
    api,
    store,
    watcher,
    network,
    request,
    pay,
    close: async () => {
      await watcher.stop();
      await api.close();
    },
  };
}

describe('a sweep counts once its block has its confirmations', { timeout: 60_000 }, () => {
  it('a sweep whose block leaves the chain is undone and swept again; the balance is journaled only for the sweep that stayed', async () => {
    const s = await service(1);
    try {
      expect((await s.request('PUT', '/api/v1/settlement', { settlement: 'balance' }, secretKey)).status).toBe(200);
      const deposit = await s.pay('reorg-sweep');
      await s.watcher.tick();
      const treasury = s.network.treasury!;
      const before = await balance(contracts.tokens.USDT, treasury);

      // With one confirmation, a sweep is final in its own tick: the treasury has the money, and so does the balance.
      const first = await new Sweeper({ network: s.network, store: s.store, gas }).tick();
      expect(first).toMatchObject({ swept: 1, final: 1 });
      expect(await balance(contracts.tokens.USDT, deposit)).toBe(0n);

      // A second deposit's sweep is recorded (on a network that wants three confirmations), then its block leaves the chain.
      const second = await s.pay('reorg-sweep-2');
      await s.watcher.tick();
      await rpc('anvil_mine', ['0x2']);
      const snapshot = await rpc('evm_snapshot');
      const deep = await new Sweeper({ network: { ...s.network, confirmations: 3 }, store: s.store, gas }).tick();
      expect(deep).toMatchObject({ swept: 1, final: 0 });
      await rpc('evm_revert', [snapshot]);
      await rpc('anvil_mine', ['0x3']);
      expect(
        await reader()
          .getTransactionReceipt({ hash: deep.hash! })
          .catch(() => undefined),
      ).toBeUndefined();
      expect(await balance(contracts.tokens.USDT, second)).toBe(parseUnits('10', 18)); // the money never moved

      // The next tick (the deep sweep's claim long run out) sees it gone, undoes it, and sweeps the deposit again.
      await s.watcher.tick();
      const next = await new Sweeper({ network: s.network, store: s.store, gas, now: () => Date.now() + 3_600_000 }).tick();
      expect(next.undone).toEqual([deep.hash]);
      expect(next).toMatchObject({ swept: 1, final: 1 });
      expect(await balance(contracts.tokens.USDT, second)).toBe(0n);
      const recorded = (await s.store.transfers(chain.chainId)).filter((t) => t.state !== 'orphaned');
      expect(recorded.map((t) => t.sweptHash)).toEqual([first.hash, next.hash]);
      // The books: the treasury holds on chain what the journal says, to the base unit.
      await s.api.parts.journal.balances({ merchant: DEMO_MERCHANT, mode: 'test' } as never, Date.now());
      const held = await s.api.parts.journal.held(chain.chainId, contracts.tokens.USDT);
      expect(held.merchants).toBe(parseUnits('20', 18));
      expect((await balance(contracts.tokens.USDT, treasury)) - before).toBe(held.merchants + held.fees + held.payable);
    } finally {
      await s.close();
    }
  });

  it("is not final, journaled or counted as moved until its block has the network's confirmations", async () => {
    const s = await service(3);
    try {
      expect((await s.request('PUT', '/api/v1/settlement', { settlement: 'balance' }, secretKey)).status).toBe(200);
      const treasury = s.network.treasury!;
      const before = await balance(contracts.tokens.USDT, treasury);
      await s.pay('deep-sweep');
      await rpc('anvil_mine', ['0x3']);
      await s.watcher.tick();
      const sweeper = new Sweeper({ network: s.network, store: s.store, gas });
      const swept = await sweeper.tick();
      expect(swept).toMatchObject({ swept: 1, final: 0 });
      const usdt = async () =>
        (await s.api.parts.journal.balances({ merchant: DEMO_MERCHANT, mode: 'test' } as never, Date.now())).find(
          (l) => l.token === contracts.tokens.USDT.toLowerCase(),
        )!;
      // Mined, not yet final: still pending in the balance, and nothing journaled.
      expect(await usdt()).toMatchObject({ available: 0n, pending: parseUnits('10', 18) });
      await rpc('anvil_mine', ['0x2']);
      expect((await sweeper.tick()).final).toBe(1);
      expect(await usdt()).toMatchObject({ available: parseUnits('10', 18), pending: 0n });
      const held = await s.api.parts.journal.held(chain.chainId, contracts.tokens.USDT);
      expect((await balance(contracts.tokens.USDT, treasury)) - before).toBe(held.merchants + held.fees + held.payable);
    } finally {
      await s.close();
    }
  });

  it('a reorganisation deeper than the confirmations takes back a credit whose sweep is not final, and the sweep with it', async () => {
    const s = await service(3);
    try {
      await s.request('PUT', '/api/v1/payout_address', { chain_id: chain.chainId, address: devAccount(12).address }, secretKey);
      const made = await s.request('POST', '/api/v1/transaction/initialize', { reference: 'deep-reorg', coin: 'USDT', currency: 'USD', amount: 10 }, secretKey);
      const to = made.body.data.address as Address;
      await s.watcher.tick();
      const snapshot = await rpc('evm_snapshot');
      const customer = createWalletClient({ account: devAccount(1), chain: foundry, transport: http(chain.url) });
      await reader().waitForTransactionReceipt({
        hash: await customer.writeContract({ address: contracts.tokens.USDT, abi: TestToken.abi, functionName: 'transfer', args: [to, parseUnits('10', 18)] }),
        pollingInterval: 50,
      });
      await rpc('anvil_mine', ['0x2']);
      await s.watcher.tick();
      const verify = async () => (await s.request('GET', '/api/v1/transaction/verify/deep-reorg', undefined, secretKey)).body.data;
      expect(await verify()).toMatchObject({ status: 'confirmed' });
      const swept = await new Sweeper({ network: s.network, store: s.store, gas }).tick();
      expect(swept).toMatchObject({ swept: 1, final: 0 });
      // Four blocks go: the payment's, the two on it, and the sweep's. The chain goes on without them.
      await rpc('evm_revert', [snapshot]);
      await rpc('anvil_mine', ['0x6']);
      await s.watcher.tick();
      expect((await s.store.transfers(chain.chainId)).find((t) => t.recipient === to.toLowerCase())!.state).toBe('orphaned');
      expect(await verify()).toMatchObject({ status: 'pending', amountPaid: 0 });
      const next = await new Sweeper({ network: s.network, store: s.store, gas, now: () => Date.now() + 3_600_000 }).tick();
      expect(next).toMatchObject({ swept: 0, undone: [swept.hash] });
    } finally {
      await s.close();
    }
  });

  it('reconciliation does not report a deposit swept moments ago as a discrepancy', async () => {
    const s = await service(3);
    try {
      expect((await s.request('PUT', '/api/v1/payout_address', { chain_id: chain.chainId, address: devAccount(12).address }, secretKey)).status).toBe(200);
      await s.pay('rc-1');
      await rpc('anvil_mine', ['0x3']);
      await s.watcher.tick();
      expect((await reconcile(s.network, s.store)).fresh).toEqual([]); // agrees before the sweep
      expect((await new Sweeper({ network: s.network, store: s.store, gas }).tick()).swept).toBe(1);
      // The chain three blocks down still holds the money, and so do the books.
      const during = await reconcile(s.network, s.store);
      expect(during.differences).toEqual([]);
      await rpc('anvil_mine', ['0x3']);
      const after = await reconcile(s.network, s.store);
      expect(after.differences).toEqual([]);
      expect(after.deposits.find((d) => d.reference === 'rc-1')).toMatchObject({ held: 0n, onChain: 0n, swept: parseUnits('10', 18) });
    } finally {
      await s.close();
    }
  });
});
