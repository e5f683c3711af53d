// A live network no gas wallet sweeps used to start "Ready" while its deposits were
// never swept. GET /readyz now fails naming the chain until GAS_WALLET_KEY is set.
import { toHex } from 'viem';
import { afterEach, describe, expect, it } from 'vitest';
import { deployDevContracts, devAccount, devNetwork } from '../../../devchain/deploy.ts';
import { startDevChain, TEST_BLOCK_SECONDS } from '../../../devchain/anvil.ts';
import { startService, type Service } from '../../service/app.ts';

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const clean of cleanups.splice(0).reverse()) await clean();
});

type Readiness = { status: number; message: string; data: Array<{ name: string; ok: boolean; detail: string }> };
const readyz = async (api: Service): Promise<Readiness> => {
  const answer = await fetch(api.url + '/readyz');
  return { ...(await answer.json()), status: answer.status };
};
/** /readyz once the chain's watcher has caught up (its own check passes). */
async function watched(api: Service): Promise<Readiness> {
  for (let i = 0; ; i++) {
    const ready = await readyz(api);
    if (ready.data.find((c) => c.name === 'chain 31337 (Local dev chain)')?.ok || i > 200) return ready;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('GET /readyz and the gas wallet', { timeout: 120_000 }, () => {
  it('a live network without a gas wallet is not ready, naming the chain; with GAS_WALLET_KEY it is', async () => {
    const chain = await startDevChain({ blockTimeSeconds: TEST_BLOCK_SECONDS });
    cleanups.push(() => chain.stop());
    const network = devNetwork(chain.url, await deployDevContracts(chain, 3), 2);

    const without = await startService({ networks: { live: network }, watchIntervalMs: 100 });
    const refused = await watched(without);
    await without.close();
    expect(refused.data.find((c) => c.name === 'chain 31337 (Local dev chain)')?.ok).toBe(true);
    expect(refused.status).toBe(503);
    expect(refused.message).toMatch(/gas wallet on chain 31337: none: live deposits on chain 31337 \(Local dev chain\) are never swept; set GAS_WALLET_KEY/);
    expect(refused.data.filter((c) => !c.ok).map((c) => c.name)).toEqual(['gas wallet on chain 31337']);

    // Dev account 8 as the gas wallet, holding 10,000 ETH.
    const withGas = await startService({ networks: { live: network }, watchIntervalMs: 100, gasKey: toHex(devAccount(8).getHdKey().privateKey!) });
    cleanups.push(() => withGas.close());
    const ready = await watched(withGas);
    expect(ready.status).toBe(200);
    expect(ready.data.find((c) => c.name === 'gas wallet on chain 31337')?.ok).toBe(true);
  });
});
