// @vitest-environment happy-dom
// Paying from a browser wallet (EIP-6963 announces it, EIP-1193 sends): the runtime starts
// the payment as the state begins asking the wallet, once however often the button is pressed.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fakeApi, options, TEST_COINS, chooseCoin } from '../testing/fake-api.ts';
import { createCheckout } from './machine.ts';

/** A wallet on the page: it answers each request with `answer`, and records them. */
function announceWallet(answer: (method: string) => Promise<unknown>) {
  const requests: Array<{ method: string; params?: unknown[] }> = [];
  const provider = {
    request(args: { method: string; params?: unknown[] }) {
      requests.push(args);
      return answer(args.method);
    },
  };
  window.dispatchEvent(new CustomEvent('eip6963:announceProvider', { detail: { info: { name: 'Test Wallet' }, provider } }));
  return requests;
}

const usdt = TEST_COINS.find((c) => c.symbol === 'USDT')!;
const sends = (requests: Array<{ method: string; params?: unknown[] }>) => requests.filter((r) => r.method === 'eth_sendTransaction');

async function watching() {
  const fake = fakeApi();
  const checkout = createCheckout(options(), fake.api);
  checkout.start();
  await vi.advanceTimersByTimeAsync(0);
  chooseCoin(checkout, 'USDT');
  await vi.advanceTimersByTimeAsync(0);
  expect(checkout.view.value.screen).toBe('payment');
  return { ...fake, checkout, wallet: () => (checkout.state.value as { wallet?: string }).wallet };
}

beforeEach(() => {
  vi.useFakeTimers();
  vi.spyOn(console, 'warn').mockImplementation(() => {});
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('paying from a browser wallet', () => {
  it('sends one transfer however often the button is pressed, then asks for the status at once', async () => {
    const s = await watching();
    let sent!: (hash: string) => void;
    const requests = announceWallet(async (method) => {
      if (method === 'eth_requestAccounts') return ['0x' + '11'.repeat(20)];
      if (method === 'eth_chainId') return '0x' + usdt.chainId.toString(16);
      return new Promise((resolve) => (sent = resolve));
    });
    expect(s.checkout.wallets.value.map((w) => w.name)).toEqual(['Test Wallet']);
    s.checkout.payWith(0);
    s.checkout.payWith(0);
    await vi.advanceTimersByTimeAsync(0);
    expect(s.wallet()).toBe('asking');
    expect(sends(requests)).toHaveLength(1);
    const [transfer] = sends(requests)[0]!.params as Array<{ to: string; data: string }>;
    expect(transfer!.to).toBe(usdt.contractAddress);
    expect(transfer!.data.startsWith('0xa9059cbb')).toBe(true);
    const before = s.calls.verify;
    sent('0xhash');
    await vi.advanceTimersByTimeAsync(0);
    expect(s.wallet()).toBe('sent');
    expect(s.calls.verify).toBeGreaterThan(before); // not at the next poll: now
    s.checkout.close();
  });

  it('says the customer declined, and lets them try again', async () => {
    const s = await watching();
    const requests = announceWallet(async (method) => {
      if (method === 'eth_requestAccounts') throw Object.assign(new Error('User rejected'), { code: 4001 });
      return undefined;
    });
    s.checkout.payWith(0);
    await vi.advanceTimersByTimeAsync(0);
    expect(s.wallet()).toBe('declined');
    s.checkout.payWith(0);
    expect(s.wallet()).toBe('asking');
    await vi.advanceTimersByTimeAsync(0);
    expect(requests.filter((r) => r.method === 'eth_requestAccounts')).toHaveLength(2);
    s.checkout.close();
  });
});
