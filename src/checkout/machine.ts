import { computed, signal, type ReadonlySignal } from '@preact/signals-core';
import type { Api, Business } from '../api/client.ts';
import { ApiError, isAbort } from '../api/errors.ts';
import { retryDelay, withRetry } from '../api/retry.ts';
import type { CheckoutOptions } from '../options/parse.ts';
import { email as emailField, personName } from '../../contract/fields.ts';
import { paymentVersion, type Coin, type DepositKind, type Qr, type Verification } from '../../contract/schemas.ts';
import type { CheckoutError, ErrorCode } from './errors.ts';
import { baseUnits, paymentUri } from '../../contract/payment-uri.ts';
import { discoverWallets, payFromWallet, type FoundWallet } from '../payment/wallet.ts';

/** The failures that reach the error screen: options are refused before the modal opens, and expiry has a screen of its own. */
export type ScreenErrorCode = Exclude<ErrorCode, 'invalid_options' | 'secret_key' | 'payment_expired'>;
export type ScreenError = CheckoutError & { code: ScreenErrorCode };

/**
 * The payment screen long-polls: each status check asks the API to hold it up to
 * LONG_POLL_SECONDS until something changes, so a payment shows within a round trip at
 * ~2-3 requests a minute. An API that answers "unchanged" early is not waiting; the
 * checkout then polls plainly every POLL_MS. Failed checks back off up to POLL_MAX_MS.
 */
export const LONG_POLL_SECONDS = 25;
export const POLL_MS = 3_000;
export const POLL_MAX_MS = 15_000;

type Field = 'name' | 'email';
export type WalletState = 'asking' | 'sent' | 'declined' | 'chain' | 'failed';

/**
 * Where a checkout is. Each state names the events it accepts in `table` below, and the
 * work it starts (a request, the status watch, the countdown) runs only while it lasts.
 */
export type State =
  | { name: 'details'; needName: boolean; needEmail: boolean; wrong: Field[] }
  | { name: 'coins'; coins?: Coin[] }
  /** Asking for a quote; after a 409 (funds already arrived), fetching that payment instead. */
  | { name: 'quoting'; coin: Coin }
  /**
   * A payment is open: its status is watched. `leaving`: the customer asked to close. `lost`:
   * a check failed. `wallet`: how paying from a browser wallet goes, when the customer tried.
   */
  | { name: 'watching'; payment: Verification; leaving: boolean; lost: boolean; wallet?: WalletState }
  /** "Finish with what I sent": the service is asked to settle the partial payment. */
  | { name: 'settling'; payment: Verification }
  | { name: 'success'; payment: Verification }
  | { name: 'expired'; payment: Verification }
  /** `again`: where "Try again" leads, for failures that may pass. */
  | { name: 'error'; error: ScreenError; again?: State }
  | { name: 'closed' };
export type StateName = State['name'];

export type Event =
  /** Customer: the details form was sent. */
  | { type: 'details'; name: string; email: string }
  | { type: 'choose'; symbol: string }
  | { type: 'change' }
  | { type: 'requote' }
  | { type: 'finish' }
  | { type: 'retry' }
  | { type: 'escape' }
  | { type: 'askClose' }
  | { type: 'stay' }
  | { type: 'close' }
  /** Work: the coin list arrived; the key was refused; the reference already has a payment (at open). */
  | { type: 'coins'; coins: Coin[] }
  | { type: 'refused'; error: ScreenError }
  | { type: 'resumed'; payment: Verification }
  /** Work: a payment's data (a quote, a status, a settlement); a status check failed and is retried; work failed for good. */
  | { type: 'status'; payment: Verification }
  | { type: 'lost' }
  | { type: 'failed'; error: ScreenError }
  /** Customer: pay from a browser wallet. Work: the wallet sent it, or did not (why). */
  | { type: 'wallet' }
  | { type: 'walletSent' }
  | { type: 'walletFailed'; reason: Exclude<WalletState, 'asking' | 'sent'> };
export type EventType = Event['type'];

/** What a transition may read: the coins the API listed (inactive ones too) and the options. No I/O. */
export interface Env {
  coin(symbol: string): Coin | undefined;
  options: Pick<CheckoutOptions, 'acceptPartialPayment'>;
}

type Handlers<S extends StateName> = {
  [E in EventType]?: (s: Extract<State, { name: S }>, e: Extract<Event, { type: E }>, env: Env) => State;
};

const closed: State = { name: 'closed' };
const close = () => closed;
const bad = (message: string): State => ({ name: 'error', error: { code: 'bad_response', message } });

/** The one place a payment's data becomes a state: its status decides. */
function follow(payment: Verification, env: Env, leaving = false): State {
  // Drawing a coin the API did not list would send the customer's money into nothing.
  if (!env.coin(payment.coin)) return bad(`The payment is in ${payment.coin}, a coin this checkout was not told about.`);
  const { status } = payment;
  if (status == 'confirmed' || status == 'settled') return { name: 'success', payment };
  if (status == 'failed') return { name: 'error', error: { code: 'payment_failed', message: 'The service rejected this payment.', transaction: payment } };
  // Expired, unless money that reached the chain before the quote ran out is still confirming: it counts once confirmed, so keep showing it.
  if (status == 'expired' && !payment.confirming) {
    return payment.amountPaid > 0 && payment.acceptPartialPayment ? { name: 'success', payment } : { name: 'expired', payment };
  }
  return { name: 'watching', payment, leaving, lost: false };
}

/** Work that failed for good: the error screen, with "Try again" back into the same state. */
const failed = (s: State, e: { error: ScreenError }): State => ({ name: 'error', error: e.error, again: s });

/** Escape, × and close() end every state but an open payment (which asks first) and closed. */
const exits = { escape: close, askClose: close, close };

/**
 * The checkout, as a table: for each state, the events it accepts and where each leads.
 * An event a state does not list changes nothing, so a late or doubled event is harmless.
 */
export const table: { [S in StateName]: Handlers<S> } = {
  details: {
    details(s, e) {
      const wrong: Field[] = [];
      if (s.needName && !personName.safeParse(e.name).success) wrong.push('name');
      if (s.needEmail && !emailField.safeParse(e.email.trim()).success) wrong.push('email');
      return wrong.length ? { ...s, wrong } : { name: 'coins' };
    },
    refused: failed,
    resumed: (_, e, env) => follow(e.payment, env),
    ...exits,
  },
  coins: {
    coins: (s, e) => ({ ...s, coins: e.coins.filter((c) => c.status === 'active') }),
    choose(s, e) {
      const coin = s.coins?.find((c) => c.symbol === e.symbol);
      return coin ? { name: 'quoting', coin } : s;
    },
    refused: failed,
    failed,
    resumed: (_, e, env) => follow(e.payment, env),
    ...exits,
  },
  quoting: {
    status: (_, e, env) => follow(e.payment, env),
    failed,
    ...exits,
  },
  watching: {
    status: (s, e, env) => {
      const to = follow(e.payment, env, s.leaving);
      return to.name === 'watching' ? { ...to, wallet: s.wallet } : to;
    },
    lost: (s) => ({ ...s, lost: true }),
    wallet: (s) => (s.wallet === 'asking' || s.wallet === 'sent' ? s : { ...s, wallet: 'asking' }),
    walletSent: (s) => ({ ...s, wallet: 'sent' }),
    walletFailed: (s, e) => ({ ...s, wallet: e.reason }),
    change: (s) => (s.payment.status === 'pending' && s.payment.amountPaid === 0 ? { name: 'coins' } : s),
    finish: (s) => (s.payment.status === 'incomplete' && s.payment.acceptPartialPayment ? { name: 'settling', payment: s.payment } : s),
    escape: (s) => (s.leaving ? { ...s, leaving: false } : { ...s, leaving: true }),
    askClose: (s) => (s.leaving ? closed : { ...s, leaving: true }),
    stay: (s) => ({ ...s, leaving: false }),
    close,
  },
  settling: {
    status: (_, e, env) => follow(e.payment, env),
    failed,
    ...exits,
  },
  success: exits,
  expired: {
    requote: (s, _, env) => {
      const coin = env.coin(s.payment.coin);
      return s.payment.amountPaid === 0 && coin ? { name: 'quoting', coin } : s;
    },
    ...exits,
  },
  error: {
    retry: (s) => (s.again && retriable(s.error) ? s.again : s),
    ...exits,
  },
  closed: {},
};

/** One step of the table: the next state, or the same object when the event is not accepted there. */
export function next(state: State, event: Event, env: Env): State {
  const handler = (table[state.name] as Record<string, ((s: State, e: Event, env: Env) => State) | undefined>)[event.type];
  return handler ? handler(state, event, env) : state;
}

/** What the modal shows. Only the machine changes it; components render it. */
export type View =
  | { screen: 'details'; needName: boolean; needEmail: boolean }
  | { screen: 'coins'; coins?: Coin[] }
  | { screen: 'quoting'; coin: Coin }
  | { screen: 'payment'; coin: Coin; payment: Verification }
  | { screen: 'partial'; coin: Coin; payment: Verification; settling?: boolean }
  | { screen: 'success'; coin: Coin; payment: Verification }
  | { screen: 'expired'; coin: Coin; payment: Verification; canRequote: boolean }
  | { screen: 'error'; error: ScreenError; retry?: () => void }
  | { screen: 'closed' };

export interface Checkout {
  readonly options: CheckoutOptions;
  readonly state: ReadonlySignal<State>;
  readonly view: ReadonlySignal<View>;
  /** Who is being paid: from the coin list's answer. */
  readonly business: ReadonlySignal<Business | undefined>;
  /** A status check failed; the payment screen stays and keeps trying. */
  readonly reconnecting: ReadonlySignal<boolean>;
  /** The time by the API's clock (expiresAt is the API's), ticking each second while a payment is watched. */
  readonly now: ReadonlySignal<number>;
  /** The customer asked to close while a payment is open: the modal asks them first. */
  readonly leaving: ReadonlySignal<boolean>;
  /** Details the customer still has to correct. */
  readonly wrong: ReadonlySignal<Field[]>;
  /** The value last put on the clipboard, so its button can say so. */
  readonly copied: ReadonlySignal<string | undefined>;
  /** Browser wallets the page announced (EIP-6963). */
  readonly wallets: ReadonlySignal<FoundWallet[]>;
  /** The service offers the sandbox's deposit buttons here (the coin list says so). */
  sandbox: boolean;
  /**
   * The last QR code the service drew for the watched payment; the payment screen shows it
   * only while it encodes the URI the screen computes itself.
   */
  readonly qr: ReadonlySignal<Qr | undefined>;
  send(event: Event): void;
  /** Pays the open payment from the `index`th wallet: switch chain, send the token transfer. */
  payWith(index: number): void;
  start(): void;
  submitDetails(name: string, email: string): void;
  markCopied(value: string): void;
  chooseCoin(symbol: string): void;
  changeCoin(): void;
  requote(): void;
  finishPartial(): void;
  /** Sandbox only: asks the API for a deposit, which the watch then sees like any other. */
  simulate(kind: DepositKind): void;
  /** Closes, unless a payment is open: then `leaving` asks first, and close() confirms. */
  askClose(): void;
  stay(): void;
  close(): void;
}

function failure(error: unknown): ScreenError {
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

/** The runtime around the table: it runs each state's work and tells the merchant's callbacks. */
export function createCheckout(options: CheckoutOptions, api: Api, onClosed: () => void = () => {}): Checkout {
  const customer = { name: options.name, email: options.email };
  const state = signal<State>({ name: 'coins' });
  const business = signal<Business | undefined>(undefined);
  const qr = signal<Qr | undefined>(undefined);
  const now = signal(api.now());
  const copied = signal<string | undefined>(undefined);
  const wallets = signal<FoundWallet[]>([]);
  const life = new AbortController();
  /** The running state's work: aborted the moment the state is left. */
  let work = new AbortController();
  let coinList: Promise<Coin[]> | undefined;
  let coinsBySymbol = new Map<string, Coin>();
  /** Asks the watch for a status now (the sandbox, the countdown's end, the network back). */
  let poke = () => {};
  let longPoll = true;
  /** The reference may already have a payment: the merchant gave it, and the API has not said 404. */
  let known = !!options.resumable;
  let succeeded = false;
  let errored = false;

  const env: Env = { coin: (symbol) => coinsBySymbol.get(symbol), options };
  let stopWallets = () => {};

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

  function send(event: Event) {
    const from = state.value;
    const to = next(from, event, env);
    if (to !== from) enter(to, to.name !== from.name);
  }

  /** A state with new data keeps its work going; a new state stops the old work and starts its own. */
  function enter(to: State, fresh: boolean) {
    const from = state.value;
    state.value = to;
    if (!fresh) return;
    work.abort();
    work = new AbortController();
    const signal = work.signal;
    // Work answers through `post`: once its state is left, nothing it learns can land.
    const post = (e: Event) => signal.aborted || send(e);
    const lost = (error: unknown) => isAbort(error) || post({ type: 'failed', error: failure(error) });
    switch (to.name) {
      case 'coins':
        loadCoins().then((coins) => post({ type: 'coins', coins }), lost);
        resume(post, signal);
        break;
      case 'details':
        resume(post, signal);
        break;
      case 'quoting':
        quote(to.coin, signal).then((payment) => post({ type: 'status', payment }), lost);
        break;
      case 'watching':
        watch(to.payment, post, signal);
        break;
      case 'settling':
        // The service settles it, so the merchant sees it too (verify, a webhook).
        withRetry(() => api.settle(options.reference, signal), signal).then((payment) => post({ type: 'status', payment }), lost);
        break;
      case 'success':
        if (!succeeded) {
          succeeded = true;
          tell('onSuccess', options.onSuccess, to.payment);
        }
        break;
      case 'expired':
        if (to.payment.amountPaid > 0) {
          const { amountPaid, actualAmount, coin } = to.payment;
          reportError({ code: 'payment_expired', message: `The quote expired with ${amountPaid} of ${actualAmount} ${coin} received.`, transaction: to.payment });
        }
        break;
      case 'error':
        reportError(to.error);
        break;
      case 'closed':
        life.abort();
        stopWallets();
        onClosed();
        tell('onClose', options.onClose, { reference: options.reference, status: paymentOf(from)?.status });
    }
  }

  function loadCoins(): Promise<Coin[]> {
    coinList ??= withRetry(() => api.coins(life.signal, options), life.signal).then(({ coins, business: who, sandbox }) => {
      coinsBySymbol = new Map(coins.map((c) => [c.symbol, c]));
      checkout.sandbox = !!sandbox;
      business.value ??= who;
      return coins;
    });
    coinList.catch(() => (coinList = undefined));
    return coinList;
  }

  /**
   * Opened again on a reference (closed mid-payment, the page reloaded): its payment is shown
   * instead of a new quote. A 404 is simply a new reference, and is not asked about again.
   * Work of the ways in (details, coins): a customer who went on meets the payment through the quote.
   */
  function resume(post: (e: Event) => void, signal: AbortSignal) {
    if (!known) return;
    withRetry(() => api.verify(options.reference, signal), signal)
      .then(async (payment) => (await loadCoins(), post({ type: 'resumed', payment })))
      .catch((error) => {
        if (error instanceof ApiError && error.status === 404) known = false;
      });
  }

  async function quote(coin: Coin, signal: AbortSignal): Promise<Verification> {
    try {
      const body = {
        reference: options.reference,
        coin: coin.symbol,
        currency: options.currency,
        amount: options.amount,
        customer_name: customer.name,
        customer_email: customer.email,
        accept_partial_payment: options.acceptPartialPayment ?? false,
        metadata: options.metadata,
      };
      return await withRetry(() => api.initialize(body, signal), signal);
    } catch (error) {
      // 409: this reference already received funds, so it cannot be re-quoted. Show that
      // payment instead of an error: nothing the customer sent may be lost from view.
      if (error instanceof ApiError && error.status === 409) return withRetry(() => api.verify(options.reference, signal), signal);
      throw error;
    }
  }

  /** The watching state's work: the status watch (long polls, one at a time) and the countdown. */
  function watch(first: Verification, post: (e: Event) => void, signal: AbortSignal) {
    let latest = first;
    // The QR code of what is still due, asked of the service once for each URI; one that could
    // not be had is asked again with the next status answer.
    let qrAsked = '';
    const drawQr = (payment: Verification) => {
      const uri = paymentUri(coinsBySymbol.get(payment.coin)!, payment.address, payment.amountRemaining);
      if (uri == qrAsked || uri == qr.value?.uri) return;
      qrAsked = uri;
      withRetry(() => api.qr(options.reference, signal), signal).then(
        (answer) => answer.uri == uri && (qr.value = answer),
        () => (qrAsked = ''),
      );
    };
    let failures = 0;
    let expiryAsked = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let ticker: ReturnType<typeof setTimeout> | undefined;
    let asking = false;
    const schedule = (ms: number) => {
      clearTimeout(timer);
      timer = setTimeout(ask, ms);
    };
    async function ask() {
      if (asking || signal.aborted) return;
      asking = true;
      const since = paymentVersion(latest);
      const wait = longPoll ? { seconds: LONG_POLL_SECONDS, since } : undefined;
      const asked = Date.now();
      try {
        const payment = await api.verify(options.reference, signal, wait);
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
        poke();
      }
      // The countdown shows whole seconds rounded up: tick just after each one runs out.
      ticker = setTimeout(tick, (((left % 1000) + 1000) % 1000) + 5);
    }
    // The browser knows before any request fails: say so at once, and ask again the moment
    // the network is back rather than at the end of a backoff.
    const onNetwork = () => (navigator.onLine ? poke() : post({ type: 'lost' }));
    poke = () => {
      if (!asking) schedule(0);
    };
    globalThis.addEventListener?.('online', onNetwork);
    globalThis.addEventListener?.('offline', onNetwork);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      clearTimeout(ticker);
      poke = () => {};
      globalThis.removeEventListener?.('online', onNetwork);
      globalThis.removeEventListener?.('offline', onNetwork);
    });
    schedule(longPoll ? 0 : POLL_MS);
    tick();
    drawQr(first);
  }

  const view = computed((): View => {
    const s = state.value;
    switch (s.name) {
      case 'details':
        return { screen: 'details', needName: s.needName, needEmail: s.needEmail };
      case 'coins':
        return { screen: 'coins', coins: s.coins };
      case 'quoting':
        return { screen: 'quoting', coin: s.coin };
      case 'error':
        return { screen: 'error', error: s.error, retry: s.again && retriable(s.error) ? () => send({ type: 'retry' }) : undefined };
      case 'closed':
        return { screen: 'closed' };
    }
    const { payment } = s;
    // Every state with a payment passed `follow`, which admits only listed coins.
    const coin = coinsBySymbol.get(payment.coin)!;
    switch (s.name) {
      case 'watching':
        return { screen: payment.status === 'incomplete' ? 'partial' : 'payment', coin, payment };
      case 'settling':
        return { screen: 'partial', coin, payment, settling: true };
      case 'expired':
        return { screen: 'expired', coin, payment, canRequote: payment.amountPaid === 0 };
      default:
        return { screen: s.name, coin, payment };
    }
  });

  const checkout: Checkout = {
    options,
    state,
    view,
    business,
    now,
    copied,
    // Only the watching state has these.
    reconnecting: computed(() => (state.value as { lost?: boolean }).lost === true),
    leaving: computed(() => (state.value as { leaving?: boolean }).leaving === true),
    wrong: computed(() => (state.value.name === 'details' ? state.value.wrong : [])),
    wallets,
    sandbox: false,
    qr,
    send,
    payWith(index) {
      const wallet = wallets.value[index];
      const before = state.value;
      send({ type: 'wallet' });
      const s = state.value;
      if (!wallet || s === before || s.name !== 'watching') return;
      const coin = coinsBySymbol.get(s.payment.coin)!;
      const { signal } = work;
      const post = (e: Event) => signal.aborted || send(e);
      payFromWallet(wallet.provider, coin.chainId, coin.contractAddress, s.payment.address, baseUnits(s.payment.amountRemaining, coin)).then(
        () => {
          post({ type: 'walletSent' });
          poke();
        },
        (error: { code?: number }) => {
          console.warn('ServiceCheckout: the wallet did not send the payment', error);
          post({ type: 'walletFailed', reason: error?.code === 4001 ? 'declined' : error?.code === 4902 ? 'chain' : 'failed' });
        },
      );
    },
    start() {
      stopWallets = discoverWallets((found) => (wallets.value = [...wallets.value, found]));
      // Warm the list while the customer types. A refused key (401, 403) is told at once,
      // before anyone types a name for nothing; other errors surface on the coin screen.
      loadCoins().catch((error) => {
        if (error instanceof ApiError && (error.status === 401 || error.status === 403)) send({ type: 'refused', error: failure(error) });
      });
      const needName = customer.name === undefined;
      const needEmail = customer.email === undefined;
      enter(needName || needEmail ? { name: 'details', needName, needEmail, wrong: [] } : { name: 'coins' }, true);
    },
    submitDetails(name, email) {
      const s = state.value;
      send({ type: 'details', name, email });
      const after = state.value;
      if (s.name === 'details' && after.name === 'coins') {
        if (s.needName) customer.name = name.trim();
        if (s.needEmail) customer.email = email.trim();
      }
    },
    markCopied(value) {
      copied.value = value;
    },
    chooseCoin: (symbol) => send({ type: 'choose', symbol }),
    changeCoin: () => send({ type: 'change' }),
    requote: () => send({ type: 'requote' }),
    finishPartial: () => send({ type: 'finish' }),
    simulate(kind) {
      if (options.mode !== 'test' || state.value.name !== 'watching') return;
      const { signal } = work;
      api.deposit(options.reference, kind, signal).then(() => poke(), (error) => {
        if (!isAbort(error)) console.warn('ServiceCheckout: sandbox deposit failed', error);
      });
    },
    askClose: () => send({ type: 'askClose' }),
    stay: () => send({ type: 'stay' }),
    close: () => send({ type: 'close' }),
  };
  return checkout;
}

const paymentOf = (s: State): Verification | undefined => ('payment' in s ? s.payment : undefined);
