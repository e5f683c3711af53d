// Test support only (not built into the package): an in-memory Api for state-machine tests: scripted answers, and every call recorded.
import type { Api } from '../api/client.ts';
import type { Checkout } from '../checkout/machine.ts';
import { ServiceError } from '../api/errors.ts';
import { parseOptions, type CheckoutOptions } from '../options/parse.ts';
import { paymentVersion, type Coin, type InitializeBody, type MerchantVerification, type Verification } from '../../contract/schemas.ts';
import { paymentUri } from '../../contract/payment-uri.ts';
import type { Signed } from '../payment/sign.ts';

const token = (n: number) => '0x' + n.toString(16).padStart(40, '0');
/** The test network's coins, as the service lists them (kept apart: src/ never imports the service). */
export const TEST_COINS: Coin[] = [
  { symbol: 'USDT', name: 'Tether USD', network: 'BNB Smart Chain Testnet', chainId: 97, contractAddress: token(0x5da7), decimals: 18, status: 'active' },
  { symbol: 'USDC', name: 'USD Coin', network: 'Ethereum Sepolia', chainId: 11155111, contractAddress: token(0x05dc), decimals: 6, status: 'active' },
  { symbol: 'BUSD', name: 'Binance USD', network: 'BNB Smart Chain Testnet', chainId: 97, contractAddress: token(0xb05d), decimals: 18, status: 'active' },
  { symbol: 'DAI', name: 'Dai', network: 'Ethereum Sepolia', chainId: 11155111, contractAddress: token(0xda1), decimals: 18, status: 'active' },
];

export const networkError = () => new ServiceError('network', 'GET test: the network failed');
export const httpError = (status: number) => new ServiceError('http', `test answered ${status}`, status);

export function fakeApi() {
  const calls = { coins: 0, initialize: [] as InitializeBody[], verify: 0, deposit: 0, settle: 0, qr: 0, relay: [] as Signed[] };
  const signals: AbortSignal[] = [];
  const state = {
    status: 'pending' as Verification['status'],
    paid: 0,
    due: 25.245,
    acceptPartialPayment: false,
    initializeErrors: [] as Error[],
    verifyErrors: [] as Error[],
    coinsErrors: [] as Error[],
    /** What the relay answers, in turn, before it takes a signature. */
    relayErrors: [] as Error[],
    /** Hold long polls like the real API (until notify(), the wait, or an abort); off: answer at once. */
    holds: false,
    /** Whether a transaction exists for the reference; verify answers 404 until one does. */
    exists: false,
    businessName: 'Harbour Coffee',
    businessLogo: '',
    /** What the service's QR code encodes, when not the payment's own URI (a wrong answer). */
    qrUri: undefined as string | undefined,
    /** Whether the service offers the sandbox's buttons (it does for test keys on a dev chain). */
    sandbox: true,
    /** A transfer seen on the chain, still confirming. */
    confirming: undefined as Verification['confirming'],
    /** How far the API's clock is ahead of the browser's, in ms. */
    skew: 0,
    /** When the quote ends, by the API's clock; ten minutes on from each answer when unset. */
    expiresAt: undefined as number | undefined,
    /** The networks' block explorer, when they have one. */
    explorer: '',
    /** Holds the next verify's answer, as it stands now, until releaseVerify(): a slow answer. */
    holdNextVerify: false,
    /** The coins listed: a symbol on a chain (one symbol on two chains is two coins). */
    coins: TEST_COINS,
  };
  let releaseHeld: (() => void) | undefined;
  /** Lets a held verify answer go (what it answers was decided when it was asked). */
  const releaseVerify = () => releaseHeld?.();
  /** The payment is re-quoted to another coin elsewhere (a second tab, the merchant). */
  const requoteElsewhere = (symbol: InitializeBody['coin'], on?: number) => {
    coin = symbol;
    chainId = on ?? state.coins.find((c) => c.symbol === symbol)!.chainId;
    quoted = Date.now() + state.skew;
    notify();
  };
  const held = new Set<() => void>();
  /** Wakes every held long poll, as the API does when a payment changes. */
  const notify = () => [...held].forEach((wake) => wake());
  let coin: InitializeBody['coin'] = 'USDT';
  /** The payment's chain, as the service answers it: the one initialize named, or its coin's only one. */
  let chainId = 97;
  /** When the current quote was made, by the API's clock: its expiry is ten minutes on. */
  let quoted = Date.now();
  /**
   * Every answer that carries a payment (a quote, a status) is numbered as the API makes it, in
   * `metadata.seq`, so a test can tell a stale answer from a fresh one.
   */
  let made = 0;

  const verification = (): MerchantVerification => ({
    reference: calls.initialize.at(-1) ? String(calls.initialize.at(-1)!.reference) : 'ref',
    address: '0x' + 'ab'.repeat(20),
    coin,
    network: 'testnet',
    chainId,
    status: state.status,
    actualAmount: state.due,
    amountPaid: state.paid,
    amountRemaining: Math.max(0, Number((state.due - state.paid).toFixed(6))),
    fiatAmount: 25,
    currency: 'USD',
    feeInCrypto: 0.25,
    acceptPartialPayment: state.acceptPartialPayment,
    hash: state.paid > 0 ? '0x' + 'cd'.repeat(32) : null,
    expiresAt: new Date(state.expiresAt ?? quoted + 600_000).toISOString(),
    customer: { name: 'Ada', email: 'ada@example.com' },
    metadata: { seq: ++made },
    ...(state.confirming && { confirming: state.confirming }),
  });

  const api: Api = {
    async coins(signal) {
      calls.coins++;
      signals.push(signal);
      const error = state.coinsErrors.shift();
      if (error) throw error;
      return {
        coins: state.coins.map((c) => ({ ...c, due: state.due, fee: 0.25, ...(state.explorer ? { explorer: state.explorer } : {}) })),
        business: { name: state.businessName, email: 'shop@example.com', logo: state.businessLogo },
        sandbox: state.sandbox,
      };
    },
    async initialize(body, signal) {
      calls.initialize.push(body);
      signals.push(signal);
      const error = state.initializeErrors.shift();
      if (error) throw error;
      coin = body.coin;
      chainId = body.chain_id ?? state.coins.find((c) => c.symbol === body.coin)!.chainId;
      quoted = Date.now() + state.skew;
      state.exists = true;
      state.acceptPartialPayment = body.accept_partial_payment ?? false;
      const v = verification();
      // As the service: the quote is the payment's state, as verify gives it (here with the
      // fake's metadata, whose seq numbers it).
      return v;
    },
    async verify(_reference, signal, wait) {
      calls.verify++;
      signals.push(signal);
      const error = state.verifyErrors.shift();
      if (error) throw error;
      if (!state.exists) throw new ServiceError('http', 'GET verify answered 404: No transaction', 404);
      if (state.holdNextVerify) {
        state.holdNextVerify = false;
        const answer = verification();
        await new Promise<void>((resolve) => (releaseHeld = resolve));
        return answer;
      }
      if (state.holds && wait && paymentVersion(verification()) === wait.since) {
        await new Promise<void>((resolve, reject) => {
          const wake = () => {
            clearTimeout(timer);
            held.delete(wake);
            resolve();
          };
          const timer = setTimeout(wake, wait.seconds * 1000);
          held.add(wake);
          signal.addEventListener('abort', () => {
            clearTimeout(timer);
            held.delete(wake);
            reject(new DOMException('aborted', 'AbortError'));
          });
        });
      }
      return verification();
    },
    async settle(_reference, signal) {
      calls.settle++;
      signals.push(signal);
      // As the service (assertSettles): something arrived, less than due, before or after expiry.
      if ((state.status === 'incomplete' || (state.status === 'expired' && state.paid > 0)) && state.acceptPartialPayment) state.status = 'settled';
      else throw new ServiceError('http', 'POST settle answered 409', 409);
      notify();
      return verification();
    },
    async qr(_reference, signal) {
      calls.qr++;
      signals.push(signal);
      // The URI the payment screen computes, with a 1-module "code": the service draws real ones.
      const v = verification();
      const coin = state.coins.find((c) => c.symbol === v.coin && c.chainId === v.chainId)!;
      return { uri: state.qrUri ?? paymentUri(coin, v.address, v.amountRemaining), size: 21, path: 'M0 0h7v1h-7z' };
    },
    async relay(_reference, body, signal) {
      calls.relay.push(body);
      signals.push(signal);
      const error = state.relayErrors.shift();
      if (error) throw error;
      return { chainId, txHash: '0x' + 'ef'.repeat(32), relayedByUs: true };
    },
    async deposit(_reference, _kind, signal) {
      calls.deposit++;
      signals.push(signal);
      return verification();
    },
    now: () => Date.now() + state.skew,
  };
  return { api, calls, state, signals, notify, held, releaseVerify, requoteElsewhere, verification };
}

export function options(overrides: Record<string, unknown> = {}): CheckoutOptions {
  const result = parseOptions({
    key: 'pk_test_harbour0demo0key',
    amount: 25,
    currency: 'USD',
    name: 'Ada Lovelace',
    email: 'ada@example.com',
    reference: 'order-1',
    apiBase: 'http://127.0.0.1:1',
    ...overrides,
  });
  if (!result.ok) throw new Error(result.error.message);
  return result.options;
}

/**
 * Chooses the listed coin of `symbol` (on `chainId`, else its first chain) as the coin screen's
 * button does; one the screen does not list is a coin of nowhere, which the checkout ignores.
 */
export function chooseCoin(checkout: Checkout, symbol: string, chainId?: number): void {
  const view = checkout.view.value;
  const listed = view.screen === 'coins' ? view.coins?.find((c) => c.symbol === symbol && (chainId ?? c.chainId) === c.chainId) : undefined;
  checkout.chooseCoin(listed ?? { ...TEST_COINS[0]!, symbol: symbol as Coin['symbol'] });
}
