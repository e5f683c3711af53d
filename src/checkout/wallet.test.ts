// @vitest-environment happy-dom
// Paying from a browser wallet (EIP-6963 announces it, EIP-1193 sends): the runtime starts
// the payment as the state begins asking the wallet, once however often the button is pressed.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fakeApi, options, TEST_COINS, chooseCoin } from '../testing/fake-api.ts';
import { createCheckout } from './machine.ts';
import { ServiceError } from '../api/errors.ts';

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

/** The payment screen of a payment in `symbol`, the coins listed as `coins` gives them. */
async function watching(symbol = 'USDT', coins = TEST_COINS) {
  const fake = fakeApi();
  fake.state.coins = coins;
  const checkout = createCheckout(options(), fake.api);
  checkout.start();
  await vi.advanceTimersByTimeAsync(0);
  chooseCoin(checkout, symbol);
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

describe('paying with one signature', () => {
  const payer = '0x' + '12'.repeat(20);
  /** A payment in USDC, which the service says signs; `balance`: what the connected wallet holds of it. */
  async function signable(balance: bigint, signs = true) {
    const s = await watching(
      'USDC',
      TEST_COINS.map((c) => (c.symbol === 'USDC' && signs ? { ...c, signs: { name: 'USD Coin', version: '2' } } : c)),
    );
    const usdc = s.state.coins.find((c) => c.symbol === 'USDC')!;
    let signed!: (signature: string) => void;
    let declined!: (error: unknown) => void;
    const requests = announceWallet(async (method) => {
      if (method === 'eth_accounts' || method === 'eth_requestAccounts') return [payer];
      if (method === 'eth_chainId') return '0x' + usdc.chainId.toString(16);
      if (method === 'eth_call') return '0x' + balance.toString(16).padStart(64, '0');
      if (method === 'eth_signTypedData_v4') return new Promise((resolve, reject) => ((signed = resolve), (declined = reject)));
      return '0xhash';
    });
    await vi.advanceTimersByTimeAsync(0);
    return {
      ...s,
      requests,
      sign: (signature: string) => signed(signature),
      decline: () => declined(Object.assign(new Error('User rejected'), { code: 4001 })),
    };
  }

  it('a wallet holding what is due signs once; the service relays it, and the status is asked for at once', async () => {
    const s = await signable(25_245_000n);
    expect(s.checkout.signers.value).toEqual([0]);
    s.checkout.signWith(0);
    s.checkout.signWith(0);
    s.checkout.payWith(0); // no transfer while a signature is asked for
    await vi.advanceTimersByTimeAsync(0);
    expect(s.wallet()).toBe('signing');
    const asked = s.requests.filter((r) => r.method === 'eth_signTypedData_v4');
    expect(asked).toHaveLength(1);
    expect(s.requests.some((r) => r.method === 'eth_sendTransaction')).toBe(false);
    const typed = JSON.parse((asked[0]!.params as string[])[1]!);
    const expiresAt = Date.parse(s.verification().expiresAt);
    expect(typed.message).toMatchObject({
      from: payer,
      to: '0x' + 'ab'.repeat(20),
      value: '25245000',
      validAfter: '0',
      validBefore: String(Math.floor(expiresAt / 1000)),
    });
    expect(typed.domain).toEqual({ name: 'USD Coin', version: '2', chainId: 11155111, verifyingContract: TEST_COINS[1]!.contractAddress });
    const before = s.calls.verify;
    s.sign('0x' + '1b'.repeat(65));
    await vi.advanceTimersByTimeAsync(0);
    expect(s.calls.relay).toEqual([{ chain_id: 11155111, authorization: typed.message, signature: '0x' + '1b'.repeat(65) }]);
    expect(s.wallet()).toBe('sent');
    expect(s.calls.verify).toBeGreaterThan(before);
    s.checkout.close();
  });

  it.each([
    [400, 'authorization.value'],
    [409, 'gas.payment_cap'],
  ])('a refusal by the service (%i naming %s) says so and leaves the transfer: the signature is not offered again', async (status, field) => {
    const s = await signable(25_245_000n);
    expect(s.checkout.signers.value).toEqual([0]);
    s.state.relayErrors.push(new ServiceError('http', `POST relay answered ${status}: ${field}`, status, [{ field, message: 'refused' }]));
    s.checkout.signWith(0);
    await vi.advanceTimersByTimeAsync(0);
    s.sign('0x' + '1b'.repeat(65));
    await vi.advanceTimersByTimeAsync(0);
    expect(s.calls.relay).toHaveLength(1);
    expect(s.wallet()).toBe('refused');
    expect(s.checkout.signers.value).toEqual([]);
    s.checkout.payWith(0);
    await vi.advanceTimersByTimeAsync(0);
    expect(s.requests.filter((r) => r.method === 'eth_sendTransaction')).toHaveLength(1);
    s.checkout.close();
  });

  it('declined in the wallet: said so, and the signature is still offered', async () => {
    const s = await signable(25_245_000n);
    s.checkout.signWith(0);
    await vi.advanceTimersByTimeAsync(0);
    s.decline(); // as EIP-1193 says it: code 4001
    await vi.advanceTimersByTimeAsync(0);
    expect(s.wallet()).toBe('declined');
    expect(s.calls.relay).toEqual([]);
    expect(s.checkout.signers.value).toEqual([0]);
    s.checkout.signWith(0);
    await vi.advanceTimersByTimeAsync(0);
    expect(s.wallet()).toBe('signing');
    expect(s.requests.filter((r) => r.method === 'eth_signTypedData_v4')).toHaveLength(2);
    s.checkout.close();
  });

  it('a wallet holding less than is due, or a coin that does not sign, is offered the transfer only', async () => {
    const poor = await signable(25_244_999n);
    expect(poor.checkout.signers.value).toEqual([]);
    poor.checkout.close();
    const plain = await signable(10n ** 12n, false);
    expect(plain.checkout.signers.value).toEqual([]);
    expect(plain.requests.some((r) => r.method === 'eth_call')).toBe(false);
    plain.checkout.close();
  });
});
