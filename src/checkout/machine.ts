import { signal, type ReadonlySignal } from '@preact/signals-core';
import type { Api } from '../api/client.ts';
import { ApiError, isAbort } from '../api/errors.ts';
import { retryDelay, withRetry } from '../api/retry.ts';
import type { CheckoutOptions } from '../options/parse.ts';
import { email as emailField, personName } from '../wire/fields.ts';
import { paymentVersion, type Coin, type DepositKind, type Transaction, type Verification } from '../wire/schemas.ts';
import type { CheckoutError, ErrorCode } from './errors.ts';

/** The failures that reach the error screen: options are refused before the modal opens, and expiry has a screen of its own. */
export type ScreenErrorCode = Exclude<ErrorCode, 'invalid_options' | 'secret_key' | 'payment_expired'>;

/**
 * The payment screen long-polls: each status check asks the API to hold it up to
 * LONG_POLL_SECONDS until something changes, so a payment shows within a round trip at
 * ~2-3 requests a minute. An API that answers "unchanged" early is not waiting; the
 * checkout then polls plainly every POLL_MS. Failed checks back off up to POLL_MAX_MS.
 */
export const LONG_POLL_SECONDS = 25;
export const POLL_MS = 3_000;
export const POLL_MAX_MS = 15_000;

/** What the modal shows. Only the machine changes it; components render it. */
export type View =
  | { screen: 'details'; needName: boolean; needEmail: boolean }
  | { screen: 'coins'; coins?: Coin[] }
  | { screen: 'quoting'; coin: Coin }
  | { screen: 'payment'; coin: Coin; payment: Verification }
  | { screen: 'partial'; coin: Coin; payment: Verification }
  | { screen: 'success'; coin: Coin; payment: Verification }
  | { screen: 'expired'; coin: Coin; payment: Verification; canRequote: boolean }
  | { screen: 'error'; error: CheckoutError & { code: ScreenErrorCode }; retry?: () => void }
  | { screen: 'closed' };

export interface Checkout {
  readonly options: CheckoutOptions;
  readonly view: ReadonlySignal<View>;
  /** The open quote: business name, rates. */
  readonly quote: ReadonlySignal<Transaction | undefined>;
  /** A status check failed; the payment screen stays and keeps trying. */
  readonly reconnecting: ReadonlySignal<boolean>;
  /** The time by the API's clock (expiresAt is the API's), ticking each second while a quote is open. */
  readonly now: ReadonlySignal<number>;
  /** The customer asked to close while a payment is open: the modal asks them first. */
  readonly leaving: ReadonlySignal<boolean>;
  /** Details the customer still has to correct. */
  readonly wrong: ReadonlySignal<Array<'name' | 'email'>>;
  /** The value last put on the clipboard, so its button can say so. */
  readonly copied: ReadonlySignal<string | undefined>;
  start(): void;
  /** Moves on when both are right; otherwise `wrong` names what to correct. */
  submitDetails(name: string, email: string): void;
  markCopied(value: string): void;
  chooseCoin(symbol: string): void;
  changeCoin(): void;
  requote(): void;
  finishPartial(): void;
  simulate(kind: DepositKind): void;
  /** Closes, unless a payment is open: then `leaving` asks first, and close() confirms. */
  askClose(): void;
  /** Stays: the question goes away. */
  stay(): void;
  close(): void;
}

function failure(error: unknown): CheckoutError & { code: ScreenErrorCode } {
  if (error instanceof ApiError) {
    // A 5xx or 429 that outlasted the retries is the service out of reach, not a refusal.
    if (error.kind === 'network' || error.status >= 500 || error.status === 429 || error.status === 408) {
      return { code: 'network_error', message: error.message };
    }
    if (error.kind === 'shape') return { code: 'bad_response', message: error.message };
    return { code: 'api_error', message: error.message, fields: error.fields };
  }
  return { code: 'bad_response', message: String(error) };
}

const retriable = (error: CheckoutError) => error.code === 'network_error' || error.code === 'bad_response';

/** A quote seen as a status, so that every payment screen renders one shape. */
const quoteAsPayment = (quote: Transaction, reference: string): Verification => ({
  ...quote,
  reference,
  status: 'pending',
  actualAmount: quote.cryptoAmount,
  amountPaid: 0,
  amountRemaining: quote.cryptoAmount,
  hash: null,
  customer: { name: quote.customerName, email: quote.customerEmail },
  metadata: null,
});

export function createCheckout(options: CheckoutOptions, api: Api, onClosed: () => void = () => {}): Checkout {
  const view = signal<View>({ screen: 'coins' });
  const quote = signal<Transaction | undefined>(undefined);
  const reconnecting = signal(false);
  const now = signal(api.now());
  const leaving = signal(false);
  const wrong = signal<Array<'name' | 'email'>>([]);
  const copied = signal<string | undefined>(undefined);
  const life = new AbortController();
  const timers = new Set<ReturnType<typeof setTimeout>>();
  const customer = { name: options.name, email: options.email };

  let closed = false;
  let coinList: Promise<Coin[]> | undefined;
  /**
   * Every coin the API listed, inactive ones included, by symbol. What is drawn is always
   * the coin of the payment being drawn, looked up here: never a coin remembered from an
   * earlier choice, which a re-quote elsewhere or a late answer could have made stale.
   */
  let coinsBySymbol = new Map<string, Coin>();
  let latest: Verification | undefined;
  /** Bumped whenever watching starts or stops, so a late answer of an old watch is ignored. */
  let watch = 0;
  let watchAbort: AbortController | undefined;
  let pollTimer: ReturnType<typeof setTimeout> | undefined;
  let tickTimer: ReturnType<typeof setTimeout> | undefined;
  let polling = false;
  let longPoll = true;
  let failures = 0;
  let expiryChecked = false;
  let succeeded = false;
  let errored = false;
  /** A settle request is under way: a second click sends no second one. */
  let settling = false;

  function later(run: () => void, ms: number) {
    const timer = setTimeout(() => {
      timers.delete(timer);
      if (!closed) run();
    }, ms);
    timers.add(timer);
    return timer;
  }
  function cancel(timer: ReturnType<typeof setTimeout> | undefined) {
    if (timer === undefined) return;
    clearTimeout(timer);
    timers.delete(timer);
  }

  function tell<A>(name: string, callback: ((arg: A) => void) | undefined, arg: A) {
    try {
      callback?.(arg);
    } catch (error) {
      // A merchant's callback that throws must not take the checkout down with it.
      console.error(`ServiceCheckout: your ${name} callback threw`, error);
    }
  }

  /** At most once, and never after a success. */
  function reportError(error: CheckoutError) {
    if (succeeded || errored) return;
    errored = true;
    tell('onError', options.onError, error);
  }

  /** Reports the failure at once; a passing kind keeps a "Try again" that starts a new attempt. */
  function fail(error: CheckoutError & { code: ScreenErrorCode }, retry?: () => void) {
    stopWatching();
    view.value = { screen: 'error', error, retry: retry && retriable(error) ? retry : undefined };
    reportError(error);
  }

  /** At most once. Never held back by an earlier error: a confirmed payment is always told. */
  function succeed(payment: Verification, shown: Coin) {
    stopWatching();
    view.value = { screen: 'success', coin: shown, payment };
    if (succeeded) return;
    succeeded = true;
    tell('onSuccess', options.onSuccess, payment);
  }

  function loadCoins(): Promise<Coin[]> {
    coinList ??= withRetry(() => api.coins(life.signal), life.signal).then((list) => {
      coinsBySymbol = new Map(list.map((c) => [c.symbol, c]));
      return list.filter((c) => c.status === 'active');
    });
    return coinList;
  }

  async function showCoins() {
    view.value = { screen: 'coins' };
    try {
      const coins = await loadCoins();
      if (!closed && view.value.screen === 'coins') view.value = { screen: 'coins', coins };
    } catch (error) {
      coinList = undefined;
      if (!closed && !isAbort(error)) fail(failure(error), showCoins);
    }
  }

  function chooseCoin(symbol: string) {
    // Decided synchronously, so a double click cannot start two quotes.
    const current = view.value;
    const picked =
      current.screen === 'coins' ? current.coins?.find((c) => c.symbol === symbol)
      : current.screen === 'expired' && current.coin.symbol === symbol ? current.coin
      : undefined;
    if (picked) void quoteWith(picked);
  }

  async function quoteWith(picked: Coin) {
    stopWatching();
    leaving.value = false; // a question about the last quote is not one about this one
    view.value = { screen: 'quoting', coin: picked };
    try {
      const body = {
        reference: options.reference,
        coin: picked.symbol,
        currency: options.currency,
        amount: options.amount,
        customer_name: customer.name,
        customer_email: customer.email,
        accept_partial_payment: options.acceptPartialPayment ?? false,
        metadata: options.metadata,
      };
      const opened = await withRetry(() => api.initialize(body, life.signal), life.signal);
      if (closed) return;
      quote.value = opened;
      startWatching(quoteAsPayment(opened, options.reference));
    } catch (error) {
      if (closed || isAbort(error)) return;
      // 409: this reference already received funds, so it cannot be re-quoted. Show that
      // payment instead of an error: nothing the customer sent may be lost from view.
      if (error instanceof ApiError && error.status === 409) return resume(false);
      fail(failure(error), () => void quoteWith(picked));
    }
  }

  /**
   * Shows the payment this reference already has: when the checkout opens again on the
   * same reference (closed mid-payment, or the page reloaded), and when a re-quote is
   * refused because funds arrived. A payment confirmed meanwhile is told then.
   */
  async function resume(atOpen: boolean) {
    try {
      const payment = await withRetry(() => api.verify(options.reference, life.signal), life.signal);
      await loadCoins();
      const screen = view.value.screen;
      // At open, a customer who already went on to a quote meets this payment through it.
      if (closed || (atOpen && screen !== 'details' && screen !== 'coins')) return;
      if (coinsBySymbol.has(payment.coin)) startWatching(payment);
      else if (!atOpen) fail({ code: 'bad_response', message: `coin ${payment.coin} is not offered` });
    } catch (error) {
      // At open, a 404 is simply a new reference; anything else leaves the usual way in.
      if (!atOpen && !closed && !isAbort(error)) fail(failure(error), () => void resume(false));
    }
  }

  function startWatching(payment: Verification) {
    stopWatching();
    watch++;
    watchAbort = new AbortController();
    failures = 0;
    expiryChecked = false;
    apply(payment);
    if (view.value.screen === 'payment' || view.value.screen === 'partial') {
      schedulePoll(longPoll ? 0 : POLL_MS);
      tick();
    }
  }

  function stopWatching() {
    watch++;
    watchAbort?.abort();
    watchAbort = undefined;
    cancel(pollTimer);
    cancel(tickTimer);
    pollTimer = tickTimer = undefined;
    polling = false;
    reconnecting.value = false;
  }

  function schedulePoll(ms: number) {
    cancel(pollTimer);
    pollTimer = later(poll, ms);
  }

  function pollNow() {
    if (watchAbort && !polling) schedulePoll(0);
  }

  async function poll() {
    pollTimer = undefined;
    const mine = watch;
    const abort = watchAbort;
    if (!abort) return;
    polling = true;
    const since = latest && paymentVersion(latest);
    const wait = longPoll && since ? { seconds: LONG_POLL_SECONDS, since } : undefined;
    const asked = Date.now();
    try {
      const payment = await api.verify(options.reference, abort.signal, wait);
      if (mine !== watch) return;
      polling = false;
      failures = 0;
      reconnecting.value = false;
      if (wait && paymentVersion(payment) === since && Date.now() - asked < (LONG_POLL_SECONDS - 5) * 1000) {
        longPoll = false; // it answered "unchanged" without waiting: poll plainly, never spin
      }
      apply(payment);
      if (mine === watch) schedulePoll(longPoll ? 0 : POLL_MS);
    } catch (error) {
      if (mine !== watch || isAbort(error)) return;
      polling = false;
      // A failed check is not a failed payment: keep the address up and try again, slower.
      // The one retry policy, at the payment screen's pace; an answer it calls final still
      // gets a slow retry, since the quote is open and its address must stay.
      reconnecting.value = true;
      schedulePoll(retryDelay(error, failures++, Math.random, POLL_MS, POLL_MAX_MS) ?? POLL_MAX_MS);
    }
  }

  function tick() {
    now.value = api.now();
    const payment = latest;
    if (payment && !expiryChecked && now.value >= Date.parse(payment.expiresAt)) {
      // The server decides expiry; ask it now rather than waiting for the next poll.
      expiryChecked = true;
      pollNow();
    }
    // The countdown shows whole seconds rounded up: tick just after each one runs out.
    const left = payment ? Date.parse(payment.expiresAt) - now.value : 0;
    if (watchAbort) tickTimer = later(tick, (((left % 1000) + 1000) % 1000) + 5);
  }

  /** The one place that maps a payment status to a screen and a callback. */
  function apply(payment: Verification) {
    latest = payment;
    const shown = coinsBySymbol.get(payment.coin);
    if (!shown) {
      // Drawing another coin's contract would send the customer's money into nothing.
      return fail({ code: 'bad_response', message: `The payment is in ${payment.coin}, a coin this checkout was not told about.`, transaction: payment });
    }
    switch (payment.status) {
      case 'pending':
        view.value = { screen: 'payment', coin: shown, payment };
        return;
      case 'incomplete':
        view.value = { screen: 'partial', coin: shown, payment };
        return;
      case 'confirmed':
      case 'settled':
        return succeed(payment, shown);
      case 'failed':
        return fail({ code: 'payment_failed', message: 'The service rejected this payment.', transaction: payment });
      case 'expired':
        if (payment.amountPaid > 0 && payment.acceptPartialPayment) return succeed(payment, shown);
        stopWatching();
        view.value = { screen: 'expired', coin: shown, payment, canRequote: payment.amountPaid === 0 };
        if (payment.amountPaid > 0) {
          reportError({
            code: 'payment_expired',
            message: `The quote expired with ${payment.amountPaid} of ${payment.actualAmount} ${payment.coin} received.`,
            transaction: payment,
          });
        }
    }
  }

  // The browser knows before any request fails: say so at once, and ask again the moment the
  // network is back rather than at the end of a backoff (or of a long poll that hung on).
  const onNetwork = () => {
    if (!watchAbort || !latest) return;
    if (navigator.onLine) startWatching(latest);
    else reconnecting.value = true;
  };
  globalThis.addEventListener?.('online', onNetwork);
  globalThis.addEventListener?.('offline', onNetwork);

  const checkout: Checkout = {
    options,
    view,
    quote,
    reconnecting,
    now,
    leaving,
    wrong,
    copied,
    start() {
      // Warm the list while the customer types. A refused key (401, 403) is told at once,
      // before anyone types a name for nothing; other errors surface on the coin screen.
      loadCoins().catch((error) => {
        coinList = undefined;
        if (!closed && error instanceof ApiError && (error.status === 401 || error.status === 403)) fail(failure(error));
      });
      if (options.resumable) void resume(true);
      if (customer.name === undefined || customer.email === undefined) {
        view.value = { screen: 'details', needName: customer.name === undefined, needEmail: customer.email === undefined };
      } else {
        void showCoins();
      }
    },
    submitDetails(name, email) {
      const current = view.value;
      if (current.screen !== 'details') return;
      const fields: Array<'name' | 'email'> = [];
      if (current.needName && !personName.safeParse(name).success) fields.push('name');
      if (current.needEmail && !emailField.safeParse(email.trim()).success) fields.push('email');
      wrong.value = fields;
      if (fields.length === 0) {
        if (current.needName) customer.name = name.trim();
        if (current.needEmail) customer.email = email.trim();
        void showCoins();
      }
    },
    markCopied(value) {
      copied.value = value;
    },
    chooseCoin,
    changeCoin() {
      const current = view.value;
      if (current.screen === 'payment' && current.payment.amountPaid === 0) {
        stopWatching();
        void showCoins();
      }
    },
    requote() {
      const current = view.value;
      if (current.screen === 'expired' && current.canRequote) chooseCoin(current.coin.symbol);
    },
    finishPartial() {
      const current = view.value;
      if (current.screen !== 'partial' || !current.payment.acceptPartialPayment || settling) return;
      // The service settles it, so the merchant sees it too (verify, a webhook); the customer
      // sees success when the service says so.
      settling = true;
      withRetry(() => api.settle(options.reference, life.signal), life.signal).then(
        (payment) => {
          settling = false;
          if (!closed) apply(payment);
        },
        (error) => {
          settling = false;
          if (!closed && !isAbort(error)) fail(failure(error), () => void checkout.finishPartial());
        },
      );
    },
    simulate(kind) {
      if (options.mode !== 'test' || !watchAbort) return;
      api.deposit(options.reference, kind, life.signal).then(pollNow, (error) => {
        if (!isAbort(error)) console.warn('ServiceCheckout: sandbox deposit failed', error);
      });
    },
    askClose() {
      const { screen } = view.value;
      if (leaving.value || (screen !== 'payment' && screen !== 'partial')) checkout.close();
      else leaving.value = true;
    },
    stay() {
      leaving.value = false;
    },
    close() {
      if (closed) return;
      closed = true;
      stopWatching();
      view.value = { screen: 'closed' };
      life.abort();
      timers.forEach(clearTimeout);
      timers.clear();
      globalThis.removeEventListener?.('online', onNetwork);
      globalThis.removeEventListener?.('offline', onNetwork);
      onClosed();
      tell('onClose', options.onClose, { reference: options.reference, status: latest?.status });
    },
  };
  return checkout;
}
