// Third review of issue 21 (this failed on main before its fix): a reorganisation deeper than
// the confirmations (main now orphans a transfer whose sweep is not final) in which both the
// customer's transfer and the sweep come back, the sweep first. Re-mined before the money
// arrives, the sweep moves nothing from that deposit (no Swept event, no SweepFailed); but
// `settle` only looks for SweepFailed, so it keeps the sweep as the deposit's and makes it
// final, and `record` brings the transfer back from `orphaned` with its old swept_hash. The
// transfer is credited again, never swept again (claims want swept_hash IS NULL), and on
// balance settlement journaled into the merchant's balance: money the treasury never got.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, createWalletClient, http, parseUnits, type Address, type Hex } from 'viem';
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
import { Sweeper } from '../sweeper.ts';
import { Watcher } from '../watcher.ts';
import { caller, creditsOf } from '../../testing/chain.ts';

const { secretKey } = DEMO_MERCHANT.keys.test;
const gas = devAccount(6);
let chain: DevChain;
let contracts: DevContracts;
const reader = () => createPublicClient({ chain: foundry, transport: http(chain.url) });
const rpc = (method: string, params: unknown[] = []) => reader().request({ method: method as 'eth_blockNumber', params: params as never });
const balance = (token: Address, owner: Address) => reader().readContract({ address: token, abi: TestToken.abi, functionName: 'balanceOf', args: [owner] });

beforeAll(async () => {
  ({ chain, contracts } = await sharedDevChain());
}, 60_000);
afterAll(async () => {
  await chain?.stop();
});

describe('a deep reorganisation that brings back the sweep before the money', { timeout: 90_000 }, () => {
  it('does not leave the money in the deposit while the books (and the balance) say it was swept', async () => {
    const network = devNetwork(chain.url, contracts, 3);
    const api = await startService({ demo: true, networks: { test: network }, devChain: DEV_CHAIN_POWERS, jobs: false });
    const store = new ChainStore(api.db, depositViews);
    await store.forget(chain.chainId);
    const watcher = new Watcher({
      chainId: chain.chainId,
      rpcUrls: [chain.url],
      confirmations: 3,
      tokens: Object.values(contracts.tokens),
      store,
      credits: creditsOf(api),
      holder: 'stale',
      startBlock: (await reader().getBlockNumber()) + 1n,
      leaseMs: 0,
    });
    try {
      const request = caller(() => api.url);
      expect((await request('PUT', '/api/v1/settlement', { settlement: 'balance' }, secretKey)).status).toBe(200);
      const treasury = network.treasury!;
      const treasuryBefore = await balance(contracts.tokens.USDT, treasury);
      const to = (await request('POST', '/api/v1/transaction/initialize', { reference: 'stale-sweep', coin: 'USDT', currency: 'USD', amount: 10 }, secretKey))
        .body.data.address as Address;
      await watcher.tick();
      const snapshot = await rpc('evm_snapshot');
      const customer = createWalletClient({ account: devAccount(1), chain: foundry, transport: http(chain.url) });
      const paid = await customer.writeContract({
        address: contracts.tokens.USDT,
        abi: TestToken.abi,
        functionName: 'transfer',
        args: [to, parseUnits('10', 18)],
      });
      await reader().waitForTransactionReceipt({ hash: paid, pollingInterval: 50 });
      await rpc('anvil_mine', ['0x2']);
      await watcher.tick();
      const swept = await new Sweeper({ network, store, gas }).tick();
      expect(swept).toMatchObject({ swept: 1, final: 0 });
      const rawPaid = (await rpc('eth_getRawTransactionByHash', [paid])) as Hex;
      const rawSweep = (await rpc('eth_getRawTransactionByHash', [swept.hash])) as Hex;

      // The blocks go; both transactions come back from the pool, the sweep mined first.
      await rpc('evm_revert', [snapshot]);
      await rpc('eth_sendRawTransaction', [rawSweep]);
      await rpc('eth_sendRawTransaction', [rawPaid]);
      await rpc('anvil_mine', ['0x6']);
      const sweepAgain = await reader().getTransactionReceipt({ hash: swept.hash! });
      const paidAgain = await reader().getTransactionReceipt({ hash: paid });
      expect(sweepAgain.blockNumber).toBeLessThan(paidAgain.blockNumber);
      expect(await balance(contracts.tokens.USDT, to)).toBe(parseUnits('10', 18)); // the re-mined sweep moved nothing

      await watcher.tick(); // sees the reorganisation, takes the credit back, sees the transfer again, counts it
      await new Sweeper({ network, store, gas, now: () => Date.now() + 3_600_000 }).tick();
      await rpc('anvil_mine', ['0x3']); // whatever sweep was sent, deep enough to be final
      await new Sweeper({ network, store, gas, now: () => Date.now() + 3_600_000 }).tick();

      // The deposit must be swept again: the money reaches the treasury, and the balance says what the treasury holds.
      expect(await balance(contracts.tokens.USDT, to)).toBe(0n);
      await api.parts.journal.balances({ merchant: DEMO_MERCHANT, mode: 'test' } as never, Date.now());
      const held = await api.parts.journal.held(chain.chainId, contracts.tokens.USDT);
      expect((await balance(contracts.tokens.USDT, treasury)) - treasuryBefore).toBe(held.merchants + held.fees + held.payable);
    } finally {
      await watcher.stop();
      await api.close();
    }
  });
});
