// Several chains per mode. Two anvils stand in for two public chains of the live mode
// (chain ids 56 and 1, no dev flag, no sandbox, the factory deployed as on a public chain): USDT
// on the first, USDC and USDT on the second. A payment in USDT on one and one in USDC on the
// other are each watched, credited and swept on their own chain; money sent on the other chain
// to the same deposit address (the same there: one factory address, a salt without the chain id)
// never counts toward the payment, but is recorded, told (DEPOSIT_UNMATCHED, `wrong_chain`,
// naming its chain, token and amount) and swept on that chain: to the payout address on wallet
// settlement, to the treasury and the merchant's balance there on balance settlement (issue 33
// item 6), where it needs the merchant's attention and is sent back in that coin on that chain
// (issue 35); a chain the mode does not take the coin on, or no chain for a coin it takes on two,
// is refused naming chain_id.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, createWalletClient, getAddress, http, parseUnits, toHex, type Address, type Hex } from 'viem';
import { startService, type Service } from '../../service/app.ts';
import { DEMO_MERCHANT } from '../../service/seed.ts';
import { TestToken } from '../../../contracts/artifacts.generated.ts';
import { devAccount } from '../../../devchain/deploy.ts';
import { startDevChain, type DevChain } from '../../../devchain/anvil.ts';
import { deployFactory } from '../deploy.ts';
import type { Network } from '../networks.ts';
import { databaseOptions, ONLY_PGLITE } from '../../testing/databases.ts';
import { caller, until } from '../../testing/chain.ts';

const { publicKey, secretKey } = DEMO_MERCHANT.keys.live;
const GAS = 6;
const CUSTOMER = 3;
const payout = devAccount(7).address;
const otherPayout = devAccount(8).address;
// One treasury on both chains (one key): balance settlement's wrong-chain money is swept into it on the chain it came on.
const TREASURY = 10;
const treasury = devAccount(TREASURY).address;
// The wallet of the customer who sent USDT on the wrong chain: it is sent back there.
const customerWallet = devAccount(9).address;

interface Stand {
  chain: DevChain;
  network: Network;
  tokens: Record<string, Address>;
}
const stands: Stand[] = [];
let api: Service;

const reader = (s: Stand) => createPublicClient({ transport: http(s.chain.url) });
const wallet = (s: Stand, index: number) => createWalletClient({ account: devAccount(index), transport: http(s.chain.url) });
const mine = (s: Stand, blocks: number) => reader(s).request({ method: 'anvil_mine' as 'eth_blockNumber', params: [toHex(blocks)] as never });
const balanceOf = (s: Stand, token: Address, who: Address) =>
  reader(s).readContract({ address: token, abi: TestToken.abi, functionName: 'balanceOf', args: [who] });
async function send(s: Stand, token: Address, to: Address, amount: bigint): Promise<bigint> {
  const hash = await wallet(s, CUSTOMER).writeContract({ chain: null, address: token, abi: TestToken.abi, functionName: 'transfer', args: [to, amount] });
  return (await reader(s).waitForTransactionReceipt({ hash })).blockNumber;
}

/** A stand-in public chain: its own chain id, the factory through the deployment proxy, the issuers' tokens. */
async function stand(chainId: number, name: string, coins: Array<{ symbol: 'USDT' | 'USDC'; decimals: number }>): Promise<Stand> {
  const chain = await startDevChain({ chainId });
  const { factory } = await deployFactory(chain.url, devAccount(4));
  const s: Stand = { chain, tokens: {}, network: undefined as never };
  const issuer = wallet(s, 5);
  for (const coin of coins) {
    const deployed = await issuer.deployContract({
      chain: null,
      abi: TestToken.abi,
      bytecode: TestToken.bytecode,
      args: [coin.symbol, coin.symbol, coin.decimals],
    });
    const address = (await reader(s).waitForTransactionReceipt({ hash: deployed })).contractAddress!;
    await reader(s).waitForTransactionReceipt({
      hash: await issuer.writeContract({
        chain: null,
        address,
        abi: TestToken.abi,
        functionName: 'mint',
        args: [devAccount(CUSTOMER).address, parseUnits('1000', coin.decimals)],
      }),
    });
    s.tokens[coin.symbol] = address;
  }
  // The operator funds the treasury's gas (it sends the merchants' withdrawals and refunds).
  await reader(s).waitForTransactionReceipt({ hash: await issuer.sendTransaction({ chain: null, to: treasury, value: parseUnits('1', 18) }) });
  s.network = {
    chainId,
    name,
    rpcUrls: [chain.url],
    confirmations: 2,
    factory,
    treasury,
    tokens: coins.map((c) => ({ symbol: c.symbol, name: c.symbol, address: s.tokens[c.symbol]!, decimals: c.decimals })),
  };
  return s;
}

// The two anvils are started once for the file; each database kind gets them back as they were
// after the deployment (evm_revert to a snapshot) and a service of its own.
let snapshots: string[] = [];
let keyFile: string;
beforeAll(async () => {
  stands.push(await stand(56, 'Stand-in BNB Smart Chain', [{ symbol: 'USDT', decimals: 18 }]));
  // USDT first on each, from the same issuer account: the same token address on both chains (as
  // a token deployed by CREATE2 has), so only the chain tells them apart.
  stands.push(
    await stand(1, 'Stand-in Ethereum', [
      { symbol: 'USDT', decimals: 6 },
      { symbol: 'USDC', decimals: 6 },
    ]),
  );
  keyFile = join(mkdtempSync(join(tmpdir(), 'several-chains-')), 'treasury.key');
  writeFileSync(keyFile, toHex(devAccount(TREASURY).getHdKey().privateKey!), { mode: 0o600 });
}, 120_000);
afterAll(async () => {
  for (const s of stands) await s.chain.stop();
});

/** Each chain back to just after the deployment (a snapshot is used up by its revert: a new one is taken). */
async function freshChains() {
  if (snapshots.length)
    for (const [i, s] of stands.entries())
      expect(await reader(s).request({ method: 'evm_revert' as 'eth_blockNumber', params: [snapshots[i]] as never })).toBe(true);
  snapshots = await Promise.all(stands.map((s) => reader(s).request({ method: 'evm_snapshot' as 'eth_blockNumber' }) as Promise<string>));
}

const call = caller(() => api.url);
const init = (body: Record<string, unknown>) => call('POST', '/api/v1/transaction/initialize', { currency: 'USD', amount: 10, ...body }, publicKey);
const verify = async (reference: string) => (await call('GET', `/api/v1/transaction/verify/${reference}`, undefined, secretKey)).body.data;
/** Until the service's watcher of `s` has scanned block `block`. */
const scanned = (s: Stand, block: bigint) =>
  until(`chain ${s.network.chainId} scanned to ${block}`, async () => ((await api.parts.chain.scannedTo(s.network.chainId)) ?? -1n) >= block);
const [bsc, eth] = [() => stands[0]!, () => stands[1]!];
/** The data of the events written of one type (what the merchant's webhook receives), in the order written. */
const events = async (type: string) =>
  (await api.db.query(`SELECT body FROM events WHERE type = $1 ORDER BY seq`, [type])).map((r) => JSON.parse(r.body as string).data);
const wrongChain = async (reference: string) =>
  (await events('DEPOSIT_UNMATCHED'))
    .filter((e) => e.payment?.reference === reference && e.reason === 'wrong_chain')
    .map((e) => [e.transfer.chainId, e.transfer.token, e.transfer.amount, e.payment.chainId])
    .sort((x, y) => String(x[1]).localeCompare(String(y[1])));

describe.each(ONLY_PGLITE)('two live chains at once, on %s', { timeout: 90_000 }, (kind) => {
  beforeAll(async () => {
    await freshChains();
    api = await startService({
      demo: true,
      networks: { live: stands.map((s) => s.network) },
      treasuryKeyFile: keyFile,
      gasKey: toHex(devAccount(GAS).getHdKey().privateKey!) as Hex,
      watchIntervalMs: 100,
      sweepIntervalMs: 300,
      // A live key's new payout address waits a delay (merchants/tests/destinations.test.ts); here chain 1's is replaced mid-test and swept to at once.
      newDestinationDelayMs: 0,
      ...(await databaseOptions(kind)),
    });
  }, 120_000);
  afterAll(async () => {
    await api?.close();
  });

  it('lists each coin on each chain, and names chain_id where a coin is on two', async () => {
    // What blocks money is said per network: a payout address on one chain leaves the other's missing.
    const warnings = async () =>
      ((await call('GET', '/api/v1/account/warnings', undefined, secretKey)).body.data as Array<{ code: string; message: string }>)
        .filter((w) => w.code === 'no_payout_address')
        .map((w) => w.message);
    expect(await warnings()).toEqual([expect.stringMatching(/Stand-in BNB Smart Chain \(chain 56\)/), expect.stringMatching(/Stand-in Ethereum \(chain 1\)/)]);
    expect((await call('PUT', '/api/v1/payout_address', { chain_id: 56, address: payout }, secretKey)).status).toBe(200);
    expect(await warnings()).toEqual([expect.stringMatching(/Stand-in Ethereum \(chain 1\)/)]);
    for (const s of stands) expect((await call('PUT', '/api/v1/payout_address', { chain_id: s.network.chainId, address: payout }, secretKey)).status).toBe(200);
    expect(await warnings()).toEqual([]);
    const coins = (await call('GET', '/api/v1/coins', undefined, publicKey)).body.data as Array<{ symbol: string; chainId: number; network: string }>;
    expect(coins.map((c) => [c.symbol, c.chainId, c.network])).toEqual([
      ['USDT', 56, 'Stand-in BNB Smart Chain'],
      ['USDT', 1, 'Stand-in Ethereum'],
      ['USDC', 1, 'Stand-in Ethereum'],
    ]);

    // USDT is on both: without chain_id, no guess.
    const ambiguous = await init({ reference: 'two-0', coin: 'USDT' });
    expect(ambiguous.status).toBe(400);
    expect(ambiguous.body.errors).toEqual([{ field: 'chain_id', message: expect.stringMatching(/56 \(Stand-in BNB Smart Chain\), 1 \(Stand-in Ethereum\)/) }]);
    // A chain the mode does not take the coin on, or takes nothing on.
    const notThere = await init({ reference: 'two-0', coin: 'USDC', chain_id: 56 });
    expect([notThere.status, notThere.body.errors]).toEqual([
      400,
      [{ field: 'chain_id', message: expect.stringMatching(/USDC on: 1 \(Stand-in Ethereum\); received 56/) }],
    ]);
    const unknown = await init({ reference: 'two-0', coin: 'USDT', chain_id: 137 });
    expect([unknown.status, unknown.body.errors[0].field, unknown.body.message]).toEqual([400, 'chain_id', expect.stringMatching(/56 .*, 1 .*received 137/)]);
    // Not a chain id at all: the contract's schema names it.
    for (const junk of ['56', -1, 1.5, null]) {
      const refused = await init({ reference: 'two-0', coin: 'USDT', chain_id: junk });
      expect([refused.status, refused.body.errors?.[0]?.field], JSON.stringify(junk)).toEqual([400, 'chain_id']);
    }
    expect(await api.parts.payments.find({ merchant: { id: DEMO_MERCHANT.id } as never, mode: 'live' }, 'two-0')).toBeUndefined();
  });

  it("watches, credits and sweeps USDT on one chain and USDC on the other, each on its own; the other chain's coin to the same address never counts, and is told and swept there", async () => {
    const usdt = await init({ reference: 'two-usdt', coin: 'USDT', chain_id: 56 });
    const usdc = await init({ reference: 'two-usdc', coin: 'USDC' }); // on one chain only: no chain_id needed
    expect([usdt.status, usdc.status]).toEqual([201, 201]);
    expect(usdt.body.data).toMatchObject({ coin: 'USDT', chainId: 56, cryptoAmount: 10 });
    expect(usdc.body.data).toMatchObject({ coin: 'USDC', chainId: 1, cryptoAmount: 10 });
    const [a, b] = [usdt.body.data.address as Address, usdc.body.data.address as Address];
    // One factory address on every chain and one payout address: the USDT payment's address on
    // chain 1 is the same address. A customer who sends on the wrong chain pays nothing toward
    // the payment, but the money is seen there: recorded, told, and swept on that chain.
    const usdtOn1 = eth().tokens.USDT!;
    expect(usdtOn1).toBe(bsc().tokens.USDT); // the same token address, too
    const mixUps = [
      await send(eth(), usdtOn1, a, parseUnits('10', 6)), // USDT, same symbol, other chain, same address
      await send(eth(), eth().tokens.USDC!, a, parseUnits('10', 6)), // another coin of the other chain
    ];
    const mixUpOn56 = await send(bsc(), bsc().tokens.USDT!, b, parseUnits('10', 18)); // the USDC payment's address, on chain 56
    await mine(eth(), 3);
    await mine(bsc(), 3);
    await scanned(eth(), mixUps[1]! + 2n);
    await scanned(bsc(), mixUpOn56 + 2n);
    expect(await verify('two-usdt')).toMatchObject({ status: 'pending', amountPaid: 0, chainId: 56 });
    expect(await verify('two-usdc')).toMatchObject({ status: 'pending', amountPaid: 0, chainId: 1 });
    // Told once each is as deep as money that counts, naming the chain, token and amount it came in (and the payment's own chain).
    await until('the wrong-chain transfers told', async () => (await wrongChain('two-usdt')).length === 2 && (await wrongChain('two-usdc')).length === 1);
    expect(await wrongChain('two-usdt')).toEqual(
      [
        [1, usdtOn1.toLowerCase(), String(parseUnits('10', 6)), 56],
        [1, eth().tokens.USDC!.toLowerCase(), String(parseUnits('10', 6)), 56],
      ].sort((x, y) => String(x[1]).localeCompare(String(y[1]))),
    );
    expect(await wrongChain('two-usdc')).toEqual([[56, bsc().tokens.USDT!.toLowerCase(), String(parseUnits('10', 18)), 1]]);

    // Each paid on its own chain.
    await send(bsc(), bsc().tokens.USDT!, a, parseUnits('10', 18));
    await send(eth(), eth().tokens.USDC!, b, parseUnits('10', 6));
    await mine(bsc(), 2);
    await mine(eth(), 2);
    await until('both confirmed', async () => (await verify('two-usdt')).status === 'confirmed' && (await verify('two-usdc')).status === 'confirmed');
    expect(await verify('two-usdt')).toMatchObject({ amountPaid: 10, chainId: 56 });
    expect(await verify('two-usdc')).toMatchObject({ amountPaid: 10, chainId: 1 });
    // Swept on each chain to the payout address the deposit is bound to: the payment's own money,
    // and what came on the wrong chain, on that chain (the same address there, the merchant's).
    // Waited for in the service's own record of each sweep, not in the payout address's balance:
    // the tokens move on chain before the sweeper writes down that they did, and a test that read
    // the record as soon as the balance changed failed on a loaded machine.
    const sweptRows = () =>
      api.db.query(
        `SELECT p.reference, t.chain_id, t.state, t.swept_hash IS NOT NULL AS swept FROM chain_transfers t JOIN payments p ON p.id = t.payment_id WHERE p.reference IN ('two-usdt', 'two-usdc') ORDER BY p.reference, t.chain_id, t.block_number, t.log_index`,
      );
    const transfers = await until('every sweep recorded', async () => {
      const rows = await sweptRows();
      return rows.length === 5 && rows.every((t) => t.swept) && rows;
    });
    expect(await balanceOf(bsc(), bsc().tokens.USDT!, payout)).toBe(parseUnits('20', 18));
    expect(await balanceOf(eth(), eth().tokens.USDC!, payout)).toBe(parseUnits('20', 6));
    expect(await balanceOf(eth(), usdtOn1, payout)).toBe(parseUnits('10', 6));
    for (const [s, token, deposit] of [
      [bsc(), bsc().tokens.USDT!, b],
      [eth(), usdtOn1, a],
      [eth(), eth().tokens.USDC!, a],
    ] as const)
      expect(await balanceOf(s, token, deposit)).toBe(0n);
    // Each payment counted its one transfer, on its chain; what came on the other chain is recorded as money it did not ask for.
    expect(transfers.map((t) => [t.reference, Number(t.chain_id), t.state, t.swept])).toEqual([
      ['two-usdc', 1, 'credited', true],
      ['two-usdc', 56, 'unexpected', true],
      ['two-usdt', 1, 'unexpected', true],
      ['two-usdt', 1, 'unexpected', true],
      ['two-usdt', 56, 'credited', true],
    ]);
    expect(await verify('two-usdt')).toMatchObject({ amountPaid: 10 });
    expect(await verify('two-usdc')).toMatchObject({ amountPaid: 10 });

    // On wallet settlement that money is at the payout address, not the service's: sending back
    // what came on chain 56 is the one transfer the merchant's own wallet makes there, with no
    // new-wallet delay (the service sends nothing: no wallet of the balance to protect).
    const destinations = api.parts.destinations as { delayMs: number };
    destinations.delayMs = 86_400_000;
    try {
      const back = await call('POST', '/api/v1/payments/two-usdc/send_back', { reason: 'sent on the wrong chain', address: customerWallet }, secretKey);
      expect([back.status, back.body.data?.settlement, back.body.data?.transfer], JSON.stringify(back.body)).toEqual([
        201,
        'wallet',
        {
          uri: expect.stringMatching(/^ethereum:/),
          token: getAddress(bsc().tokens.USDT!),
          chain_id: 56,
          to: customerWallet,
          amount: '10',
          amount_base_units: String(parseUnits('10', 18)),
        },
      ]);
    } finally {
      destinations.delayMs = 0;
    }
  });

  it("moves a re-quote to another chain onto that chain's deposit address, and keeps one that received money on its chain", async () => {
    expect((await call('PUT', '/api/v1/payout_address', { chain_id: 1, address: otherPayout }, secretKey)).status).toBe(200);
    const first = await init({ reference: 'two-move', coin: 'USDT', chain_id: 56 });
    const moved = await init({ reference: 'two-move', coin: 'USDC' });
    expect(moved.status).toBe(201);
    expect(moved.body.data).toMatchObject({ coin: 'USDC', chainId: 1 });
    // Bound to chain 1's payout address, so the address differs from chain 56's.
    expect(moved.body.data.address).not.toBe(first.body.data.address);
    const block = await send(eth(), eth().tokens.USDC!, moved.body.data.address, parseUnits('10', 6));
    await mine(eth(), 2);
    await until('the moved payment confirmed', async () => (await verify('two-move')).status === 'confirmed');
    await until("swept to chain 1's payout address", async () => (await balanceOf(eth(), eth().tokens.USDC!, otherPayout)) === parseUnits('10', 6));
    expect(block).toBeGreaterThan(0n);

    // Dust at the old address is a recorded transfer there: the payment stays on its chain.
    const kept = await init({ reference: 'two-kept', coin: 'USDT', chain_id: 56 });
    const dust = await send(bsc(), bsc().tokens.USDT!, kept.body.data.address, 1n);
    await mine(bsc(), 2);
    await scanned(bsc(), dust);
    const refused = await init({ reference: 'two-kept', coin: 'USDT', chain_id: 1 });
    expect([refused.status, refused.body.errors]).toEqual([409, [{ field: 'chain_id', message: expect.stringMatching(/expected 56/) }]]);
    expect(await verify('two-kept')).toMatchObject({ chainId: 56, address: kept.body.data.address });
  });

  it("on balance settlement, sweeps money sent on the wrong chain into that chain's treasury: the merchant's balance there, never the payment's; sent back on that chain in one step", async () => {
    expect((await call('PUT', '/api/v1/settlement', { settlement: 'balance' }, secretKey)).status).toBe(200);
    const paid = await init({ reference: 'two-balance', coin: 'USDT', chain_id: 56 });
    expect(paid.body.data).toMatchObject({ chainId: 56 });
    const usdtOn1 = eth().tokens.USDT!;
    const before = await balanceOf(eth(), usdtOn1, treasury);
    await send(eth(), usdtOn1, paid.body.data.address, parseUnits('7.5', 6));
    await mine(eth(), 2);
    await until('swept into the treasury on chain 1', async () => (await balanceOf(eth(), usdtOn1, treasury)) === before + parseUnits('7.5', 6));
    // Journaled once its sweep is final: the merchant's available USDT on chain 1, said to be no payment's.
    // (The stand-in chains mine only when told: each look mines a block, so the sweep gets its confirmations.)
    const line = await until('journaled', async () => {
      await mine(eth(), 1);
      const lines = (await call('GET', '/api/v1/balances', undefined, secretKey)).body.data as Array<{ coin: string; chain_id: number; available: string }>;
      return lines.find((l) => l.chain_id === 1 && l.coin === 'USDT' && l.available === '7.5');
    });
    expect(line).toBeTruthy();
    const entries = await api.parts.journal.entries(DEMO_MERCHANT.id);
    expect(entries.filter((e) => e.kind === 'deposit' && e.memo.includes('two-balance')).map((e) => e.memo)).toEqual([
      expect.stringMatching(/sent on chain 1, the payment is on chain 56; not counted toward it/),
    ]);
    // The treasury on chain 1 holds what the journal says it owes there.
    const held = await api.parts.journal.held(1, usdtOn1);
    expect(await balanceOf(eth(), usdtOn1, treasury)).toBe(held.merchants + held.fees + held.payable);
    expect(await verify('two-balance')).toMatchObject({ status: 'pending', amountPaid: 0, chainId: 56 });
    expect(await wrongChain('two-balance')).toEqual([[1, usdtOn1.toLowerCase(), String(parseUnits('7.5', 6)), 56]]);

    // It needs the merchant's attention, named by the chain it came on, and is sent
    // back in one step: in USDT on chain 1, from chain 1's treasury, chain 56 untouched.
    const attention = async () =>
      (
        (await call('GET', '/api/v1/payments?needs_attention=true&q=two-balance', undefined, secretKey)).body.data as Array<{
          reference: string;
          attention: unknown;
        }>
      ).map((p) => [p.reference, p.attention]);
    expect(await attention()).toEqual([['two-balance', { reason: 'wrong_chain', chain_id: 1, amount: '7.5', coin: 'USDT' }]]);
    const onBoth = () => Promise.all([balanceOf(bsc(), bsc().tokens.USDT!, customerWallet), balanceOf(eth(), usdtOn1, customerWallet)]);
    const [on56, on1] = await onBoth();
    const treasuryOn56 = await balanceOf(bsc(), bsc().tokens.USDT!, treasury);
    // A live key's new wallet waits the operator's delay on the chain the money goes back on
    // (chain 1), not the payment's: registered there, and ready there once the delay is past.
    const destinations = api.parts.destinations as { delayMs: number };
    destinations.delayMs = 86_400_000;
    let asked: Awaited<ReturnType<typeof call>>;
    try {
      const pending = await call('POST', '/api/v1/payments/two-balance/send_back', { reason: 'sent on the wrong chain', address: customerWallet }, secretKey);
      expect([pending.status, pending.body.code, pending.body.errors?.[0]?.field]).toEqual([409, 'destination_pending', 'address']);
      const waiting = await api.db.query(
        `SELECT id, chain_id FROM destination_changes WHERE kind = 'withdrawal_address' AND lower(address) = lower($1) AND state = 'pending'`,
        [customerWallet],
      );
      expect(waiting.map((c) => Number(c.chain_id))).toEqual([1]);
      await api.db.query(`UPDATE destination_changes SET effective_ms = $2 WHERE id = $1`, [waiting[0]!.id, Date.now() - 1000]);
      asked = await call('POST', '/api/v1/payments/two-balance/send_back', { reason: 'sent on the wrong chain', address: customerWallet }, secretKey);
    } finally {
      destinations.delayMs = 0;
    }
    expect(
      [asked.status, asked.body.data?.coin, asked.body.data?.chain_id, asked.body.data?.amount, asked.body.data?.amount_base_units],
      JSON.stringify(asked.body),
    ).toEqual([201, 'USDT', 1, '7.5', String(parseUnits('7.5', 6))]);
    const refund = await until('the send-back confirmed', async () => {
      await mine(eth(), 1);
      const now = (await call('GET', `/api/v1/refunds/${asked.body.data.id}`, undefined, secretKey)).body.data;
      return now.status === 'confirmed' || now.status === 'failed' ? now : false;
    });
    expect(refund.status).toBe('confirmed');
    expect(await onBoth()).toEqual([on56, on1 + parseUnits('7.5', 6)]);
    expect(await balanceOf(bsc(), bsc().tokens.USDT!, treasury)).toBe(treasuryOn56);
    // Told once per state, naming chain 1.
    expect((await events('REFUND_UPDATED')).filter((e) => e.id === refund.id).map((e) => [e.status, e.chain_id])).toEqual([
      ['ready', 1],
      ['sent', 1],
      ['confirmed', 1],
    ]);
    await until('the treasury on chain 1 idle', async () => !(await api.parts.treasuryTxs.inFlight(1)));
    for (const sum of await api.parts.journal.journalSums()) expect(sum.sum, `the journal of ${sum.token} on chain ${sum.chainId} sums to zero`).toBe(0n);
    const after = await api.parts.journal.held(1, usdtOn1);
    expect(await balanceOf(eth(), usdtOn1, treasury)).toBe(after.merchants + after.fees + after.payable);
    expect(await attention()).toEqual([]);
    const again = await call('POST', '/api/v1/payments/two-balance/send_back', { reason: 'sent on the wrong chain', address: customerWallet }, secretKey);
    expect([again.status, again.body.code]).toEqual([409, 'nothing_to_resolve']);
    expect((await call('PUT', '/api/v1/settlement', { settlement: 'wallet' }, secretKey)).status).toBe(200);
  });

  it('checks every chain of the list at start, naming the one that is wrong by its place', async () => {
    const wrong = { ...eth().network, tokens: eth().network.tokens.map((t) => (t.symbol === 'USDC' ? { ...t, decimals: 18 } : t)) };
    await expect(startService({ networks: { live: [bsc().network, wrong] }, jobs: false })).rejects.toThrow(
      /NETWORKS_FILE live\.1\.tokens\.1\.decimals: USDC at .* has 6 decimals, the file says 18/,
    );
    // The one-network form names it as before.
    await expect(startService({ networks: { live: wrong }, jobs: false })).rejects.toThrow(/NETWORKS_FILE live\.tokens\.1\.decimals/);
  });

  it('is ready only with every chain followed, and names each', async () => {
    const ready = await fetch(`${api.url}/readyz`);
    const body = (await ready.json()) as { data: Array<{ name: string; ok: boolean }> };
    expect(body.data.filter((c) => c.name.startsWith('chain ')).map((c) => [c.name, c.ok])).toEqual([
      ['chain 56 (Stand-in BNB Smart Chain)', true],
      ['chain 1 (Stand-in Ethereum)', true],
    ]);
  });
});
