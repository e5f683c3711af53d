// The ledger's rules without I/O (issue 24): configured thresholds in base units, the daily
// withdrawal limit's verdict and words, and when what is owed to the payout partner is sent.
import { describe, expect, it } from 'vitest';
import { Conflict } from '../domain/errors.ts';
import { checkWithdrawalLimit, configuredUnits, partnerDue } from '../domain/ledger.ts';

const usdc = { symbol: 'USDC', format: (u: bigint) => (Number(u) / 1e6).toString() };

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

describe('the daily withdrawal limit', () => {
  it('lets a withdrawal through up to the limit, to the base unit', () => {
    expect(() => checkWithdrawalLimit(4_000_000n, 10_000_000n, 6_000_000n, usdc)).not.toThrow();
  });

  it('refuses one base unit past it, naming amount, the limit and what is left', () => {
    let error: unknown;
    try {
      checkWithdrawalLimit(4_000_001n, 10_000_000n, 6_000_000n, usdc);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(Conflict);
    expect((error as Conflict).message).toBe('amount: 4.000001 USDC is over your daily withdrawal limit of 10 USDC (6 withdrawn in the last 24 hours, 4 left); the operator sets the limit');
    expect((error as Conflict).fields).toEqual([{ field: 'amount', message: 'expected at most 4: the daily withdrawal limit is 10 USDC' }]);
  });

  it('says nothing is left when a lowered limit is already passed, and a limit of 0 allows nothing', () => {
    expect(() => checkWithdrawalLimit(1n, 5_000_000n, 6_000_000n, usdc)).toThrow(/6 withdrawn in the last 24 hours, 0 left/);
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
