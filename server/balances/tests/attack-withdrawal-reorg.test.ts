// On the dev chain, on PGlite and on PostgreSQL: a withdrawal a
// reorganisation deeper than the confirmations took off the chain stayed `completed` (the
// recipient holding nothing, the treasury more than the journal said, readiness 200, no event):
// the treasury never looked at its sends again once they counted. Now each completed send (a
// withdrawal, a refund's) is looked at again until final (balances/sends-final.ts): one whose
// nonce another transaction took is failed, its counting undone in the journal, its money back in
// the balance and the merchant told; one whose recorded transaction is still valid goes back to
// pending and that transaction is sent again, counted once more, once. On the code before it, the
// wait for every send decided again timed out: all three stayed `completed`, the first with
// nothing on chain and its nonce taken, the other two never sent again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, erc20Abi, http, parseUnits, type Address, type Hex } from 'viem';
import { foundry } from 'viem/chains';
import { startService, type Service } from '../../service/app.ts';
import { treasuryJobs } from '../treasury-job.ts';
import { undoSent } from '../use-cases.ts';
import { withdrawalView } from '../views.ts';
import type { Job, JobDeps } from '../../jobs/index.ts';
import { createLogger } from '../../service/log.ts';
import { DEMO_MERCHANT } from '../../service/seed.ts';
import { devAccount, devNetwork, TREASURY_DEV_ACCOUNT, type DevContracts } from '../../../devchain/deploy.ts';
import type { DevChain } from '../../../devchain/anvil.ts';
import { sharedDevChain } from '../../../devchain/shared.ts';
import { DEV_CHAIN_POWERS } from '../../../devchain/sandbox.ts';
import { databaseOptions, KINDS } from '../../testing/databases.ts';
import { caller, sweptIntoBalance, toldStatuses, treasuryStores, until } from '../../testing/chain.ts';
import { surplusOf } from '../../chain/treasury-reconcile.ts';

const { secretKey } = DEMO_MERCHANT.keys.test;
const owner = { merchant: DEMO_MERCHANT, mode: 'test' } as never;
const treasury = devAccount(TREASURY_DEV_ACCOUNT).address;
/** Each send to a wallet of its own (dev accounts 12+ hold nothing of the test coins). */
const to = { lost: devAccount(12).address, refund: devAccount(13).address, again: devAccount(14).address, taker: devAccount(15).address };
const usdt = (text: string) => parseUnits(text, 18);

describe.each(KINDS)('a completed send a deep reorganisation took away, on %s', { timeout: 150_000 }, (kind) => {
  let chain: DevChain;
  let contracts: DevContracts;
  let api: Service;
  let jobs: Job[] = [];
  beforeAll(async () => {
    ({ chain, contracts } = await sharedDevChain());
  }, 60_000);
  afterAll(async () => {
    await Promise.all(jobs.map((job) => job.stop()));
    await api?.close();
    await chain?.stop();
  });
  const reader = () => createPublicClient({ chain: foundry, transport: http(chain.url) });
  const rpc = (method: string, params: unknown[] = []) => reader().request({ method: method as 'eth_blockNumber', params: params as never });
  const onChain = (who: Address) => reader().readContract({ address: contracts.tokens.USDT, abi: erc20Abi, functionName: 'balanceOf', args: [who] });
  const call = caller(() => api.url);
  const server = (method: string, path: string, body?: unknown) => call(method, path, body, secretKey);
  const told = (type: string, id: string) => toldStatuses(api, type, id);
  const kindsOf = async (id: string) =>
    (await api.db.query<{ kind: string; ref: string }>(`SELECT kind, ref FROM journal_entries WHERE ref = $1 OR ref LIKE $1 || '#%' ORDER BY id`, [id])).map(
      (e) => `${e.kind} ${e.ref.replace(id, 'id')}`,
    );
  const withdrawal = async (id: string) => (await server('GET', `/api/v1/withdrawals/${id}`)).body.data;
  const refund = async (id: string) => (await server('GET', `/api/v1/refunds/${id}`)).body.data;
  /** The treasury's sender, as the service runs it (one instance), started and stopped by the test. */
  const sender = (name: string) => {
    jobs = treasuryJobs({
      db: api.db,
      ...treasuryStores(api),
      treasuries: [api.parts.treasury('test', 31337)!],
      log: createLogger('silent'),
      instance: name,
      now: Date.now,
      intervalMs: 100,
      sweepIntervalMs: 0,
    } as unknown as JobDeps);
    for (const job of jobs) job.start();
  };
  const stopSender = async () => {
    await Promise.all(jobs.map((job) => job.stop()));
    jobs = [];
  };

  it('fails the one whose nonce was taken (undone, money back, told), sends the others again at their recorded transaction, once', async () => {
    const network = devNetwork(chain.url, contracts, 1);
    api = await startService({ demo: true, networks: { test: network }, devChain: DEV_CHAIN_POWERS, jobs: false, ...(await databaseOptions(kind)) });
    expect((await server('PUT', '/api/v1/settlement', { settlement: 'balance' })).status).toBe(200);
    const made = await server('POST', '/api/v1/transaction/initialize', { reference: 'reorg-out', coin: 'USDT', currency: 'USD', amount: 20 });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const accounts = { payer: devAccount(1), gas: devAccount(6) };
    expect(await sweptIntoBalance(api, network, contracts.tokens.USDT, made.body.data.address as Address, usdt('20'), accounts)).toMatchObject({ final: 1 });
    const balance = async () => (await api.parts.journal.balances(owner, Date.now())).find((b) => b.token === contracts.tokens.USDT.toLowerCase())!;
    expect(await balance()).toMatchObject({ available: usdt('20'), reserved: 0n });

    // Three sends counted at the network's confirmations: a withdrawal, a refund, a withdrawal.
    const snapshot = await rpc('evm_snapshot');
    sender('a');
    const lost = (await server('POST', '/api/v1/withdrawals', { coin: 'USDT', chain_id: 31337, address: to.lost, amount: '5' })).body.data.id as string;
    const refunded = await server('POST', '/api/v1/refunds', { reference: 'reorg-out', amount: '2', reason: 'two back', address: to.refund });
    expect(refunded.status, JSON.stringify(refunded.body)).toBe(201);
    const back = refunded.body.data.id as string;
    const again = (await server('POST', '/api/v1/withdrawals', { coin: 'USDT', chain_id: 31337, address: to.again, amount: '4' })).body.data.id as string;
    await until(
      'the three sends counted',
      async () =>
        (await withdrawal(lost)).status === 'completed' && (await refund(back)).status === 'confirmed' && (await withdrawal(again)).status === 'completed',
      30_000,
    );
    await stopSender();
    const hashes = {
      lost: (await withdrawal(lost)).tx_hash as Hex,
      back: (await refund(back)).tx_hash as Hex,
      again: (await withdrawal(again)).tx_hash as Hex,
    };
    expect(await onChain(to.lost)).toBe(usdt('5'));

    // Another withdrawal asked for meanwhile; then the chain forgets the three (back before them,
    // blocks on the other branch past their confirmations). The treasury holds the 11 again.
    const taker = (await server('POST', '/api/v1/withdrawals', { coin: 'USDT', chain_id: 31337, address: to.taker, amount: '3' })).body.data.id as string;
    expect(await rpc('evm_revert', [snapshot])).toBe(true);
    await rpc('anvil_mine', ['0x5']);
    for (const hash of Object.values(hashes))
      expect(
        await reader()
          .getTransactionReceipt({ hash })
          .catch(() => undefined),
      ).toBeUndefined();
    expect(await onChain(to.lost)).toBe(0n);

    // The sender again: the new withdrawal takes the first one's nonce; the chain goes on.
    sender('b');
    const started = performance.now();
    await until(
      'every send decided again',
      async () => {
        await rpc('anvil_mine', ['0x1']);
        // (The two sent again were completed before too: done once told so a second time.)
        return (
          (await withdrawal(lost)).status === 'failed' &&
          (await withdrawal(taker)).status === 'completed' &&
          (await told('WITHDRAWAL_UPDATED', again)).filter((s) => s === 'completed').length === 2 &&
          (await told('REFUND_UPDATED', back)).filter((s) => s === 'confirmed').length === 2
        );
      },
      60_000,
      300,
    );
    console.log(`time from the sender's restart to every send decided again: ${Math.round(performance.now() - started)} ms`);

    // The first: failed, naming why; its counting undone and its money back; told by its own event.
    expect(await withdrawal(lost)).toMatchObject({ status: 'failed', failure: expect.stringMatching(/another transaction took its nonce/) });
    expect(await told('WITHDRAWAL_UPDATED', lost)).toEqual(['pending', 'completed', 'failed']);
    expect(await kindsOf(lost)).toEqual(['withdrawal_reserved id', 'withdrawal_sent id', 'withdrawal_unsent id', 'withdrawal_returned id']);
    // The others: sent again as recorded (the same transaction), counted once more.
    expect((await withdrawal(again)).tx_hash).toBe(hashes.again);
    expect((await refund(back)).tx_hash).toBe(hashes.back);
    expect(await told('WITHDRAWAL_UPDATED', again)).toEqual(['pending', 'completed', 'pending', 'completed']);
    expect(await kindsOf(again)).toEqual(['withdrawal_reserved id', 'withdrawal_sent id', 'withdrawal_unsent id', 'withdrawal_sent id#1']);
    // The refund is told as a refund, never as a withdrawal.
    expect(await told('REFUND_UPDATED', back)).toEqual(['ready', 'sent', 'confirmed', 'sent', 'confirmed']);
    expect(await told('WITHDRAWAL_UPDATED', back)).toEqual([]);
    expect(await kindsOf(back)).toEqual(['withdrawal_reserved id', 'withdrawal_sent id', 'withdrawal_unsent id', 'withdrawal_sent id#1']);

    // On chain: each paid once, the lost one not at all.
    expect({ lost: await onChain(to.lost), refund: await onChain(to.refund), again: await onChain(to.again), taker: await onChain(to.taker) }).toEqual({
      lost: 0n,
      refund: usdt('2'),
      again: usdt('4'),
      taker: usdt('3'),
    });
    // The books: 20 − 2 − 4 − 3 available, nothing reserved; the treasury holds what the journal owes.
    expect(await balance()).toMatchObject({ available: usdt('11'), reserved: 0n });
    const held = await api.parts.journal.held(31337, contracts.tokens.USDT);
    expect(held.merchants + held.fees + held.payable).toBe(await onChain(treasury));
    for (const s of await api.parts.journal.journalSums()) expect(s.sum).toBe(0n);
    await stopSender();
    await api.parts.reconcileTreasuries();
    const usdtFinding = (await api.parts.treasuryHolds.findings()).find((f) => f.chainId === 31337 && f.token === contracts.tokens.USDT.toLowerCase())!;
    expect({ short: usdtFinding.short, surplus: surplusOf(usdtFinding) }).toEqual({ short: 0n, surplus: 0n });
    expect((await api.parts.treasuryHolds.holds()).active).toEqual([]);
    const ready = await fetch(`${api.url}/readyz`);
    const checks = ((await ready.json()) as { data: Array<{ name: string; ok: boolean; warning?: boolean }> }).data;
    expect(checks.filter((c) => /treasury|money movements/.test(c.name) && (!c.ok || c.warning))).toEqual([]);
    expect(ready.status).toBe(200);

    // Final once below the chain's finalized block (anvil's: 64 blocks down): no longer looked at.
    expect((await api.parts.withdrawals.notFinal(31337)).map((w) => w.id).sort()).toEqual([again, back, taker].sort());
    await rpc('anvil_mine', ['0x48']);
    sender('c');
    await until('every send final', async () => (await api.parts.withdrawals.notFinal(31337)).length === 0, 20_000);
    await stopSender();
    expect(await told('WITHDRAWAL_UPDATED', again)).toEqual(['pending', 'completed', 'pending', 'completed']);

    // Two looks deciding one send at once (two instances, or one twice) undo it once: its row is
    // locked, and must still be completed by the same transaction.
    const paidBy = (await withdrawal(taker)).tx_hash as string;
    const twice = await Promise.all(
      [1, 2].map(() => undoSent(api.parts.balanceTransactions, taker, paidBy, { failure: 'looked at twice' }, Date.now(), withdrawalView)),
    );
    expect(twice.filter(Boolean)).toHaveLength(1);
    expect(await kindsOf(taker)).toEqual(['withdrawal_reserved id', 'withdrawal_sent id', 'withdrawal_unsent id', 'withdrawal_returned id']);
    expect(await told('WITHDRAWAL_UPDATED', taker)).toEqual(['pending', 'completed', 'failed']);
    for (const s of await api.parts.journal.journalSums()) expect(s.sum).toBe(0n);
  });
});
