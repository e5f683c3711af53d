// Issue 35's exceptions as rules (payments/attention-rules.ts): which case a payment shows, and
// what accepting it does. The chain and storage paths are in attention-api.test.ts and
// server/chain/tests/attention.test.ts; wrong_chain needs a second chain there, so its naming is held here.
import { describe, expect, it } from 'vitest';
import { acceptPlan, caseOf, type AttentionPayment, type OpenTransfer } from '../payments/attention-rules.ts';

const payment = (over: Partial<AttentionPayment> = {}): AttentionPayment => ({
  id: '1', reference: 'r', paid: 0n, due: 100n, settledMs: null, expiresMs: 1_000, acceptPartial: false, chainId: 56, token: '0xUSDT', coin: 'USDT', decimals: 18, resolution: null, ...over,
});
const transfer = (over: Partial<OpenTransfer>): OpenTransfer => ({ chainId: 56, txHash: '0x1', logIndex: 0, token: '0xusdt', amount: 10n, state: 'late', ...over });

describe('what a payment needs of its merchant', () => {
  it('names money on another chain wrong_chain and another coin wrong_coin, grouped by chain and token, before its own case', () => {
    const open = [transfer({ chainId: 1, token: '0xusdt', amount: 7n, state: 'unexpected' }), transfer({ chainId: 56, token: '0xusdc', amount: 3n, state: 'unexpected', txHash: '0x2' }), transfer({ chainId: 1, token: '0xusdt', amount: 5n, state: 'unexpected', txHash: '0x3' })];
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
    expect(acceptPlan(payment(), { reason: 'wrong_coin', chainId: 56, token: '0xusdc', amount: 3n, transfers: [] }, 0)).toEqual({ count: 0n, settle: false, keepExcess: false, told: false });
  });
});
