// Sweeping on a real dev chain: deposits' money goes to the payout addresses they are bound
// to, in batches, paid for by a gas-only wallet that never holds a token; late and wrong-token
// money is swept too (the merchant was told of it); a claimed batch is left to its sweeper.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createPublicClient, createWalletClient, http, keccak256, parseUnits, type Address, type Hex } from 'viem';
import { foundry } from 'viem/chains';
import { startService, type Service } from '../../service/app.ts';
import { DEMO_MERCHANT } from '../../service/seed.ts';
import { ChainStore } from '../store.ts';
import { depositViews } from '../../payments/deposit-views-store.ts';
import { TestToken } from '../../../contracts/artifacts.generated.ts';
import { devAccount, devNetwork, type DevContracts } from '../../../devchain/deploy.ts';
import type { DevChain } from '../../../devchain/anvil.ts';
import { sharedDevChain } from '../../../devchain/shared.ts';
import { Sweeper } from '../sweeper.ts';
import { Watcher } from '../watcher.ts';
import { caller, creditsOf, rpcProxy, type RpcCall } from '../../testing/chain.ts';
import { LeaseLost } from '../../storage/leases.ts';
import { reconcile } from '../reconcile.ts';
import { reconcileJobs } from '../reconcile-job.ts';
import type { JobDeps } from '../../jobs/index.ts';

const { secretKey } = DEMO_MERCHANT.keys.test;
const payout = devAccount(5).address; // 7 is the dev chain's treasury (balance settlement)
const gas = devAccount(6);
let chain: DevChain;
let contracts: DevContracts;
let api: Service;
let store: ChainStore;
let watcher: Watcher;
const reader = () => createPublicClient({ chain: foundry, transport: http(chain.url) });
const balance = (token: Address, owner: Address) => reader().readContract({ address: token, abi: TestToken.abi, functionName: 'balanceOf', args: [owner] });

beforeAll(async () => {
  ({ chain, contracts } = await sharedDevChain());
  const network = devNetwork(chain.url, contracts, 1);
  api = await startService({ demo: true, networks: { test: network }, jobs: false });
  store = new ChainStore(api.db, depositViews);
  watcher = new Watcher({
    chainId: chain.chainId,
    rpcUrls: [chain.url],
    confirmations: 1,
    tokens: Object.values(contracts.tokens),
    store,
    credits: creditsOf(api),
    holder: 'sweeper-test',
    startBlock: 1n,
  });
}, 60_000);
afterAll(async () => {
  await watcher?.stop();
  await api?.close();
  await chain?.stop();
});

const call = async (method: string, path: string, body: unknown) => (await request(method, path, body, secretKey)).body;
const request = caller(() => api.url);
const rpc = (method: string, params: unknown[] = []) => reader().request({ method: method as 'eth_blockNumber', params: params as never });
/** A new 5 USDT payment, paid in full and seen by the watcher: its deposit address. */
async function paidAndSeen(reference: string): Promise<Address> {
  const address = (await call('POST', '/api/v1/transaction/initialize', { reference, coin: 'USDT', currency: 'USD', amount: 5 })).data.address as Address;
  await send(address, '5');
  await watcher.tick();
  return address;
}
async function send(to: Address, amount: string, symbol: 'USDT' | 'USDC' = 'USDT') {
  const wallet = createWalletClient({ account: devAccount(1), chain: foundry, transport: http(chain.url) });
  const hash = await wallet.writeContract({
    address: contracts.tokens[symbol],
    abi: TestToken.abi,
    functionName: 'transfer',
    args: [to, parseUnits(amount, symbol === 'USDC' ? 6 : 18)],
  });
  await reader().waitForTransactionReceipt({ hash, pollingInterval: 50 });
}

it('sweeps deposits in batches to the payout address they are bound to, gas from a wallet that holds no token', { timeout: 60_000 }, async () => {
  await call('PUT', '/api/v1/payout_address', { chain_id: chain.chainId, address: payout });
  const to: Address[] = [];
  for (const reference of ['sw-1', 'sw-2', 'sw-3'])
    to.push((await call('POST', '/api/v1/transaction/initialize', { reference, coin: 'USDT', currency: 'USD', amount: 10 })).data.address);
  // The merchant names another payout address later: these payments' money still goes to the first.
  await call('PUT', '/api/v1/payout_address', { chain_id: chain.chainId, address: devAccount(4).address });
  for (const address of to) await send(address, '10');
  await send(to[2]!, '3', 'USDC'); // the wrong token: recorded, told, and swept all the same
  await watcher.tick();

  const gasEth = await reader().getBalance({ address: gas.address });
  const sweeper = new Sweeper({ network: devNetwork(chain.url, contracts, 1), store, gas, batch: 2 });
  const first = await sweeper.tick();
  const second = await sweeper.tick();
  expect([first.swept, second.swept, (await sweeper.tick()).swept]).toEqual([2, 2, 0]);
  expect(first.hash).not.toBe(second.hash); // two deposits a transaction

  expect(await balance(contracts.tokens.USDT, payout)).toBe(parseUnits('30', 18));
  expect(await balance(contracts.tokens.USDC, payout)).toBe(parseUnits('3', 6));
  expect(await balance(contracts.tokens.USDT, devAccount(4).address)).toBe(0n);
  for (const address of to) expect(await balance(contracts.tokens.USDT, address)).toBe(0n);
  // The gas wallet paid in ETH and never held a token.
  expect(await reader().getBalance({ address: gas.address })).toBeLessThan(gasEth);
  expect(await balance(contracts.tokens.USDT, gas.address)).toBe(0n);
  const recorded = (await store.transfers(chain.chainId)).filter(
    (t) => to.includes(t.recipient as Address) || to.map((a) => a.toLowerCase()).includes(t.recipient),
  );
  expect(recorded.map((t) => t.sweptHash).every((h) => h === first.hash || h === second.hash)).toBe(true);

  // Money after the payment was paid (late) is swept on the next round too.
  await send(to[0]!, '1');
  await watcher.tick();
  // A sweeper that claimed this deposit and died: nobody tries it while the claim lasts, and
  // once it runs out the next sweeper does (a second sweep of a deposit is harmless).
  const head = await reader().getBlockNumber();
  expect(await store.sweeps.claimSweeps(chain.chainId, head, Date.now(), 60_000, 20)).toHaveLength(1);
  expect((await sweeper.tick()).swept).toBe(0);
  const later = new Sweeper({ network: devNetwork(chain.url, contracts, 1), store, gas, now: () => Date.now() + 61_000 });
  expect((await later.tick()).swept).toBe(1);
  expect(await balance(contracts.tokens.USDT, payout)).toBe(parseUnits('31', 18));
});

// One deposit frozen by its token reverted the whole batch at every retry.
it('leaves out a deposit its token refuses, names it and why, and sweeps its neighbours', { timeout: 60_000 }, async () => {
  const to: Address[] = [];
  for (const reference of ['fz-1', 'fz-2', 'fz-3'])
    to.push((await call('POST', '/api/v1/transaction/initialize', { reference, coin: 'USDT', currency: 'USD', amount: 5 })).data.address);
  for (const address of to) await send(address, '5');
  const admin = createWalletClient({ account: devAccount(2), chain: foundry, transport: http(chain.url) });
  await reader().waitForTransactionReceipt({
    hash: await admin.writeContract({ address: contracts.tokens.USDT, abi: TestToken.abi, functionName: 'freeze', args: [to[1]!] }),
    pollingInterval: 50,
  });
  await watcher.tick();
  const sweeper = new Sweeper({ network: devNetwork(chain.url, contracts, 1), store, gas, batch: 3 });
  const done = await sweeper.tick();
  expect(done.swept).toBe(2);
  expect(done.stuck).toEqual([{ reference: 'fz-2', token: contracts.tokens.USDT.toLowerCase(), reason: 'frozen' }]);
  expect(await balance(contracts.tokens.USDT, to[0]!)).toBe(0n);
  expect(await balance(contracts.tokens.USDT, to[2]!)).toBe(0n);
  expect(await balance(contracts.tokens.USDT, to[1]!)).toBe(parseUnits('5', 18));
  // Left out for a while, not tried at every tick.
  expect(await sweeper.tick()).toMatchObject({ swept: 0, stuck: [], undone: [] });
});

// Viem answers a replaced transaction with the replacement's receipt; the sweep
// was recorded as done, and the deposits never swept again.
it('does not count a sweep whose transaction was replaced; the deposits are swept again', { timeout: 60_000 }, async () => {
  const address = await paidAndSeen('rp-1');
  await rpc('evm_setAutomine', [false]);
  try {
    const nonce = await reader().getTransactionCount({ address: gas.address });
    const sweeping = new Sweeper({ network: devNetwork(chain.url, contracts, 1), store, gas }).tick();
    sweeping.catch(() => {});
    const end = Date.now() + 10_000;
    while ((await reader().getTransactionCount({ address: gas.address, blockTag: 'pending' })) === nonce) {
      if (Date.now() > end) throw new Error('the sweep never reached the pool');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const fees = await reader().estimateFeesPerGas();
    const wallet = createWalletClient({ account: gas, chain: foundry, transport: http(chain.url) });
    await wallet.sendTransaction({
      to: gas.address,
      value: 0n,
      nonce,
      maxFeePerGas: fees.maxFeePerGas * 3n,
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas * 3n + 1n,
    });
    await rpc('evm_mine');
    await expect(sweeping).rejects.toThrow(/was replaced/);
  } finally {
    await rpc('evm_setAutomine', [true]);
  }
  const mine = (await store.transfers(chain.chainId)).filter((t) => t.recipient === address.toLowerCase());
  expect(mine.map((t) => t.sweptHash)).toEqual([undefined]);
  expect(await balance(contracts.tokens.USDT, address)).toBe(parseUnits('5', 18));
  const later = new Sweeper({ network: devNetwork(chain.url, contracts, 1), store, gas, now: () => Date.now() + 301_000 });
  expect((await later.tick()).swept).toBe(1);
  expect(await balance(contracts.tokens.USDT, address)).toBe(0n);
});

// A node counts a mined nonce before it serves that block's receipts (anvil did under CI's load;
// a load balancer's nodes a block apart do too): the sweep was taken for replaced by another's,
// though its own transaction was mined, and its tick failed.
it('counts a sweep whose receipt its node serves only after counting its nonce used, not as replaced', { timeout: 60_000 }, async () => {
  const address = await paidAndSeen('lag-1');
  // Each transaction sent through this node: its receipt answered null for a second after it is first asked for.
  const firstAsked = new Map<string, number>();
  let nulls = 0;
  const behind = await rpcProxy(chain.url, (body) => {
    const rpc = body as RpcCall;
    if (Array.isArray(body)) return undefined;
    if (rpc.method === 'eth_sendRawTransaction') firstAsked.set(keccak256(rpc.params![0] as Hex), 0);
    if (rpc.method !== 'eth_getTransactionReceipt' || !firstAsked.has(rpc.params![0] as string)) return undefined;
    const hash = rpc.params![0] as string;
    if (!firstAsked.get(hash)) firstAsked.set(hash, Date.now());
    if (Date.now() - firstAsked.get(hash)! >= 1_000) return undefined;
    nulls++;
    return { jsonrpc: '2.0', id: rpc.id, result: null };
  });
  let result: Awaited<ReturnType<Sweeper['tick']>>;
  try {
    result = await new Sweeper({ network: devNetwork(behind.url, contracts, 1), store, gas }).tick();
  } finally {
    await behind.close();
  }
  expect(nulls).toBeGreaterThanOrEqual(2);
  expect(result).toMatchObject({ swept: 1, sent: [result.hash] });
  const mine = (await store.transfers(chain.chainId)).filter((t) => t.recipient === address.toLowerCase());
  expect(mine.map((t) => t.sweptHash)).toEqual([result.hash]);
  expect(await balance(contracts.tokens.USDT, address)).toBe(0n);
});

// A sweep stuck in the pool (fees too low for the block) was waited for until the
// claim ran out, and the next sweep queued behind it at the next nonce.
it('sends a sweep stuck in the pool again at the same nonce with higher fees, and counts the one mined', { timeout: 60_000 }, async () => {
  const address = await paidAndSeen('st-1');
  const nonce = await reader().getTransactionCount({ address: gas.address });
  await rpc('evm_setAutomine', [false]);
  let result: Awaited<ReturnType<Sweeper['tick']>>;
  try {
    const sweeping = new Sweeper({ network: devNetwork(chain.url, contracts, 1), store, gas, replaceAfterMs: 300 }).tick();
    sweeping.catch(() => {});
    // Nothing is mined until the sweep has been sent again: the pool then holds another
    // transaction of ours at the same nonce, with higher fees.
    const end = Date.now() + 15_000;
    let first: { hash: string; maxFeePerGas: string } | undefined;
    for (;;) {
      const pool = (await rpc('txpool_content')) as unknown as { pending: Record<string, Record<string, { hash: string; maxFeePerGas: string }>> };
      const now = Object.entries(pool.pending).find(([from]) => from.toLowerCase() === gas.address.toLowerCase())?.[1][String(nonce)];
      first ??= now;
      if (now && first && now.hash !== first.hash) {
        expect(BigInt(now.maxFeePerGas)).toBeGreaterThan(BigInt(first.maxFeePerGas));
        break;
      }
      if (Date.now() > end) throw new Error('the sweep was never sent again');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await rpc('evm_mine');
    result = await sweeping;
  } finally {
    await rpc('evm_setAutomine', [true]);
  }
  expect(result.swept).toBe(1);
  expect(result.sent!.length).toBeGreaterThanOrEqual(2);
  expect(result.hash).toBe(result.sent!.at(-1));
  // The first send was replaced by our own: never mined, and not what the ledger records.
  await expect(reader().getTransactionReceipt({ hash: result.sent![0]! })).rejects.toThrow(/could not be found/);
  const mine = (await store.transfers(chain.chainId)).filter((t) => t.recipient === address.toLowerCase());
  expect(mine.map((t) => t.sweptHash)).toEqual([result.hash]);
  expect(await reader().getTransactionCount({ address: gas.address })).toBe(nonce + 1);
  expect(await balance(contracts.tokens.USDT, address)).toBe(0n);
});

// Two instances sharing the gas key each ran a sweep loop and raced for its nonce.
it("sweeps a chain from one instance at a time, and waits when fees are above the network's cap", { timeout: 60_000 }, async () => {
  const address = await paidAndSeen('ls-1');
  const network = devNetwork(chain.url, contracts, 1);
  expect(await store.sweeps.leaseSweeper(chain.chainId, 'instance-a', Date.now(), 60_000)).toBe(true);
  const b = new Sweeper({ network, store, gas, holder: 'instance-b' });
  expect(await b.tick()).toEqual({ swept: 0, stuck: [], skipped: true });
  // Capped below what the chain asks: nothing is claimed or sent, and the deposit waits.
  const nonce = await reader().getTransactionCount({ address: gas.address });
  const capped = new Sweeper({ network: { ...network, maxFeePerGas: 1n }, store, gas, holder: 'instance-a' });
  await expect(capped.tick()).rejects.toThrow(/above the cap 1; sweeps wait/);
  expect(await reader().getTransactionCount({ address: gas.address })).toBe(nonce);
  // The lease runs out (its holder died): another instance takes the chain, and sweeps at once.
  const later = new Sweeper({ network, store, gas, holder: 'instance-b', now: () => Date.now() + 61_000 });
  expect((await later.tick()).swept).toBe(1);
  expect(await balance(contracts.tokens.USDT, address)).toBe(0n);
});

// The credited amount came from the event, not the balance: a fee-on-transfer token
// was credited 10 while the deposit held 9.999, and nothing noticed.
it('reconciles every deposit with the chain: swept ones hold nothing, and a token whose fee its events hide is reported', { timeout: 60_000 }, async () => {
  const network = devNetwork(chain.url, contracts, 1);
  const clean = await reconcile(network, store);
  expect(clean.differences).toEqual([]);
  const swept = clean.deposits.filter((d) => d.swept > 0n);
  expect(swept.length).toBeGreaterThan(0);
  for (const d of swept) expect(d.onChain).toBe(d.held);
  const sum = (f: (d: (typeof clean.deposits)[number]) => bigint) => clean.deposits.reduce((n, d) => n + f(d), 0n);
  console.log(
    `reconciliation: ${clean.deposits.length} deposit lines; credited ${sum((d) => d.credited)}, swept ${sum((d) => d.swept)}, held ${sum((d) => d.held)}, on chain ${sum((d) => d.onChain)} (base units, all tokens)`,
  );
  // Looked at once: lines that agreed and have not moved are not asked of the node again for a day.
  expect(clean.checked).toBe(clean.deposits.length);
  const again = await reconcile(network, store);
  expect(again.checked).toBe(0);
  expect(again.differences).toEqual([]);
  expect((await reconcile(network, store, { now: () => Date.now() + 86_400_001 })).checked).toBe(clean.deposits.length);

  const admin = createWalletClient({ account: devAccount(2), chain: foundry, transport: http(chain.url) });
  const setFee = async (bps: bigint) =>
    reader().waitForTransactionReceipt({
      hash: await admin.writeContract({ address: contracts.tokens.USDT, abi: TestToken.abi, functionName: 'setFee', args: [bps] }),
      pollingInterval: 50,
    });
  await setFee(10n); // 0.1 %, which the Transfer event does not show
  try {
    const address = (await call('POST', '/api/v1/transaction/initialize', { reference: 'fee-1', coin: 'USDT', currency: 'USD', amount: 5 })).data
      .address as Address;
    await send(address, '5');
  } finally {
    await setFee(0n);
  }
  await reader().request({ method: 'anvil_mine' as 'eth_blockNumber', params: ['0x2'] as never });
  await watcher.tick();
  await watcher.tick();
  // The job tells the merchant once, however often it runs.
  const log = { info() {}, warn() {}, error() {} } as unknown as JobDeps['log'];
  const [job] = reconcileJobs({
    networks: [network],
    chain: store,
    crediting: api.parts.crediting,
    log,
    now: Date.now,
    reconcileIntervalMs: 50,
  });
  job.start();
  await new Promise((resolve) => setTimeout(resolve, 400));
  await job.stop();
  // Another instance (or this one restarted) does not tell it again.
  const [other] = reconcileJobs({
    networks: [network],
    chain: store,
    crediting: api.parts.crediting,
    log,
    now: Date.now,
    reconcileIntervalMs: 50,
  });
  other.start();
  await new Promise((resolve) => setTimeout(resolve, 300));
  await other.stop();
  const { differences, checked } = await reconcile(network, store);
  expect(differences.map((d) => [d.reference, d.held, d.onChain])).toEqual([['fee-1', parseUnits('5', 18), parseUnits('4.995', 18)]]);
  expect(checked).toBe(1); // only the line that disagrees: the others agreed and have not moved

  const told = await api.db.query(`SELECT body FROM events WHERE type = 'DEPOSIT_DISCREPANCY'`);
  expect(told).toHaveLength(1);
  expect(JSON.parse(told[0].body as string).data).toMatchObject({ reference: 'fee-1', ledger: '5000000000000000000', onChain: '4995000000000000000' });
});

// The sweeper renewed its lease on a timer and ignored a renewal that failed, so a
// tick that outlived its lease (a slow node) kept sending from the gas wallet while another
// instance, holding the lease now, swept the same chain at the same nonce.
it('sends nothing once its lease went to another instance mid-tick; the deposit is swept later by the holder', { timeout: 60_000 }, async () => {
  await call('PUT', '/api/v1/payout_address', { chain_id: chain.chainId, address: payout });
  const address = await paidAndSeen('lost-1');
  const network = devNetwork(chain.url, contracts, 1);
  const nonce = await reader().getTransactionCount({ address: gas.address });
  // Instance A's node is slow: while A prepares its sweep (the gas wallet's nonce), A's lease runs out
  // as instance B sees it (B's clock past A's lease), and B takes the chain.
  const methods: string[] = [];
  let takenOver = false;
  const proxy = await rpcProxy(chain.url, async (body) => {
    for (const c of [body].flat()) methods.push(c.method ?? '');
    if (!takenOver && [body].flat().some((c) => c.method === 'eth_getTransactionCount')) {
      takenOver = await store.sweeps.leaseSweeper(chain.chainId, 'instance-b', Date.now() + 61_000, 60_000);
    }
    return undefined;
  });
  try {
    const a = new Sweeper({ network: { ...network, rpcUrls: [proxy.url] }, store, gas, holder: 'instance-a' });
    await expect(a.tick()).rejects.toThrow(LeaseLost);
    expect(takenOver).toBe(true);
    expect(methods).toContain('eth_getTransactionCount');
    expect(methods).not.toContain('eth_sendRawTransaction');
    expect(await reader().getTransactionCount({ address: gas.address })).toBe(nonce);
    // A lost lease is not A's to give back: B still holds it.
    expect(await store.sweeps.leaseSweeper(chain.chainId, 'instance-c', Date.now(), 60_000)).toBe(false);
  } finally {
    await proxy.close();
  }
  // B sweeps it once A's claim on the deposit has run out.
  const b = new Sweeper({ network, store, gas, holder: 'instance-b', now: () => Date.now() + 301_000 });
  expect((await b.tick()).swept).toBeGreaterThanOrEqual(1);
  expect(await balance(contracts.tokens.USDT, address)).toBe(0n);
});

// A gas wallet the node finds too poor for a sweep: the deposits' claims end at once only when
// none of the sweep reached the node. Here the first send did and waits in the pool; the wallet
// then holds just its cost, so the re-priced send is refused for want of funds: the claims stay
// (another sweep at once would race the one in the pool, and count nothing it moved).
it('keeps the claims of a sweep in the pool when its re-priced send is refused for want of gas', { timeout: 60_000 }, async () => {
  const address = await paidAndSeen('poor-1');
  const nonce = await reader().getTransactionCount({ address: gas.address });
  const funded = await reader().getBalance({ address: gas.address });
  await rpc('evm_setAutomine', [false]);
  try {
    const sweeping = new Sweeper({ network: devNetwork(chain.url, contracts, 1), store, gas, replaceAfterMs: 300 }).tick();
    sweeping.catch(() => {});
    const end = Date.now() + 15_000;
    let first: { gas: string; maxFeePerGas: string } | undefined;
    while (!first) {
      const pool = (await rpc('txpool_content')) as unknown as { pending: Record<string, Record<string, { gas: string; maxFeePerGas: string }>> };
      first = Object.entries(pool.pending).find(([from]) => from.toLowerCase() === gas.address.toLowerCase())?.[1][String(nonce)];
      if (Date.now() > end) throw new Error('the sweep was never sent');
      if (!first) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // Just what the first send can cost: its re-priced send (an eighth higher) is more.
    await rpc('anvil_setBalance', [gas.address, `0x${(BigInt(first.gas) * BigInt(first.maxFeePerGas)).toString(16)}`]);
    await expect(sweeping).rejects.toThrow(/insufficient funds/i);
    const [row] = await api.db.query<{ claim: string }>(
      `SELECT t.sweep_claim_ms::text AS claim FROM chain_transfers t JOIN payments p ON p.id = t.payment_id WHERE p.reference = 'poor-1'`,
    );
    expect(Number(row!.claim)).toBeGreaterThan(Date.now() + 60_000);
  } finally {
    await rpc('anvil_setBalance', [gas.address, `0x${funded.toString(16)}`]);
    await rpc('evm_mine');
    await rpc('evm_setAutomine', [true]);
  }
  // The first send was mined: the deposit's money is at its payout address.
  expect(await balance(contracts.tokens.USDT, address)).toBe(0n);
});
