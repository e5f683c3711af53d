// Two instances of the service on one PostgreSQL database, on the shared anvil: both ask for the
// same started period at once, each with its own job's tick and each past its lease with the use
// case itself, and the customer is charged the period once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseUnits } from 'viem';
import type { Service } from '../../service/app.ts';
import type { DevChain } from '../../../devchain/anvil.ts';
import { devAccount, devNetwork, devRpc, GAS_DEV_ACCOUNT, type DevContracts } from '../../../devchain/deploy.ts';
import { sharedDevChain } from '../../../devchain/shared.ts';
import { DEV_CHAIN_POWERS } from '../../../devchain/sandbox.ts';
import { freshPostgres } from '../../testing/databases.ts';
import { caller } from '../../testing/chain.ts';
import { customers, secretKey, subscriptionsService } from '../../testing/subscriptions.ts';

describe('two instances on one PostgreSQL', { timeout: 180_000 }, () => {
  let chain: DevChain;
  let contracts: DevContracts;
  let one: Service;
  let two: Service;
  const { customer, approve, balance, advance } = customers({
    chainUrl: () => chain.url,
    usdc: () => contracts.tokens.USDC,
    funder: devAccount(3),
    rpc: devRpc,
  });

  beforeAll(async () => {
    ({ chain, contracts } = await sharedDevChain());
    const databaseUrl = await freshPostgres();
    const serve = (instance: string) =>
      subscriptionsService(devNetwork(chain.url, contracts, 1), DEV_CHAIN_POWERS, { databaseUrl, instance }, devAccount(9).address);
    one = await serve('one');
    two = await serve('two');
  }, 60_000);
  afterAll(async () => {
    await one?.close();
    await two?.close();
    await chain?.stop();
  });

  it('charges each started period once, whichever instance asks and however many at once', async () => {
    const call = caller(() => one.url);
    const plan = await call('POST', '/api/v1/plans', { name: 'Daily', coin: 'USDC', price: '10', period: 'day', periods: 3 }, secretKey);
    const who = await customer('100');
    const id = (await call('POST', '/api/v1/subscriptions', { plan_id: plan.body.data.id, wallet: who.address }, secretKey)).body.data.id;
    await approve(who, devAccount(GAS_DEV_ACCOUNT).address, '30');
    const ticks = await Promise.all([one, two, one, two].map((api, i) => api.parts.subscriptions.chargeDue('test', 31337, `tick-${i}`)));
    expect(ticks.flat()).toEqual(['charged']);
    expect(await balance(who.address)).toBe(parseUnits('90', 6));
    await advance(86_400);
    // Past the lease: each instance's use case, twice each, for the same started period.
    const past = await Promise.all(
      [one, two, one, two].map(async (api, i) => {
        const charger = api.parts.subscriptions.charger('test', 31337)!;
        const clock = await charger.clockMs();
        const [s] = (await api.parts.subscriptions.store.due('test', 31337, clock, 50)).filter((d) => d.id === id);
        return s ? api.parts.subscriptions.chargeOne(charger, s, `past-${i}`, clock) : 'skipped';
      }),
    );
    expect(past.filter((o) => o === 'charged')).toHaveLength(1);
    expect(past.filter((o) => o !== 'charged').every((o) => o === 'skipped')).toBe(true);
    expect(await balance(who.address)).toBe(parseUnits('80', 6));
    expect((await call('GET', `/api/v1/subscriptions/${id}`, undefined, secretKey)).body.data).toMatchObject({ status: 'active', charged: 2 });
  });
});
