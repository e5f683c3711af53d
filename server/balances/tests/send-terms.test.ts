// Finding 1: one minimum and one network fee for everything the treasury sends, on the
// dev chain, on PGlite (the journal's entries are what is checked). Before, a
// refund of 1 base unit was accepted and sent (a transfer's gas at the operator's cost, a place in
// the chain's one nonce queue), and a refund carried no fee. Now withdrawals, refunds, send-backs
// and bank payouts each refuse less than the token's `withdrawalMinimum` (400 naming the field),
// and each charges the merchant the token's `withdrawalFee` beside the amount: reserved with it,
// paid to the operator's fees when sent (or paid, for a payout), returned with it when canceled.
// The recipient receives the amount whole; the treasury still equals the journal.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, erc20Abi, http, parseUnits, type Address } from 'viem';
import { foundry } from 'viem/chains';
import { startService, type Service } from '../../service/app.ts';
import { treasuryJobs } from '../treasury-job.ts';
import type { JobDeps } from '../../jobs/index.ts';
import { createLogger } from '../../service/log.ts';
import { DEMO_MERCHANT } from '../../service/seed.ts';
import { devAccount, devNetwork, PARTNER_DEV_ACCOUNT, TREASURY_DEV_ACCOUNT, type DevContracts } from '../../../devchain/deploy.ts';
import type { DevChain } from '../../../devchain/anvil.ts';
import { sharedDevChain } from '../../../devchain/shared.ts';
import { DEV_CHAIN_POWERS } from '../../../devchain/sandbox.ts';
import { databaseOptions, ONLY_PGLITE } from '../../testing/databases.ts';
import { caller, sweptIntoBalance, treasuryStores, until } from '../../testing/chain.ts';

/** Who pays a deposit in, and who sweeps it, in sweptIntoBalance. */
const DEV_ACCOUNTS = { payer: devAccount(1), gas: devAccount(6) };

const { secretKey } = DEMO_MERCHANT.keys.test;
const owner = { merchant: DEMO_MERCHANT, mode: 'test' } as never;
const treasuryAddress = devAccount(TREASURY_DEV_ACCOUNT).address;
const customer = devAccount(5).address;
const NGN = {
  bank_name: 'Access Bank',
  bank_code: '044',
  account_name: 'Harbour Coffee Ltd',
  account_number: '0690000031',
  currency: 'NGN',
  country: 'nigeria',
  state: 'Lagos',
};
const usdt = (text: string) => parseUnits(text, 18);

describe.each(ONLY_PGLITE)("the treasury's one minimum and network fee, on %s", { timeout: 120_000 }, (kind) => {
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
  const reader = () => createPublicClient({ chain: foundry, transport: http(chain.url) });
  const onChain = (who: Address) => reader().readContract({ address: contracts.tokens.USDT, abi: erc20Abi, functionName: 'balanceOf', args: [who] });
  const call = caller(() => api.url);
  const server = (method: string, path: string, body?: unknown) => call(method, path, body, secretKey);
  const token = () => contracts.tokens.USDT.toLowerCase();
  const balance = async () => (await api.parts.journal.balances(owner, Date.now())).find((b) => b.token === token())!;
  const postingsOf = async (kind: string, ref: string) =>
    (await api.parts.journal.entries()).find((e) => e.kind === kind && e.ref === ref)!.postings.map((p) => [p.account, p.amount]);
  const merchant = (purpose: string) => `merchant:${DEMO_MERCHANT.id}:test:${purpose}`;

  it('refuses dust everywhere money goes out, naming the field, and charges the fee beside the amount to the merchant', async () => {
    const dev = devNetwork(chain.url, contracts, 1);
    const network = { ...dev, tokens: dev.tokens.map((t) => (t.symbol === 'USDT' ? { ...t, withdrawalFee: '0.25' } : t)) };
    api = await startService({ demo: true, networks: { test: network }, devChain: DEV_CHAIN_POWERS, jobs: false, ...(await databaseOptions(kind)) });
    expect((await server('PUT', '/api/v1/settlement', { settlement: 'balance' })).status).toBe(200);
    // A 10 USD payment overpaid by 0.5: its case (overpaid, 0.5 USDT) is below the minimum to send back.
    const to = (await call('POST', '/api/v1/transaction/initialize', { reference: 'terms', coin: 'USDT', currency: 'USD', amount: 10 }, secretKey)).body.data
      .address as Address;
    expect(await sweptIntoBalance(api, network, contracts.tokens.USDT, to, usdt('10.5'), DEV_ACCOUNTS)).toMatchObject({ swept: 1, final: 1 });
    expect(await balance()).toMatchObject({ available: usdt('10.5'), reserved: 0n });

    // Dust, refused before anything is reserved: a refund of 1 base unit (main accepted and sent it), of 0.5, a send-back of 0.5, a withdrawal and a bank payout of 0.5.
    const dust = await server('POST', '/api/v1/refunds', { reference: 'terms', amount: '0.000000000000000001', reason: 'dust', address: customer });
    expect([dust.status, dust.body.errors?.[0]?.field]).toEqual([400, 'amount']);
    expect(dust.body.errors[0].message).toBe('expected at least 1 USDT, the smallest refund on chain 31337');
    const half = await server('POST', '/api/v1/refunds', { reference: 'terms', amount: '0.5', reason: 'half', address: customer });
    expect([half.status, half.body.errors?.[0]?.field]).toEqual([400, 'amount']);
    const back = await server('POST', '/api/v1/payments/terms/send_back', { reason: 'the excess', address: customer });
    expect([back.status, back.body.errors?.[0]?.field]).toEqual([400, 'reference']);
    expect(back.body.errors[0].message).toBe('expected at least 1 USDT, the smallest send-back on chain 31337');
    const withdrawal = await server('POST', '/api/v1/withdrawals', { coin: 'USDT', chain_id: 31337, address: devAccount(4).address, amount: '0.5' });
    expect([withdrawal.status, withdrawal.body.errors?.[0]?.field]).toEqual([400, 'amount']);
    const bank = (await server('POST', '/api/v1/bank/payouts', NGN)).body.data;
    const payout = await server('POST', '/api/v1/bank/payouts/initiate', { payout_bank_id: bank.id, coin: 'USDT', amount: 0.5 });
    expect([payout.status, payout.body.errors?.[0]?.field]).toEqual([400, 'amount']);
    expect(await balance()).toMatchObject({ available: usdt('10.5'), reserved: 0n });
    expect((await api.db.query(`SELECT id FROM refunds`)).length).toBe(0);

    // A refund of 2: 2.25 reserved (its fee beside it), the customer to receive 2.
    const refund = await server('POST', '/api/v1/refunds', { reference: 'terms', amount: '2', reason: 'two back', address: customer });
    expect(refund.status, JSON.stringify(refund.body)).toBe(201);
    expect(await balance()).toMatchObject({ available: usdt('8.25'), reserved: usdt('2.25') });
    // A claim-link refund of 1, canceled: 1.25 reserved, 1.25 back.
    const waiting = await server('POST', '/api/v1/refunds', { reference: 'terms', amount: '1', reason: 'to cancel' });
    expect(waiting.status).toBe(201);
    expect(await balance()).toMatchObject({ available: usdt('7'), reserved: usdt('3.5') });
    expect((await server('POST', `/api/v1/refunds/${waiting.body.data.id}/cancel`)).status).toBe(200);
    expect(await postingsOf('withdrawal_returned', waiting.body.data.id)).toEqual([
      [merchant('reserved'), -usdt('1.25')],
      [merchant('available'), usdt('1.25')],
    ]);
    // A bank payout of 1: 1.25 reserved; paid, 1 owed to the partner and 0.25 the operator's.
    const paid = await server('POST', '/api/v1/bank/payouts/initiate', { payout_bank_id: bank.id, coin: 'USDT', amount: 1 });
    expect(paid.status, JSON.stringify(paid.body)).toBe(201);
    expect(await balance()).toMatchObject({ available: usdt('7'), reserved: usdt('3.5') });
    const [due] = (await api.parts.payouts.claimDue(Date.now(), 60_000, 5)).filter((d) => d.payout.id === paid.body.data.id);
    await api.parts.payoutMoves.advance(due!.payout, { status: 'paid', checkAtMs: null }, Date.now(), (p) => p);
    expect(await postingsOf('payout_paid', paid.body.data.id)).toEqual([
      [merchant('reserved'), -usdt('1.25')],
      ['payable:payout-partner', usdt('1')],
      ['operator:fees', usdt('0.25')],
    ]);

    // The treasury sends the refund and what the partner is owed.
    const before = await onChain(customer);
    const jobs = treasuryJobs({
      db: api.db,
      ...treasuryStores(api),
      treasuries: [api.parts.treasury('test', 31337)!],
      log: createLogger('silent'),
      instance: 'terms',
      now: Date.now,
      intervalMs: 100,
      sweepIntervalMs: 0,
    } as unknown as JobDeps);
    for (const job of jobs) job.start();
    try {
      await until(
        'the refund confirmed and the partner paid',
        async () => {
          const r = (await server('GET', `/api/v1/refunds/${refund.body.data.id}`)).body.data;
          const partner = await api.parts.partnerTransfers.partnerTransfers(31337);
          return r.status === 'confirmed' && partner.some((t) => t.state === 'completed');
        },
        40_000,
        100,
      );
    } finally {
      await Promise.all(jobs.map((job) => job.stop()));
    }
    expect(await onChain(customer)).toBe(before + usdt('2'));
    expect(await onChain(devAccount(PARTNER_DEV_ACCOUNT).address)).toBe(usdt('1'));
    expect(await postingsOf('withdrawal_sent', refund.body.data.id)).toEqual([
      [merchant('reserved'), -usdt('2.25')],
      ['external:wallets', usdt('2')],
      ['operator:fees', usdt('0.25')],
    ]);
    expect(await balance()).toMatchObject({ available: usdt('7'), reserved: 0n });
    const held = await api.parts.journal.held(31337, contracts.tokens.USDT);
    expect(held.fees).toBe(usdt('0.5'));
    expect(held.merchants + held.fees + held.payable).toBe(await onChain(treasuryAddress));
    for (const s of await api.parts.journal.journalSums()) expect(s.sum).toBe(0n);
  });
});
