// What a swap quote's pool price is checked against: the coins' US dollar prices from an
// independent source where one is configured, the peg (one dollar) where none is, the bound
// balances.md states ("The bound where no independent price is configured"). One pool, the
// shared dev chain's USDC/USDT at 1:1; three services, each with its own reference.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type Service } from '../../service/app.ts';
import { DEMO_MERCHANT } from '../../service/seed.ts';
import { devNetwork, type DevContracts } from '../../../devchain/deploy.ts';
import type { DevChain } from '../../../devchain/anvil.ts';
import { sharedDevChain } from '../../../devchain/shared.ts';
import { DEV_CHAIN_POWERS } from '../../../devchain/sandbox.ts';
import { caller } from '../../testing/chain.ts';
import { FakeRates } from '../../testing/rates.ts';

const { secretKey } = DEMO_MERCHANT.keys.test;

describe('the swap check against an independent price', { timeout: 60_000 }, () => {
  let dev: { chain: DevChain; contracts: DevContracts };
  const services: Service[] = [];
  beforeAll(async () => {
    dev = await sharedDevChain();
  }, 60_000);
  afterAll(async () => {
    for (const api of services) await api.close();
    await dev?.chain.stop();
  });

  /** A quote of 10 USDC to USDT on a service whose coin prices come from `coins` (none: the peg). */
  async function quote(coins?: Record<string, string>) {
    const api = await startService({
      demo: true,
      networks: { test: devNetwork(dev.chain.url, dev.contracts, 1) },
      devChain: DEV_CHAIN_POWERS,
      jobs: false,
      // A coin 2% off its peg is still offered (the default would take it off at 1%): it is the swap's check that is looked at.
      ...(coins ? { rates: { providers: [new FakeRates(undefined, coins)], maxDeviationBps: 500 } } : {}),
    });
    services.push(api);
    const call = caller(() => api.url);
    expect((await call('PUT', '/api/v1/settlement', { settlement: 'balance' }, secretKey)).status).toBe(200);
    return call('POST', '/api/v1/swaps/quote', { from: 'USDC', to: 'USDT', amount: '10' }, secretKey);
  }

  it('is the peg where no source prices the coins: the 1:1 pool (its 0.3% fee) is within the 1% limit, quoted', async () => {
    const quoted = await quote();
    expect(quoted.status, JSON.stringify(quoted.body)).toBe(201);
  });

  it("is the source's price where one is configured: USDC at 0.98 makes the same pool 1.7% off, refused naming amount; at 0.995, quoted", async () => {
    const refused = await quote({ USDT: '1', USDC: '0.98', DAI: '1', BUSD: '1' });
    expect([refused.status, refused.body.code, refused.body.errors?.[0]?.field]).toEqual([409, 'swap_rate_deviates', 'amount']);
    expect(refused.body.message).toMatch(/is 1\.7\d% from the market rate \(0\.98\), more than this network's limit of 1\.00%/);
    const quoted = await quote({ USDT: '1', USDC: '0.995', DAI: '1', BUSD: '1' });
    expect(quoted.status, JSON.stringify(quoted.body)).toBe(201);
  });
});
