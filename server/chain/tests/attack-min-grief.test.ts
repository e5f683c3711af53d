// Third review of issue 21: the dust floor (0.01 of a
// token) stops 1-wei griefing, but a transfer of exactly the floor, in a token the payment did
// not ask for (or after it expired), is "unexpected" (or "late") money and is swept on its own,
// the deposit's proxy deployed at the operator's cost. Deposit addresses are public, and a page
// can make payments with the public key. The operator pays more gas than the attacker for every
// deposit, to move one cent each (item 7: "or until the deposit's total covers the
// sweep's gas").
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
import { Sweeper } from '../sweeper.ts';
import { Watcher } from '../watcher.ts';
import { caller, creditsOf } from '../../testing/chain.ts';

const { publicKey, secretKey } = DEMO_MERCHANT.keys.test;
let chain: DevChain;
let contracts: DevContracts;
const reader = () => createPublicClient({ chain: foundry, transport: http(chain.url) });

beforeAll(async () => {
  ({ chain, contracts } = await sharedDevChain());
}, 60_000);
afterAll(async () => {
  await chain?.stop();
});

describe('transfers of exactly the dust floor in another token', { timeout: 90_000 }, () => {
  it('do not cost the operator more gas in sweeps than they cost the sender', async () => {
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
      holder: 'grief',
      startBlock: (await reader().getBlockNumber()) + 1n,
      leaseMs: 0,
    });
    try {
      const request = caller(() => api.url);
      expect((await request('PUT', '/api/v1/payout_address', { chain_id: chain.chainId, address: devAccount(12).address }, secretKey)).status).toBe(200);
      const attacker = createWalletClient({ account: devAccount(2), chain: foundry, transport: http(chain.url) });
      let attackerGas = 0n;
      for (let i = 0; i < 5; i++) {
        // Payments a page makes with the public key, in USDT; the attacker sends 0.01 USDC to each.
        const made = await request('POST', '/api/v1/transaction/initialize', { reference: `grief-${i}`, coin: 'USDT', currency: 'USD', amount: 10 }, publicKey);
        expect(made.status).toBe(201);
        const hash = await attacker.writeContract({
          address: contracts.tokens.USDC,
          abi: TestToken.abi,
          functionName: 'transfer',
          args: [made.body.data.address as Address, parseUnits('0.01', 6)],
        });
        attackerGas += (await reader().waitForTransactionReceipt({ hash, pollingInterval: 50 })).gasUsed;
      }
      await watcher.tick();
      expect((await store.transfers(chain.chainId)).map((t) => t.state)).toEqual(Array(5).fill('unexpected'));
      const swept = await new Sweeper({ network, store, gas: devAccount(6) }).tick();
      const operatorGas = swept.hash ? (await reader().getTransactionReceipt({ hash: swept.hash })).gasUsed : 0n;
      console.log(`attacker: ${attackerGas} gas for 5 transfers of 0.01 USDC; operator: ${operatorGas} gas to sweep them (${swept.swept} deposits)`);
      expect(operatorGas).toBeLessThanOrEqual(attackerGas);
      // Enough of it (a whole token, a hundred times the dust floor) is swept on its own.
      const first = (await store.transfers(chain.chainId))[0]!;
      const more = await attacker.writeContract({
        address: contracts.tokens.USDC,
        abi: TestToken.abi,
        functionName: 'transfer',
        args: [first.recipient as Address, parseUnits('0.99', 6)],
      });
      await reader().waitForTransactionReceipt({ hash: more, pollingInterval: 50 });
      await watcher.tick();
      expect(await new Sweeper({ network, store, gas: devAccount(6) }).tick()).toMatchObject({ swept: 1, moved: 1 });
    } finally {
      await watcher.stop();
      await api.close();
    }
  });
});
