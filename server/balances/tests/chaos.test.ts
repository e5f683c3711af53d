// The chaos suite for money going out: on the shared dev chain, the service running its own jobs
// (watcher, sweeper, treasury sender, treasury reconciliation) at short intervals, each anomaly is
// injected (a send dropped from the pool, the node going away for 30 s the moment a send is handed
// to it while a payment arrives, a deep reorganisation taking completed sends away with a nonce
// taken or free, the treasury's token taken by its key used elsewhere, a final sweep taken away, a
// transfer to the payout partner taken away, the treasury's native coin emptied, a retried
// withdrawal, a completed swap taken away with its approval, an overpayment sent back, a counted
// deposit taken away; on the way in an under-payment, the wrong coin, the wrong chain (a second dev
// chain of the test mode), a late payment, a token taking a fee on transfer; a token that answers
// false, a nonce stuck behind a fee spike) and must end resolved by the service itself (or by the
// one step the docs name for it): the journal sums to 0, the treasury holds on chain what the
// journal owes (no shortfall, no surplus, no hold), and the merchant is told by the send's own
// event. Each row measures the time from the injection to its resolution; the table is printed at
// the end and copied into docs/balances.md ("Chaos suite"). Never waits on real seconds for the
// chain: blocks are mined on demand (evm_mine), reorganisations are evm_snapshot/evm_revert. The
// outage alone lasts its 30 real seconds: the service's retries and backoff run on timers. PGlite:
// what a row tests is the service against the chain, not storage concurrency (concurrent undos and
// retries across instances are attack-withdrawal-reorg.test's and idempotency.test's, on both
// databases).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, createWalletClient, erc20Abi, http, parseGwei, parseUnits, toHex, type Address, type Hex } from 'viem';
import { foundry } from 'viem/chains';
import { startService, type Service } from '../../service/app.ts';
import { DEMO_MERCHANT } from '../../service/seed.ts';
import {
  deployDevContracts,
  devAccount,
  devNetwork,
  GAS_DEV_ACCOUNT,
  PARTNER_DEV_ACCOUNT,
  TREASURY_DEV_ACCOUNT,
  type DevContracts,
} from '../../../devchain/deploy.ts';
import { startDevChain, type DevChain } from '../../../devchain/anvil.ts';
import { sharedDevChain } from '../../../devchain/shared.ts';
import { DEV_CHAIN_POWERS } from '../../../devchain/sandbox.ts';
import { TEST_BANK_ACCOUNT } from '../../testing/api-calls.ts';
import { caller, rpcProxy, toldStatuses, until, type RpcCall } from '../../testing/chain.ts';
import { relayPayments } from '../../testing/relay-payments.ts';
import type { Network } from '../../chain/networks.ts';
import { surplusOf } from '../../chain/treasury-reconcile.ts';
import { BatchSender, FalseToken, TestToken } from '../../../contracts/artifacts.generated.ts';

const { secretKey } = DEMO_MERCHANT.keys.test;
const treasury = devAccount(TREASURY_DEV_ACCOUNT).address;
const usdt = (text: string) => parseUnits(text, 18);
/** How long the node is away in the outage row: the service's RPC retries (2 × 200 ms) and the watcher's backoff are long given up by then. */
const OUTAGE_MS = 30_000;
/** The mode's second dev chain, where the wrong-chain row's money arrives: it takes BUSD only. */
const SECOND_CHAIN_ID = 31338;

/** One row of the printed table. */
interface Row {
  anomaly: string;
  resolved: string;
  told: string;
  ms?: number;
}
const rows: Row[] = [];
/** A row of the table, in the order the rows run. */
function rowOf(anomaly: string): Row {
  const row = { anomaly, resolved: '', told: '' };
  rows.push(row);
  return row;
}

describe('chaos on money going out (issue 49), on pglite', { timeout: 60_000 }, () => {
  let chain: DevChain;
  let contracts: DevContracts;
  /** The second chain of the test mode: a fresh anvil, the same deployment (so the same factory and deposit addresses). */
  let second: DevChain;
  let secondContracts: DevContracts;
  let api: Service;
  let proxy: Awaited<ReturnType<typeof rpcProxy>>;
  /** The node as the service sees it: 'up', 'armed' (the next send reaches anvil, then the node goes away), 'down'. */
  let node: 'up' | 'armed' | 'down' = 'up';
  let outageStarted = 0;
  /** How far the service's clock is ahead of the machine's. */
  let skewMs = 0;
  /** The service's DAI: a token that answers `false` once told to (the false-returning row). */
  let falseDai: Address;
  /** The first chain's network as the service has it (a relay's signature names its USDC). */
  let network: Network;

  beforeAll(async () => {
    const started = performance.now();
    ({ chain, contracts } = await sharedDevChain());
    proxy = await rpcProxy(chain.url, async (body) => {
      if (node === 'down') return 'drop';
      const calls = (Array.isArray(body) ? body : [body]) as RpcCall[];
      if (node === 'armed' && calls.some((c) => c.method === 'eth_sendRawTransaction')) {
        // The send reaches the node, and the answer never comes back: the node is gone for OUTAGE_MS.
        await fetch(chain.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
        node = 'down';
        outageStarted = performance.now();
        setTimeout(() => (node = 'up'), OUTAGE_MS);
        return 'drop';
      }
      return undefined;
    });
    second = await startDevChain({ chainId: SECOND_CHAIN_ID });
    secondContracts = await deployDevContracts(second, 4);
    const chainMs = Math.round(performance.now() - started);
    // BUSD flagged as taking a fee on transfer (the fee-on-transfer row sets it one; none until then);
    // DAI is a token that can answer `false` (contracts/FalseToken.sol, as false-token.test).
    const deployer = createWalletClient({ account: devAccount(0), chain: foundry, transport: http(chain.url) });
    falseDai = (
      await reader().waitForTransactionReceipt({
        hash: await deployer.deployContract({ abi: FalseToken.abi, bytecode: FalseToken.bytecode, args: ['Dai', 'DAI', 18] }),
        pollingInterval: 50,
      })
    ).contractAddress!;
    network = devNetwork(proxy.url, contracts, 1);
    network.tokens = network.tokens.map((t) => (t.symbol === 'BUSD' ? { ...t, feeOnTransfer: true } : t.symbol === 'DAI' ? { ...t, address: falseDai } : t));
    // BUSD on both chains: a BUSD payment names its chain, and money sent on the other is the wrong chain's.
    const secondNetwork = {
      ...devNetwork(second.url, secondContracts, 1),
      chainId: SECOND_CHAIN_ID,
      name: 'Second local dev chain',
      tokens: devNetwork(second.url, secondContracts, 1).tokens.filter((t) => t.symbol === 'BUSD'),
    };
    api = await startService({
      demo: true,
      networks: { test: [network, secondNetwork] },
      devChain: DEV_CHAIN_POWERS,
      watchIntervalMs: 100,
      sweepIntervalMs: 200,
      jobIntervalMs: 250,
      treasuryReconcileIntervalMs: 250,
      payoutCheckMs: 250,
      // The service's clock: the stuck nonce's row moves it on past the replace-after wait (60 s).
      now: () => Date.now() + skewMs,
    });
    const serviceMs = Math.round(performance.now() - started);
    expect((await server('PUT', '/api/v1/settlement', { settlement: 'balance' })).status).toBe(200);
    // The merchant's money: 100 USDT paid, counted, swept and journaled by the service's jobs.
    await pay('chaos', '100');
    await until('the deposit journaled', async () => (await available()) === usdt('100'), 40_000, 50);
    console.log(
      `set-up: the chain ${chainMs} ms, the service on PGlite ${serviceMs} ms, 100 USDT paid, swept and journaled ${Math.round(performance.now() - started)} ms`,
    );
  }, 90_000);

  afterAll(async () => {
    await rpc('evm_setAutomine', [true]).catch(() => undefined);
    await api?.close();
    await proxy?.close();
    await chain?.stop();
    await second?.stop();
    const width = (k: keyof Row) => Math.max(k.length, ...rows.map((r) => String(r[k] ?? '').length));
    const line = (r: Record<keyof Row, string>) => `| ${r.anomaly.padEnd(width('anomaly'))} | ${r.resolved} | ${r.told} | ${r.ms} |`;
    console.log(
      [
        '\nchaos suite: anomaly → resolved how, events told, time to resolution',
        '| anomaly | resolved how | events told | time to resolution |',
        '|---|---|---|---|',
        ...rows.map((r) => line({ anomaly: r.anomaly, resolved: r.resolved, told: r.told, ms: r.ms === undefined ? 'NOT RESOLVED' : `${r.ms} ms` })),
      ].join('\n'),
    );
  });

  const reader = () => createPublicClient({ chain: foundry, transport: http(chain.url) });
  const rpc = (method: string, params: unknown[] = []) => reader().request({ method: method as 'eth_blockNumber', params: params as never });
  const onChain = (who: Address, coin = contracts.tokens.USDT) =>
    reader().readContract({ address: coin, abi: erc20Abi, functionName: 'balanceOf', args: [who] });
  const call = caller(() => api.url);
  const server = (method: string, path: string, body?: unknown) => call(method, path, body, secretKey);
  const token = () => contracts.tokens.USDT.toLowerCase();
  const available = async () =>
    (await api.parts.journal.balances({ merchant: DEMO_MERCHANT, mode: 'test' } as never, Date.now())).find((b) => b.token === token())?.available;
  const withdrawal = async (id: string) => (await server('GET', `/api/v1/withdrawals/${id}`)).body.data;
  const refund = async (id: string) => (await server('GET', `/api/v1/refunds/${id}`)).body.data;
  const withdraw = async (to: Address, amount: string) => {
    const made = await server('POST', '/api/v1/withdrawals', { coin: 'USDT', chain_id: 31337, address: to, amount });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    return made.body.data.id as string;
  };
  const told = (type: string, id: string) => toldStatuses(api, type, id);
  /**
   * Pays `amount` of `coin` (USDT unless said) from dev account 1 to a new USDT payment of `due`
   * (`amount` unless said), its quote run out before the money came when `expired` (as
   * attention.test makes it); answers the transfer's hash once sent (mined at once under automine).
   */
  async function pay(reference: string, amount: string, o: { coin?: 'USDT' | 'USDC'; due?: string; expired?: boolean } = {}) {
    const made = await server('POST', '/api/v1/transaction/initialize', { reference, coin: 'USDT', currency: 'USD', amount: Number(o.due ?? amount) });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    // Expired on the chain's clock too (money counts by its block's time, and a reverted chain's clock lags the machine's).
    if (o.expired) {
      const head = Number((await reader().getBlock()).timestamp) * 1000;
      await api.db.query(`UPDATE payments SET expires_ms = $2 WHERE reference = $1`, [reference, Math.min(Date.now(), head) - 1000]);
    }
    const coin = o.coin ?? 'USDT';
    const customer = createWalletClient({ account: devAccount(1), chain: foundry, transport: http(chain.url) });
    const hash = await customer.writeContract({
      address: contracts.tokens[coin],
      abi: erc20Abi,
      functionName: 'transfer',
      args: [made.body.data.address as Address, parseUnits(amount, coin === 'USDC' ? 6 : 18)],
    });
    return { hash, to: made.body.data.address as Address };
  }
  /** The merchant's available balance of `coin` on `chainId` (BUSD has one address on both chains). */
  const availableOf = async (coin: Address, chainId = 31337) =>
    (await api.parts.journal.balances({ merchant: DEMO_MERCHANT, mode: 'test' } as never, Date.now())).find(
      (b) => b.chainId === chainId && b.token === coin.toLowerCase(),
    )?.available ?? 0n;
  const payment = async (reference: string) => (await server('GET', `/api/v1/payments/${reference}`)).body.data.payment;
  /** What the merchant was told of payment `reference` by events of `type`: each one's status (DEPOSIT_UNMATCHED: its reason). */
  const toldOf = async (type: string, reference: string) =>
    (await api.db.query<{ body: string }>(`SELECT body FROM events WHERE type = $1 ORDER BY seq`, [type]))
      .map((e) => JSON.parse(e.body).data)
      .filter((d: { reference?: string; payment?: { reference?: string } }) => (d.reference ?? d.payment?.reference) === reference)
      .map((d: { status?: string; reason?: string }) => d.status ?? d.reason);
  /**
   * Money that cannot count as sent (`pay`'s options): paid, waited for until the merchant is told
   * (DEPOSIT_UNMATCHED) and it is swept and journaled into the balance of its coin; then the
   * merchant's one step, `accept`. Answers the transfer's hash, the payment as it was before the
   * accept, the balance before, and the time from the payment to the accept.
   */
  async function unmatchedAccepted(reference: string, amount: string, o: Parameters<typeof pay>[2]) {
    const coin = contracts.tokens[o?.coin ?? 'USDT'];
    const before = await availableOf(coin);
    const injected = performance.now();
    const { hash } = await pay(reference, amount, o);
    const arrived = parseUnits(amount, o?.coin === 'USDC' ? 6 : 18);
    await until(
      'told and journaled',
      mining(async () => (await availableOf(coin)) === before + arrived && (await toldOf('DEPOSIT_UNMATCHED', reference)).length > 0),
      20_000,
      100,
    );
    const open = await payment(reference);
    const accepted = await server('POST', `/api/v1/payments/${reference}/accept`);
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    return { hash, open, before, ms: Math.round(performance.now() - injected) };
  }
  /** Mines one block, and answers `probe`'s answer: for an `until` that needs the chain to grow. */
  const mining =
    <T>(probe: () => Promise<T>) =>
    async () => {
      await rpc('evm_mine');
      return probe();
    };

  /**
   * The row's end state: the journal sums to 0, the treasury holds on chain what the journal
   * owes (nothing in flight: every send decided), the reconciliation finds no shortfall nor
   * surplus, and no hold is active.
   */
  async function booksBalance(coins: Address[] = [contracts.tokens.USDT, contracts.tokens.USDC]) {
    for (const s of await api.parts.journal.journalSums()) expect(s.sum).toBe(0n);
    expect(await api.parts.treasuryTxs.inFlight(31337)).toBe(false);
    await api.parts.reconcileTreasuries();
    // The coins a row moves (the swap's row: USDT and USDC).
    for (const coin of coins) {
      const held = await api.parts.journal.held(31337, coin.toLowerCase());
      expect(held.merchants + held.fees + held.payable).toBe(await onChain(treasury, coin));
      const finding = (await api.parts.treasuryHolds.findings()).find((f) => f.chainId === 31337 && f.token === coin.toLowerCase());
      expect({ short: finding?.short ?? 0n, surplus: finding ? surplusOf(finding) : 0n }).toEqual({ short: 0n, surplus: 0n });
    }
    expect((await api.parts.treasuryHolds.holds()).active).toEqual([]);
  }

  it("a withdrawal's transaction dropped from the node's pool: sent again as recorded", async () => {
    const row = rowOf("a withdrawal's transaction dropped from the pool before it was mined");
    const to = devAccount(12).address;
    await rpc('evm_setAutomine', [false]);
    let id = '';
    try {
      id = await withdraw(to, '1');
      const hash = await until('signed and sent', async () => (await withdrawal(id)).tx_hash as Hex | undefined, 10_000, 50);
      await until(
        'in the pool',
        () =>
          reader()
            .getTransaction({ hash })
            .catch(() => undefined),
        10_000,
        50,
      );
      expect(await rpc('anvil_dropTransaction', [hash])).toBe(hash);
      const injected = performance.now();
      // Blocks go on being mined: the transaction is in one only once the sender has sent it again.
      await until(
        'the withdrawal completed',
        mining(async () => (await withdrawal(id)).status === 'completed'),
        15_000,
        100,
      );
      row.ms = Math.round(performance.now() - injected);
      expect((await withdrawal(id)).tx_hash).toBe(hash);
    } finally {
      await rpc('evm_setAutomine', [true]);
    }
    expect(await onChain(to)).toBe(usdt('1'));
    expect(await told('WITHDRAWAL_UPDATED', id)).toEqual(['pending', 'completed']);
    await booksBalance();
    Object.assign(row, {
      resolved: 'the sender sends its recorded transaction again each tick; mined, counted once',
      told: 'WITHDRAWAL_UPDATED pending, completed',
    });
  });

  it('the node goes away for 30 s the moment a withdrawal is handed to it: the answer lost, a payment made meanwhile; each counted once when it is back', {
    timeout: OUTAGE_MS + 60_000,
  }, async () => {
    const row = rowOf(
      `the RPC node gone for ${OUTAGE_MS / 1000} s the moment a withdrawal is handed to it (mined, its answer lost), a payment of 5 USDT made and mined meanwhile`,
    );
    const to = devAccount(13).address;
    const before = (await available()) ?? 0n;
    node = 'armed';
    const id = await withdraw(to, '2');
    await until('the node gone', async () => node === 'down', 10_000, 20);
    // While the service sees no node: a customer pays, and blocks go by (on the chain itself, not through the service's node).
    await pay('chaos-outage', '5');
    for (let i = 0; i < 3; i++) await rpc('evm_mine');
    expect((await payment('chaos-outage')).status).toBe('pending');
    await until('the withdrawal completed', async () => (await withdrawal(id)).status === 'completed', OUTAGE_MS + 20_000, 100);
    await until(
      'the payment confirmed, swept and journaled',
      mining(async () => (await available()) === before - usdt('2') + usdt('5')),
      20_000,
      100,
    );
    row.ms = Math.round(performance.now() - outageStarted);
    expect(row.ms).toBeGreaterThanOrEqual(OUTAGE_MS);
    expect(await onChain(to)).toBe(usdt('2'));
    expect(await told('WITHDRAWAL_UPDATED', id)).toEqual(['pending', 'completed']);
    expect(await payment('chaos-outage')).toMatchObject({ status: 'confirmed', amountPaidExact: '5' });
    expect(await toldOf('DEPOSIT_TRANSACTION', 'chaos-outage')).toEqual(['confirmed']);
    await booksBalance();
    Object.assign(row, {
      resolved:
        'waits (a missing answer proves nothing); once the node answers: the receipt read, paid once; the blocks of the outage scanned, the payment counted, swept and journaled once',
      told: 'WITHDRAWAL_UPDATED pending, completed; DEPOSIT_TRANSACTION confirmed (once each)',
    });
  });

  it('a deep reorganisation takes three completed sends away: one nonce taken by a later withdrawal, two still valid', async () => {
    const lostRow = rowOf('a completed withdrawal reorganised away (past the confirmations), its nonce taken by a later withdrawal');
    const againRow = rowOf('a completed withdrawal reorganised away, its nonce still free');
    const refundRow = rowOf("a confirmed refund's send reorganised away, its nonce still free");
    const to = { lost: devAccount(14).address, again: devAccount(15).address, refund: devAccount(16).address, taker: devAccount(17).address };
    const snapshot = await rpc('evm_snapshot');
    const lost = await withdraw(to.lost, '5');
    const refunded = await server('POST', '/api/v1/refunds', { reference: 'chaos', amount: '2', reason: 'two back', address: to.refund });
    expect(refunded.status, JSON.stringify(refunded.body)).toBe(201);
    const back = refunded.body.data.id as string;
    const again = await withdraw(to.again, '4');
    await until(
      'the three sends counted',
      async () =>
        (await withdrawal(lost)).status === 'completed' && (await refund(back)).status === 'confirmed' && (await withdrawal(again)).status === 'completed',
      20_000,
      100,
    );
    const hashes = {
      lost: (await withdrawal(lost)).tx_hash as Hex,
      back: (await refund(back)).tx_hash as Hex,
      again: (await withdrawal(again)).tx_hash as Hex,
    };

    // The reorganisation: back before the three, five blocks on the other branch. A new withdrawal
    // asked for at once takes the first one's nonce.
    expect(await rpc('evm_revert', [snapshot])).toBe(true);
    await rpc('anvil_mine', ['0x5']);
    const injected = performance.now();
    const taker = await withdraw(to.taker, '3');
    const receipts = await Promise.all(
      Object.values(hashes).map((hash) =>
        reader()
          .getTransactionReceipt({ hash })
          .catch(() => 'none'),
      ),
    );
    expect(receipts).toEqual(['none', 'none', 'none']);
    const ms: Record<string, number> = {};
    const done = async (key: string, yes: boolean) => {
      if (yes) ms[key] ??= Math.round(performance.now() - injected);
      return yes;
    };
    try {
      await until(
        'every send decided again',
        mining(async () => {
          const l = await done('lost', (await withdrawal(lost)).status === 'failed');
          const a = await done('again', (await told('WITHDRAWAL_UPDATED', again)).filter((s) => s === 'completed').length === 2);
          const b = await done('back', (await told('REFUND_UPDATED', back)).filter((s) => s === 'confirmed').length === 2);
          const t = (await withdrawal(taker)).status === 'completed';
          return l && a && b && t;
        }),
        20_000,
        200,
      );
    } finally {
      // Each row's own time, whichever were resolved when the wait ended.
      lostRow.ms = ms.lost;
      againRow.ms = ms.again;
      refundRow.ms = ms.back;
    }

    expect(await withdrawal(lost)).toMatchObject({ status: 'failed', failure: expect.stringMatching(/another transaction took its nonce/) });
    expect(await told('WITHDRAWAL_UPDATED', lost)).toEqual(['pending', 'completed', 'failed']);
    expect((await withdrawal(again)).tx_hash).toBe(hashes.again);
    expect(await told('WITHDRAWAL_UPDATED', again)).toEqual(['pending', 'completed', 'pending', 'completed']);
    expect((await refund(back)).tx_hash).toBe(hashes.back);
    expect(await told('REFUND_UPDATED', back)).toEqual(['ready', 'sent', 'confirmed', 'sent', 'confirmed']);
    expect(await told('WITHDRAWAL_UPDATED', back)).toEqual([]);
    expect({ lost: await onChain(to.lost), again: await onChain(to.again), refund: await onChain(to.refund), taker: await onChain(to.taker) }).toEqual({
      lost: 0n,
      again: usdt('4'),
      refund: usdt('2'),
      taker: usdt('3'),
    });
    await booksBalance();
    Object.assign(lostRow, {
      resolved: 'looked at again until final: gone at two looks, nonce taken → failed, `withdrawal_unsent` + `withdrawal_returned`, money back in the balance',
      told: 'WITHDRAWAL_UPDATED pending, completed, failed',
    });
    Object.assign(againRow, {
      resolved: 'gone at two looks, nonce free → back to pending, its recorded transaction sent again, counted once more (`withdrawal_sent #1`)',
      told: 'WITHDRAWAL_UPDATED pending, completed, pending, completed',
    });
    Object.assign(refundRow, {
      resolved: 'as the withdrawal: sent again as recorded, counted once more',
      told: 'REFUND_UPDATED ready, sent, confirmed, sent, confirmed (no WITHDRAWAL_UPDATED)',
    });
  });

  it("the treasury's token taken by its key used elsewhere: held, withdrawals refused; lifts itself once funded", async () => {
    const row = rowOf('USDT taken from the treasury by its key used outside the service (treasury short)');
    const gasBefore = await reader().getBalance({ address: treasury });
    const sinceMs = Date.now() + skewMs;
    const thief = createWalletClient({ account: devAccount(TREASURY_DEV_ACCOUNT), chain: foundry, transport: http(chain.url) });
    await reader().waitForTransactionReceipt({
      hash: await thief.writeContract({ address: contracts.tokens.USDT, abi: erc20Abi, functionName: 'transfer', args: [devAccount(18).address, usdt('3')] }),
      pollingInterval: 50,
    });
    // (Its gas put back: the native coin's own reconciliation is not this row's.)
    await rpc('anvil_setBalance', [treasury, `0x${gasBefore.toString(16)}`]);
    const injected = performance.now();
    const hold = await until('the chain held', () => api.parts.treasuryHolds.active(31337), 10_000, 50);
    const heldMs = Math.round(performance.now() - injected);
    expect(hold.reason).toBe('treasury_short');
    const refused = await server('POST', '/api/v1/withdrawals', { coin: 'USDT', chain_id: 31337, address: devAccount(19).address, amount: '1' });
    expect([refused.status, refused.body.code]).toEqual([409, 'treasury_held']);
    // The step operating.md names: fund the treasury with what is missing.
    const funder = createWalletClient({ account: devAccount(1), chain: foundry, transport: http(chain.url) });
    await reader().waitForTransactionReceipt({
      hash: await funder.writeContract({ address: contracts.tokens.USDT, abi: erc20Abi, functionName: 'transfer', args: [treasury, usdt('3')] }),
      pollingInterval: 50,
    });
    const funded = performance.now();
    await until('the hold lifted by itself', async () => (await api.parts.treasuryHolds.active(31337)) === undefined, 10_000, 50);
    row.ms = Math.round(performance.now() - funded);
    expect((await api.parts.treasuryHolds.holds()).resolved[0]).toMatchObject({ reason: 'treasury_short', resolvedBy: 'service' });
    // This row's operator events, each once, in order.
    const mine = (await api.parts.treasuryHolds.events()).filter((e) => e.createdMs >= sinceMs).map((e) => e.kind);
    for (const kind of ['treasury_short', 'hold', 'hold_cleared'])
      expect(
        mine.filter((k) => k === kind),
        kind,
      ).toHaveLength(1);
    const accepted = await withdraw(devAccount(19).address, '1');
    await until('the withdrawal completed', async () => (await withdrawal(accepted)).status === 'completed', 10_000, 100);
    await booksBalance();
    Object.assign(row, {
      resolved: `held in ${heldMs} ms (\`treasury_short\`, withdrawals 409 \`treasury_held\`); the operator funds the treasury (the step operating.md names), the hold lifts itself (time: from the funding)`,
      told: 'operator: treasury_short, hold, hold_cleared',
    });
  });

  it('a final sweep taken away by a deep reorganisation: swept again, the treasury agrees', async () => {
    const row = rowOf('a final sweep into the treasury reorganised away (past the confirmations)');
    const before = (await available())!;
    const sinceMs = Date.now() + skewMs;
    await rpc('evm_setAutomine', [false]);
    let paid: Hex;
    try {
      ({ hash: paid } = await pay('vanish', '20'));
      await rpc('evm_mine');
      // The chain as it is now: the payment in it, not yet swept.
      const snapshot = await rpc('evm_snapshot');
      await until(
        'swept, final and journaled',
        mining(async () => (await available()) === before + usdt('20')),
        15_000,
        100,
      );
      const swept = (await api.parts.chain.transfers(31337)).find((t) => t.txHash === paid)!;
      const sweepBlock = (await reader().getTransactionReceipt({ hash: swept.sweptHash as Hex })).blockNumber;
      expect(await rpc('evm_revert', [snapshot])).toBe(true);
      await rpc('anvil_dropAllTransactions');
      const reverted = await reader().getBlockNumber();
      await rpc('anvil_mine', [`0x${(sweepBlock - reverted + 2n).toString(16)}`]);
      expect(
        await reader()
          .getTransactionReceipt({ hash: swept.sweptHash as Hex })
          .catch(() => undefined),
      ).toBeUndefined();
      expect(await onChain(swept.recipient as Address)).toBe(usdt('20'));
      const injected = performance.now();
      await until(
        'swept again and final, the treasury agreeing',
        mining(async () => {
          const now = (await api.parts.chain.transfers(31337)).find((t) => t.txHash === paid)!;
          if (!now.sweptHash) return false;
          const receipt = await reader()
            .getTransactionReceipt({ hash: now.sweptHash as Hex })
            .catch(() => undefined);
          return receipt?.status === 'success' && (await api.parts.treasuryHolds.active(31337)) === undefined;
        }),
        15_000,
        100,
      );
      row.ms = Math.round(performance.now() - injected);
      expect(await onChain(swept.recipient as Address)).toBe(0n);
    } finally {
      await rpc('evm_setAutomine', [true]);
    }
    const events = (await api.parts.treasuryHolds.events()).filter((e) => e.createdMs >= sinceMs);
    // Told once: one sweep_vanished, and a hold it brought (a look between the undo and the new sweep) cleared by itself.
    const vanished = events.filter((e) => e.kind === 'sweep_vanished');
    expect(vanished).toHaveLength(1);
    expect(vanished[0]!.detail).toMatch(/swept again/);
    expect(events.filter((e) => e.kind === 'hold').length).toBe(events.filter((e) => e.kind === 'hold_cleared').length);
    // The deposit journaled once: the balance as before the reorganisation.
    expect(await available()).toBe(before + usdt('20'));
    expect((await api.parts.journal.entries(DEMO_MERCHANT.id)).filter((e) => e.kind === 'deposit' && e.ref.includes(paid))).toHaveLength(1);
    await booksBalance();
    const kinds = events.map((e) => e.kind);
    Object.assign(row, {
      resolved: 'the sweeper looks at final sweeps again: gone, its deposit still holding the money → swept again; the deposit journaled once',
      told: `operator: ${['sweep_vanished', 'treasury_short', 'hold', 'hold_cleared'].filter((k) => kinds.includes(k)).join(', ')} (a hold only if a look fell between); the merchant nothing (its balance never changed)`,
    });
  });

  it('a transfer to the payout partner reorganised away: owed again, sent again as recorded', async () => {
    const row = rowOf('a transfer to the payout partner reorganised away (past the confirmations), its nonce still free');
    const partner = devAccount(PARTNER_DEV_ACCOUNT).address;
    const before = await onChain(partner);
    const bank = await server('POST', '/api/v1/bank/payouts', TEST_BANK_ACCOUNT);
    expect(bank.status, JSON.stringify(bank.body)).toBe(201);
    const snapshot = await rpc('evm_snapshot');
    const started = await server('POST', '/api/v1/bank/payouts/initiate', { payout_bank_id: bank.body.data.id, coin: 'USDT', amount: 5 });
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    // The payout paid by the bank partner; what is owed to it sent from the treasury at once (a dev chain batches nothing).
    const sent = await until(
      'the partner transfer counted',
      async () => (await api.parts.partnerTransfers.partnerTransfers(31337)).find((t) => t.state === 'completed'),
      20_000,
      100,
    );
    expect(await onChain(partner)).toBe(before + usdt('5'));
    expect(await rpc('evm_revert', [snapshot])).toBe(true);
    await rpc('anvil_mine', ['0x5']);
    const injected = performance.now();
    expect(
      await reader()
        .getTransactionReceipt({ hash: sent.txHash as Hex })
        .catch(() => undefined),
    ).toBeUndefined();
    expect(await onChain(partner)).toBe(before);
    const entries = async () =>
      (await api.parts.journal.entries()).filter((e) => e.ref.startsWith(sent.id)).map((e) => `${e.kind} ${e.ref.replace(sent.id, 'id')}`);
    await until(
      'the transfer counted again',
      mining(
        async () =>
          (await entries()).length === 3 && (await api.parts.partnerTransfers.partnerTransfers(31337)).find((t) => t.id === sent.id)?.state === 'completed',
      ),
      20_000,
      200,
    );
    row.ms = Math.round(performance.now() - injected);
    expect(await entries()).toEqual(['partner_sent id', 'partner_unsent id', 'partner_sent id#1']);
    const again = (await api.parts.partnerTransfers.partnerTransfers(31337)).find((t) => t.id === sent.id)!;
    expect(again.txHash).toBe(sent.txHash);
    expect(await onChain(partner)).toBe(before + usdt('5'));
    expect((await api.parts.journal.held(31337, token())).payable).toBe(0n);
    await booksBalance();
    Object.assign(row, {
      resolved:
        'looked at again until final: gone at two looks, nonce free → `partner_unsent` (owed again), pending, its recorded transaction sent again, `partner_sent #1`',
      told: "no merchant's (the payout was paid); the log's error `deep reorganisation: …`",
    });
  });

  it("the treasury's native coin emptied: its send waits, and goes once the operator funds it", async () => {
    const row = rowOf("the treasury's native coin emptied (no gas for its sends)");
    const to = devAccount(21).address;
    const gas = await reader().getBalance({ address: treasury });
    await rpc('anvil_setBalance', [treasury, '0x0']);
    const injected = performance.now();
    const id = await withdraw(to, '1');
    // Signed and recorded, refused by the node (no gas): it waits, nothing paid.
    await until('signed', async () => (await withdrawal(id)).tx_hash, 10_000, 50);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await withdrawal(id)).status).toBe('pending');
    expect(await onChain(to)).toBe(0n);
    // The step operating.md names: fund the treasury's native coin (here with what it held).
    const funder = createWalletClient({ account: devAccount(0), chain: foundry, transport: http(chain.url) });
    await reader().waitForTransactionReceipt({ hash: await funder.sendTransaction({ to: treasury, value: gas }), pollingInterval: 50 });
    const funded = performance.now();
    await until('the withdrawal completed', async () => (await withdrawal(id)).status === 'completed', 10_000, 100);
    row.ms = Math.round(performance.now() - funded);
    expect(await onChain(to)).toBe(usdt('1'));
    expect(await told('WITHDRAWAL_UPDATED', id)).toEqual(['pending', 'completed']);
    await booksBalance();
    const native = (await api.parts.treasuryHolds.findings()).find((f) => f.chainId === 31337 && f.token === '0x0000000000000000000000000000000000000000')!;
    expect(native.short).toBe(0n);
    Object.assign(row, {
      resolved: `waits, sent again each tick (pending ${Math.round(funded - injected)} ms, nothing paid); the operator funds the treasury's native coin (the step operating.md names), sent then (time: from the funding)`,
      told: 'WITHDRAWAL_UPDATED pending, completed',
    });
  });

  it('a withdrawal retried: the same Idempotency-Key three times at once pays once', async () => {
    const row = rowOf('a withdrawal retried (one Idempotency-Key, three requests at once)');
    const to = devAccount(20).address;
    const body = JSON.stringify({ coin: 'USDT', chain_id: 31337, address: to, amount: '2' });
    const injected = performance.now();
    const answers = await Promise.all(
      [1, 2, 3].map(async () => {
        const response = await fetch(api.url + '/api/v1/withdrawals', {
          method: 'POST',
          headers: { authorization: `Bearer ${secretKey}`, 'content-type': 'application/json', 'idempotency-key': 'chaos-retry' },
          body,
        });
        return { status: response.status, id: ((await response.json()) as { data: { id: string } }).data.id };
      }),
    );
    expect(answers.map((a) => a.status)).toEqual([201, 201, 201]);
    expect(new Set(answers.map((a) => a.id)).size).toBe(1);
    const id = answers[0]!.id;
    await until('the withdrawal completed', async () => (await withdrawal(id)).status === 'completed', 10_000, 100);
    row.ms = Math.round(performance.now() - injected);
    await rpc('evm_mine');
    expect(await onChain(to)).toBe(usdt('2'));
    expect(
      (await api.db.query<{ id: string; address: string }>(`SELECT id, address FROM withdrawals`)).filter((w) => w.address.toLowerCase() === to.toLowerCase()),
    ).toEqual([{ id, address: expect.any(String) }]);
    expect(await told('WITHDRAWAL_UPDATED', id)).toEqual(['pending', 'completed']);
    await booksBalance();
    Object.assign(row, {
      resolved: 'one withdrawal, the same answer three times; one transfer on chain',
      told: 'WITHDRAWAL_UPDATED pending, completed (once)',
    });
  });
  it('a completed swap reorganised away with its approval: undone, sent again as recorded, the hold lifts itself', async () => {
    const row = rowOf('a completed swap (USDT to USDC) reorganised away with its router approval (past the confirmations), its nonces still free');
    const snapshot = await rpc('evm_snapshot');
    const quote = (await server('POST', '/api/v1/swaps/quote', { from: 'USDT', to: 'USDC', amount: '10' })).body.data;
    const accepted = await server('POST', '/api/v1/swaps', { quote_id: quote.id });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(201);
    const id = quote.id as string;
    const swap = async () => (await server('GET', `/api/v1/swaps/${id}`)).body.data;
    await until(
      'the swap counted',
      mining(async () => (await swap()).status === 'completed'),
      20_000,
      100,
    );
    const counted = await swap();
    expect(await rpc('evm_revert', [snapshot])).toBe(true);
    await rpc('anvil_mine', ['0x5']);
    const injected = performance.now();
    expect(
      await reader()
        .getTransactionReceipt({ hash: counted.tx_hash as Hex })
        .catch(() => undefined),
    ).toBeUndefined();
    await until(
      'the swap counted again, no hold',
      mining(
        async () =>
          (await told('SWAP_UPDATED', id)).filter((s) => s === 'completed').length === 2 && (await api.parts.treasuryHolds.active(31337)) === undefined,
      ),
      20_000,
      200,
    );
    row.ms = Math.round(performance.now() - injected);
    expect(await told('SWAP_UPDATED', id)).toEqual(['pending', 'completed', 'pending', 'completed']);
    expect((await swap()).tx_hash).toBe(counted.tx_hash);
    expect((await api.parts.journal.entries()).filter((e) => e.ref.startsWith(id)).map((e) => `${e.kind} ${e.ref.replace(id, 'id')}`)).toEqual([
      'swap_reserved id',
      'swap_completed id',
      'swap_unsent id',
      'swap_completed id#1',
    ]);
    await booksBalance();
    // The operator's events since the reorganisation (the theft's row made the same kinds before).
    const sinceMs = Date.now() - (performance.now() - injected);
    const kinds = (await api.parts.treasuryHolds.events()).filter((e) => e.createdMs >= sinceMs).map((e) => e.kind);
    Object.assign(row, {
      resolved:
        'looked at again until final (also while held): gone at two looks → `swap_unsent`, pending, its approval and recorded transaction sent again, `swap_completed #1`; the `treasury_short` hold of the coin it was to receive lifts itself',
      told: `SWAP_UPDATED pending, completed, pending, completed; operator: ${['treasury_short', 'hold', 'hold_cleared'].filter((k) => kinds.includes(k)).join(', ') || 'nothing'} (a hold only if a look fell before the undo)`,
    });
  });

  it('an overpayment: confirmed, the excess sent back by the treasury in one step', async () => {
    const row = rowOf('an overpayment (12 USDT to a 10 USDT payment)');
    const before = (await available())!;
    const made = await server('POST', '/api/v1/transaction/initialize', { reference: 'chaos-over', coin: 'USDT', currency: 'USD', amount: 10 });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const customer = createWalletClient({ account: devAccount(1), chain: foundry, transport: http(chain.url) });
    const injected = performance.now();
    await customer.writeContract({
      address: contracts.tokens.USDT,
      abi: erc20Abi,
      functionName: 'transfer',
      args: [made.body.data.address as Address, usdt('12')],
    });
    await until(
      'the deposit journaled',
      mining(async () => (await available()) === before + usdt('12')),
      20_000,
      100,
    );
    const payment = async () => (await server('GET', '/api/v1/payments/chaos-over')).body.data.payment;
    expect(await payment()).toMatchObject({
      status: 'confirmed',
      overpaid: '2',
      attention: { reason: 'overpaid', amount: '2', coin: 'USDT', chain_id: 31337 },
    });
    // The step balances.md names: send the excess back.
    const to = devAccount(22).address;
    const asked = await server('POST', '/api/v1/payments/chaos-over/send_back', { reason: 'paid too much', address: to });
    expect(asked.status, JSON.stringify(asked.body)).toBe(201);
    const back = asked.body.data.id as string;
    await until('the excess sent back', async () => (await refund(back)).status === 'confirmed', 20_000, 100);
    row.ms = Math.round(performance.now() - injected);
    expect(await onChain(to)).toBe(usdt('2'));
    expect((await payment()).attention).toBeNull();
    expect(await available()).toBe(before + usdt('10'));
    expect(await told('REFUND_UPDATED', back)).toEqual(['ready', 'sent', 'confirmed']);
    expect(await toldOf('DEPOSIT_TRANSACTION', 'chaos-over')).toEqual(['confirmed']);
    await booksBalance();
    Object.assign(row, {
      resolved:
        'confirmed, `overpaid` 2 and `attention` `overpaid`; the merchant sends the excess back (`send_back`, the one step balances.md names), the treasury sends it, the case closed',
      told: 'DEPOSIT_TRANSACTION; REFUND_UPDATED ready, sent, confirmed',
    });
  });

  it("an exchange's batch-sending contract paying three deposits in one transaction: each counted once, on its own payment", async () => {
    const row = rowOf("an exchange's batch-sending contract paying three deposits in one transaction (5, 3 and 2 USDT)");
    const before = (await available())!;
    const amounts = { 'chaos-batch-1': '5', 'chaos-batch-2': '3', 'chaos-batch-3': '2' } as const;
    const to: Address[] = [];
    for (const [reference, amount] of Object.entries(amounts)) {
      const made = await server('POST', '/api/v1/transaction/initialize', { reference, coin: 'USDT', currency: 'USD', amount: Number(amount) });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      to.push(made.body.data.address as Address);
    }
    // The exchange's contract (contracts/BatchSender.sol), allowed to move its hot wallet's USDT.
    const exchange = createWalletClient({ account: devAccount(1), chain: foundry, transport: http(chain.url) });
    const mined = async (hash: Hex) => reader().waitForTransactionReceipt({ hash, pollingInterval: 50 });
    const sender = (await mined(await exchange.deployContract({ abi: BatchSender.abi, bytecode: BatchSender.bytecode }))).contractAddress!;
    await mined(await exchange.writeContract({ address: contracts.tokens.USDT, abi: erc20Abi, functionName: 'approve', args: [sender, usdt('10')] }));
    const injected = performance.now();
    const batch = await mined(
      await exchange.writeContract({
        address: sender,
        abi: BatchSender.abi,
        functionName: 'send',
        args: [contracts.tokens.USDT, to, Object.values(amounts).map(usdt)],
      }),
    );
    expect(batch.logs.filter((l) => l.address.toLowerCase() === token())).toHaveLength(3); // three Transfers, one transaction
    await until(
      'the three deposits journaled',
      mining(async () => (await available()) === before + usdt('10')),
      20_000,
      100,
    );
    row.ms = Math.round(performance.now() - injected);
    for (const [reference, amount] of Object.entries(amounts)) {
      expect(await payment(reference)).toMatchObject({ status: 'confirmed', amountPaidExact: amount, attention: null });
      expect(await toldOf('DEPOSIT_TRANSACTION', reference)).toEqual(['confirmed']);
    }
    // One transaction, three transfers told apart by their log index: each credited once.
    const credited = (await api.parts.chain.transfers(31337)).filter((t) => t.txHash === batch.transactionHash);
    expect(credited.map((t) => t.state)).toEqual(['credited', 'credited', 'credited']);
    expect(new Set(credited.map((t) => t.logIndex)).size).toBe(3);
    await booksBalance();
    Object.assign(row, {
      resolved:
        'nothing to resolve: three Transfer logs of one transaction, each matched to its own deposit by its log index, counted once, swept and journaled',
      told: 'DEPOSIT_TRANSACTION confirmed, once for each payment',
    });
  });

  it('a deposit reorganised away after it was counted, swept and journaled: reversed, told, held until the operator resolves', async () => {
    const row = rowOf('a deposit reorganised away (past the confirmations) after it was counted, swept and journaled');
    const before = (await available())!;
    const snapshot = await rpc('evm_snapshot');
    const { hash } = await pay('chaos-gone', '7');
    await until(
      'the deposit journaled',
      mining(async () => (await available()) === before + usdt('7')),
      20_000,
      100,
    );
    expect(await rpc('evm_revert', [snapshot])).toBe(true);
    await rpc('anvil_dropAllTransactions');
    await rpc('anvil_mine', ['0x5']);
    const injected = performance.now();
    expect(
      await reader()
        .getTransactionReceipt({ hash })
        .catch(() => undefined),
    ).toBeUndefined();
    const hold = await until(
      'reversed and held',
      mining(
        async () =>
          (await api.parts.journal.entries(DEMO_MERCHANT.id)).some((e) => e.kind === 'deposit_reversed' && e.ref.includes(hash)) &&
          api.parts.treasuryHolds.active(31337),
      ),
      20_000,
      100,
    );
    const reversedMs = Math.round(performance.now() - injected);
    expect(hold).toMatchObject({ reason: 'deep_reorganisation' });
    expect(await available()).toBe(before);
    // The merchant told by the watcher, once it takes the payment's credit back.
    const reversed = async () =>
      (await api.db.query<{ body: string }>(`SELECT body FROM events WHERE type = 'DEPOSIT_REVERSED'`)).filter(
        (e) => JSON.parse(e.body).data.reference === 'chaos-gone',
      );
    await until(
      'DEPOSIT_REVERSED told',
      mining(async () => (await reversed()).length > 0),
      20_000,
      100,
    );
    expect(await reversed()).toHaveLength(1);
    // The step operating.md names for it: the operator resolves the hold, saying who and why.
    expect(
      await api.parts.treasuryHolds.resolve(31337, 'chaos suite', 'payment chaos-gone reorganised away; reversed, merchant told', Date.now()),
    ).toBeDefined();
    row.ms = Math.round(performance.now() - injected);
    await booksBalance();
    Object.assign(row, {
      resolved: `the reconciliation looks at counted deposits again: gone at two looks → \`deposit_reversed\`, the balance back, held (\`deep_reorganisation\`) in ${reversedMs} ms; the operator resolves (\`treasury resolve\`, the step operating.md names)`,
      told: 'DEPOSIT_REVERSED (once); operator: deep_reorganisation, hold',
    });
  });

  it('an under-payment (6 USDT to a 10 USDT payment): incomplete, then expired as a partial the merchant accepts in one step', async () => {
    const row = rowOf('an under-payment (6 USDT to a 10 USDT payment), its quote then run out');
    const before = (await available())!;
    const injected = performance.now();
    await pay('chaos-under', '6', { due: '10' });
    await until(
      'the deposit counted and journaled',
      mining(async () => (await available()) === before + usdt('6') && (await toldOf('DEPOSIT_TRANSACTION', 'chaos-under')).length > 0),
      20_000,
      100,
    );
    expect(await payment('chaos-under')).toMatchObject({ status: 'incomplete', amountPaidExact: '6', attention: null });
    // Its quote runs out (as attention-api.test makes it): a partial of a payment that does not accept partial payments.
    await api.db.query(`UPDATE payments SET expires_ms = $2 WHERE reference = $1`, ['chaos-under', Date.now() - 1000]);
    expect((await payment('chaos-under')).attention).toEqual({ reason: 'partial', amount: '6', coin: 'USDT', chain_id: 31337 });
    // The step balances.md names: accept it (settled with what arrived), or send it back.
    const accepted = await server('POST', '/api/v1/payments/chaos-under/accept');
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    row.ms = Math.round(performance.now() - injected);
    expect(await payment('chaos-under')).toMatchObject({ status: 'settled', amountPaidExact: '6', attention: null });
    expect(await toldOf('DEPOSIT_TRANSACTION', 'chaos-under')).toEqual(['incomplete', 'settled']);
    expect(await available()).toBe(before + usdt('6'));
    await booksBalance();
    Object.assign(row, {
      resolved:
        '`incomplete`, the 6 journaled into the balance once swept; expired, `attention` `partial` 6; the merchant accepts (`accept`, the one step balances.md names): `settled` with what arrived, nothing moved',
      told: 'DEPOSIT_TRANSACTION incomplete, settled',
    });
  });

  it('the wrong coin (4 USDC to a USDT payment): told once, swept into the USDC balance, kept by the merchant in one step', async () => {
    const row = rowOf('the wrong coin (4 USDC to a 10 USDT payment)');
    // The step balances.md names: keep it (`accept`; the money is in the balance already), or send it back.
    const { open, before, ms } = await unmatchedAccepted('chaos-coin', '4', { coin: 'USDC', due: '10' });
    row.ms = ms;
    expect(open).toMatchObject({ status: 'pending', amountPaidExact: '0', attention: { reason: 'wrong_coin', amount: '4', coin: 'USDC', chain_id: 31337 } });
    expect(await payment('chaos-coin')).toMatchObject({ status: 'pending', amountPaidExact: '0', attention: null });
    // The event says `unexpected` (money the payment did not ask for); its `attention` says which.
    expect(await toldOf('DEPOSIT_UNMATCHED', 'chaos-coin')).toEqual(['unexpected']);
    expect(await toldOf('DEPOSIT_TRANSACTION', 'chaos-coin')).toEqual([]);
    expect(await availableOf(contracts.tokens.USDC)).toBe(before + 4_000_000n);
    await booksBalance();
    Object.assign(row, {
      resolved:
        'never counted toward the payment: `attention` `wrong_coin` 4 USDC, swept and journaled into the USDC balance; the merchant keeps it (`accept`, one step; or `send_back`), the payment unchanged',
      told: 'DEPOSIT_UNMATCHED `unexpected` (once)',
    });
  });

  it('the wrong chain (BUSD sent on the second chain to a BUSD payment on the first): told once, swept there into the balance, kept in one step', async () => {
    const row = rowOf(`the wrong chain (10 BUSD to a 10 BUSD payment on chain 31337, sent on chain ${SECOND_CHAIN_ID})`);
    const busd = secondContracts.tokens.BUSD;
    expect(busd).toBe(contracts.tokens.BUSD); // one address on both chains: only the chain tells the two apart
    const secondReader = createPublicClient({ transport: http(second.url) });
    const treasuryThere = () => secondReader.readContract({ address: busd, abi: erc20Abi, functionName: 'balanceOf', args: [treasury] });
    const before = await availableOf(busd, SECOND_CHAIN_ID);
    const beforeHere = await availableOf(busd);
    const made = await server('POST', '/api/v1/transaction/initialize', {
      reference: 'chaos-chain',
      coin: 'BUSD',
      chain_id: 31337,
      currency: 'USD',
      amount: 10,
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const customer = createWalletClient({ account: devAccount(1), transport: http(second.url) });
    const injected = performance.now();
    await customer.writeContract({
      chain: null,
      address: busd,
      abi: erc20Abi,
      functionName: 'transfer',
      args: [made.body.data.address as Address, usdt('10')],
    });
    await until(
      'told and journaled on the second chain',
      async () => {
        await secondReader.request({ method: 'evm_mine' as 'eth_blockNumber' });
        return (await availableOf(busd, SECOND_CHAIN_ID)) === before + usdt('10') && (await toldOf('DEPOSIT_UNMATCHED', 'chaos-chain')).length > 0;
      },
      20_000,
      100,
    );
    // The step balances.md names: keep it (`accept`; the money is in the balance already, in its coin on its chain), or send it back there.
    const open = await payment('chaos-chain');
    const accepted = await server('POST', '/api/v1/payments/chaos-chain/accept');
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    row.ms = Math.round(performance.now() - injected);
    expect(open).toMatchObject({
      status: 'pending',
      amountPaidExact: '0',
      attention: { reason: 'wrong_chain', amount: '10', coin: 'BUSD', chain_id: SECOND_CHAIN_ID },
    });
    expect(await payment('chaos-chain')).toMatchObject({ status: 'pending', amountPaidExact: '0', attention: null });
    expect(await toldOf('DEPOSIT_UNMATCHED', 'chaos-chain')).toEqual(['wrong_chain']);
    expect(await toldOf('DEPOSIT_TRANSACTION', 'chaos-chain')).toEqual([]);
    // Nothing of it on the payment's own chain.
    expect(await availableOf(busd)).toBe(beforeHere);
    // The second chain's books: its treasury holds what the journal owes there, no finding, no hold.
    expect(await api.parts.treasuryTxs.inFlight(SECOND_CHAIN_ID)).toBe(false);
    await api.parts.reconcileTreasuries();
    const held = await api.parts.journal.held(SECOND_CHAIN_ID, busd.toLowerCase());
    expect(held.merchants + held.fees + held.payable).toBe(await treasuryThere());
    expect(await treasuryThere()).toBeGreaterThanOrEqual(usdt('10'));
    const finding = (await api.parts.treasuryHolds.findings()).find((f) => f.chainId === SECOND_CHAIN_ID && f.token === busd.toLowerCase());
    expect(finding, "the second chain's BUSD looked at by the reconciliation").toBeDefined();
    expect({ short: finding!.short, surplus: surplusOf(finding!) }).toEqual({ short: 0n, surplus: 0n });
    await booksBalance();
    Object.assign(row, {
      resolved: `never counted toward the payment: \`attention\` \`wrong_chain\` 10 BUSD on ${SECOND_CHAIN_ID}, swept there into the treasury and journaled into the merchant's BUSD balance on that chain; the merchant keeps it (\`accept\`, one step; or \`send_back\`, in BUSD on that chain), the payment unchanged; both chains' treasuries agree with the journal`,
      told: 'DEPOSIT_UNMATCHED `wrong_chain` (once)',
    });
  });

  it('a late payment (10 USDT after its quote ran out): told once, accepted by the merchant in one step, counted then', async () => {
    const row = rowOf('a late payment (10 USDT to a 10 USDT payment after its quote ran out)');
    // The step balances.md names: accept it (counted as if in time), or send it back.
    const { hash, open, before, ms } = await unmatchedAccepted('chaos-late', '10', { expired: true });
    row.ms = ms;
    expect(open).toMatchObject({ status: 'expired', amountPaidExact: '0', attention: { reason: 'late', amount: '10', coin: 'USDT', chain_id: 31337 } });
    expect(await payment('chaos-late')).toMatchObject({ status: 'confirmed', amountPaidExact: '10', attention: null });
    expect((await api.parts.chain.transfers(31337)).find((t) => t.txHash === hash)?.state).toBe('credited');
    expect(await toldOf('DEPOSIT_UNMATCHED', 'chaos-late')).toEqual(['late']);
    expect(await toldOf('DEPOSIT_TRANSACTION', 'chaos-late')).toEqual(['confirmed']);
    expect(await available()).toBe(before + usdt('10'));
    await booksBalance();
    Object.assign(row, {
      resolved:
        '`attention` `late` 10, swept and journaled into the balance; the merchant accepts (`accept`, one step; or `send_back`): counted toward the payment as in time, `confirmed`, nothing moved',
      told: 'DEPOSIT_UNMATCHED `late`, then DEPOSIT_TRANSACTION confirmed (once each)',
    });
  });

  it('a fee-on-transfer token (BUSD keeping 1 % of each transfer): credited what arrived, journaled what the treasury received', async () => {
    const row = rowOf('a fee-on-transfer token (10 BUSD sent to a 10 BUSD payment, the token keeping 1 % of each transfer)');
    const busd = contracts.tokens.BUSD;
    const issuer = createWalletClient({ account: devAccount(0), chain: foundry, transport: http(chain.url) });
    const fee = async (bps: bigint) =>
      reader().waitForTransactionReceipt({
        hash: await issuer.writeContract({ address: busd, abi: TestToken.abi, functionName: 'setFee', args: [bps] }),
        pollingInterval: 50,
      });
    const afterFee = (value: bigint) => value - value / 100n;
    const before = await availableOf(busd);
    const made = await server('POST', '/api/v1/transaction/initialize', { reference: 'chaos-fee', coin: 'BUSD', chain_id: 31337, currency: 'USD', amount: 10 });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    await fee(100n);
    try {
      const customer = createWalletClient({ account: devAccount(1), chain: foundry, transport: http(chain.url) });
      const injected = performance.now();
      await customer.writeContract({ address: busd, abi: erc20Abi, functionName: 'transfer', args: [made.body.data.address as Address, usdt('10')] });
      // The deposit gained 9.9; the sweep keeps 1 % again: the treasury gains 9.801.
      await until(
        'swept and journaled',
        mining(async () => (await availableOf(busd)) === before + afterFee(afterFee(usdt('10')))),
        20_000,
        100,
      );
      row.ms = Math.round(performance.now() - injected);
    } finally {
      await fee(0n);
    }
    expect(await payment('chaos-fee')).toMatchObject({ status: 'incomplete', amountPaidExact: '9.9' });
    expect(await toldOf('DEPOSIT_TRANSACTION', 'chaos-fee')).toEqual(['incomplete']);
    await booksBalance([contracts.tokens.USDT, contracts.tokens.USDC, busd]);
    Object.assign(row, {
      resolved:
        'flagged `feeOnTransfer`: credited what the deposit gained (9.9: `incomplete`, short by the fee, left to the merchant as any partial), journaled what the treasury gained from the sweep (9.801): the treasury agrees with the journal',
      told: 'DEPOSIT_TRANSACTION incomplete',
    });
  });

  it('a token that answers false (DAI): the withdrawal it did not move fails, its money back, told by its own event', async () => {
    const row = rowOf('a token that answers `false` and moves nothing (a 2 DAI withdrawal)');
    const customer = createWalletClient({ account: devAccount(1), chain: foundry, transport: http(chain.url) });
    const write = async (functionName: 'mint' | 'refuse', args: readonly unknown[]) =>
      reader().waitForTransactionReceipt({
        hash: await customer.writeContract({ address: falseDai, abi: FalseToken.abi, functionName, args: args as never }),
        pollingInterval: 50,
      });
    // 10 DAI paid and swept into the balance while the token still moves.
    await write('mint', [devAccount(1).address, usdt('10')]);
    const made = await server('POST', '/api/v1/transaction/initialize', { reference: 'chaos-false', coin: 'DAI', currency: 'USD', amount: 10 });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    await customer.writeContract({ address: falseDai, abi: FalseToken.abi, functionName: 'transfer', args: [made.body.data.address as Address, usdt('10')] });
    await until(
      'swept and journaled',
      mining(async () => (await availableOf(falseDai)) === usdt('10')),
      20_000,
      100,
    );
    const to = devAccount(23).address;
    await write('refuse', [true]);
    const injected = performance.now();
    let id = '';
    try {
      const made = await server('POST', '/api/v1/withdrawals', { coin: 'DAI', chain_id: 31337, address: to, amount: '2' });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      id = made.body.data.id as string;
      await until('the withdrawal decided', async () => (await withdrawal(id)).status !== 'pending', 20_000, 100);
      row.ms = Math.round(performance.now() - injected);
    } finally {
      await write('refuse', [false]);
    }
    const failed = await withdrawal(id);
    expect(failed).toMatchObject({ status: 'failed', failure: expect.stringMatching(/did not move the amount/) });
    expect((await reader().getTransactionReceipt({ hash: failed.tx_hash as Hex })).status).toBe('success');
    expect(await onChain(to, falseDai)).toBe(0n);
    expect(await told('WITHDRAWAL_UPDATED', id)).toEqual(['pending', 'failed']);
    expect((await api.parts.journal.entries()).filter((e) => e.ref === id).map((e) => e.kind)).toEqual(['withdrawal_reserved', 'withdrawal_returned']);
    expect(await availableOf(falseDai)).toBe(usdt('10'));
    await booksBalance([contracts.tokens.USDT, contracts.tokens.USDC, falseDai]);
    Object.assign(row, {
      resolved:
        'mined with success, nothing moved: a send is done only when its receipt logs the token moving the amount → failed ("did not move the amount"), `withdrawal_returned`, the money back in the balance',
      told: 'WITHDRAWAL_UPDATED pending, failed',
    });
  });

  it('the gas wallet emptied: sweeps wait and relays are refused cleanly; once the operator funds it, swept, journaled and relayed', async () => {
    const row = rowOf('the gas wallet emptied (it pays sweeps and relays): a 10 USDT payment to sweep, a customer with no ETH signing a USDC payment');
    const gasWallet = devAccount(GAS_DEV_ACCOUNT).address;
    const funded = await reader().getBalance({ address: gasWallet });
    const before = (await available()) ?? 0n;
    const usdcBefore = await availableOf(contracts.tokens.USDC);
    const { signedPayment, relay } = relayPayments({
      call,
      chainUrl: () => chain.url,
      network: () => network,
      usdc: () => contracts.tokens.USDC,
      funder: devAccount(3),
    });
    await rpc('anvil_setBalance', [gasWallet, '0x3e8']); // 1000 wei
    const injected = performance.now();
    let refusedAt = 0;
    try {
      await pay('chaos-gas', '10');
      // Counted, but not swept while the gas wallet cannot pay: nothing journaled, and /readyz names it.
      await until(
        'confirmed',
        mining(async () => (await payment('chaos-gas')).status === 'confirmed'),
        20_000,
        100,
      );
      await until(
        'not ready, naming the gas wallet',
        async () => {
          const answer = await fetch(`${api.url}/readyz`);
          const body = (await answer.json()) as { data: Array<{ name: string; ok: boolean }> };
          return answer.status === 503 && body.data.find((c) => c.name === 'gas wallet on chain 31337' && !c.ok);
        },
        10_000,
        100,
      );
      for (let i = 0; i < 5; i++) await rpc('evm_mine');
      expect(await available()).toBe(before);
      // A signature to relay: refused before anything is sent (the customer can pay by transfer).
      const signed = await signedPayment('chaos-gas-relay');
      const refused = await relay(signed);
      expect([refused.status, refused.body.code, refused.body.errors?.[0]?.field]).toEqual([409, 'relay_declined', 'gas.wallet']);
      expect((await payment('chaos-gas-relay')).status).toBe('pending');
      refusedAt = Math.round(performance.now() - injected);
      // The step operating.md names: fund the gas wallet.
      await rpc('anvil_setBalance', [gasWallet, `0x${funded.toString(16)}`]);
      const fundedAt = performance.now();
      await until(
        'swept and journaled',
        mining(async () => (await available()) === before + usdt('10')),
        20_000,
        100,
      );
      // The same signature, relayed now: paid, swept and journaled into the USDC balance.
      const relayed = await relay(signed);
      expect(relayed.status, JSON.stringify(relayed.body)).toBe(201);
      await until(
        'relayed, swept and journaled',
        mining(async () => (await availableOf(contracts.tokens.USDC)) === usdcBefore + signed.due),
        20_000,
        100,
      );
      row.ms = Math.round(performance.now() - fundedAt);
    } finally {
      await rpc('anvil_setBalance', [gasWallet, `0x${funded.toString(16)}`]);
    }
    expect(await toldOf('DEPOSIT_TRANSACTION', 'chaos-gas')).toEqual(['confirmed']);
    expect(await toldOf('DEPOSIT_TRANSACTION', 'chaos-gas-relay')).toEqual(['confirmed']);
    expect((await api.parts.journal.entries(DEMO_MERCHANT.id)).filter((e) => e.kind === 'sponsored_gas')).toHaveLength(1);
    await booksBalance();
    Object.assign(row, {
      resolved: `sweeps wait (the payment confirmed, nothing swept nor journaled, /readyz 503 naming the gas wallet); a relay refused before anything is sent (409 \`relay_declined\` naming \`gas.wallet\`, in ${refusedAt} ms); the operator funds the gas wallet (the step operating.md names): swept and journaled once, the same signature relayed, its gas journaled once (time: from the funding)`,
      told: 'DEPOSIT_TRANSACTION confirmed (once for each payment)',
    });
  });

  it('a stuck nonce: a withdrawal priced under a fee spike, signed again at its nonce with higher fees, paid once', async () => {
    const row = rowOf("a stuck nonce (a withdrawal's transaction priced under a 200 gwei base fee, waiting in the pool)");
    const to = devAccount(24).address;
    const baseFee = (await reader().getBlock()).baseFeePerGas!;
    await rpc('evm_setAutomine', [false]);
    let id = '';
    let first: Hex | undefined;
    try {
      id = await withdraw(to, '1');
      const hash = await until('signed and sent', async () => (await withdrawal(id)).tx_hash as Hex | undefined, 10_000, 50);
      first = hash;
      await until(
        'in the pool',
        () =>
          reader()
            .getTransaction({ hash })
            .catch(() => undefined),
        10_000,
        50,
      );
      // The fee spike (as treasury-reprice.test makes it): blocks from now on ask 200 gwei, far above its max fee; it stays in the pool, the treasury's nonce stuck behind it.
      await rpc('anvil_setNextBlockBaseFeePerGas', [toHex(parseGwei('200'))]);
      await rpc('evm_mine');
      expect(
        await reader()
          .getTransactionReceipt({ hash })
          .catch(() => undefined),
      ).toBeUndefined();
      const injected = performance.now();
      // A minute passes on the service's clock (its replace-after wait, 60 s by default), none on the test's.
      skewMs += 61_000;
      await until(
        'the withdrawal completed',
        mining(async () => (await withdrawal(id)).status === 'completed'),
        15_000,
        100,
      );
      row.ms = Math.round(performance.now() - injected);
    } finally {
      // The base fee back to what it was, for what runs after.
      await rpc('anvil_setNextBlockBaseFeePerGas', [toHex(baseFee)]);
      await rpc('evm_setAutomine', [true]);
      await rpc('evm_mine');
    }
    const done = await withdrawal(id);
    expect(done.tx_hash).not.toBe(first);
    expect((await api.parts.treasuryTxs.replacements('withdrawals', id)).map((r) => r.hash)).toContain(done.tx_hash);
    expect(await onChain(to)).toBe(usdt('1'));
    expect(await told('WITHDRAWAL_UPDATED', id)).toEqual(['pending', 'completed']);
    await booksBalance();
    Object.assign(row, {
      resolved:
        "not mined within `TREASURY_REPLACE_AFTER_MS` (60 s, passed on the service's clock): signed again at its nonce with higher fees (twice the base fee plus the tip; no `maxFeeGwei` cap on the dev network), recorded before it is sent; the replacement mined, paid once",
      told: 'WITHDRAWAL_UPDATED pending, completed',
    });
  });
});
