// Relays sent at once, on a real anvil, on PGlite and on PostgreSQL: one instance's relays on a
// chain go one at a time (take the gas wallet's lease, the caps, send, journal, release), so the
// daily cap counts each relay before the next is checked and no two take the gas wallet's nonce;
// and the lease each relay holds is its own, held exactly while it is in flight, so a relay
// finishing never frees the gas wallet for another instance's sweep while another relay sends.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, http } from 'viem';
import { foundry } from 'viem/chains';
import { startService, type Service } from '../../service/app.ts';
import { DEMO_MERCHANT } from '../../service/seed.ts';
import { devAccount, devNetwork, devRpc, GAS_DEV_ACCOUNT, type DevContracts } from '../../../devchain/deploy.ts';
import type { DevChain } from '../../../devchain/anvil.ts';
import { sharedDevChain } from '../../../devchain/shared.ts';
import { DEV_CHAIN_POWERS } from '../../../devchain/sandbox.ts';
import { databaseOptions, KINDS } from '../../testing/databases.ts';
import { caller, until } from '../../testing/chain.ts';
import { relayPayments, type Paying } from '../../testing/relay-payments.ts';
import type { Network } from '../networks.ts';
import { Relayer } from '../relay.ts';
import type { TransferAuthorization } from '../relay-authorization.ts';
import { RELAY_DAY_MS } from '../relay-caps.ts';

const { secretKey } = DEMO_MERCHANT.keys.test;
const owner = { merchant: { id: DEMO_MERCHANT.id }, mode: 'test' } as never;
const gasWallet = devAccount(GAS_DEV_ACCOUNT).address;
const INSTANCE = 'relay-concurrency';

describe.each(KINDS)('relays sent at once, on %s', { timeout: 120_000 }, (kind) => {
  let chain: DevChain;
  let contracts: DevContracts;
  let api: Service | undefined;
  let network: Network;

  beforeAll(async () => {
    ({ chain, contracts } = await sharedDevChain());
    // A base fee of 0 stays 0 on blocks this small: each gas costs anvil's tip, 1 gwei.
    await devRpc(chain.url, 'anvil_setNextBlockBaseFeePerGas', ['0x0']);
    await devRpc(chain.url, 'evm_mine');
  }, 60_000);
  afterEach(async () => {
    await api?.close();
    api = undefined;
  });
  afterAll(async () => {
    await chain?.stop();
  });

  /** A service on the dev chain (one confirmation, no sweeps: the gas wallet sends relays alone), with these relay settings. */
  async function serve(relay: Partial<Pick<Network, 'relayMaxGasWei' | 'relayDailyGasWei'>>) {
    network = { ...devNetwork(chain.url, contracts, 1), ...relay };
    api = await startService({
      demo: true,
      networks: { test: network },
      devChain: DEV_CHAIN_POWERS,
      watchIntervalMs: 100,
      webhookRetryMs: 100,
      sweepIntervalMs: 0,
      instance: INSTANCE,
      ...(await databaseOptions(kind)),
    });
    expect((await call('PUT', '/api/v1/payout_address', { chain_id: 31337, address: devAccount(9).address }, secretKey)).status).toBe(200);
  }

  const call = caller(() => api!.url);
  const reader = () => createPublicClient({ chain: foundry, transport: http(chain.url) });
  const gasNonce = () => reader().getTransactionCount({ address: gasWallet });
  const usdc = () => contracts.tokens.USDC;
  const sponsored = async () => (await api!.parts.journal.entries(DEMO_MERCHANT.id)).filter((e) => e.kind === 'sponsored_gas');

  const { signedPayment, relay } = relayPayments({ call, chainUrl: () => chain.url, network: () => network, usdc, funder: devAccount(3) });

  /** Four payments, made one after the other (the funder's mints take its nonces in turn). */
  async function payments(prefix: string) {
    const paying: Paying[] = [];
    for (const i of [1, 2, 3, 4]) paying.push(await signedPayment(`${prefix}-${i}`));
    return paying;
  }

  const asRelayed = (p: Paying): TransferAuthorization => ({ ...p.signed.message, signature: p.signed.signature });
  /** Whose payment a relay sent straight through the Relayer pays, as its record names it. */
  const paying = (p: Paying) => ({ merchantId: DEMO_MERCHANT.id, mode: 'test', reference: p.reference });
  const answers = (list: Array<{ status: number; body: { errors?: Array<{ field: string }> } }>) =>
    list.map((a) => `${a.status} ${a.body.errors?.map((e) => e.field).join(',') ?? ''}`.trim()).sort();

  it('four relays of one merchant at once against a daily cap with room for one: one is relayed, three refused by the cap, and the day holds what was journaled', async () => {
    // Room for one relay (~60-90k gas at 1 gwei), not two.
    const daily = 120_000n * 10n ** 9n;
    await serve({ relayDailyGasWei: daily });
    const paying = await payments(`${kind}-cap`);
    const nonce = await gasNonce();
    const all = await Promise.all(paying.map((p) => relay(p)));
    expect(answers(all)).toEqual(['201', '409 gas.daily_cap', '409 gas.daily_cap', '409 gas.daily_cap']);
    expect(await gasNonce()).toBe(nonce + 1);
    expect(await sponsored()).toHaveLength(1);
    expect(await api!.parts.journal.sponsoredGasSince(owner, 31337, Date.now() - RELAY_DAY_MS)).toBeLessThanOrEqual(daily);
  });

  it("four relays at once with room for all: each is relayed at its own nonce of the gas wallet, and each one's gas journaled", async () => {
    await serve({});
    const paying = await payments(`${kind}-all`);
    const nonce = await gasNonce();
    const all = await Promise.all(paying.map((p) => relay(p)));
    expect(answers(all)).toEqual(['201', '201', '201', '201']);
    expect(await gasNonce()).toBe(nonce + 4);
    expect(new Set(all.map((a) => a.body.data.txHash)).size).toBe(4);
    expect(await sponsored()).toHaveLength(4);
  });

  it("one instance's relays hold the gas wallet one at a time, and each holds the lease against other instances until it is done", async () => {
    await serve({});
    const relayer = api!.parts.relayer('test', 31337)!;
    const sweeps = api!.parts.chain.sweeps;
    const [p1, p2] = [await signedPayment(`${kind}-lease-1`), await signedPayment(`${kind}-lease-2`)];
    let inside = 0;
    let most = 0;
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const afford = (wait?: Promise<void>) => async () => {
      inside++;
      most = Math.max(most, inside);
      await wait;
      inside--;
      return undefined; // no cap: re-priced as a sweep is
    };
    // The first relay is at its cap check (a slow database, say) ...
    const first = relayer.send(usdc(), asRelayed(p1), paying(p1), { afford: afford(gate) });
    await until('first at its cap check', async () => inside === 1);
    // ... while a second relay of the same instance is sent: it waits for the first.
    let secondDone = false;
    const second = relayer.send(usdc(), asRelayed(p2), paying(p2), { afford: afford() }).finally(() => (secondDone = true));
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect({ most, secondDone }).toEqual({ most: 1, secondDone: false });
    // Another instance's sweep finds the gas wallet taken while the first relay is in flight ...
    expect(await sweeps.leaseSweeper(31337, 'another-instance', Date.now(), 60_000)).toBe(false);
    open();
    const [r1, r2] = await Promise.all([first, second]);
    expect(['receipt' in r1, 'receipt' in r2, most]).toEqual([true, true, 1]);
    // ... and free once both are done: nothing of theirs is left holding it.
    expect(await sweeps.leaseSweeper(31337, 'another-instance', Date.now(), 60_000)).toBe(true);
    await sweeps.releaseSweeper(31337, 'another-instance');
  });

  it('a relay that finishes does not free the lease of another relay still in flight, even one of another Relayer of the same instance', async () => {
    await serve({});
    const relayer = api!.parts.relayer('test', 31337)!;
    const sweeps = api!.parts.chain.sweeps;
    const [p1, p2] = [await signedPayment(`${kind}-own-1`), await signedPayment(`${kind}-own-2`)];
    let held = false;
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const first = relayer.send(usdc(), asRelayed(p1), paying(p1), {
      afford: async () => {
        held = true;
        await gate;
        return undefined;
      },
    });
    await until('first holds the lease', async () => held);
    // A second Relayer on the same chain and instance (a mode's twin) has no turn in the first's queue: the database lease alone keeps it out.
    const twin = new Relayer(network, devAccount(GAS_DEV_ACCOUNT), api!.parts.chain, INSTANCE, () => Date.now());
    expect(await twin.send(usdc(), asRelayed(p2), paying(p2), {}, 1_000)).toEqual({ busy: true });
    // Its giving up did not free the first relay's lease.
    expect(await sweeps.leaseSweeper(31337, 'another-instance', Date.now(), 60_000)).toBe(false);
    open();
    expect('receipt' in (await first)).toBe(true);
    expect(await sweeps.leaseSweeper(31337, 'another-instance', Date.now(), 60_000)).toBe(true);
    await sweeps.releaseSweeper(31337, 'another-instance');
  });

  it("answers 503, not a bare 500, when another user of the gas key takes the relay's nonce; the same signature again is then relayed", async () => {
    await serve({});
    const p = (await payments(`${kind}-taken`))[0]!;
    await devRpc(chain.url, 'evm_setAutomine', [false]);
    let answer: Awaited<ReturnType<typeof relay>>;
    try {
      const pending = relay(p);
      await until('relay in the pool', async () => {
        const pool = (await devRpc(chain.url, 'txpool_content', [])) as { pending: Record<string, unknown> };
        return Object.keys(pool.pending).some((from) => from.toLowerCase() === gasWallet.toLowerCase());
      });
      // Someone else with the gas key (outside the service and its lease) replaces it at the same nonce.
      const raw = await devAccount(GAS_DEV_ACCOUNT).signTransaction({
        chainId: 31337,
        type: 'eip1559',
        nonce: await gasNonce(),
        to: devAccount(13).address,
        value: 1n,
        gas: 21_000n,
        // Enough above the relay's 1 gwei to replace it, not so much that the next relay's max fee passes the cap.
        maxPriorityFeePerGas: 2n * 10n ** 9n,
        maxFeePerGas: 4n * 10n ** 9n,
      });
      await devRpc(chain.url, 'eth_sendRawTransaction', [raw]);
      await devRpc(chain.url, 'evm_mine');
      answer = await pending;
    } finally {
      await devRpc(chain.url, 'evm_setAutomine', [true]);
    }
    expect([answer.status, answer.body.code]).toEqual([503, 'service_unavailable']);
    const again = await relay(p);
    expect(again.status, JSON.stringify(again.body)).toBe(201);
  });
});
