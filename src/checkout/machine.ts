// The checkout's runtime: it holds the state, runs the table (table.ts) on each event, starts
// each state's work (work.ts) as the state is entered, and tells the merchant's callbacks.
// The UI reads `view` and the other signals of `Checkout`, and calls its methods.
import { computed, signal, type ReadonlySignal } from '@preact/signals-core';
import type { Api, Business } from '../api/client.ts';
import { ServiceError, isAbort } from '../api/errors.ts';
import type { CheckoutOptions } from '../options/parse.ts';
import type { Coin, DepositKind, Qr, Verification } from '../../contract/schemas.ts';
import { discoverWallets, type FoundWallet } from '../payment/wallet.ts';
import { holder } from '../payment/sign.ts';
import { baseUnits } from '../../contract/payment-uri.ts';
import type { CheckoutError } from './errors.ts';
import { firstState, next, retriable, type Env, type Event, type Field, type ScreenError, type State } from './table.ts';
import { coinLoader, payBySignature, payFromBrowserWallet, quote, resumer, screenError, settle, statusWatch, type Post } from './work.ts';

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
  /**
   * Which of `wallets` may pay the watched payment with one signature: its coin signs (EIP-3009)
   * and the wallet, on the coin's chain, holds what is due. Emptied when the service refuses one.
   */
  readonly signers: ReadonlySignal<number[]>;
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
  /** Pays the open payment from the `index`th wallet with one signature, which the service relays. */
  signWith(index: number): void;
  start(): void;
  submitDetails(name: string, email: string): void;
  markCopied(value: string): void;
  chooseCoin(coin: Coin): void;
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

/** What the modal shows in state `s`; `retry` is offered for failures that may pass. */
function viewOf(s: State, env: Env, retry: () => void): View {
  switch (s.name) {
    case 'details':
      return { screen: 'details', needName: !s.customer.name, needEmail: !s.customer.email };
    case 'coins':
      return { screen: 'coins', coins: s.coins };
    case 'quoting':
      return { screen: 'quoting', coin: s.coin };
    case 'error':
      return { screen: 'error', error: s.error, retry: s.again && retriable(s.error) ? retry : undefined };
    case 'closed':
      return { screen: 'closed' };
  }
  const { payment } = s;
  // Every state with a payment passed `stateOfPayment`, which admits only listed coins.
  const coin = env.coin(payment)!;
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
}

/** The runtime around the table: it runs each state's work and tells the merchant's callbacks. */
export function createCheckout(options: CheckoutOptions, api: Api, onClosed: () => void = () => {}): Checkout {
  const state = signal(firstState({ name: options.name, email: options.email }));
  const business = signal<Business | undefined>(undefined);
  const qr = signal<Qr | undefined>(undefined);
  const now = signal(api.now());
  const copied = signal<string | undefined>(undefined);
  const wallets = signal<FoundWallet[]>([]);
  const signers = signal<number[]>([]);
  /** The coins the API listed, inactive ones too: a symbol on a chain (USDT on two chains is two coins). */
  let listed: Coin[] = [];
  const env: Env = { coin: (p) => listed.find((c) => c.symbol === p.coin && (p.chainId ?? c.chainId) === c.chainId) };
  /** The checkout's life: ended by close. */
  const life = new AbortController();
  /** The running state's work: aborted the moment the state is left. */
  let work = new AbortController();
  /** Asks the status watch, while one runs, for a status now (a sandbox deposit, a wallet's transfer). */
  const checks = new Set<() => void>();
  const checkNow = () => checks.forEach((check) => check());
  /** The last outcome told: onSuccess comes at most once; onError too, and never after onSuccess. */
  let told: 'onSuccess' | 'onError' | undefined;

  const loadCoins = coinLoader(api, options, life.signal, ({ coins, business: who, sandbox }) => {
    listed = coins;
    checkout.sandbox = !!sandbox;
    business.value ??= who;
  });
  const resume = resumer(api, options, loadCoins);
  const watch = statusWatch(api, options.reference, env.coin, qr, now, checks);

  /** Calls one of the merchant's callbacks, if given: one that throws must not take the checkout down with it. */
  function callMerchant<K extends 'onSuccess' | 'onError' | 'onClose'>(name: K, arg: Parameters<NonNullable<CheckoutOptions[K]>>[0]) {
    try {
      (options[name] as ((arg: unknown) => void) | undefined)?.(arg);
    } catch (error) {
      console.error(`ServiceCheckout: your ${name} callback threw`, error);
    }
  }
  /** onError at most once, and never after onSuccess. */
  function reportError(error: CheckoutError) {
    if (told) return;
    told = 'onError';
    callMerchant('onError', error);
  }

  function send(event: Event) {
    const from = state.value;
    const to = next(from, event, env);
    if (to === from) return;
    state.value = to;
    begin(to, from);
  }

  /**
   * The one place work starts. A new state stops the old state's work and starts its own; a
   * state with new data keeps its work going, and starts more only when it begins asking a wallet.
   */
  function begin(to: State, from?: State) {
    const fresh = to.name !== from?.name;
    if (fresh) {
      work.abort();
      work = new AbortController();
    }
    const { signal } = work;
    // Work answers through `post`: once its state is left, nothing it learns can land.
    const post: Post = (e) => signal.aborted || send(e);
    const answered = (payment: Verification) => post({ type: 'status', payment });
    const failed = (error: unknown) => isAbort(error) || post({ type: 'failed', error: screenError(error) });
    if (!fresh) {
      // Within a state, one change starts work: a wallet asked to pay.
      if (to.name === 'watching' && to.wallet !== (from as typeof to).wallet) {
        const wallet = wallets.value[to.walletIndex!];
        const coin = env.coin(to.payment)!;
        if (wallet && to.wallet === 'asking') payFromBrowserWallet(wallet, coin, to.payment, post, checkNow);
        if (wallet && to.wallet === 'signing') payBySignature(api, wallet, coin, to.payment, post, checkNow, signal);
        // Refused once (a cap, no gas wallet, a wallet that cannot sign): this payment is paid with a transfer.
        if (to.wallet === 'refused') signers.value = [];
      }
      return;
    }
    signers.value = [];
    switch (to.name) {
      case 'coins':
        loadCoins().then((coins) => post({ type: 'coins', coins }), failed);
        resume(post, signal);
        break;
      case 'details':
        resume(post, signal);
        break;
      case 'quoting':
        quote(api, options, to, signal).then(answered, failed);
        break;
      case 'watching':
        watch(to.payment, post, signal);
        findSigners();
        break;
      case 'settling':
        settle(api, options.reference, signal).then(answered, failed);
        break;
      case 'success':
        if (told !== 'onSuccess') {
          told = 'onSuccess';
          callMerchant('onSuccess', to.payment);
        }
        break;
      case 'expired':
        if (to.payment.amountPaid > 0) {
          const { amountPaid, actualAmount, coin } = to.payment;
          reportError({
            code: 'payment_expired',
            message: `The quote expired with ${amountPaid} of ${actualAmount} ${coin} received.`,
            transaction: to.payment,
          });
        }
        break;
      case 'error':
        reportError(to.error);
        break;
      case 'closed':
        life.abort();
        onClosed();
        callMerchant('onClose', { reference: options.reference, status: (from as { payment?: Verification }).payment?.status });
    }
  }

  /** Asks each wallet, without a prompt, whether it may pay the watched payment with one signature (see `signers`). */
  function findSigners() {
    const s = state.value;
    if (s.name !== 'watching' || s.wallet === 'refused') return;
    const coin = env.coin(s.payment);
    if (!coin?.signs) return;
    const { signal } = work;
    const units = baseUnits(s.payment.amountRemaining, coin);
    wallets.value.forEach((wallet, index) =>
      holder(wallet.provider, coin, units).then(
        (from) => from && !signal.aborted && !signers.value.includes(index) && (signers.value = [...signers.value, index]),
        () => {},
      ),
    );
  }

  const checkout: Checkout = {
    options,
    state,
    view: computed(() => viewOf(state.value, env, () => send({ type: 'retry' }))),
    business,
    now,
    copied,
    // Only the watching state has these, and only the details state the last.
    reconnecting: computed(() => !!(state.value as { lost?: boolean }).lost),
    leaving: computed(() => !!(state.value as { leaving?: boolean }).leaving),
    wrong: computed(() => (state.value as { wrong?: Field[] }).wrong ?? []),
    wallets,
    signers,
    sandbox: false,
    qr,
    send,
    payWith: (index) => send({ type: 'wallet', index }),
    signWith: (index) => send({ type: 'wallet', index, sign: true }),
    start() {
      // Wallets announce themselves until the checkout closes.
      life.signal.addEventListener(
        'abort',
        discoverWallets((found) => {
          wallets.value = [...wallets.value, found];
          findSigners();
        }),
      );
      // Warm the list while the customer types. A refused key (401, 403) or a mode that takes
      // no payments here (409: a live key on a service with no live network) is told at once,
      // before anyone types a name for nothing; other errors surface on the coin screen.
      loadCoins().catch((error) => {
        if (error instanceof ServiceError && [401, 403, 409].includes(error.status)) send({ type: 'refused', error: screenError(error) });
      });
      begin(state.value);
    },
    submitDetails: (name, email) => send({ type: 'details', name, email }),
    markCopied(value) {
      copied.value = value;
    },
    chooseCoin: (coin) => send({ type: 'choose', coin }),
    changeCoin: () => send({ type: 'change' }),
    requote: () => send({ type: 'requote' }),
    finishPartial: () => send({ type: 'finish' }),
    simulate(kind) {
      if (options.mode !== 'test' || state.value.name !== 'watching') return;
      api.deposit(options.reference, kind, work.signal).then(checkNow, (error) => {
        if (!isAbort(error)) console.warn('ServiceCheckout: no sandbox deposit', error);
      });
    },
    askClose: () => send({ type: 'askClose' }),
    stay: () => send({ type: 'stay' }),
    close: () => send({ type: 'close' }),
  };
  return checkout;
}
