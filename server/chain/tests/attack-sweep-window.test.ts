// Third review of issue 21 (this failed on main before its fix): a sweep moves a deposit's
// whole balance, but is recorded only against the transfers the watcher had recorded when it
// was claimed. A transfer that reached the deposit before the sweep's block but was recorded
// after (the watcher a tick behind, or money still confirming) was moved by that sweep and
// stays "held" in the books:
// - dust is never claimed on its own, so it stays held for ever: reconciliation reports a
//   discrepancy that is not one (told to the merchant as DEPOSIT_DISCREPANCY), and on balance
//   settlement the treasury holds money no journal entry says it received;
// - money that counts is claimed later and swept again: the operator pays for a sweep of an
//   empty deposit, and until then reconciliation reports that deposit too.
// Anyone can send dust to any deposit address (it is public on the chain), timed for the sweep.
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

beforeAll(async () => {
  ({ chain, contracts } = await sharedDevChain());
}, 60_000);
afterAll(async () => {
  await chain?.stop();
});

/** Sends `amount` USDT from dev account `from` to `to`, mined. */
async function sendUsdt(from: number, to: Address, amount: string) {
  const wallet = createWalletClient({ account: devAccount(from), chain: foundry, transport: http(chain.url) });
  await reader().waitForTransactionReceipt({
    hash: await wallet.writeContract({ address: contracts.tokens.USDT, abi: TestToken.abi, functionName: 'transfer', args: [to, parseUnits(amount, 18)] }),
    pollingInterval: 50,
  });
}

async function service() {
  const network = devNetwork(chain.url, contracts, 1);
  const api = await startService({ demo: true, networks: { test: network }, devChain: DEV_CHAIN_POWERS, jobs: false });
  const store = new ChainStore(api.db, depositViews);
  await store.forget(chain.chainId);
  const watcher = new Watcher({
    chainId: chain.chainId,
    rpcUrls: [chain.url],
    confirmations: 1,
    tokens: Object.values(contracts.tokens),
    store,
    minimums: new Map(network.tokens.map((t) => [t.address.toLowerCase(), parseUnits('0.01', t.decimals)])),
    credits: creditsOf(api),
    holder: 'window',
    startBlock: (await reader().getBlockNumber()) + 1n,
    leaseMs: 0,
  });
  const request = caller(() => api.url);
  const open = async (reference: string) =>
    (await request('POST', '/api/v1/transaction/initialize', { reference, coin: 'USDT', currency: 'USD', amount: 10 }, secretKey)).body.data.address as Address;
  return {
    api,
    store,
    watcher,
    network,
    request,
    open,
    close: async () => {
      await watcher.stop();
      await api.close();
    },
  };
}

describe('a sweep is recorded against what it moved', { timeout: 60_000 }, () => {
  it('dust that reached a deposit just before its sweep is not left "held" for ever (no false discrepancy; the treasury journals what it received)', async () => {
    const s = await service();
    try {
      expect((await s.request('PUT', '/api/v1/settlement', { settlement: 'balance' }, secretKey)).status).toBe(200);
      const treasury = s.network.treasury!;
      const before = await balance(contracts.tokens.USDT, treasury);
      const deposit = await s.open('window-dust');
      await sendUsdt(1, deposit, '10');
      expect((await s.watcher.tick()).credited).toBe(1);
      // An attacker's 0.001 USDT (below the 0.01 minimum) lands before the sweep, after the watcher's tick.
      await sendUsdt(2, deposit, '0.001');
      const swept = await new Sweeper({ network: s.network, store: s.store, gas }).tick();
      expect(swept).toMatchObject({ swept: 1, final: 1 });
      expect(await balance(contracts.tokens.USDT, deposit)).toBe(0n); // the sweep took the dust too
      await s.watcher.tick(); // now records the dust, in a block below the sweep's
      await new Sweeper({ network: s.network, store: s.store, gas }).tick();

      // The chain: the deposit is empty. The books must say so.
      const report = await reconcile(s.network, s.store);
      expect(report.deposits.find((d) => d.reference === 'window-dust')).toMatchObject({ onChain: 0n, held: 0n });
      expect(report.differences).toEqual([]);
      // The treasury received 10.001; the journal must say it holds exactly that.
      await s.api.parts.journal.balances({ merchant: DEMO_MERCHANT, mode: 'test' } as never, Date.now());
      const held = await s.api.parts.journal.held(chain.chainId, contracts.tokens.USDT);
      expect((await balance(contracts.tokens.USDT, treasury)) - before).toBe(parseUnits('10.001', 18));
      expect(held.merchants + held.fees + held.payable).toBe(parseUnits('10.001', 18));
    } finally {
      await s.close();
    }
  });

  it("money that was still unrecorded when its deposit was swept is not swept a second time at the operator's cost", async () => {
    const s = await service();
    try {
      expect((await s.request('PUT', '/api/v1/payout_address', { chain_id: chain.chainId, address: devAccount(12).address }, secretKey)).status).toBe(200);
      const deposit = await s.open('window-part');
      await sendUsdt(1, deposit, '5');
      await s.watcher.tick();
      await sendUsdt(1, deposit, '5.1'); // the rest, mined before the sweep, recorded after it
      const first = await new Sweeper({ network: s.network, store: s.store, gas }).tick();
      expect(first.swept).toBe(1);
      expect(await balance(contracts.tokens.USDT, deposit)).toBe(0n); // both halves moved

      await s.watcher.tick(); // the second half is credited now
      expect((await s.request('GET', '/api/v1/transaction/verify/window-part', undefined, secretKey)).body.data.status).toBe('confirmed');
      // Between the two, reconciliation sees money the books hold that the chain does not.
      const report = await reconcile(s.network, s.store);
      expect(report.differences).toEqual([]);
      const gasBefore = await reader().getTransactionCount({ address: gas.address });
      const second = await new Sweeper({ network: s.network, store: s.store, gas }).tick();
      // Nothing is left in the deposit: no transaction should be sent for it.
      expect(second.hash).toBeUndefined();
      expect(await reader().getTransactionCount({ address: gas.address })).toBe(gasBefore);
    } finally {
      await s.close();
    }
  });
});
