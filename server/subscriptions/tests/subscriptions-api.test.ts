// Plans and subscriptions over HTTP, on PGlite, on the shared dev chain: a plan in
// USDC made, listed and read; bad input a 400 naming the field; a customer's wallet subscribed,
// answered with what it approves (price × periods, to the gas wallet); canceled once, then 409.
// Every answer is held to the OpenAPI document.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { holdAnswersToOpenApi } from '../../testing/conformance.ts';
import type { Service } from '../../service/app.ts';
import type { DevChain } from '../../../devchain/anvil.ts';
import { devAccount, devNetwork, GAS_DEV_ACCOUNT, type DevContracts } from '../../../devchain/deploy.ts';
import { DEV_CHAIN_POWERS } from '../../../devchain/sandbox.ts';
import { sharedDevChain } from '../../../devchain/shared.ts';
import { DEMO_MERCHANT } from '../../service/seed.ts';
import { databaseOptions, ONLY_PGLITE } from '../../testing/databases.ts';
import { caller } from '../../testing/chain.ts';
import { secretKey, subscriptionsService } from '../../testing/subscriptions.ts';

holdAnswersToOpenApi();

const wallet = devAccount(12).address;

describe.each(ONLY_PGLITE)('plans and subscriptions over HTTP, on %s', { timeout: 120_000 }, (kind) => {
  let chain: DevChain;
  let contracts: DevContracts;
  let api: Service;
  const call = caller(() => api.url);

  beforeAll(async () => {
    ({ chain, contracts } = await sharedDevChain());
    api = await subscriptionsService(devNetwork(chain.url, contracts, 1), DEV_CHAIN_POWERS, await databaseOptions(kind), devAccount(9).address);
  }, 60_000);
  afterAll(async () => {
    await api?.close();
    await chain?.stop();
  });

  it('makes, lists and reads a plan; refuses bad input naming the field', async () => {
    const made = await call(
      'POST',
      '/api/v1/plans',
      { name: 'Tea club', coin: 'USDC', chain_id: 31337, price: '9.5', period: 'month', periods: 12 },
      secretKey,
    );
    expect(made.status).toBe(201);
    expect(made.body.data).toMatchObject({ name: 'Tea club', coin: 'USDC', chainId: 31337, price: '9.5', period: 'month', periods: 12 });
    const listed = await call('GET', '/api/v1/plans?limit=1', undefined, secretKey);
    expect(listed.body.data.map((p: { id: string }) => p.id)).toEqual([made.body.data.id]);
    expect((await call('GET', `/api/v1/plans/${made.body.data.id}`, undefined, secretKey)).body.data).toEqual(made.body.data);
    const fields = async (body: object) => {
      const answer = await call(
        'POST',
        '/api/v1/plans',
        { name: 'x', coin: 'USDC', chain_id: 31337, price: '1', period: 'day', periods: 1, ...body },
        secretKey,
      );
      expect(answer.status).toBe(400);
      return answer.body.errors.map((e: { field: string }) => e.field);
    };
    expect(await fields({ price: '1.001' })).toEqual(['price']);
    expect(await fields({ price: '0' })).toEqual(['price']);
    expect(await fields({ period: 'fortnight' })).toEqual(['period']);
    expect(await fields({ periods: 0 })).toEqual(['periods']);
    expect(await fields({ chain_id: 1 })).toEqual(['chain_id']);
  });

  it("subscribes a wallet: pending, with what it approves (price × periods to the gas wallet); cancels once; another merchant's is 404", async () => {
    const plan = (await call('POST', '/api/v1/plans', { name: 'Daily', coin: 'USDC', price: '2.25', period: 'day', periods: 4 }, secretKey)).body.data;
    const made = await call('POST', '/api/v1/subscriptions', { plan_id: plan.id, wallet }, secretKey);
    expect(made.status).toBe(201);
    expect(made.body.data).toMatchObject({
      planId: plan.id,
      wallet: wallet.toLowerCase(),
      status: 'pending',
      charged: 0,
      failures: 0,
      approve: { chainId: 31337, token: contracts.tokens.USDC.toLowerCase(), spender: devAccount(GAS_DEV_ACCOUNT).address.toLowerCase(), amount: '9' },
      canceledAt: null,
    });
    const bad = await call('POST', '/api/v1/subscriptions', { plan_id: plan.id, wallet: wallet.replace(/[a-f]/, (c) => c.toUpperCase()) }, secretKey);
    expect([bad.status, bad.body.errors?.[0]?.field]).toEqual([400, 'wallet']);
    const none = await call('POST', '/api/v1/subscriptions', { plan_id: '00000000-0000-4000-8000-000000000000', wallet }, secretKey);
    expect([none.status, none.body.errors?.[0]?.field]).toEqual([404, 'plan_id']);
    const id = made.body.data.id;
    expect((await call('GET', '/api/v1/subscriptions', undefined, secretKey)).body.data.map((s: { id: string }) => s.id)).toContain(id);
    expect((await call('GET', `/api/v1/subscriptions/${id}`, undefined, DEMO_MERCHANT.keys.live.secretKey)).status).toBe(404);
    const canceled = await call('POST', `/api/v1/subscriptions/${id}/cancel`, undefined, secretKey);
    expect(canceled.status).toBe(200);
    expect(canceled.body.data).toMatchObject({ status: 'canceled', nextChargeAt: null });
    expect((await call('POST', `/api/v1/subscriptions/${id}/cancel`, undefined, secretKey)).status).toBe(409);
    const told = await api.db.query<{ body: string }>(`SELECT body FROM events WHERE type = 'SUBSCRIPTION_UPDATED' ORDER BY seq`);
    expect(told.map((e) => JSON.parse(e.body).data)).toEqual([{ id, planId: plan.id, wallet: wallet.toLowerCase(), status: 'canceled', charged: 0 }]);
  });
});
