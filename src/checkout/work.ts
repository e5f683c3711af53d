// The work the checkout's states start: the coin list, resuming a known reference, the quote,
// the status watch and its countdown, settling, a browser wallet's payment. Each piece takes
// what it needs, answers with events through `post`, and stops when its AbortSignal aborts
// (the state that started it was left). The checkout's state lives in the runtime (machine.ts).
import type { Signal } from '@preact/signals-core';
import type { Api } from '../api/client.ts';
import { ServiceError } from '../api/errors.ts';
import { retryDelay, temporary, withRetry } from '../api/retry.ts';
import type { CheckoutOptions } from '../options/parse.ts';
import { paymentVersion, type Coin, type InitializeBody, type Qr, type Verification } from '../../contract/schemas.ts';
import { baseUnits, paymentUri } from '../../contract/payment-uri.ts';
import { payFromWallet, type FoundWallet } from '../payment/wallet.ts';
import { signTransfer } from '../payment/sign.ts';
import type { Customer, Env, Event, ScreenError } from './table.ts';

/**
 * The payment screen long-polls: each status check asks the API to hold it up to
 * LONG_POLL_SECONDS until something changes, so a payment shows within a round trip at
 * ~2-3 requests a minute. An API that answers "unchanged" early is not waiting; the
 * checkout then polls plainly every POLL_MS. Failed checks back off up to POLL_MAX_MS.
 */
export const LONG_POLL_SECONDS = 25;
export const POLL_MS = 3_000;
export const POLL_MAX_MS = 15_000;

/** How work answers: an event for the table (dropped once the state that started the work is left). */
export type Post = (event: Event) => void;

/** A failure as the error screen shows it: a temporary one that outlasted the retries is a network error, which may pass. */
export function screenError(error: unknown): ScreenError {
  if (error instanceof ServiceError) {
    if (temporary(error)) return { code: 'network_error', message: error.message };
    if (error.kind === 'shape') return { code: 'bad_response', message: error.message };
    return { code: 'api_error', message: error.message, fields: error.fields };
  }
  return { code: 'bad_response', message: String(error) };
}

/**
 * The coin list, asked once for the checkout's life (`signal`), and again after a failure.
 * `loaded` learns the whole answer (who is paid, the sandbox) before anyone waiting on it.
 */
export function coinLoader(api: Api, options: CheckoutOptions, signal: AbortSignal, loaded: (answer: Awaited<ReturnType<Api['coins']>>) => void) {
  let list: Promise<Coin[]> | undefined;
  return (): Promise<Coin[]> => {
    list ??= withRetry(() => api.coins(signal, options), signal).then((answer) => (loaded(answer), answer.coins));
    list.catch(() => (list = undefined));
    return list;
  };
}

/**
 * The work of the ways in (details, coins). Opened again on a reference (closed mid-payment,
 * the page reloaded), its payment is shown instead of a new quote; a customer who went on
 * meets the payment through the quote. A 404 is simply a new reference, not asked about again.
 */
export function resumer(api: Api, options: CheckoutOptions, loadCoins: () => Promise<Coin[]>) {
  /** The reference may already have a payment: the merchant gave it, and the API has not said 404. */
  let known = options.resumable;
  return (post: Post, signal: AbortSignal) => {
    if (!known) return;
    withRetry(() => api.verify(options.reference, signal), signal)
      .then(async (payment) => (await loadCoins(), post({ type: 'resumed', payment })))
      .catch((error) => {
        if (error instanceof ServiceError && error.status === 404) known = false;
      });
  };
}

/** What initialize is sent: the quote for `coin`, naming the customer. */
export const initializeBody = (options: CheckoutOptions, coin: Coin, customer: Customer): InitializeBody => ({
  reference: options.reference,
  coin: coin.symbol,
  chain_id: coin.chainId,
  currency: options.currency,
  amount: options.amount,
  customer_name: customer.name,
  customer_email: customer.email,
  accept_partial_payment: options.acceptPartialPayment ?? false,
  metadata: options.metadata,
});

/** The quoting state's work: the quote for the coin chosen, naming the customer, read as a payment. */
export async function quote(
  api: Api,
  options: CheckoutOptions,
  { coin, customer }: { coin: Coin; customer: Customer },
  signal: AbortSignal,
): Promise<Verification> {
  try {
    return await withRetry(() => api.initialize(initializeBody(options, coin, customer), signal), signal);
  } catch (error) {
    // 409: this reference already received funds, so it cannot be re-quoted. Show that
    // payment instead of an error: nothing the customer sent may be lost from view.
    if (error instanceof ServiceError && error.status === 409) return withRetry(() => api.verify(options.reference, signal), signal);
    throw error;
  }
}

/** The settling state's work: the service settles the partial payment, so the merchant sees it too (verify, a webhook). */
export const settle = (api: Api, reference: string, signal: AbortSignal) => withRetry(() => api.settle(reference, signal), signal);

/**
 * The QR code of what is still due, asked of the service once for each URI; one that could
 * not be had is asked again with the next status answer.
 */
function qrDrawer(api: Api, reference: string, coin: Env['coin'], qr: Signal<Qr | undefined>, signal: AbortSignal) {
  let asked = '';
  return (payment: Verification) => {
    const uri = paymentUri(coin(payment)!, payment.address, payment.amountRemaining);
    if (uri === asked || uri === qr.value?.uri) return;
    asked = uri;
    withRetry(() => api.qr(reference, signal), signal).then(
      (answer) => answer.uri === uri && (qr.value = answer),
      () => (asked = ''),
    );
  };
}

/**
 * The watching state's work: the status watch (long polls, one at a time), the countdown on
 * `now`, and the QR code. Made once per checkout: whether the API really holds a long poll
 * is learnt once. While a watch runs it is in `checks`: calling it asks for a status now
 * (a sandbox deposit, a wallet's transfer).
 */
export function statusWatch(api: Api, reference: string, coin: Env['coin'], qr: Signal<Qr | undefined>, now: Signal<number>, checks: Set<() => void>) {
  let longPoll = true;
  return (first: Verification, post: Post, signal: AbortSignal) => {
    const drawQr = qrDrawer(api, reference, coin, qr, signal);
    let latest = first;
    let failures = 0;
    let expiryAsked = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let ticker: ReturnType<typeof setTimeout> | undefined;
    let asking = false;
    const schedule = (ms: number) => {
      clearTimeout(timer);
      timer = setTimeout(ask, ms);
    };
    const checkNow = () => asking || schedule(0);
    async function ask() {
      if (asking || signal.aborted) return;
      asking = true;
      const since = paymentVersion(latest);
      const wait = longPoll ? { seconds: LONG_POLL_SECONDS, since } : undefined;
      const asked = Date.now();
      try {
        const payment = await api.verify(reference, signal, wait);
        asking = false;
        failures = 0;
        if (wait && paymentVersion(payment) === since && Date.now() - asked < (LONG_POLL_SECONDS - 5) * 1000) {
          longPoll = false; // it answered "unchanged" without waiting: poll plainly, never spin
        }
        latest = payment;
        post({ type: 'status', payment });
        if (!signal.aborted) drawQr(payment);
        if (!signal.aborted) schedule(longPoll ? 0 : POLL_MS);
      } catch (error) {
        asking = false;
        if (signal.aborted) return;
        // A failed check is not a failed payment: keep the address up and try again, slower.
        post({ type: 'lost' });
        schedule(retryDelay(error, failures++, Math.random, POLL_MS, POLL_MAX_MS) ?? POLL_MAX_MS);
      }
    }
    function tick() {
      now.value = api.now();
      const left = Date.parse(latest.expiresAt) - now.value;
      // The server decides expiry; ask it now rather than waiting for the next poll.
      if (left <= 0 && !expiryAsked) {
        expiryAsked = true;
        checkNow();
      }
      // The countdown shows whole seconds rounded up: tick just after each one runs out.
      ticker = setTimeout(tick, (((left % 1000) + 1000) % 1000) + 5);
    }
    // The browser knows before any request fails: say so at once, and ask again the moment
    // the network is back rather than at the end of a backoff.
    const onNetwork = () => (navigator.onLine ? checkNow() : post({ type: 'lost' }));
    const whileWatching = { signal };
    globalThis.addEventListener?.('online', onNetwork, whileWatching);
    globalThis.addEventListener?.('offline', onNetwork, whileWatching);
    checks.add(checkNow);
    signal.addEventListener('abort', () => (clearTimeout(timer), clearTimeout(ticker), checks.delete(checkNow)));
    schedule(longPoll ? 0 : POLL_MS);
    tick();
    drawQr(first);
  };
}

/**
 * Pays `payment` from a browser wallet (switch chain, send the token transfer), then answers
 * walletSent and calls `sent` (to look for it now), or walletFailed with why.
 */
export function payFromBrowserWallet(wallet: FoundWallet, coin: Coin, payment: Verification, post: Post, sent: () => void) {
  payFromWallet(wallet.provider, coin.chainId, coin.contractAddress, payment.address, baseUnits(payment.amountRemaining, coin)).then(
    () => {
      post({ type: 'walletSent' });
      sent();
    },
    (error: { code?: number }) => {
      console.warn('ServiceCheckout: the wallet did not pay', error);
      post({ type: 'walletFailed', reason: error?.code === 4001 ? 'declined' : error?.code === 4902 ? 'chain' : 'failed' });
    },
  );
}

/**
 * Pays `payment` with one signature: the wallet signs a transfer of what is due to the deposit
 * address, valid until the quote's end, and the service relays it (the same signature again
 * while it answers "busy"). Then walletSent and `sent`, as a transfer; a refusal, of the
 * wallet or the service (a 4xx naming a field, a cap, no gas wallet), is walletFailed: declined
 * (try again) or refused (pay with a transfer).
 */
export function payBySignature(api: Api, wallet: FoundWallet, coin: Coin, payment: Verification, post: Post, sent: () => void, signal: AbortSignal) {
  signTransfer(wallet.provider, coin, payment.address, baseUnits(payment.amountRemaining, coin), Math.floor(Date.parse(payment.expiresAt) / 1000))
    .then((body) => withRetry(() => api.relay(payment.reference, body, signal), signal))
    .then(
      () => {
        post({ type: 'walletSent' });
        sent();
      },
      (error: { code?: number }) => {
        console.warn('ServiceCheckout: no payment by signature', error);
        post({ type: 'walletFailed', reason: error?.code === 4001 ? 'declined' : 'refused' });
      },
    );
}
