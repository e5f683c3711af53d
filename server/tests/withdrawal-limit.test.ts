// Issue 34, item 6: a stolen secret key is bounded by ONE daily withdrawal limit per merchant and
// mode, in US dollars, across every coin and chain: USDT on two chains is not twice the limit,
// and swapping into another coin and withdrawing both is not either. On PGlite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type Service } from '../app.ts';
import * as moves from '../balances/use-cases.ts';
import { EXTERNAL, merchantAccount, move } from '../balances/ledger-rules.ts';
import { RATE_ONE } from '../domain/rates.ts';
import { coinOf } from '../domain/defaults.ts';
import { databaseOptions, KINDS } from '../testing/databases.ts';

const USDT_A = '0x' + 'a1'.repeat(20);
const USDT_B = '0x' + 'b2'.repeat(20);
const USDC_A = '0x' + 'c3'.repeat(20);
const DAI_A = '0x' + 'd4'.repeat(20);
const whole = (n: number, decimals = 6) => BigInt(Math.round(n * 100)) * 10n ** BigInt(decimals - 2);

describe.each(KINDS)('one daily withdrawal limit across coins and chains, on %s', (kind) => {
  let api: Service;
  let n = 0;
  beforeAll(async () => {
    api = await startService({ demo: true, ...(await databaseOptions(kind)), jobs: false });
  }, 60_000);
  afterAll(() => api.close());

  /** A merchant of its own per case (the demo's id with a fresh mode is not possible: a fresh merchant). */
  const merchant = async () => {
    const m = await api.parts.merchants.create({ businessName: `limit ${++n}`, businessEmail: `limit${n}-${kind}@example.com`, businessLogo: '' }, Date.now());
    return { merchant: m, mode: 'test' as const };
  };
  const fund = (owner: moves.Owner, chainId: number, token: string, amount: bigint) =>
    api.parts.journal.post(api.db, { kind: 'sandbox_deposit', ref: `fund-${kind}-${++n}`, owner, memo: 'a test' }, move(EXTERNAL.sandbox, merchantAccount(owner.merchant.id, owner.mode, 'available'), chainId, token, amount), Date.now());
  const wallet = '0x' + 'be'.repeat(20);
  const withdraw = (owner: moves.Owner, chainId: number, symbol: string, token: string, amount: bigint, usdPerCoin = RATE_ONE, decimals = 6) =>
    moves.withdraw(api.parts.balanceTransactions, owner, { chainId, symbol, token, decimals, address: wallet, amount, format: (u) => String(u), usdPerCoin }, Date.now(), () => ({}));

  it('USDT on two chains draws on one limit: not twice it', async () => {
    const owner = await merchant();
    await fund(owner, 1, USDT_A, whole(500));
    await fund(owner, 2, USDT_B, whole(500));
    expect(await api.parts.withdrawals.setWithdrawalLimit(owner, '100', Date.now())).toBe(true);
    await withdraw(owner, 1, 'USDT', USDT_A, whole(60));
    await expect(withdraw(owner, 2, 'USDT', USDT_B, whole(60))).rejects.toThrow(/daily withdrawal limit of 100\.00 USD \(60\.00 USD withdrawn in the last 24 hours, 40\.00 USD left, across every coin and network\)/);
    await withdraw(owner, 2, 'USDT', USDT_B, whole(40));
    await expect(withdraw(owner, 1, 'USDT', USDT_A, 1n)).rejects.toThrow(/0\.00 USD left/);
  });

  it('a swap into another coin and a withdrawal of each draw on one limit', async () => {
    const owner = await merchant();
    await fund(owner, 1, USDT_A, whole(300));
    expect(await api.parts.withdrawals.setWithdrawalLimit(owner, '100', Date.now())).toBe(true);
    await withdraw(owner, 1, 'USDT', USDT_A, whole(80));
    const quote = await api.parts.swaps.quote(owner, { chainId: 1, fromSymbol: 'USDT', toSymbol: 'USDC', fromToken: USDT_A, toToken: USDC_A, fromDecimals: 6, toDecimals: 6, amountIn: whole(150), poolOut: whole(150), expiresMs: Date.now() + 60_000 }, Date.now());
    await moves.acceptQuote(api.parts.balanceTransactions, owner, quote.id, Date.now(), () => ({}));
    await moves.finishSwap(api.parts.balanceTransactions, quote.id, { out: whole(150) }, Date.now(), () => ({}));
    await expect(withdraw(owner, 1, 'USDC', USDC_A, whole(80))).rejects.toThrow(/daily withdrawal limit of 100\.00 USD/);
    await withdraw(owner, 1, 'USDC', USDC_A, whole(20));
    const left = await api.parts.journal.balances(owner, Date.now());
    expect(left.find((b) => b.token === USDC_A)!.reserved).toBe(whole(20));
  });

  it('values each coin at its rate: 90 of a coin at 1.25 USD is 112.50 USD, over a limit of 100', async () => {
    const owner = await merchant();
    await fund(owner, 1, DAI_A, whole(500, 18));
    expect(await api.parts.withdrawals.setWithdrawalLimit(owner, '100', Date.now())).toBe(true);
    await expect(withdraw(owner, 1, 'DAI', DAI_A, whole(90, 18), (RATE_ONE * 125n) / 100n, 18)).rejects.toThrow(/112\.50 USD/);
    await withdraw(owner, 1, 'DAI', DAI_A, whole(80, 18), (RATE_ONE * 125n) / 100n, 18);
  });

  // A bank payout leaves the balance too (its USDT is reserved, then owed to the payout partner):
  // a stolen key that registers its own bank account is held by the same limit.
  it('a bank payout draws on the same limit as withdrawals', async () => {
    const owner = await merchant();
    const account = { ...owner, via: 'secret' as const };
    const usdt = coinOf('test', 'USDT')!;
    await fund(owner, usdt.chainId, usdt.contractAddress, whole(500, usdt.decimals));
    expect(await api.parts.withdrawals.setWithdrawalLimit(owner, '100', Date.now())).toBe(true);
    await withdraw(owner, usdt.chainId, 'USDT', usdt.contractAddress, whole(70, usdt.decimals), RATE_ONE, usdt.decimals);
    const bank = await api.parts.payouts.addBank(account, 'NGN', { bank_name: 'Access Bank', bank_code: '044', account_name: 'Thief', account_number: '0123456789', country: 'nigeria', state: 'Lagos' }, true, Date.now());
    const payout = (usd: number) => api.parts.payouts.initiate(account, { bankId: bank.id, units: whole(usd), reference: undefined, metadata: null, rate: '1500', usdPerCoin: RATE_ONE }, Date.now(), (p) => p);
    await expect(payout(40)).rejects.toThrow(/40 USDT \(40\.00 USD\) is over your daily withdrawal limit of 100\.00 USD \(70\.00 USD withdrawn/);
    await payout(30);
    await expect(withdraw(owner, usdt.chainId, 'USDT', usdt.contractAddress, 1n, RATE_ONE, usdt.decimals)).rejects.toThrow(/100\.00 USD withdrawn in the last 24 hours, 0\.00 USD left/);
  });

  it('two withdrawals at once on two chains cannot together pass the limit', async () => {
    const owner = await merchant();
    await fund(owner, 1, USDT_A, whole(500));
    await fund(owner, 2, USDT_B, whole(500));
    expect(await api.parts.withdrawals.setWithdrawalLimit(owner, '100', Date.now())).toBe(true);
    const both = await Promise.allSettled([withdraw(owner, 1, 'USDT', USDT_A, whole(60)), withdraw(owner, 2, 'USDT', USDT_B, whole(60))]);
    expect(both.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const s of await api.parts.journal.journalSums()) expect(s.sum).toBe(0n);
  });
});
