// What one outsider with a merchant's public key can make the gas wallet spend, on a real anvil,
// on PGlite: the gas wallet has a cap of its own across every merchant
// (`gas.instance_cap`), a payment is relayed once (a second signature for a payment whose relay
// is under way is refused, naming `reference`), and a payer has a few payments relayed a day
// (`authorization.from`); each refusal before anything is sent.
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, createWalletClient, http, parseUnits, type Address, type LocalAccount } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { startService, type Service } from '../../service/app.ts';
import { DEMO_MERCHANT } from '../../service/seed.ts';
import { TestToken } from '../../../contracts/artifacts.generated.ts';
import { devAccount, devNetwork, devRpc, GAS_DEV_ACCOUNT, type DevContracts } from '../../../devchain/deploy.ts';
import type { DevChain } from '../../../devchain/anvil.ts';
import { sharedDevChain } from '../../../devchain/shared.ts';
import { DEV_CHAIN_POWERS } from '../../../devchain/sandbox.ts';
import { databaseOptions, ONLY_PGLITE } from '../../testing/databases.ts';
import { caller, until } from '../../testing/chain.ts';
import { relayPayments, type Paying } from '../../testing/relay-payments.ts';
import type { Network } from '../networks.ts';

const gasWallet = devAccount(GAS_DEV_ACCOUNT).address;

describe.each(ONLY_PGLITE)("the gas wallet's limits against one outsider, on %s", { timeout: 120_000 }, (kind) => {
  const dev = {} as { chain: DevChain; contracts: DevContracts };
  let api: Service | undefined;
  let network: Network;

  beforeAll(async () => {
    Object.assign(dev, await sharedDevChain());
    // A base fee of 0 stays 0 on blocks this small: each gas costs anvil's tip, 1 gwei.
    await devRpc(dev.chain.url, 'anvil_setNextBlockBaseFeePerGas', ['0x0']);
    await devRpc(dev.chain.url, 'evm_mine');
  }, 60_000);
  afterAll(async () => {
    await dev.chain?.stop();
  });

  afterEach(async () => {
    await api?.close();
    api = undefined;
    await devRpc(dev.chain.url, 'evm_setAutomine', [true]);
  });

  /** A service on the dev chain (no sweeps: the gas wallet sends relays alone), whose relay requests wait 1.5 s for their transaction. */
  async function serve(relay: Partial<Pick<Network, 'relayInstanceDailyGasWei' | 'relaysPerPayerPerDay'>>) {
    network = { ...devNetwork(dev.chain.url, dev.contracts, 1), ...relay };
    api = await startService({
      demo: true,
      networks: { test: network },
      devChain: DEV_CHAIN_POWERS,
      watchIntervalMs: 100,
      webhookRetryMs: 100,
      sweepIntervalMs: 0,
      relayTimeoutMs: 1_500,
      ...(await databaseOptions(kind)),
    });
    const payout = { chain_id: 31337, address: devAccount(9).address };
    expect((await call('PUT', '/api/v1/payout_address', payout, DEMO_MERCHANT.keys.test.secretKey)).status).toBe(200);
  }

  const call = caller(() => api!.url);
  const reader = () => createPublicClient({ chain: foundry, transport: http(dev.chain.url) });
  const gasNonce = () => reader().getTransactionCount({ address: gasWallet });
  const usdc = () => dev.contracts.tokens.USDC;
  const refusal = (a: { status: number; body: { code?: string; errors?: Array<{ field: string }> } }) => [a.status, a.body.code, a.body.errors?.[0]?.field];
  const { sign, signedPayment, relay } = relayPayments({ call, chainUrl: () => dev.chain.url, network: () => network, usdc, funder: devAccount(3) });

  /** `payer` given 25 USDC more, and its signature of what `p` is due: the same payment paid by another signature. */
  async function signedBy(payer: LocalAccount, p: Paying): Promise<Paying> {
    const minted = await createWalletClient({ account: devAccount(3), chain: foundry, transport: http(dev.chain.url) }).writeContract({
      address: usdc(),
      abi: TestToken.abi,
      functionName: 'mint',
      args: [payer.address, parseUnits('25', 6)],
    });
    await reader().waitForTransactionReceipt({ hash: minted, pollingInterval: 50 });
    return { ...p, payer: payer as Paying['payer'], signed: await sign(payer, p.address as Address, p.due) };
  }

  it("refuses a relay past the gas wallet's own cap for the day, whichever merchants spent it (gas.instance_cap)", async () => {
    // Room for one relay (~60-90k gas at 1 gwei, sent with a limit a fifth over its estimate) in the gas wallet's day; the merchant's own cap is the default, far above.
    await serve({ relayInstanceDailyGasWei: 150_000n * 10n ** 9n });
    // Another merchant's relays spent most of it today.
    const other = { merchant: { id: randomUUID() }, mode: 'test' } as never;
    await api!.parts.journal.sponsoredGas(other, 31337, `0x${'ab'.repeat(32)}`, 100_000n * 10n ** 9n, 'another merchant', Date.now());
    const p = await signedPayment(`${kind}-instance`);
    const nonce = await gasNonce();
    expect(refusal(await relay(p))).toEqual([409, 'relay_declined', 'gas.instance_cap']);
    expect(await gasNonce()).toBe(nonce);
  });

  it('relays a payment once: a second signature for a payment whose relay is under way is refused, naming the reference, and nothing more is sent', async () => {
    await serve({});
    const p = await signedPayment(`${kind}-once`);
    const another = await signedBy(privateKeyToAccount(generatePrivateKey()), p);
    await devRpc(dev.chain.url, 'evm_setAutomine', [false]);
    // The first is broadcast, not yet mined when its request stops waiting.
    expect((await relay(p)).status).toBe(503);
    const pool = (await devRpc(dev.chain.url, 'txpool_content', [])) as { pending: Record<string, unknown> };
    const refused = await relay(another);
    expect(refusal(refused)).toEqual([409, 'payment_state', 'reference']);
    expect((await devRpc(dev.chain.url, 'txpool_content', [])) as unknown).toEqual(pool);
  });

  it('relays a payment only while nothing has arrived: one part paid by a transfer is refused, naming the reference', async () => {
    await serve({});
    const p = await signedPayment(`${kind}-part`);
    // Half of what is due arrives at the deposit address by other means.
    const wallet = createWalletClient({ account: devAccount(3), chain: foundry, transport: http(dev.chain.url) });
    const sent = await wallet.writeContract({ address: usdc(), abi: TestToken.abi, functionName: 'mint', args: [p.address, p.due / 2n] });
    await reader().waitForTransactionReceipt({ hash: sent, pollingInterval: 50 });
    await until('part paid', async () => (await call('GET', `/api/v1/transaction/verify/${p.reference}`)).body.data.status !== 'pending');
    const nonce = await gasNonce();
    expect(refusal(await relay(p))).toEqual([409, 'payment_state', 'reference']);
    expect(await gasNonce()).toBe(nonce);
  });

  it('relays a few payments a day per payer: one more of the same payer is refused, naming authorization.from', async () => {
    await serve({ relaysPerPayerPerDay: 1 });
    const first = await signedPayment(`${kind}-payer-1`);
    expect((await relay(first)).status).toBe(201);
    // The same payer signs for a second payment (of its own making, say).
    const second = await signedBy(first.payer, await signedPayment(`${kind}-payer-2`));
    const nonce = await gasNonce();
    expect(refusal(await relay(second))).toEqual([409, 'relay_declined', 'authorization.from']);
    expect(await gasNonce()).toBe(nonce);
    // Another payer is not held to the first one's count.
    expect((await relay(await signedPayment(`${kind}-payer-3`))).status).toBe(201);
  });
});
