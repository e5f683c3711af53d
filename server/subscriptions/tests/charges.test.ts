// Each period's charge, on the shared anvil, on PGlite and PostgreSQL: the chain's clock moved a
// period at a time (evm_increaseTime, never a real wait), each period is charged once at or
// after its start, exactly the plan's price, by the gas wallet's transferFrom of the customer's
// one approval, as a payment the watcher confirms and tells (DEPOSIT_TRANSACTION); never early,
// never twice (two ticks at once, and two charges of one period at once past the lease), never
// after a cancel; a revoked allowance is retried, told, past_due, then canceled on schedule.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseUnits, type LocalAccount } from 'viem';
import type { Service } from '../../service/app.ts';
import type { DevChain } from '../../../devchain/anvil.ts';
import { devAccount, devNetwork, devRpc, GAS_DEV_ACCOUNT, type DevContracts } from '../../../devchain/deploy.ts';
import { sharedDevChain } from '../../../devchain/shared.ts';
import { DEV_CHAIN_POWERS } from '../../../devchain/sandbox.ts';
import { DEMO_MERCHANT } from '../../service/seed.ts';
import { databaseOptions, KINDS } from '../../testing/databases.ts';
import { caller, until } from '../../testing/chain.ts';
import { customers, secretKey, subscriptionsService } from '../../testing/subscriptions.ts';
import { CANCEL_AFTER_MS, chargeReference, GRACE_MS } from '../rules.ts';

const DAY = 86_400;
const gasWallet = devAccount(GAS_DEV_ACCOUNT).address;
const owner = { merchant: { id: DEMO_MERCHANT.id }, mode: 'test' as const };

describe.each(KINDS)('subscription charges on anvil, on %s', { timeout: 180_000 }, (kind) => {
  let chain: DevChain;
  let contracts: DevContracts;
  let api: Service;
  const call = caller(() => api.url);
  const { customer, approve, balance, advance } = customers({
    chainUrl: () => chain.url,
    usdc: () => contracts.tokens.USDC,
    funder: devAccount(3),
    rpc: devRpc,
  });

  beforeAll(async () => {
    ({ chain, contracts } = await sharedDevChain());
    api = await subscriptionsService(devNetwork(chain.url, contracts, 1), DEV_CHAIN_POWERS, await databaseOptions(kind), devAccount(9).address);
  }, 60_000);
  // Each test's subscriptions end with it: the next test's ticks charge its own alone.
  afterEach(async () => {
    for (const s of (await call('GET', '/api/v1/subscriptions?limit=100', undefined, secretKey)).body.data)
      if (s.status !== 'canceled') await call('POST', `/api/v1/subscriptions/${s.id}/cancel`, undefined, secretKey);
  });
  afterAll(async () => {
    await api?.close();
    await chain?.stop();
  });

  const tick = (holder = 'test-tick') => api.parts.subscriptions.chargeDue('test', 31337, holder);
  const get = async (id: string) => (await call('GET', `/api/v1/subscriptions/${id}`, undefined, secretKey)).body.data;
  const told = async (id: string) =>
    (await api.db.query<{ type: string; body: string }>(`SELECT type, body FROM events WHERE type LIKE 'SUBSCRIPTION_%' ORDER BY seq`))
      .map((e) => ({ type: e.type, data: JSON.parse(e.body).data }))
      .filter((e) => e.data.id === id)
      .map((e) => `${e.type === 'SUBSCRIPTION_UPDATED' ? 'updated' : 'failed'}:${e.data.status}`);

  /** A plan of `periods` days at 10 USDC, and a fresh customer with 100 USDC subscribed to it, who approved `approved` USDC. */
  async function subscribed(periods: number, approved = String(10 * periods)): Promise<{ id: string; who: LocalAccount }> {
    const plan = await call('POST', '/api/v1/plans', { name: 'Daily tea', coin: 'USDC', price: '10', period: 'day', periods }, secretKey);
    const who = await customer('100');
    const made = await call('POST', '/api/v1/subscriptions', { plan_id: plan.body.data.id, wallet: who.address }, secretKey);
    expect(made.body.data.approve).toMatchObject({ spender: gasWallet.toLowerCase(), amount: String(10 * periods) });
    await approve(who, gasWallet, approved);
    return { id: made.body.data.id, who };
  }
  const usdc = (n: number) => parseUnits(String(n), 6);

  it('charges each period once at or after its start, the price exactly, never early, and none past the last; each a payment confirmed and told', async () => {
    const { id, who } = await subscribed(2, '1000');
    expect(await tick()).toEqual(['charged']);
    expect(await balance(who.address)).toBe(usdc(90));
    expect(await get(id)).toMatchObject({ status: 'active', charged: 1 });
    // The charge is an ordinary payment: the watcher confirms it, and DEPOSIT_TRANSACTION tells it.
    const reference = chargeReference(id, 0);
    await until(
      'the first charge confirmed',
      async () => (await call('GET', `/api/v1/transaction/verify/${reference}`, undefined, secretKey)).body.data?.status === 'confirmed',
    );
    const deposits = await api.db.query<{ body: string }>(`SELECT body FROM events WHERE type = 'DEPOSIT_TRANSACTION'`);
    expect(deposits.some((e) => JSON.parse(e.body).data.reference === reference)).toBe(true);
    // Asked again at once, and a minute before the next period: nothing is due (the approval allows 1000),
    // even asked of the use case itself with the subscription as it stands, past the job's query.
    expect(await tick()).toEqual([]);
    const charger = api.parts.subscriptions.charger('test', 31337)!;
    const early = async () =>
      api.parts.subscriptions.chargeOne(charger, (await api.parts.subscriptions.store.subscription(owner, id))!, 'early', await charger.clockMs());
    expect(await early()).toBe('skipped');
    await advance(DAY - 60);
    expect(await tick()).toEqual([]);
    expect(await early()).toBe('skipped');
    expect(await balance(who.address)).toBe(usdc(90));
    await advance(60);
    expect(await tick()).toEqual(['charged']);
    expect(await balance(who.address)).toBe(usdc(80));
    expect(await get(id)).toMatchObject({ status: 'active', charged: 2, nextChargeAt: null });
    // The plan's two periods are charged: none after, however long.
    await advance(3 * DAY);
    expect(await tick()).toEqual([]);
    expect(await balance(who.address)).toBe(usdc(80));
    expect((await api.parts.subscriptions.store.charges(id)).map((c) => [c.period, c.state, c.amount])).toEqual([
      [0, 'sent', usdc(10)],
      [1, 'sent', usdc(10)],
    ]);
  });

  it('never charges a period twice: two ticks at once (the lease), and two charges of one period at once past the lease (its key)', async () => {
    const { id, who } = await subscribed(3);
    const ticks = await Promise.all([tick('instance-a'), tick('instance-b')]);
    expect(ticks.flat()).toEqual(['charged']);
    expect(await balance(who.address)).toBe(usdc(90));
    await advance(DAY);
    // Past the lease: the use case itself, twice at once for the same started period.
    const subscriptions = api.parts.subscriptions;
    const charger = subscriptions.charger('test', 31337)!;
    const clock = await charger.clockMs();
    const [s] = (await subscriptions.store.due('test', 31337, clock, 50)).filter((d) => d.id === id);
    const both = await Promise.all([subscriptions.chargeOne(charger, s!, 'a', clock), subscriptions.chargeOne(charger, s!, 'b', clock)]);
    expect(both.sort()).toEqual(['charged', 'skipped']);
    expect(await balance(who.address)).toBe(usdc(80));
    // The same stale view of the subscription again: the period is charged, nothing more is taken.
    expect(await subscriptions.chargeOne(charger, s!, 'c', clock)).toBe('skipped');
    expect(await balance(who.address)).toBe(usdc(80));
    expect(await get(id)).toMatchObject({ charged: 2 });
  });

  it('never charges after a cancel, even a tick that read the subscription before it', async () => {
    const { id, who } = await subscribed(3);
    expect(await tick()).toEqual(['charged']);
    await advance(DAY);
    const subscriptions = api.parts.subscriptions;
    const charger = subscriptions.charger('test', 31337)!;
    const clock = await charger.clockMs();
    const [before] = (await subscriptions.store.due('test', 31337, clock, 50)).filter((d) => d.id === id);
    expect(before).toBeDefined();
    expect((await call('POST', `/api/v1/subscriptions/${id}/cancel`, undefined, secretKey)).status).toBe(200);
    expect(await subscriptions.chargeOne(charger, before!, 'stale', clock)).toBe('skipped');
    await advance(DAY);
    expect(await tick()).toEqual([]);
    expect(await balance(who.address)).toBe(usdc(90));
    expect(await told(id)).toEqual(['updated:active', 'updated:canceled']);
  });

  it('a revoked allowance: retried on the schedule and told, past_due past the grace period, then canceled, and never charged', async () => {
    const { id, who } = await subscribed(3);
    expect(await tick()).toEqual(['charged']);
    await approve(who, gasWallet, '0');
    await advance(DAY);
    expect(await tick()).toEqual(['failed']);
    expect(await get(id)).toMatchObject({ status: 'active', charged: 1, failures: 1 });
    // Retried an hour on, not before.
    expect(await tick()).toEqual([]);
    await advance(3600);
    expect(await tick()).toEqual(['failed']);
    // Past the grace period: past_due, still retried.
    await advance(GRACE_MS / 1000);
    expect(await tick()).toEqual(['failed']);
    expect(await get(id)).toMatchObject({ status: 'past_due', charged: 1 });
    // Past the cancel period: canceled, never tried again.
    await advance(CANCEL_AFTER_MS / 1000);
    expect(await tick()).toEqual(['failed']);
    expect(await get(id)).toMatchObject({ status: 'canceled', nextChargeAt: null });
    await advance(DAY);
    expect(await tick()).toEqual([]);
    expect(await balance(who.address)).toBe(usdc(90));
    expect(await told(id)).toEqual([
      'updated:active',
      'failed:active',
      'failed:active',
      'failed:past_due',
      'updated:past_due',
      'failed:canceled',
      'updated:canceled',
    ]);
    const failed = await api.db.query<{ body: string }>(`SELECT body FROM events WHERE type = 'SUBSCRIPTION_PAYMENT_FAILED'`);
    expect(JSON.parse(failed.at(-1)!.body).data).toMatchObject({ id, period: 1, reason: expect.stringMatching(/^allowance: /) });
  });
});
