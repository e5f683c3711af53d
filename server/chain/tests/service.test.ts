// The service taking real ERC-20 payments on a dev chain: CREATE2 deposit addresses bound to
// the merchant's payout address, the sandbox's buttons as real transfers, the watcher counting
// them after two confirmations, a signed webhook, the EIP-681 URI paid by a script, and the
// deposit swept to the payout address.
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { sweepJobs } from '../sweep-job.ts';
import { deployFactory } from '../deploy.ts';
import type { JobDeps } from '../../jobs/index.ts';
import { ChainStore } from '../store.ts';
import { depositViews } from '../../payments/deposit-views-store.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, createWalletClient, http, type Address } from 'viem';
import { foundry } from 'viem/chains';
import { startService, type Service } from '../../service/app.ts';
import { DEMO_MERCHANT } from '../../service/seed.ts';
import { paymentUri } from '../../../contract/payment-uri.ts';
import { DepositFactory, TestToken } from '../../../contracts/artifacts.generated.ts';
import { deployDevContracts, devAccount, devNetwork, type DevContracts } from '../../../devchain/deploy.ts';
import { startDevChain, TEST_BLOCK_SECONDS, type DevChain } from '../../../devchain/anvil.ts';
import { saltOf } from '../networks.ts';
import { coins } from '../../payments/transaction-routes.ts';
import { caller, until } from '../../testing/chain.ts';
import { DEV_CHAIN_POWERS } from '../../../devchain/sandbox.ts';

const { publicKey, secretKey } = DEMO_MERCHANT.keys.test;
let chain: DevChain;
let contracts: DevContracts;
let api: Service;
const payout = devAccount(9).address;

beforeAll(async () => {
  chain = await startDevChain({ blockTimeSeconds: TEST_BLOCK_SECONDS });
  contracts = await deployDevContracts(chain, 3);
  api = await startService({
    demo: true,
    networks: { test: devNetwork(chain.url, contracts, 2) },
    devChain: DEV_CHAIN_POWERS,
    watchIntervalMs: 100,
    webhookRetryMs: 100,
    sweepIntervalMs: 300,
  });
}, 60_000);
afterAll(async () => {
  await api?.close();
  await chain?.stop();
});

const call = caller(() => api.url);
const verify = async (reference: string) => (await call('GET', `/api/v1/transaction/verify/${reference}`)).body.data;

describe('real payments on the dev chain', { timeout: 60_000 }, () => {
  it('refuses a payment before the merchant names a payout address for the chain, and says how', async () => {
    const refused = await call('POST', '/api/v1/transaction/initialize', { reference: 's-0', coin: 'USDT', currency: 'USD', amount: 10 });
    expect(refused.status).toBe(409);
    expect(refused.body.message).toMatch(/PUT \/api\/v1\/payout_address/);
    const bad = await call('PUT', '/api/v1/payout_address', { chain_id: 31337, address: '0x123' }, secretKey);
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { field: string }) => e.field)).toEqual(['address']);
    expect((await call('PUT', '/api/v1/payout_address', { chain_id: 31337, address: payout }, secretKey)).status).toBe(200);
  });

  // Payout addresses were per chain, not per mode, and any secret key could name
  // any chain: a test key set chain 56 to an attacker's wallet, and live money was swept there.
  it("lets a key name the payout address of its own mode's chain only, and keeps each mode's apart", async () => {
    const attacker = devAccount(5).address;
    const testOnLive = await call('PUT', '/api/v1/payout_address', { chain_id: 56, address: attacker }, secretKey);
    expect(testOnLive.status).toBe(409);
    expect(testOnLive.body.message).toMatch(/chain 31337 \(Local dev chain\)/);
    // A mixed-case address must carry a right EIP-55 checksum: one changed letter is refused.
    const typo = payout.slice(0, -1) + (payout.endsWith('a') ? 'b' : 'a');
    const wrongSum = await call('PUT', '/api/v1/payout_address', { chain_id: 31337, address: typo.replace(/[a-f]/, (c) => c.toUpperCase()) }, secretKey);
    expect(wrongSum.status).toBe(400);
    expect(wrongSum.body.errors[0]).toMatchObject({ field: 'address', message: expect.stringMatching(/EIP-55 checksum/) });
    const liveOnDev = await call('PUT', '/api/v1/payout_address', { chain_id: 31337, address: attacker }, DEMO_MERCHANT.keys.live.secretKey);
    expect(liveOnDev.status).toBe(409);
    expect(liveOnDev.body.errors).toEqual([{ field: 'chain_id', message: expect.any(String) }]);
    expect((await call('GET', '/api/v1/payout_address', undefined, DEMO_MERCHANT.keys.live.secretKey)).body.data).toEqual([]);
    expect((await call('GET', '/api/v1/payout_address', undefined, secretKey)).body.data).toEqual([{ chain_id: 31337, address: payout }]);
  });

  it("lists the dev chain's coins with their chain id, contract and real decimals", async () => {
    const { body } = await call('GET', '/api/v1/coins');
    expect(body.data.find((c: { symbol: string }) => c.symbol === 'USDC')).toMatchObject({
      chainId: 31337,
      contractAddress: contracts.tokens.USDC,
      decimals: 6,
      network: 'Local dev chain',
    });
    expect(body.data.find((c: { symbol: string }) => c.symbol === 'USDT')).toMatchObject({ decimals: 18 });
  });

  it("says which coins the checkout may pay with one signature: the token's EIP-712 name and version, only where a gas wallet relays", async () => {
    const signs = (data: Array<{ symbol: string; signs?: unknown }>) => Object.fromEntries(data.map((c) => [c.symbol, c.signs]));
    const { body } = await call('GET', '/api/v1/coins');
    expect(signs(body.data)).toStrictEqual({ USDT: undefined, USDC: { name: 'USD Coin', version: '2' }, BUSD: undefined, DAI: undefined });
    // The same service without a gas wallet on the chain: the relay would answer not_configured, so nothing is offered.
    const merchant = { id: DEMO_MERCHANT.id, businessName: 'Harbour', businessEmail: 'a@example.com', businessLogo: '' };
    const bare = await coins({ query: {}, account: { mode: 'test', via: 'public', merchant }, service: { ...api.parts, relayer: () => undefined } } as never);
    const listed = (bare as { body: { data: Array<{ symbol: string; signs?: unknown }> } }).body.data;
    expect(listed.map((c) => c.symbol)).toEqual(['USDT', 'USDC', 'BUSD', 'DAI']);
    expect(signs(listed)).toStrictEqual({ USDT: undefined, USDC: undefined, BUSD: undefined, DAI: undefined });
  });

  it('"Full" is a real transfer: pending until two confirmations, then confirmed, a signed webhook, and the deposit swept to the payout address', async () => {
    const created = await call('POST', '/api/v1/transaction/initialize', { reference: 's-1', coin: 'USDT', currency: 'USD', amount: 10 });
    expect(created.status).toBe(201);
    const address = created.body.data.address as Address;
    const factoryAddress = await createPublicClient({ chain: foundry, transport: http(chain.url) }).readContract({
      address: contracts.factory,
      abi: DepositFactory.abi,
      functionName: 'addressOf',
      args: [payout, saltOf(DEMO_MERCHANT.id, 'test', 's-1')],
    });
    expect(address).toBe(factoryAddress); // the address is the factory's CREATE2 address for this payout

    const sent = await call('POST', '/api/v1/sandbox/deposit', { reference: 's-1', kind: 'exact' });
    expect(sent.body.data.status).toBe('pending'); // sent, not yet seen, let alone confirmed
    const confirmed = await until('confirmed', async () => ((await verify('s-1')).status === 'confirmed' ? verify('s-1') : false));
    expect(confirmed).toMatchObject({ amountPaid: 10, amountRemaining: 0 });
    expect(confirmed.hash).toMatch(/^0x[0-9a-f]{64}$/);
    const events = await api.db.query(`SELECT body FROM events WHERE type = 'DEPOSIT_TRANSACTION' AND body LIKE '%"reference":"s-1"%'`);
    expect(events).toHaveLength(1);

    // The service's sweeper (the dev chain's gas-only account pays) moves it to the payout address.
    const reader = createPublicClient({ chain: foundry, transport: http(chain.url) });
    const swept = await until('swept', async () => (await api.parts.chain.transfers(31337)).find((t) => t.recipient === address.toLowerCase())?.sweptHash);
    expect(await reader.readContract({ address: contracts.tokens.USDT, abi: TestToken.abi, functionName: 'balanceOf', args: [payout] })).toBe(
      10_000_000_000_000_000_000n,
    );
    expect(await reader.readContract({ address: contracts.tokens.USDT, abi: TestToken.abi, functionName: 'balanceOf', args: [address] })).toBe(0n);
    expect((await reader.getTransactionReceipt({ hash: swept as `0x${string}` })).to).toBe(contracts.factory.toLowerCase());
  });

  it('the EIP-681 URI the checkout shows, parsed and paid by a script: confirmed', async () => {
    const created = await call('POST', '/api/v1/transaction/initialize', { reference: 's-2', coin: 'USDC', currency: 'EUR', amount: '9.20' });
    const coin = (await call('GET', '/api/v1/coins')).body.data.find((c: { symbol: string }) => c.symbol === 'USDC');
    const uri = paymentUri(coin, created.body.data.address, created.body.data.cryptoAmount);
    const parsed = /^ethereum:(0x[0-9a-fA-F]{40})@(\d+)\/transfer\?address=(0x[0-9a-fA-F]{40})&uint256=(\d+)$/.exec(uri)!;
    expect(Number(parsed[2])).toBe(31337);
    const payer = createWalletClient({ account: devAccount(2), chain: foundry, transport: http(chain.url) });
    await payer.writeContract({
      address: parsed[1] as Address,
      abi: TestToken.abi,
      functionName: 'transfer',
      args: [parsed[3] as Address, BigInt(parsed[4]!)],
    });
    const confirmed = await until('confirmed', async () => ((await verify('s-2')).status === 'confirmed' ? verify('s-2') : false));
    expect(confirmed.amountPaid).toBe(10);
  });

  it('a partial payment, then the rest, and an overpayment', async () => {
    await call('POST', '/api/v1/transaction/initialize', { reference: 's-3', coin: 'USDT', currency: 'USD', amount: 10 });
    await call('POST', '/api/v1/sandbox/deposit', { reference: 's-3', kind: 'partial' });
    await until('incomplete', async () => (await verify('s-3')).status === 'incomplete');
    await call('POST', '/api/v1/sandbox/deposit', { reference: 's-3', kind: 'exact' });
    expect(await until('confirmed', async () => ((await verify('s-3')).status === 'confirmed' ? verify('s-3') : false))).toMatchObject({ amountPaid: 10 });

    await call('POST', '/api/v1/transaction/initialize', { reference: 's-4', coin: 'USDT', currency: 'USD', amount: 10 });
    await call('POST', '/api/v1/sandbox/deposit', { reference: 's-4', kind: 'over' });
    const over = await until('confirmed', async () => ((await verify('s-4')).status === 'confirmed' ? verify('s-4') : false));
    expect(over.amountPaid).toBeGreaterThan(10);
  });

  it('while a transfer confirms, the status says so (seen, 1 of 2) without counting it, and a long poll wakes for each block', async () => {
    await call('POST', '/api/v1/transaction/initialize', { reference: 's-5', coin: 'USDT', currency: 'USD', amount: 10 });
    await call('POST', '/api/v1/sandbox/deposit', { reference: 's-5', kind: 'exact' });
    const seen = await until('seen', async () => ((await verify('s-5')).confirming ? verify('s-5') : false));
    if (seen.status === 'pending') {
      // Caught between its first and second confirmation: shown, not counted.
      expect(seen).toMatchObject({ amountPaid: 0, confirming: { amount: 10, confirmations: 1, required: 2 } });
      const version = `${seen.status}:${seen.amountPaid}:${seen.coin}:${seen.expiresAt}:10:1`;
      const asked = Date.now();
      const woken = await call('GET', `/api/v1/transaction/verify/s-5?wait=20&since=${encodeURIComponent(version)}`);
      expect(Date.now() - asked).toBeLessThan(5_000); // the next block, not the 20 s wait
      expect(woken.body.data.status).toBe('confirmed');
      expect(woken.body.data.confirming).toBeUndefined();
    }
    expect(await until('confirmed', async () => (await verify('s-5')).status === 'confirmed')).toBe(true);
  });

  // A dust USDT transfer (600,000,000 base units: 6e-10 USDT) was credited as
  // 600 USDC after the page re-quoted the payment to USDC while the transfer confirmed.
  it('a transfer on the chain pins the coin: the page cannot switch it, and the money counts in its own token', async () => {
    const created = await call('POST', '/api/v1/transaction/initialize', { reference: 's-pin', coin: 'USDT', currency: 'USD', amount: 500 });
    const address = created.body.data.address as Address;
    const customer = createWalletClient({ account: devAccount(2), chain: foundry, transport: http(chain.url) });
    await customer.writeContract({ address: contracts.tokens.USDT, abi: TestToken.abi, functionName: 'transfer', args: [address, 10n ** 18n] });
    await until('seen', async () => (await verify('s-pin')).confirming);
    const requote = await call('POST', '/api/v1/transaction/initialize', { reference: 's-pin', coin: 'USDC', currency: 'USD', amount: 500 });
    expect(requote.status).toBe(409);
    expect(requote.body.message).toMatch(/on the chain in USDT, still confirming/);
    const counted = await until('counted', async () => (await verify('s-pin')).amountPaid > 0 && verify('s-pin'));
    expect(counted).toMatchObject({ coin: 'USDT', status: 'incomplete', amountPaid: 1 });
  });

  // Review: late or wrong-token money pinned the coin too, so anyone could stop a reference
  // from ever being quoted again by sending 0.01 of another token to its address.
  it('is not pinned by money in another token: that is unexpected, and the page may still change the coin', async () => {
    const created = await call('POST', '/api/v1/transaction/initialize', { reference: 's-other', coin: 'USDT', currency: 'USD', amount: 5 });
    const address = created.body.data.address as Address;
    const stranger = createWalletClient({ account: devAccount(2), chain: foundry, transport: http(chain.url) });
    await stranger.writeContract({ address: contracts.tokens.DAI, abi: TestToken.abi, functionName: 'transfer', args: [address, 10n ** 16n] });
    await until('recorded', async () => (await api.db.query(`SELECT state FROM chain_transfers WHERE lower(recipient) = lower($1)`, [address])).length > 0);
    const requote = await call('POST', '/api/v1/transaction/initialize', { reference: 's-other', coin: 'USDC', currency: 'USD', amount: 5 });
    expect(requote.status).toBe(201);
    expect(await verify('s-other')).toMatchObject({ coin: 'USDC', amountPaid: 0 });
  });

  // Dust cost the operator more gas than the attacker; it is no money to the service.
  it("records dust below the token's minimum and never counts, tells or shows it", async () => {
    const created = await call('POST', '/api/v1/transaction/initialize', { reference: 's-dust', coin: 'USDT', currency: 'USD', amount: 500 });
    const address = created.body.data.address as Address;
    const attacker = createWalletClient({ account: devAccount(2), chain: foundry, transport: http(chain.url) });
    await attacker.writeContract({ address: contracts.tokens.USDT, abi: TestToken.abi, functionName: 'transfer', args: [address, 600_000_000n] });
    const [dust] = await until('recorded', async () => {
      const rows = await api.db.query(`SELECT state FROM chain_transfers WHERE lower(recipient) = lower($1)`, [address]);
      return rows.length > 0 && rows;
    });
    expect(dust).toEqual({ state: 'dust' });
    const [cursor] = await api.db.query(`SELECT block_number FROM chain_cursors WHERE chain_id = $1`, [chain.chainId]);
    await until('confirmations passed', async () => {
      const [now] = await api.db.query(`SELECT block_number FROM chain_cursors WHERE chain_id = $1`, [chain.chainId]);
      return BigInt(now.block_number as string) >= BigInt(cursor.block_number as string) + 3n;
    });
    expect(await verify('s-dust')).toMatchObject({ status: 'pending', amountPaid: 0, hash: null });
    expect((await verify('s-dust')).confirming).toBeUndefined();
    const told = await api.db.query(`SELECT 1 FROM events WHERE body LIKE '%s-dust%'`);
    expect(told).toEqual([]);
  });

  // A zero-value Transfer needs no allowance; it was recorded, webhooked and swept.
  it('ignores a zero-value transfer: nothing recorded, told or swept', async () => {
    const created = await call('POST', '/api/v1/transaction/initialize', { reference: 's-zero', coin: 'USDT', currency: 'USD', amount: 5 });
    const address = created.body.data.address as Address;
    const attacker = createWalletClient({ account: devAccount(2), chain: foundry, transport: http(chain.url) });
    const hash = await attacker.writeContract({ address: contracts.tokens.USDT, abi: TestToken.abi, functionName: 'transfer', args: [address, 0n] });
    const { blockNumber } = await createPublicClient({ chain: foundry, transport: http(chain.url) }).waitForTransactionReceipt({ hash, pollingInterval: 50 });
    await until('scanned past it', async () => {
      const [cursor] = await api.db.query(`SELECT block_number FROM chain_cursors WHERE chain_id = $1`, [chain.chainId]);
      return BigInt(cursor.block_number as string) >= blockNumber + 2n;
    });
    expect(await api.db.query(`SELECT 1 FROM chain_transfers WHERE lower(recipient) = lower($1)`, [address])).toEqual([]);
    expect((await verify('s-zero')).status).toBe('pending');
    expect((await verify('s-zero')).hash).toBeNull();
  });

  // A press larger than the shared payer's balance answered 500, and any public key
  // could drain that payer for everyone.
  it('caps a sandbox press, and never drains the shared payer', async () => {
    await call('POST', '/api/v1/transaction/initialize', { reference: 's-huge', coin: 'USDT', currency: 'USD', amount: 200_000 });
    const huge = await call('POST', '/api/v1/sandbox/deposit', { reference: 's-huge', kind: 'exact' });
    expect(huge.status).toBe(409);
    expect(huge.body.message).toMatch(/at most 100000 USDT a press/);
    const reader = createPublicClient({ chain: foundry, transport: http(chain.url) });
    const payerBalance = () =>
      reader.readContract({ address: contracts.tokens.USDT, abi: TestToken.abi, functionName: 'balanceOf', args: [devAccount(1).address] });
    const before = await payerBalance();
    await call('POST', '/api/v1/transaction/initialize', { reference: 's-press', coin: 'USDT', currency: 'USD', amount: 90_000 });
    expect((await call('POST', '/api/v1/sandbox/deposit', { reference: 's-press', kind: 'exact' })).status).toBe(200);
    await until('confirmed', async () => (await verify('s-press')).status === 'confirmed');
    expect(await payerBalance()).toBe(before);
  });

  // Nothing told an operator (or a load balancer) whether the service could take payments.
  it('answers /healthz, and /readyz with the database and the chain; 503 naming a chain whose node does not answer', async () => {
    expect((await fetch(api.url + '/healthz')).status).toBe(200);
    const ready = await (await fetch(api.url + '/readyz')).json();
    expect(ready.data).toEqual([
      { name: 'database', ok: true, detail: 'pglite' },
      { name: 'chain 31337 (Local dev chain)', ok: true, detail: expect.stringMatching(/^\d+ blocks behind the head/) },
      { name: 'gas wallet on chain 31337', ok: true, detail: expect.stringMatching(/ holds [\d.]+; 10 sweeps need about [\d.]+ at today's gas price$/) },
      { name: 'treasury on chain 31337', ok: true, detail: 'no transaction waits' },
      // The treasury reconciled against the journal, coin by coin (issue 33 item 1).
      ...['BUSD', 'DAI', 'USDC', 'USDT', 'native'].map((coin) => ({
        name: `treasury on chain 31337 (${coin})`,
        ok: true,
        detail: expect.stringMatching(/^holds [\d.]+, owes [\d.]+ \(in flight: /),
      })),
    ]);
    // A gas wallet that cannot pay for sweeps: not ready, named; and the sweep job says so once, not every round.
    const empty = generatePrivateKey();
    const dry = await startService({ demo: true, networks: { test: devNetwork(chain.url, contracts, 2) }, gasKey: empty, jobs: false });
    try {
      const answer = await fetch(dry.url + '/readyz');
      expect(answer.status).toBe(503);
      expect((await answer.json()).message).toMatch(new RegExp(`gas wallet on chain 31337: ${privateKeyToAccount(empty).address} holds 0; 10 sweeps need`));
    } finally {
      await dry.close();
    }
    const said: string[] = [];
    const log = {
      info: (_: unknown, m: string) => said.push(m),
      warn: (_: unknown, m: string) => said.push(m),
      error: (_: unknown, m: string) => said.push(m),
    } as unknown as JobDeps['log'];
    const [job] = sweepJobs({
      networks: [devNetwork(chain.url, contracts, 2)],
      chain: new ChainStore(api.db, depositViews),
      gasKey: empty,
      log,
      now: Date.now,
      instance: 'gas-test',
      sweepIntervalMs: 30,
    } as unknown as JobDeps);
    job!.start();
    await new Promise((resolve) => setTimeout(resolve, 400));
    await job!.stop();
    expect(said.filter((m) => /running low/.test(m))).toEqual(['the gas wallet is running low: fund it, or deposits stop being swept']);
    const blind = await startService({ demo: true, networks: { test: { ...devNetwork('http://127.0.0.1:9', contracts, 2), chainId: 31338 } }, jobs: false });
    try {
      const answer = await fetch(blind.url + '/readyz');
      expect(answer.status).toBe(503);
      expect((await answer.json()).message).toMatch(/chain 31338 \(Local dev chain\): its RPC URLs do not answer/);
    } finally {
      await blind.close();
    }
  });

  it('offers the sandbox on the dev chain only: where test keys point at a public testnet, the coin list says so and a press is refused', async () => {
    expect((await call('GET', '/api/v1/coins')).body.sandbox).toBe(true);
    // Live keys with no live network: no coins, no address that nobody watches.
    const live = await call('GET', '/api/v1/coins', undefined, DEMO_MERCHANT.keys.live.publicKey);
    expect(live.status).toBe(409);
    expect(live.body.message).toMatch(/no live network configured.*NETWORKS_FILE/);
    const liveQuote = await call(
      'POST',
      '/api/v1/transaction/initialize',
      { reference: 's-live', coin: 'USDT', currency: 'USD', amount: 10 },
      DEMO_MERCHANT.keys.live.publicKey,
    );
    expect(liveQuote.status).toBe(409);
    // A public chain's factory is the one the deploy command puts at the same address everywhere (checked at start).
    const { factory } = await deployFactory(chain.url, devAccount(0));
    const testnet = await startService({
      demo: true,
      networks: { test: { ...devNetwork(chain.url, contracts, 2), factory, name: 'A public testnet', dev: false } },
      jobs: false,
    });
    try {
      const list = await fetch(testnet.url + '/api/v1/coins', { headers: { 'x-api-key': publicKey } }).then((r) => r.json());
      expect(list.sandbox).toBe(false);
      const headers = { authorization: `Bearer ${secretKey}`, 'content-type': 'application/json' };
      await fetch(testnet.url + '/api/v1/payout_address', { method: 'PUT', headers, body: JSON.stringify({ chain_id: 31337, address: payout }) });
      await fetch(testnet.url + '/api/v1/transaction/initialize', {
        method: 'POST',
        headers,
        body: JSON.stringify({ reference: 't-1', coin: 'USDT', currency: 'USD', amount: 10 }),
      });
      const press = await fetch(testnet.url + '/api/v1/sandbox/deposit', {
        method: 'POST',
        headers,
        body: JSON.stringify({ reference: 't-1', kind: 'exact' }),
      });
      expect(press.status).toBe(403);
      expect((await press.json()).message).toMatch(/A public testnet: pay with a real transfer/);
    } finally {
      await testnet.close();
    }
  });
});
