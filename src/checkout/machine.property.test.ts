// @vitest-environment happy-dom
// Random interleavings of everything that can happen to a checkout, checked against the
// promises the merchant relies on: onSuccess at most once, onError at most once, onClose
// exactly once and last, nothing after close, no request or timer alive after close.
import fc from 'fast-check';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { fakeApi, networkError, httpError, options, TEST_COINS, chooseCoin } from '../testing/fake-api.ts';

const screen = document.createElement('div');
/** How often a payment screen was read, and (in the sanity check) how often it went stale: a property that never reaches its screen proves nothing. */
const seen = { screens: 0, stale: 0, qr: 0 };
import { h, render } from 'preact';
import { baseUnits } from '../../contract/payment-uri.ts';
import { Payment } from '../ui/screens/Payment.tsx';
import { createCheckout, type Checkout } from './machine.ts';
import { POLL_MAX_MS } from './work.ts';

const RUNS = 1000;

const status = fc.constantFrom('pending', 'incomplete', 'confirmed', 'expired', 'failed' as const);
const w = <T>(weight: number, arbitrary: fc.Arbitrary<T>) => ({ weight, arbitrary });
const step = fc.oneof(
  w(1, fc.record({ kind: fc.constant('close' as const) })),
  w(1, fc.record({ kind: fc.constant('askClose' as const) })),
  w(1, fc.record({ kind: fc.constant('stay' as const) })),
  w(2, fc.record({ kind: fc.constant('details' as const), valid: fc.constantFrom(true, true, false) })),
  w(4, fc.record({ kind: fc.constant('coin' as const), symbol: fc.constantFrom('USDT', 'USDC', 'DAI', 'XRP') })),
  w(2, fc.record({ kind: fc.constant('changeCoin' as const) })),
  w(1, fc.record({ kind: fc.constant('requote' as const) })),
  w(1, fc.record({ kind: fc.constant('finishPartial' as const) })),
  w(3, fc.record({ kind: fc.constant('retry' as const) })),
  w(1, fc.record({ kind: fc.constant('simulate' as const) })),
  w(2, fc.record({ kind: fc.constant('result' as const), status, paid: fc.constantFrom(0, 1, 12.5, 25.245, 30) })),
  w(1, fc.record({ kind: fc.constant('wake' as const) })),
  // Someone re-quotes the reference to another coin elsewhere (a second tab).
  w(1, fc.record({ kind: fc.constant('elsewhere' as const), symbol: fc.constantFrom('USDT', 'USDC', 'DAI' as const) })),
  // The next status check is slow: its answer is decided now and arrives after later steps.
  w(2, fc.record({ kind: fc.constant('slowVerify' as const) })),
  w(2, fc.record({ kind: fc.constant('releaseVerify' as const) })),
  // A burst, so that retries can run out, as they do when a network stays down.
  w(
    3,
    fc.record({
      kind: fc.constant('fault' as const),
      on: fc.constantFrom('coins', 'initialize', 'verify' as const),
      error: fc.constantFrom('network', '503', '401', '409' as const),
      times: fc.integer({ min: 1, max: 5 }),
    }),
  ),
  w(3, fc.record({ kind: fc.constant('tick' as const), ms: fc.integer({ min: 0, max: 40_000 }) })),
);

const setup = fc.record({
  acceptPartialPayment: fc.boolean(),
  askName: fc.boolean(),
  askEmail: fc.boolean(),
  holds: fc.boolean(),
  live: fc.boolean(),
  /** Failures of the coin list, which loads as the checkout opens. */
  coinsFaults: fc.integer({ min: 0, max: 5 }),
});

beforeEach(() => {
  vi.useFakeTimers();
  vi.spyOn(console, 'warn').mockImplementation(() => {});
  vi.spyOn(console, 'error').mockImplementation(() => {});
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

/**
 * What a payment screen draws (QR URI, address, amount, chain, contract) is the payment it
 * holds, in that payment's own coin; and it never goes back to an answer the API made before
 * the one already drawn, however late that answer arrives. Returns the number drawn now.
 */
function checkDrawn(checkout: Checkout, before: number): number {
  const view = checkout.view.value;
  if (!('payment' in view) || !('coin' in view)) return before;
  const { coin, payment } = view;
  const listed = TEST_COINS.find((c) => c.symbol === payment.coin)!;
  expect(coin).toMatchObject(listed);
  if (view.screen === 'payment' || view.screen === 'partial') {
    // Read off the rendered screen, as a customer would.
    render(h(Payment, { checkout, view }), screen);
    const $ = (selector: string) => screen.querySelector(selector);
    // The QR code comes from the service a moment after the screen: when drawn, it is this payment's.
    const drawn = $('svg')?.getAttribute('data-uri');
    if (drawn != null) {
      expect(drawn).toBe(
        `ethereum:${listed.contractAddress}@${listed.chainId}/transfer?address=${payment.address}&uint256=${baseUnits(payment.amountRemaining, listed)}`,
      );
      seen.qr++;
    }
    expect($('[data-address]')?.textContent).toBe(payment.address);
    expect($('[data-amount]')?.textContent).toBe(`${payment.amountRemaining} ${listed.symbol}`);
    expect($('[data-contract]')?.textContent).toBe(listed.contractAddress);
    expect($('[data-network]')?.textContent).toContain(listed.network);
    render(null, screen);
    seen.screens++;
  }
  const seq = (payment as unknown as { metadata: { seq: number } }).metadata.seq; // the fake's numbering rides along
  expect(seq).toBeGreaterThanOrEqual(before);
  return seq;
}

// 1,000 runs, each rendering the payment screen: ~3 s alone, more beside the other suites.
it(`keeps its callback promises under ${RUNS} random interleavings`, { timeout: 60_000 }, async () => {
  await fc.assert(
    fc.asyncProperty(setup, fc.array(step, { minLength: 4, maxLength: 40, size: 'max' }), async (given, steps) => {
      vi.clearAllTimers();
      const events: string[] = [];
      const fake = fakeApi();
      fake.state.holds = given.holds;
      for (let i = 0; i < given.coinsFaults; i++) fake.state.coinsErrors.push(networkError());
      let unmounted = 0;
      let drawn = 0;
      const checkout = createCheckout(
        options({
          acceptPartialPayment: given.acceptPartialPayment,
          name: given.askName ? undefined : 'Ada Lovelace',
          email: given.askEmail ? undefined : 'ada@example.com',
          key: given.live ? 'pk_live_harbour0demo0key' : 'pk_test_harbour0demo0key',
          onSuccess: () => events.push('success'),
          onError: () => events.push('error'),
          onClose: () => events.push('close'),
        }),
        fake.api,
        () => unmounted++,
      );
      checkout.start();
      for (const s of steps) {
        switch (s.kind) {
          case 'close':
            checkout.close();
            break;
          case 'askClose': {
            // Asked on an open payment, it waits for an answer; anywhere else it closes.
            const open = ['payment', 'partial'].includes(checkout.view.value.screen);
            const asked = checkout.leaving.value;
            checkout.askClose();
            if (open && !asked) expect(checkout.leaving.value).toBe(true);
            else expect(checkout.view.value.screen).toBe('closed');
            break;
          }
          case 'stay':
            checkout.stay();
            expect(checkout.leaving.value).toBe(false);
            break;
          case 'details':
            checkout.submitDetails(s.valid ? 'Ada' : ' ', s.valid ? 'ada@example.com' : 'nope');
            break;
          case 'coin':
            chooseCoin(checkout, s.symbol);
            break;
          case 'changeCoin':
            checkout.changeCoin();
            break;
          case 'requote':
            checkout.requote();
            break;
          case 'finishPartial':
            checkout.finishPartial();
            break;
          case 'retry': {
            const view = checkout.view.value;
            if (view.screen === 'error') view.retry?.();
            break;
          }
          case 'simulate':
            checkout.simulate('exact');
            break;
          case 'result':
            fake.state.status = s.status;
            fake.state.paid = s.paid;
            break;
          case 'wake':
            fake.notify();
            break;
          case 'elsewhere':
            fake.requoteElsewhere(s.symbol);
            break;
          case 'slowVerify':
            fake.state.holdNextVerify = true;
            break;
          case 'releaseVerify':
            fake.releaseVerify();
            break;
          case 'fault': {
            const error = s.error === 'network' ? networkError() : httpError(Number(s.error));
            const queue = { coins: fake.state.coinsErrors, initialize: fake.state.initializeErrors, verify: fake.state.verifyErrors }[s.on];
            for (let i = 0; i < s.times; i++) queue.push(error);
            break;
          }
          case 'tick':
            await vi.advanceTimersByTimeAsync(s.ms);
            break;
        }
        await vi.advanceTimersByTimeAsync(0);
        drawn = checkDrawn(checkout, drawn);
      }
      // Once every answer is in, a checkout still watching shows what the API holds now.
      fake.releaseVerify();
      fake.state.verifyErrors.length = 0;
      fake.state.holdNextVerify = false;
      fake.notify();
      await vi.advanceTimersByTimeAsync(POLL_MAX_MS + 1);
      const view = checkout.view.value;
      if (view.screen === 'payment' || view.screen === 'partial') {
        const truth = fake.verification();
        expect([view.payment.coin, view.payment.address, view.payment.amountRemaining]).toEqual([truth.coin, truth.address, truth.amountRemaining]);
      }
      fake.releaseVerify();
      checkout.close();
      const atClose = events.length;
      fake.state.status = 'confirmed';
      fake.notify();
      await vi.advanceTimersByTimeAsync(120_000);

      expect(events.filter((e) => e === 'success').length).toBeLessThanOrEqual(1);
      expect(events.filter((e) => e === 'error').length).toBeLessThanOrEqual(1);
      expect(events.filter((e) => e === 'close')).toHaveLength(1);
      expect(events.at(-1)).toBe('close');
      expect(events.length).toBe(atClose); // nothing after close
      expect(unmounted).toBe(1);
      expect(vi.getTimerCount()).toBe(0);
      expect(fake.held.size).toBe(0);
      expect(fake.signals.every((signal) => signal.aborted)).toBe(true);
    }),
    { numRuns: RUNS },
  );
  expect(seen.screens).toBeGreaterThan(RUNS / 4);
  expect(seen.qr).toBeGreaterThan(RUNS / 10);
});
