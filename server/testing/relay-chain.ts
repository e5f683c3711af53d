// The relay's chain tests' set-up: the worker's shared anvil with a base fee of 0 (it stays 0 on
// blocks this small, so each gas costs anvil's 1 gwei tip), and a service on it that sends relays
// alone (no sweeps) and waits `relayTimeoutMs` for each.
import { afterAll, beforeAll } from 'vitest';
import { startService, type Service } from '../app.ts';
import { DEMO_MERCHANT } from '../seed.ts';
import { devAccount, devRpc, type DevContracts } from '../../devchain/deploy.ts';
import type { DevChain } from '../../devchain/anvil.ts';
import { sharedDevChain } from '../../devchain/shared.ts';
import { DEV_CHAIN_POWERS } from '../../devchain/sandbox.ts';
import type { Network } from '../chain/networks.ts';
import { caller } from './chain.ts';

/** The shared dev chain for this file, its base fee at 0: read `chain` and `contracts` once the file's tests run. */
export function relayDevChain(): { chain: DevChain; contracts: DevContracts } {
  const got = {} as { chain: DevChain; contracts: DevContracts };
  beforeAll(async () => {
    Object.assign(got, await sharedDevChain());
    await devRpc(got.chain.url, 'anvil_setNextBlockBaseFeePerGas', ['0x0']);
    await devRpc(got.chain.url, 'evm_mine');
  }, 60_000);
  afterAll(async () => {
    await got.chain?.stop();
  });
  return got;
}

/** The service on `network` (the demo merchant paid out to dev account 9), on the database `store` names, its relay requests waiting 1.5 s. */
export async function serveRelays(network: Network, store: { databaseUrl?: string; dataDir?: string }): Promise<Service> {
  const api = await startService({
    demo: true,
    networks: { test: network },
    devChain: DEV_CHAIN_POWERS,
    watchIntervalMs: 100,
    webhookRetryMs: 100,
    sweepIntervalMs: 0,
    relayTimeoutMs: 1_500,
    ...store,
  });
  const payout = await caller(() => api.url)(
    'PUT',
    '/api/v1/payout_address',
    { chain_id: 31337, address: devAccount(9).address },
    DEMO_MERCHANT.keys.test.secretKey,
  );
  if (payout.status !== 200) throw new Error(`payout_address answered ${payout.status}`);
  return api;
}
