// The ledger's rules without I/O: configured thresholds in base units, the daily
// withdrawal limit's verdict and words, and when what is owed to the payout partner is sent.
import { describe, expect, it } from 'vitest';
import { Conflict } from '../../domain/errors.ts';
import { checkWithdrawalLimit, configuredUnits, partnerDue, sentRef, usdCentsOf, withdrawalSent, withdrawalUnsent } from '../ledger-rules.ts';
import { nextState } from '../../refunds/rules.ts';
import { RATE_ONE } from '../../domain/rates.ts';

const usdc = { symbol: 'USDC', text: '4.000001' };

describe('configured amounts in base units', () => {
  it.each([
    ['10000', 6, 10_000_000_000n],
    ['2500.5', 18, 2_500_500_000_000_000_000_000n],
    ['0', 6, 0n],
    // More places than the coin has: rounded down, never up (a limit never grows by rounding).
    ['0.0000019', 6, 1n],
    ['1.999999999', 6, 1_999_999n],
  ])('%s at %i decimals is %s', (text, decimals, units) => {
    expect(configuredUnits(text, decimals)).toBe(units);
  });
});

describe('the daily withdrawal limit, in US cents', () => {
  it('values a coin at its rate, rounded up to the cent: a limit never lets a fraction through', () => {
    expect(usdCentsOf(4_000_000n, 6, RATE_ONE)).toBe(400n);
    expect(usdCentsOf(4_000_001n, 6, RATE_ONE)).toBe(401n);
    expect(usdCentsOf(10n ** 18n, 18, (RATE_ONE * 125n) / 100n)).toBe(125n);
    expect(usdCentsOf(10n ** 18n, 18, (RATE_ONE * 999n) / 1000n)).toBe(100n); // 99.9 cents
    expect(usdCentsOf(1n, 18, RATE_ONE)).toBe(1n);
  });

  it('lets a withdrawal through up to the limit, to the cent', () => {
    expect(() => checkWithdrawalLimit(400n, 1_000n, 600n, usdc)).not.toThrow();
  });

  it('refuses one base unit past it, naming amount, the limit and what is left', () => {
    let error: unknown;
    try {
      checkWithdrawalLimit(401n, 1_000n, 600n, usdc);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(Conflict);
    expect((error as Conflict).message).toBe(
      'amount: 4.000001 USDC (4.01 USD) is over your daily withdrawal limit of 10.00 USD (6.00 USD withdrawn in the last 24 hours, 4.00 USD left, across every coin and network); the operator sets the limit',
    );
    expect((error as Conflict).fields).toEqual([{ field: 'amount', message: 'expected at most 4.00 USD worth: the daily withdrawal limit is 10.00 USD' }]);
  });

  it('says nothing is left when a lowered limit is already passed, and a limit of 0 allows nothing', () => {
    expect(() => checkWithdrawalLimit(1n, 500n, 600n, usdc)).toThrow(/6\.00 USD withdrawn in the last 24 hours, 0\.00 USD left/);
    expect(() => checkWithdrawalLimit(1n, 0n, 0n, usdc)).toThrow(Conflict);
  });
});

describe('when what is owed to the payout partner is sent', () => {
  const hour = 3_600_000;
  it('never with nothing owed, whatever the wait', () => {
    expect(partnerDue(0n, 0n, 0, hour, 10 * hour)).toBe(false);
  });
  it('at the minimum, or with a minimum of 0 at once', () => {
    expect(partnerDue(999n, 1000n, 0, hour, 1)).toBe(false);
    expect(partnerDue(1000n, 1000n, 0, hour, 1)).toBe(true);
    expect(partnerDue(1n, 0n, 0, hour, 1)).toBe(true);
  });
  it('below the minimum once the oldest of it has waited the longest wait', () => {
    expect(partnerDue(5n, 1000n, 0, hour, hour - 1)).toBe(false);
    expect(partnerDue(5n, 1000n, 0, hour, hour)).toBe(true);
    expect(partnerDue(5n, 1000n, null, hour, 10 * hour)).toBe(false);
  });
});

describe('a counted send a deep reorganisation took off the chain (issue 49)', () => {
  const send = { chainId: 1, token: '0xt', amount: 5n, networkFee: 1n };
  it('is undone by the exact negation of its sent entry, each round its own ref', () => {
    const sent = withdrawalSent(send, 'merchant:m:test:reserved');
    const unsent = withdrawalUnsent(send, 'merchant:m:test:reserved');
    expect(unsent).toEqual(sent.map((p) => ({ ...p, amount: -p.amount })));
    expect(unsent.reduce((sum, p) => sum + p.amount, 0n)).toBe(0n);
    expect([sentRef('w', 0), sentRef('w', 1), sentRef('w', 2)]).toEqual(['w', 'w#1', 'w#2']);
  });
  it('moves a confirmed refund back as its send goes back: sent when sent again, failed when it never can be; nothing else goes back', () => {
    const sending = (state: 'pending' | 'completed' | 'failed') => ({ state, txHash: '0xh', failure: state === 'failed' ? 'nonce taken' : null });
    expect(nextState({ state: 'confirmed' }, sending('pending'))).toEqual({ state: 'sent', txHash: '0xh', failure: null });
    expect(nextState({ state: 'confirmed' }, sending('failed'))).toEqual({ state: 'failed', txHash: '0xh', failure: 'nonce taken' });
    expect(nextState({ state: 'confirmed' }, sending('completed'))).toBeUndefined();
    expect(nextState({ state: 'failed' }, sending('pending'))).toBeUndefined();
    expect(nextState({ state: 'sent' }, sending('completed'))).toMatchObject({ state: 'confirmed' });
  });
});
