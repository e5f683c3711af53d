// Finding 5: money going out never goes to the service's own addresses, on the dev chain,
// on PGlite (a deposit address is any payment's, looked up in storage). Before,
// a withdrawal could go to a payment's deposit address or the gas wallet, a refund to the gas
// wallet, and a merchant's payout address (where wallet-settled deposits are swept) could be a
// deposit address or the gas wallet. Now each is a 400 naming `address`, saying what it is.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseUnits, type Address } from 'viem';
import { startService, type Service } from '../../service/app.ts';
import { DEMO_MERCHANT } from '../../service/seed.ts';
import { devAccount, devNetwork, GAS_DEV_ACCOUNT, TREASURY_DEV_ACCOUNT, type DevContracts } from '../../../devchain/deploy.ts';
import type { DevChain } from '../../../devchain/anvil.ts';
import { sharedDevChain } from '../../../devchain/shared.ts';
import { DEV_CHAIN_POWERS } from '../../../devchain/sandbox.ts';
import { databaseOptions, ONLY_PGLITE } from '../../testing/databases.ts';
import { caller, sweptIntoBalance } from '../../testing/chain.ts';

/** Who pays a deposit in, and who sweeps it, in sweptIntoBalance. */
const DEV_ACCOUNTS = { payer: devAccount(1), gas: devAccount(6) };

const { secretKey } = DEMO_MERCHANT.keys.test;
const gasWallet = devAccount(GAS_DEV_ACCOUNT).address;
const treasury = devAccount(TREASURY_DEV_ACCOUNT).address;

describe.each(ONLY_PGLITE)("the service's own addresses are never where money goes, on %s", { timeout: 120_000 }, (kind) => {
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
  const call = caller(() => api.url);
  const server = (method: string, path: string, body?: unknown) => call(method, path, body, secretKey);
  const refused = (answer: { status: number; body: any }, what: RegExp) => {
    expect([answer.status, answer.body.errors?.[0]?.field], JSON.stringify(answer.body)).toEqual([400, 'address']);
    expect(answer.body.errors[0].message).toMatch(what);
  };

  it('withdrawals, refunds and payout addresses refuse a deposit address, the gas wallet and the treasury, naming address', async () => {
    const network = devNetwork(chain.url, contracts, 1);
    api = await startService({ demo: true, networks: { test: network }, devChain: DEV_CHAIN_POWERS, jobs: false, ...(await databaseOptions(kind)) });
    expect((await server('PUT', '/api/v1/settlement', { settlement: 'balance' })).status).toBe(200);
    // 10 USDT in the balance, so nothing but the destination stands in the way.
    const deposit = (await server('POST', '/api/v1/transaction/initialize', { reference: 'own', coin: 'USDT', currency: 'USD', amount: 10 })).body.data
      .address as Address;
    expect(await sweptIntoBalance(api, network, contracts.tokens.USDT, deposit, parseUnits('10', 18), DEV_ACCOUNTS)).toMatchObject({ swept: 1, final: 1 });
    // Another payment's deposit address (any payment of the service's).
    const other = (await server('POST', '/api/v1/transaction/initialize', { reference: 'own-other', coin: 'USDT', currency: 'USD', amount: 5 })).body.data
      .address as Address;

    const withdraw = (address: string) => server('POST', '/api/v1/withdrawals', { coin: 'USDT', chain_id: 31337, address, amount: '2' });
    refused(await withdraw(other), /not a deposit address of this service/);
    refused(await withdraw(gasWallet), /not the service's gas wallet/);
    refused(await withdraw(treasury.toLowerCase()), /not the service's treasury/);
    const refund = (address: string) => server('POST', '/api/v1/refunds', { reference: 'own', amount: '2', reason: 'back', address });
    refused(await refund(gasWallet), /not the service's gas wallet/);
    refused(await refund(other), /not a deposit address/);
    const payoutAddress = (address: string) => server('PUT', '/api/v1/payout_address', { chain_id: 31337, address });
    refused(await payoutAddress(other), /not a deposit address of this service/);
    refused(await payoutAddress(gasWallet), /not the service's gas wallet/);
    refused(await payoutAddress(treasury), /not the service's treasury/);
    // Nothing was reserved; a wallet of the merchant's still works.
    const fine = await withdraw(devAccount(4).address);
    expect(fine.status, JSON.stringify(fine.body)).toBe(201);
    expect((await payoutAddress(devAccount(4).address)).status).toBe(200);
  });
});
