// A treasury holding more than the journal explains is reported as a shortfall is, on
// the dev chain, on PGlite (the findings and the operator's events are stored).
// Before, a surplus was saved silently: /readyz said "Ready", no metric, no log, no event. Now
// /readyz stays 200 with a warning naming the chain, coin and surplus, /metrics has
// service_treasury_surplus, the operator's events have `treasury_surplus` once per surplus, and
// nothing is held: money still moves.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, createWalletClient, http, parseUnits } from 'viem';
import { foundry } from 'viem/chains';
import { startService, type Service } from '../../service/app.ts';
import { ChainStore } from '../../chain/store.ts';
import { depositViews } from '../../payments/deposit-views-store.ts';
import { Watcher } from '../../chain/watcher.ts';
import { creditsOf } from '../../testing/chain.ts';
import { TestToken } from '../../../contracts/artifacts.generated.ts';
import { devAccount, devNetwork, TREASURY_DEV_ACCOUNT, type DevContracts } from '../../../devchain/deploy.ts';
import type { DevChain } from '../../../devchain/anvil.ts';
import { sharedDevChain } from '../../../devchain/shared.ts';
import { DEV_CHAIN_POWERS } from '../../../devchain/sandbox.ts';
import { databaseOptions, ONLY_PGLITE } from '../../testing/databases.ts';

const ADMIN_TOKEN = 'op_' + 'i49'.repeat(14);

describe.each(ONLY_PGLITE)('a treasury surplus, on %s', { timeout: 120_000 }, (kind) => {
  let chain: DevChain;
  let contracts: DevContracts;
  let api: Service;
  beforeAll(async () => {
    ({ chain, contracts } = await sharedDevChain());
  }, 60_000);
  afterAll(async () => {
    await api?.close();
    await chain?.stop();
  });
  const reader = () => createPublicClient({ chain: foundry, transport: http(chain.url) });
  const readyz = async () => {
    const response = await fetch(api.url + '/readyz');
    return { status: response.status, body: (await response.json()) as { message: string; data: Array<{ name: string; ok: boolean; detail: string }> } };
  };
  const metrics = async () => (await fetch(api.url + '/metrics', { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).text();

  it('is a warning in /readyz, a metric and an operator event (and a log line), never a hold', async () => {
    api = await startService({
      demo: true,
      adminToken: ADMIN_TOKEN,
      networks: { test: devNetwork(chain.url, contracts, 1) },
      devChain: DEV_CHAIN_POWERS,
      jobs: false,
      ...(await databaseOptions(kind)),
    });
    // The chain followed (the jobs are off here: one watcher tick), so readiness is about the treasury.
    const watcher = new Watcher({
      chainId: 31337,
      rpcUrls: [chain.url],
      confirmations: 1,
      tokens: Object.values(contracts.tokens),
      store: new ChainStore(api.db, depositViews),
      credits: creditsOf(api),
      holder: 'surplus',
      startBlock: await reader().getBlockNumber(),
      leaseMs: 0,
    });
    await watcher.tick();
    await api.parts.reconcileTreasuries();
    expect((await readyz()).body.message).toBe('Ready');
    // 5 USDT sent straight to the treasury: money no journal entry explains.
    const sender = createWalletClient({ account: devAccount(1), chain: foundry, transport: http(chain.url) });
    await reader().waitForTransactionReceipt({
      hash: await sender.writeContract({
        address: contracts.tokens.USDT,
        abi: TestToken.abi,
        functionName: 'transfer',
        args: [devAccount(TREASURY_DEV_ACCOUNT).address, parseUnits('5', 18)],
      }),
      pollingInterval: 50,
    });
    await watcher.tick();
    await api.parts.reconcileTreasuries();
    await api.parts.reconcileTreasuries(); // a second look tells nothing new

    const ready = await readyz();
    expect(ready.status).toBe(200);
    expect(ready.body.message).toMatch(/^Ready, with a warning: treasury on chain 31337 \(USDT\): holds 5, owes 0 .*: 5 SURPLUS/);
    expect(ready.body.data.find((c) => c.name === 'treasury on chain 31337 (USDT)')).toMatchObject({ ok: true, detail: expect.stringContaining('5 SURPLUS') });
    expect(await metrics()).toMatch(/service_treasury_surplus\{chain="31337",coin="USDT"\} 5\n/);
    const events = (await api.parts.treasuryHolds.events()).filter((e) => e.kind === 'treasury_surplus');
    expect(events).toHaveLength(1);
    expect(events[0]!.detail).toMatch(/holds 5 USDT .*: 5 more than the books explain/);
    expect(await api.parts.treasuryHolds.active(31337)).toBeUndefined();
  });
});
