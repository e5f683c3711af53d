// With two instances: a final sweep a reorganisation deeper than the
// confirmations took away is swept again once, whichever of two sweepers (two holders of the
// chain's sweeper lease, on one database) looks first: the deposit's money reaches the treasury
// once, its deposit entry is journaled once, and later looks by either find nothing to do. The
// shared dev chain (each transaction mined at once), the sweepers ticked by hand; PGlite and
// PostgreSQL.
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
import { databaseOptions, KINDS } from '../../testing/databases.ts';
import { Sweeper } from '../sweeper.ts';
import { Watcher } from '../watcher.ts';
import { caller, creditsOf } from '../../testing/chain.ts';

const { secretKey } = DEMO_MERCHANT.keys.test;
const gas = devAccount(6);
const owner = { merchant: DEMO_MERCHANT, mode: 'test' } as never;
let chain: DevChain;
let contracts: DevContracts;
const reader = () => createPublicClient({ chain: foundry, transport: http(chain.url) });
const rpc = (method: string, params: unknown[] = []) => reader().request({ method: method as 'eth_blockNumber', params: params as never });
const balance = (token: Address, who: Address) => reader().readContract({ address: token, abi: TestToken.abi, functionName: 'balanceOf', args: [who] });

beforeAll(async () => {
  ({ chain, contracts } = await sharedDevChain());
}, 60_000);
afterAll(async () => {
  await chain?.stop();
});

describe.each(KINDS)('on %s', (kind) => {
  it('two sweepers: the vanished final sweep is swept again once, journaled once', { timeout: 90_000 }, async () => {
    const network = devNetwork(chain.url, contracts, 1);
    const api = await startService({ demo: true, networks: { test: network }, devChain: DEV_CHAIN_POWERS, jobs: false, ...(await databaseOptions(kind)) });
    const store = new ChainStore(api.db, depositViews);
    await store.forget(chain.chainId);
    const watcher = new Watcher({
      chainId: chain.chainId,
      rpcUrls: [chain.url],
      confirmations: 1,
      tokens: Object.values(contracts.tokens),
      store,
      credits: creditsOf(api),
      holder: `twice-${kind}`,
      startBlock: (await reader().getBlockNumber()) + 1n,
      leaseMs: 0,
    });
    try {
      const request = caller(() => api.url);
      expect((await request('PUT', '/api/v1/settlement', { settlement: 'balance' }, secretKey)).status).toBe(200);
      const treasury = network.treasury!;
      const made = await request(
        'POST',
        '/api/v1/transaction/initialize',
        { reference: `twice-${kind}`, coin: 'USDT', currency: 'USD', amount: 10 },
        secretKey,
      );
      const to = made.body.data.address as Address;
      const customer = createWalletClient({ account: devAccount(1), chain: foundry, transport: http(chain.url) });
      const paid = await reader().waitForTransactionReceipt({
        hash: await customer.writeContract({ address: contracts.tokens.USDT, abi: TestToken.abi, functionName: 'transfer', args: [to, parseUnits('10', 18)] }),
        pollingInterval: 50,
      });
      await watcher.tick();
      const snapshot = await rpc('evm_snapshot');
      const before = await balance(contracts.tokens.USDT, treasury);
      const a = new Sweeper({ network, store, gas, holder: 'a', recheckMs: 0 });
      const b = new Sweeper({ network, store, gas, holder: 'b', recheckMs: 0 });
      const first = await a.tick();
      expect(first).toMatchObject({ swept: 1, final: 1 });
      expect((await api.parts.journal.balances(owner, Date.now())).find((l) => l.token === contracts.tokens.USDT.toLowerCase())?.available).toBe(
        parseUnits('10', 18),
      );

      // The sweep goes, deeper than its confirmation; its transaction is not sent again by anyone.
      const sweepBlock = (await reader().getTransactionReceipt({ hash: first.hash! })).blockNumber;
      expect(await rpc('evm_revert', [snapshot])).toBe(true);
      await rpc('anvil_mine', [`0x${(sweepBlock - (await reader().getBlockNumber()) + 2n).toString(16)}`]);
      expect(await balance(contracts.tokens.USDT, to)).toBe(parseUnits('10', 18));
      await watcher.tick();

      // Both instances tick at once, then each again: swept again once in all.
      const ticks = [...(await Promise.all([a.tick(), b.tick()])), await b.tick(), await a.tick()];
      expect(ticks.flatMap((t) => t.vanished ?? []).map((v) => [v.hash, v.reopened.length, v.left.length])).toEqual([[first.hash, 1, 0]]);
      expect(ticks.reduce((n, t) => n + t.swept, 0)).toBe(1);
      expect(ticks.reduce((n, t) => n + (t.moved ?? 0), 0)).toBe(1);
      expect(await balance(contracts.tokens.USDT, to)).toBe(0n);
      expect((await balance(contracts.tokens.USDT, treasury)) - before).toBe(parseUnits('10', 18));
      const again = (await store.transfers(chain.chainId)).find((t) => t.txHash === paid.transactionHash)!;
      expect((await reader().getTransactionReceipt({ hash: again.sweptHash as Hex })).status).toBe('success');

      // Journaled once; the balance the same, nothing pending beside it.
      const line = (await api.parts.journal.balances(owner, Date.now())).find((l) => l.token === contracts.tokens.USDT.toLowerCase());
      expect(line).toMatchObject({ available: parseUnits('10', 18), pending: 0n });
      expect((await api.parts.journal.entries(DEMO_MERCHANT.id)).filter((e) => e.kind === 'deposit').map((e) => e.ref)).toEqual([
        `${chain.chainId}/${paid.transactionHash}/${again.logIndex}`,
      ]);
      for (const s of await api.parts.journal.journalSums()) expect(s.sum).toBe(0n);
    } finally {
      await watcher.stop();
      await api.close();
    }
  });
});
