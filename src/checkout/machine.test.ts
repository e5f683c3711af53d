import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createCheckout } from './machine.ts';
import { POLL_MS } from './work.ts';
import type { Verification } from '../../contract/schemas.ts';
import { fakeApi, httpError, networkError, options, chooseCoin, TEST_COINS } from '../testing/fake-api.ts';

function setup(overrides: Record<string, unknown> = {}) {
  const onSuccess = vi.fn();
  const onError = vi.fn();
  const onClose = vi.fn();
  const order: string[] = [];
  onSuccess.mockImplementation(() => order.push('success'));
  onError.mockImplementation(() => order.push('error'));
  onClose.mockImplementation(() => order.push('close'));
  const fake = fakeApi();
  const unmount = vi.fn();
  const checkout = createCheckout(options({ onSuccess, onError, onClose, ...overrides }), fake.api, unmount);
  return { ...fake, checkout, onSuccess, onError, onClose, order, unmount };
}

const settle = () => vi.advanceTimersByTimeAsync(0);
const screen = (s: ReturnType<typeof setup>) => s.checkout.view.value.screen;

/** What the next status check will answer, and one poll interval for it to be asked. */
async function nextPoll(s: ReturnType<typeof setup>, status: Verification['status'], paid = s.state.paid) {
  s.state.status = status;
  s.state.paid = paid;
  await vi.advanceTimersByTimeAsync(POLL_MS);
}

/** A quote asked for while the API cannot be reached, through every retry. */
async function quoteWhileOffline() {
  const s = setup();
  s.checkout.start();
  await settle();
  s.state.initializeErrors.push(networkError(), networkError(), networkError(), networkError());
  chooseCoin(s.checkout, 'USDT');
  await vi.advanceTimersByTimeAsync(30_000);
  return s;
}

async function toPayment(s: ReturnType<typeof setup>, symbol = 'USDT') {
  s.checkout.start();
  await settle();
  chooseCoin(s.checkout, symbol);
  await settle();
  expect(screen(s)).toBe('payment');
}

beforeEach(() => {
  vi.useFakeTimers();
  vi.spyOn(console, 'error').mockImplementation(() => {});
  vi.spyOn(console, 'warn').mockImplementation(() => {});
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('the way in', () => {
  // One symbol on two networks is two choices; the one chosen is the one quoted and shown.
  it('quotes the network chosen when a coin is on two, and shows that network', async () => {
    const s = setup();
    const onEthereum = { ...TEST_COINS[0]!, network: 'Ethereum Sepolia', chainId: 11155111, contractAddress: '0x' + '77'.repeat(20), decimals: 6 };
    s.state.coins = [TEST_COINS[0]!, onEthereum];
    s.checkout.start();
    await settle();
    const listed = s.checkout.view.value;
    expect(listed.screen === 'coins' && listed.coins?.map((c) => [c.symbol, c.network])).toEqual([
      ['USDT', 'BNB Smart Chain Testnet'],
      ['USDT', 'Ethereum Sepolia'],
    ]);
    chooseCoin(s.checkout, 'USDT', 11155111);
    await settle();
    expect(s.calls.initialize[0]).toMatchObject({ coin: 'USDT', chain_id: 11155111 });
    expect(s.checkout.view.value).toMatchObject({
      screen: 'payment',
      coin: { network: 'Ethereum Sepolia', contractAddress: onEthereum.contractAddress, decimals: 6 },
    });
    // Re-quoted elsewhere onto the other network: the screen follows it.
    s.requoteElsewhere('USDT', 97);
    await vi.advanceTimersByTimeAsync(POLL_MS);
    expect(s.checkout.view.value).toMatchObject({ screen: 'payment', coin: { network: 'BNB Smart Chain Testnet', decimals: 18 } });
    // Back to the list, the other one: asked for on its own chain.
    s.checkout.changeCoin();
    await settle();
    chooseCoin(s.checkout, 'USDT', 97);
    await settle();
    expect(s.calls.initialize.map((b) => b.chain_id)).toEqual([11155111, 97]);
  });

  it('asks only for what the merchant did not give: the e-mail here', async () => {
    const s = setup({ email: undefined });
    s.checkout.start();
    expect(s.checkout.view.value).toEqual({ screen: 'details', needName: false, needEmail: true });
  });

  it('keeps the customer on the details screen until the fields are right', async () => {
    const s = setup({ name: undefined, email: undefined });
    s.checkout.start();
    s.checkout.submitDetails(' ', 'ada@');
    expect(s.checkout.wrong.value).toEqual(['name', 'email']);
    expect(screen(s)).toBe('details');
    s.checkout.submitDetails('Ada', 'ada@example.com');
    expect(s.checkout.wrong.value).toEqual([]);
    await settle();
    expect(screen(s)).toBe('coins');
  });

  it('sends the details the customer typed with the quote', async () => {
    const s = setup({ name: undefined });
    s.checkout.start();
    s.checkout.submitDetails('  Ada Lovelace ', '');
    await settle();
    chooseCoin(s.checkout, 'USDC');
    await settle();
    expect(s.calls.initialize[0]).toMatchObject({ customer_name: 'Ada Lovelace', customer_email: 'ada@example.com', coin: 'USDC' });
  });

  it('skips the details when both are given, and lists the active coins', async () => {
    const s = setup();
    s.checkout.start();
    await settle();
    const view = s.checkout.view.value;
    expect(view.screen === 'coins' && view.coins?.map((c) => c.symbol)).toEqual(['USDT', 'USDC', 'BUSD', 'DAI']);
    expect(s.calls.coins).toBe(1);
  });

  it('starts one quote however often a coin is clicked', async () => {
    const s = setup();
    s.checkout.start();
    await settle();
    chooseCoin(s.checkout, 'USDT');
    chooseCoin(s.checkout, 'USDT');
    chooseCoin(s.checkout, 'DAI');
    await settle();
    expect(s.calls.initialize).toHaveLength(1);
  });

  it('shows a refused key before asking the customer anything', async () => {
    const s = setup({ name: undefined, email: undefined });
    s.state.coinsErrors.push(httpError(401));
    s.checkout.start();
    await settle();
    const view = s.checkout.view.value;
    expect(view.screen === 'error' && view.error.code).toBe('api_error');
    expect(s.onError).toHaveBeenCalledTimes(1);
  });

  it('keeps asking for the details when the coin list only failed to load (it is retried on the coin screen)', async () => {
    const s = setup({ name: undefined, email: undefined });
    s.state.coinsErrors.push(networkError(), networkError(), networkError(), networkError());
    s.checkout.start();
    await vi.advanceTimersByTimeAsync(30_000);
    expect(screen(s)).toBe('details');
    s.checkout.submitDetails('Ada', 'ada@example.com');
    await settle();
    expect(screen(s)).toBe('coins');
    expect(s.onError).not.toHaveBeenCalled();
  });
});

describe('a payment', () => {
  it('goes pending → partial → confirmed: onSuccess once, then onClose once, last', async () => {
    const s = setup();
    await toPayment(s);
    await nextPoll(s, 'incomplete', 10);
    expect(screen(s)).toBe('partial');
    await nextPoll(s, 'confirmed', 25.245);
    expect(screen(s)).toBe('success');
    await vi.advanceTimersByTimeAsync(POLL_MS * 5);
    expect(s.calls.verify).toBe(4); // the resume check at open, one as the quote opened, two more; none after success
    s.checkout.close();
    s.checkout.close();
    expect(s.order).toEqual(['success', 'close']);
    expect(s.onSuccess.mock.calls[0][0]).toMatchObject({ status: 'confirmed', amountPaid: 25.245 });
    expect(s.onClose).toHaveBeenCalledWith({ reference: 'order-1', status: 'confirmed' });
  });

  it('lets the customer finish with a partial payment only when the merchant accepts it: the service settles it', async () => {
    const s = setup({ acceptPartialPayment: true });
    await toPayment(s);
    await nextPoll(s, 'incomplete', 10);
    s.checkout.finishPartial();
    s.checkout.finishPartial(); // a double click sends one request
    await settle();
    expect(s.calls.settle).toBe(1);
    expect(screen(s)).toBe('success');
    s.state.status = 'confirmed';
    await vi.advanceTimersByTimeAsync(POLL_MS * 3);
    expect(s.onSuccess).toHaveBeenCalledTimes(1);
    expect(s.onSuccess.mock.calls[0][0]).toMatchObject({ status: 'settled', amountPaid: 10 });
  });

  it('ignores "finish with what I sent" when partial payments are not accepted', async () => {
    const s = setup();
    await toPayment(s);
    await nextPoll(s, 'incomplete', 10);
    s.checkout.finishPartial();
    expect(screen(s)).toBe('partial');
    expect(s.onSuccess).not.toHaveBeenCalled();
  });

  it('re-quotes the same reference when the coin changes before paying: never a second payment', async () => {
    const s = setup();
    await toPayment(s, 'USDT');
    s.checkout.changeCoin();
    await settle();
    expect(screen(s)).toBe('coins');
    chooseCoin(s.checkout, 'USDC');
    await settle();
    expect(s.calls.initialize.map((b) => [b.reference, b.coin])).toEqual([
      ['order-1', 'USDT'],
      ['order-1', 'USDC'],
    ]);
    expect(screen(s)).toBe('payment');
  });

  it('does not offer another coin once money has arrived', async () => {
    const s = setup();
    await toPayment(s);
    await nextPoll(s, 'incomplete', 1);
    s.checkout.changeCoin();
    expect(screen(s)).toBe('partial');
  });
});

describe('resuming a reference', () => {
  it('shows the open payment again when the checkout reopens on its reference: same address, no new quote', async () => {
    const s = setup();
    s.state.exists = true;
    s.state.status = 'incomplete';
    s.state.paid = 10;
    s.checkout.start();
    await settle();
    expect(screen(s)).toBe('partial');
    expect(s.calls.initialize).toHaveLength(0);
    const view = s.checkout.view.value;
    expect(view.screen === 'partial' && view.payment.address).toBe('0x' + 'ab'.repeat(20));
  });

  it('tells onSuccess on reopen for a payment that arrived while the checkout was closed', async () => {
    const s = setup({ name: undefined, email: undefined });
    s.state.exists = true;
    s.state.status = 'confirmed';
    s.state.paid = 25.245;
    s.checkout.start();
    await settle();
    expect(screen(s)).toBe('success');
    expect(s.order).toEqual(['success']);
  });

  it('goes the usual way for a reference the API does not know, after one check', async () => {
    const s = setup();
    s.checkout.start();
    await settle();
    expect(screen(s)).toBe('coins');
    expect(s.calls.verify).toBe(1);
    expect(s.onError).not.toHaveBeenCalled();
  });

  it('does not look up a reference it generated itself', async () => {
    const s = setup({ reference: undefined });
    s.checkout.start();
    await settle();
    expect(s.calls.verify).toBe(0);
  });

  it('leaves a customer who already chose a coin to meet the payment through the quote', async () => {
    const s = setup();
    s.state.verifyErrors.push(networkError()); // the resume check is slow to come back
    s.checkout.start();
    await settle();
    chooseCoin(s.checkout, 'DAI');
    await vi.advanceTimersByTimeAsync(5_000);
    expect(s.calls.initialize.map((b) => b.coin)).toEqual(['DAI']);
    expect(screen(s)).toBe('payment');
  });
});

describe('the screen shows the payment the API reports', () => {
  /** The coin drawn (contract, chain, decimals) is always the coin of the payment drawn. */
  function drawnCoinMatches(s: ReturnType<typeof setup>) {
    const view = s.checkout.view.value;
    if (view.screen === 'payment' || view.screen === 'partial' || view.screen === 'success' || view.screen === 'expired') {
      expect(view.coin.symbol).toBe(view.payment.coin);
    }
  }

  it('follows a re-quote to another coin made elsewhere: the new token, contract and chain', async () => {
    const s = setup();
    await toPayment(s, 'USDT');
    s.requoteElsewhere('USDC');
    await nextPoll(s, 'pending');
    const view = s.checkout.view.value;
    expect(view.screen === 'payment' && [view.payment.coin, view.coin.symbol, view.coin.chainId, view.coin.decimals]).toEqual(['USDC', 'USDC', 11155111, 6]);
    drawnCoinMatches(s);
  });

  it('never draws the old coin when a slow resume check returns after the customer picked another', async () => {
    const s = setup();
    s.state.exists = true; // an earlier USDT quote for this reference
    s.state.holdNextVerify = true; // the resume check at open is slow
    s.checkout.start();
    await settle();
    chooseCoin(s.checkout, 'DAI');
    await settle();
    drawnCoinMatches(s);
    s.releaseVerify(); // the old USDT answer arrives now
    await settle();
    drawnCoinMatches(s);
    await nextPoll(s, 'pending');
    const view = s.checkout.view.value;
    expect(view.screen === 'payment' && view.coin.symbol).toBe('DAI');
    drawnCoinMatches(s);
    await nextPoll(s, 'confirmed', 25.245);
    drawnCoinMatches(s);
  });
});

describe('long polling', () => {
  it('holds one request open and learns of a payment the moment the API answers', async () => {
    const s = setup();
    s.state.holds = true;
    await toPayment(s);
    await vi.advanceTimersByTimeAsync(20_000);
    expect(s.calls.verify).toBe(2); // the resume check at open (404), then one held request
    s.state.status = 'confirmed';
    s.state.paid = 25.245;
    s.notify();
    await settle();
    expect(screen(s)).toBe('success');
    expect(s.onSuccess).toHaveBeenCalledTimes(1);
    expect(s.calls.verify).toBe(2);
  });

  it('asks again at once when a long poll ends unchanged, about 2-3 times a minute', async () => {
    const s = setup();
    s.state.holds = true;
    await toPayment(s);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(s.calls.verify).toBe(4); // the resume check, then held at 0 s, 25 s and 50 s
  });

  it('falls back to plain polling when the API answers without waiting, instead of spinning', async () => {
    const s = setup();
    await toPayment(s); // this fake answers at once
    await vi.advanceTimersByTimeAsync(30_000);
    expect(s.calls.verify).toBe(12); // the resume check, the long poll at 0 s, then every 3 s
  });

  it('aborts the held request on close', async () => {
    const s = setup();
    s.state.holds = true;
    await toPayment(s);
    s.checkout.close();
    expect(s.held.size).toBe(0);
    expect(s.signals.every((signal) => signal.aborted)).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('expiry', () => {
  it('offers a fresh quote when nothing arrived, without calling onError', async () => {
    const s = setup();
    await toPayment(s);
    await nextPoll(s, 'expired');
    expect(s.checkout.view.value).toMatchObject({ screen: 'expired', canRequote: true });
    s.state.status = 'pending';
    s.checkout.requote();
    await settle();
    expect(screen(s)).toBe('payment');
    expect(s.calls.initialize).toHaveLength(2);
    expect(s.onError).not.toHaveBeenCalled();
  });

  it('reports payment_expired once, with what arrived, when part was paid and partial is not accepted', async () => {
    const s = setup();
    await toPayment(s);
    await nextPoll(s, 'expired', 5);
    expect(s.checkout.view.value).toMatchObject({ screen: 'expired', canRequote: false });
    s.checkout.requote();
    s.checkout.close();
    expect(s.order).toEqual(['error', 'close']);
    expect(s.onError.mock.calls[0][0]).toMatchObject({ code: 'payment_expired', transaction: { amountPaid: 5 } });
  });

  it('settles an accepted partial payment when the quote runs out: a success that says settled', async () => {
    const s = setup({ acceptPartialPayment: true });
    await toPayment(s);
    await nextPoll(s, 'expired', 5);
    await settle();
    expect(s.calls.settle).toBe(1);
    expect(screen(s)).toBe('success');
    expect(s.onSuccess).toHaveBeenCalledTimes(1);
    // The merchant hears it as the service records it: settled, not expired.
    expect(s.onSuccess.mock.calls[0][0]).toMatchObject({ status: 'settled', amountPaid: 5 });
  });

  it('asks the server at once when the countdown reaches zero', async () => {
    const s = setup();
    await toPayment(s);
    const before = s.calls.verify;
    await vi.advanceTimersByTimeAsync(600_000 + 1000);
    // polls at the 3 s pace plus the one the countdown triggered
    expect(s.calls.verify).toBeGreaterThan(before);
  });
});

describe('failures', () => {
  it('keeps the address up and says it is reconnecting when a status check fails: no onError', async () => {
    const s = setup();
    await toPayment(s);
    s.state.verifyErrors.push(networkError(), networkError());
    await vi.advanceTimersByTimeAsync(POLL_MS);
    expect(s.checkout.reconnecting.value).toBe(true);
    expect(screen(s)).toBe('payment');
    await vi.advanceTimersByTimeAsync(60_000);
    expect(s.checkout.reconnecting.value).toBe(false);
    await nextPoll(s, 'confirmed');
    expect(s.onError).not.toHaveBeenCalled();
    expect(s.onSuccess).toHaveBeenCalledTimes(1);
  });

  it('backs off while the network is down instead of hammering it', async () => {
    const s = setup();
    await toPayment(s);
    for (let i = 0; i < 20; i++) s.state.verifyErrors.push(networkError());
    const before = s.calls.verify;
    await vi.advanceTimersByTimeAsync(60_000);
    // Steps of 3, 6, 12, 15 s with equal jitter: at most 1.5, 3, 6, 7.5 s apart. Not 20.
    expect(s.calls.verify - before).toBeLessThanOrEqual(10);
  });

  it('gives up on initialize after its retries with onError network_error, and offers to try again', async () => {
    const s = await quoteWhileOffline();
    const view = s.checkout.view.value;
    expect(view).toMatchObject({ screen: 'error', error: { code: 'network_error' } });
    expect(view.screen === 'error' && typeof view.retry).toBe('function');
    expect(s.calls.initialize).toHaveLength(4); // the first try and three retries
    expect(s.onError).toHaveBeenCalledTimes(1);
    s.checkout.close();
    expect(s.order).toEqual(['error', 'close']);
  });

  it('still reports a payment confirmed after a retry that followed an error: onError, then onSuccess', async () => {
    const s = await quoteWhileOffline();
    const view = s.checkout.view.value;
    if (view.screen !== 'error' || !view.retry) throw new Error('expected a retry');
    view.retry();
    await settle();
    expect(screen(s)).toBe('payment');
    await nextPoll(s, 'confirmed', 25.245);
    s.checkout.close();
    expect(s.order).toEqual(['error', 'success', 'close']);
  });

  it('calls a 503 that outlasts the retries a network error the customer may retry', async () => {
    const s = setup();
    s.checkout.start();
    await settle();
    for (let i = 0; i < 4; i++) s.state.initializeErrors.push(httpError(503));
    chooseCoin(s.checkout, 'USDT');
    await vi.advanceTimersByTimeAsync(30_000);
    expect(s.checkout.view.value).toMatchObject({ screen: 'error', error: { code: 'network_error' }, retry: expect.any(Function) });
  });

  it('offers a retry when the coin list cannot be loaded, and loads it again', async () => {
    const s = setup();
    s.state.coinsErrors.push(networkError(), networkError(), networkError(), networkError());
    s.checkout.start();
    await vi.advanceTimersByTimeAsync(30_000);
    const view = s.checkout.view.value;
    if (view.screen !== 'error' || !view.retry) throw new Error('expected a retry');
    expect(view.error.code).toBe('network_error');
    view.retry();
    await settle();
    expect(s.checkout.view.value).toMatchObject({ screen: 'coins', coins: expect.any(Array) });
    expect(s.calls.coins).toBe(5);
    expect(s.onError).toHaveBeenCalledTimes(1);
  });

  it('reports an API refusal at once, without retrying it', async () => {
    const s = setup();
    s.checkout.start();
    await settle();
    s.state.initializeErrors.push(httpError(401));
    chooseCoin(s.checkout, 'USDT');
    await settle();
    expect(s.calls.initialize).toHaveLength(1);
    expect(s.onError.mock.calls[0][0]).toMatchObject({ code: 'api_error' });
    const view = s.checkout.view.value;
    expect(view.screen === 'error' && view.retry).toBe(undefined);
  });

  it('shows the payment that already received funds when a re-quote is refused with 409', async () => {
    const s = setup();
    s.checkout.start();
    await settle();
    s.state.initializeErrors.push(httpError(409));
    s.state.exists = true;
    s.state.status = 'incomplete';
    s.state.paid = 3;
    chooseCoin(s.checkout, 'USDT');
    await settle();
    expect(screen(s)).toBe('partial');
    expect(s.onError).not.toHaveBeenCalled();
  });

  it('reports payment_failed once when the service rejects the payment', async () => {
    const s = setup();
    await toPayment(s);
    s.state.status = 'failed';
    await vi.advanceTimersByTimeAsync(POLL_MS * 3);
    expect(s.onError).toHaveBeenCalledTimes(1);
    expect(s.onError.mock.calls[0][0].code).toBe('payment_failed');
  });
});

describe('closing', () => {
  it('mid-payment: aborts every request, clears every timer, calls onClose once and nothing after', async () => {
    const s = setup();
    await toPayment(s);
    s.checkout.close();
    expect(s.signals.every((signal) => signal.aborted)).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
    expect(s.unmount).toHaveBeenCalledTimes(1);
    s.state.status = 'confirmed';
    await vi.advanceTimersByTimeAsync(60_000);
    expect(s.order).toEqual(['close']);
    expect(s.onClose).toHaveBeenCalledWith({ reference: 'order-1', status: 'pending' });
  });

  it('while a status check is in flight: its late answer changes nothing', async () => {
    const s = setup();
    await toPayment(s);
    let release!: () => void;
    const original = s.api.verify;
    s.api.verify = (ref, signal) => new Promise((resolve) => (release = () => resolve(original(ref, signal))));
    await vi.advanceTimersByTimeAsync(POLL_MS);
    s.checkout.close();
    s.state.status = 'confirmed';
    release();
    await settle();
    expect(s.order).toEqual(['close']);
  });

  it('survives merchant callbacks that throw', async () => {
    const s = setup();
    s.onSuccess.mockImplementation(() => {
      throw new Error('merchant bug');
    });
    s.onClose.mockImplementation(() => {
      throw new Error('another');
    });
    await toPayment(s);
    await nextPoll(s, 'confirmed');
    expect(screen(s)).toBe('success');
    expect(() => s.checkout.close()).not.toThrow();
    expect(s.onClose).toHaveBeenCalledTimes(1);
    expect(console.error).toHaveBeenCalledWith('ServiceCheckout: your onSuccess callback threw', expect.any(Error));
  });

  it('before anything loaded: onClose with no status', () => {
    const s = setup();
    s.checkout.start();
    s.checkout.close();
    expect(s.onClose).toHaveBeenCalledWith({ reference: 'order-1', status: undefined });
  });
});

describe('sandbox', () => {
  it('simulates a deposit in test mode and looks at once', async () => {
    const s = setup();
    await toPayment(s);
    s.checkout.simulate('exact');
    s.state.status = 'confirmed';
    await settle();
    await settle();
    expect(s.calls.deposit).toBe(1);
    expect(screen(s)).toBe('success');
  });

  it('does nothing with a live key', async () => {
    const s = setup({ key: 'pk_live_harbour0demo0key' });
    await toPayment(s);
    s.checkout.simulate('exact');
    await settle();
    expect(s.calls.deposit).toBe(0);
  });
});
