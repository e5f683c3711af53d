// Issue 35's exceptions as rules (payments/attention-rules.ts): which case a payment shows, and
// what accepting it does. The chain and storage paths are in attention-api.test.ts and
// server/payments/tests/attention.test.ts; wrong_chain needs a second chain there, so its naming is held here.
import { describe, expect, it } from 'vitest';
import { acceptPlan, caseOf, type AttentionPayment, type OpenTransfer } from '../attention-rules.ts';
import { creditOf, usableAt } from '../credit-rules.ts';
import { NoRateAtArrival } from '../../domain/errors.ts';

const payment = (over: Partial<AttentionPayment> = {}): AttentionPayment => ({
  id: '1',
  reference: 'r',
  paid: 0n,
  due: 100n,
  settledMs: null,
  expiresMs: 1_000,
  acceptPartial: false,
  chainId: 56,
  token: '0xUSDT',
  coin: 'USDT',
  decimals: 18,
  resolution: null,
  ...over,
});
const transfer = (over: Partial<OpenTransfer>): OpenTransfer => ({
  chainId: 56,
  txHash: '0x1',
  logIndex: 0,
  token: '0xusdt',
  amount: 10n,
  state: 'late',
  seenMs: 0,
  ...over,
});

describe('what a payment needs of its merchant', () => {
  it('names money on another chain wrong_chain and another coin wrong_coin, grouped by chain and token, before its own case', () => {
    const open = [
      transfer({ chainId: 1, token: '0xusdt', amount: 7n, state: 'unexpected' }),
      transfer({ chainId: 56, token: '0xusdc', amount: 3n, state: 'unexpected', txHash: '0x2' }),
      transfer({ chainId: 1, token: '0xusdt', amount: 5n, state: 'unexpected', txHash: '0x3' }),
    ];
    const first = caseOf(payment({ paid: 150n }), open, 0)!;
    expect([first.reason, first.chainId, first.amount, first.transfers.length]).toEqual(['wrong_chain', 1, 12n, 2]);
    expect(caseOf(payment(), open.slice(1, 2), 0)).toMatchObject({ reason: 'wrong_coin', chainId: 56, token: '0xusdc', amount: 3n });
    expect(caseOf(payment(), [transfer({ amount: 4n })], 0)).toMatchObject({ reason: 'late', amount: 4n });
  });

  it('its own case: the excess; an expired partial it does not accept; nothing once resolved or while open', () => {
    expect(caseOf(payment({ paid: 130n }), [], 0)).toMatchObject({ reason: 'overpaid', amount: 30n });
    expect(caseOf(payment({ paid: 40n }), [], 2_000)).toMatchObject({ reason: 'partial', amount: 40n });
    expect(caseOf(payment({ paid: 40n }), [], 500)).toBeNull();
    expect(caseOf(payment({ paid: 40n, acceptPartial: true }), [], 2_000)).toBeNull();
    expect(caseOf(payment({ paid: 40n, settledMs: 1_500 }), [], 2_000)).toBeNull();
    expect(caseOf(payment({ paid: 130n, resolution: 'refunded' }), [], 0)).toBeNull();
    expect(caseOf(payment({ paid: 100n }), [], 2_000)).toBeNull();
  });

  it('accepting late money counts it: settled when still short of due, its excess kept when past it', () => {
    const short = caseOf(payment({ paid: 0n }), [transfer({ amount: 40n })], 2_000)!;
    expect(acceptPlan(payment(), short, 2_000)).toEqual({ count: 40n, settle: true, keepExcess: false, told: true });
    const past = caseOf(payment({ paid: 100n }), [transfer({ amount: 40n })], 2_000)!;
    expect(acceptPlan(payment({ paid: 100n }), past, 2_000)).toEqual({ count: 40n, settle: false, keepExcess: true, told: true });
    expect(acceptPlan(payment(), { reason: 'wrong_coin', chainId: 56, token: '0xusdc', amount: 3n, transfers: [] }, 0)).toEqual({
      count: 0n,
      settle: false,
      keepExcess: false,
      told: false,
    });
  });
});

describe('money in another coin or on another chain credited at the rate of its arrival (credit-rules.ts)', () => {
  const USDT18 = { symbol: 'USDT', decimals: 18 };
  const USDT6 = { symbol: 'USDT', decimals: 6 };
  const USDC6 = { symbol: 'USDC', decimals: 6 };
  const rate = (units: bigint, atMs: number, fixed = false) => ({ units, atMs, source: 'fake', fixed });
  const MAX = 900_000;

  it('the same coin on another chain is 1:1, its decimals converted both ways, rounded down, with no rate needed', () => {
    expect(creditOf('r', 4_000_000n, USDT6, USDT18, {}, 10, MAX).credited).toBe(4n * 10n ** 18n);
    expect(creditOf('r', 4n * 10n ** 18n + 999_999_999_999n, USDT18, USDT6, {}, 10, MAX).credited).toBe(4_000_000n);
    expect(creditOf('r', 999_999_999_999n, USDT18, USDT6, {}, 10, MAX).credited).toBe(0n);
  });

  it("another coin at both coins' dollar rates, decimals 6 to 18, rounded down: never more than arrived is worth", () => {
    // 3 USDC at 0.99999999 USD each, credited in USDT at 1.00000001 USD each.
    const terms = creditOf('r', 3_000_000n, USDC6, USDT18, { from: rate(99_999_999n, 5), to: rate(100_000_001n, 7) }, 10, MAX);
    expect(terms.credited).toBe((3n * 10n ** 18n * 99_999_999n) / 100_000_001n);
    expect(terms.credited * 100_000_001n <= 3n * 10n ** 18n * 99_999_999n).toBe(true);
    expect(terms).toMatchObject({ usdFrom: 99_999_999n, usdTo: 100_000_001n, rateMs: 5, source: 'fake' });
    // 18 to 6: 1 wei-level dust of a coin worth less credits nothing rather than a unit.
    expect(creditOf('r', 10n ** 12n, USDT18, USDC6, { from: rate(99_000_000n, 5), to: rate(100_000_000n, 5) }, 10, MAX).credited).toBe(0n);
  });

  it('a rate older than the limit at arrival, fetched after it, or absent is refused by name (send_back still possible); a fixed one never ages', () => {
    expect(usableAt(rate(1n, 0), MAX, MAX)).toBeDefined();
    expect(usableAt(rate(1n, 0), MAX + 1, MAX)).toBeUndefined();
    expect(usableAt(rate(1n, 11), 10, MAX)).toBeUndefined();
    expect(usableAt(rate(1n, 0, true), 10 * MAX, MAX)).toBeDefined();
    const stale = () => creditOf('ref-1', 1n, USDC6, USDT18, { from: rate(10n ** 8n, 0), to: rate(10n ** 8n, MAX) }, MAX + 1, MAX);
    expect(stale).toThrow(NoRateAtArrival);
    expect(stale).toThrow(/reference: payment ref-1: no USDC rate .* send it back in USDC/);
    expect(() => creditOf('ref-1', 1n, USDC6, USDT18, { to: rate(10n ** 8n, 0) }, 10, MAX)).toThrow(/no USDC rate/);
  });
});
