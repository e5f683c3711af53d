// The checkout as a table: its states, the events each accepts, and where each leads. Pure:
// no requests, no timers, no signals. The runtime (machine.ts) runs it and starts each
// state's work (work.ts).
import { email as emailField, personName } from '../../contract/fields.ts';
import type { Coin, Verification } from '../../contract/schemas.ts';
import type { CheckoutError, ErrorCode } from './errors.ts';

/** The failures that reach the error screen: options are refused before the modal opens, and expiry has a screen of its own. */
export type ScreenErrorCode = Exclude<ErrorCode, 'invalid_options' | 'secret_key' | 'payment_expired'>;
export type ScreenError = CheckoutError & { code: ScreenErrorCode };

export type Field = 'name' | 'email';
/** `signing`: the wallet is asked for one signature, then the service relays it; `refused`: that did not work, a transfer still does. */
export type WalletState = 'asking' | 'signing' | 'sent' | 'declined' | 'chain' | 'failed' | 'refused';

/**
 * Who pays, as the quote will name them: from the options, or typed on the details screen.
 * A field still missing in the details state is one the customer is asked for.
 */
export interface Customer {
  name?: string;
  email?: string;
}

/**
 * Where a checkout is. Each state names the events it accepts in `table` below, and the
 * work it starts (a request, the status watch, the countdown) runs only while it lasts.
 * The states that can lead to a quote carry the customer it will name.
 */
export type State =
  | { name: 'details'; customer: Customer; wrong: Field[] }
  | { name: 'coins'; customer: Customer; coins?: Coin[] }
  /** Asking for a quote; after a 409 (funds already arrived), fetching that payment instead. */
  | { name: 'quoting'; customer: Customer; coin: Coin }
  /**
   * A payment is open: its status is watched. `leaving`: the customer asked to close. `lost`:
   * a check failed. `wallet`: how paying from a browser wallet goes, when the customer tried
   * (`walletIndex`: which of the wallets found; entering 'asking' starts the transfer, 'signing' the signature).
   */
  | { name: 'watching'; customer: Customer; payment: Verification; leaving: boolean; lost: boolean; wallet?: WalletState; walletIndex?: number }
  /** "Finish with what I sent": the service is asked to settle the partial payment. */
  | { name: 'settling'; customer: Customer; payment: Verification }
  | { name: 'success'; payment: Verification }
  | { name: 'expired'; customer: Customer; payment: Verification }
  /** `again`: where "Try again" leads, for failures that may pass. */
  | { name: 'error'; error: ScreenError; again?: State }
  | { name: 'closed' };
export type StateName = State['name'];

export type Event =
  /** Customer: the details form was sent. */
  | { type: 'details'; name: string; email: string }
  | { type: 'choose'; coin: Coin }
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
  /** Customer: pay from the `index`th browser wallet (`sign`: with one signature). Work: the wallet (and relay) sent it, or did not (why). */
  | { type: 'wallet'; index: number; sign?: boolean }
  | { type: 'walletSent' }
  | { type: 'walletFailed'; reason: Exclude<WalletState, 'asking' | 'signing' | 'sent'> };
export type EventType = Event['type'];

/**
 * What a transition may read beside the state and the event: the coins the API listed (inactive
 * ones too), found by a payment's coin and chain (without a chain, its symbol's first). No I/O.
 */
export interface Env {
  coin(payment: Pick<Verification, 'coin' | 'chainId'>): Coin | undefined;
}

/** Where a checkout opens: the details form when the options left a field out, else the coins. */
export const firstState = (customer: Customer): State =>
  !customer.name || !customer.email ? { name: 'details', customer, wrong: [] } : { name: 'coins', customer };

type Handlers<S extends StateName> = {
  [E in EventType]?: (s: Extract<State, { name: S }>, e: Extract<Event, { type: E }>, env: Env) => State;
};

const closed: State = { name: 'closed' };
const close = () => closed;
const badResponse = (message: string): State => ({ name: 'error', error: { code: 'bad_response', message } });

/** The one place a payment's data becomes a state: its status decides. */
export function stateOfPayment(payment: Verification, customer: Customer, env: Env): State {
  // Drawing a coin the API did not list would send the customer's money into nothing.
  if (!env.coin(payment)) return badResponse(`The payment is in ${payment.coin}, a coin the service did not list.`);
  const { status } = payment;
  if (status === 'confirmed' || status === 'settled') return { name: 'success', payment };
  if (status === 'failed') return { name: 'error', error: { code: 'payment_failed', message: 'The service rejected this payment.', transaction: payment } };
  // Expired, unless money that reached the chain before the quote ran out is still confirming: it counts once confirmed, so keep showing it.
  // Part of it arrived and the merchant accepts that: settled, so the merchant (and onSuccess) hear `settled`.
  if (status === 'expired' && !payment.confirming) {
    return payment.amountPaid > 0 && payment.acceptPartialPayment ? { name: 'settling', customer, payment } : { name: 'expired', customer, payment };
  }
  return { name: 'watching', customer, payment, leaving: false, lost: false };
}

/** A payment's data arrived (a quote, a status, a settlement, a resumed payment): its state, for the same customer. */
const paid = (s: { customer: Customer }, e: { payment: Verification }, env: Env) => stateOfPayment(e.payment, s.customer, env);

/** Work that failed for good: the error screen, with "Try again" back into the same state. */
const failed = (s: State, e: { error: ScreenError }): State => ({ name: 'error', error: e.error, again: s });

/** Failures that may pass: the service out of reach, or an answer that was not the contract. */
export const retriable = (error: CheckoutError) => error.code === 'network_error' || error.code === 'bad_response';

/** Escape, × and close() end every state but an open payment (which asks first) and closed. */
const exits = { escape: close, askClose: close, close };

/**
 * The checkout, as a table: for each state, the events it accepts and where each leads.
 * An event a state does not list changes nothing, so a late or doubled event is harmless.
 */
export const table: { [S in StateName]: Handlers<S> } = {
  details: {
    // The fields asked for are checked, then recorded (trimmed) beside those the options gave.
    details({ customer }, e) {
      const wrong: Field[] = [];
      if (!customer.name && !personName.safeParse(e.name).success) wrong.push('name');
      if (!customer.email && !emailField.safeParse(e.email.trim()).success) wrong.push('email');
      return wrong.length
        ? { name: 'details', customer, wrong }
        : { name: 'coins', customer: { name: customer.name || e.name.trim(), email: customer.email || e.email.trim() } };
    },
    refused: failed,
    resumed: paid,
    ...exits,
  },
  coins: {
    coins: (s, e) => ({ ...s, coins: e.coins.filter((c) => c.status === 'active') }),
    // One of the listed coins, on its chain: the quote is asked for that chain.
    choose: (s, e) => (s.coins?.includes(e.coin) ? { name: 'quoting', customer: s.customer, coin: e.coin } : s),
    refused: failed,
    failed,
    resumed: paid,
    ...exits,
  },
  quoting: {
    status: paid,
    failed,
    ...exits,
  },
  watching: {
    // Still open: the same question and wallet, with the new data, and the connection back.
    status(s, e, env) {
      const to = paid(s, e, env);
      return to.name === 'watching' ? { ...s, payment: e.payment, lost: false } : to;
    },
    lost: (s) => ({ ...s, lost: true }),
    wallet: (s, e) =>
      s.wallet === 'asking' || s.wallet === 'signing' || s.wallet === 'sent' ? s : { ...s, wallet: e.sign ? 'signing' : 'asking', walletIndex: e.index },
    walletSent: (s) => ({ ...s, wallet: 'sent' }),
    walletFailed: (s, e) => ({ ...s, wallet: e.reason }),
    change: (s) => (s.payment.status === 'pending' && s.payment.amountPaid === 0 ? { name: 'coins', customer: s.customer } : s),
    finish: (s) => (s.payment.status === 'incomplete' && s.payment.acceptPartialPayment ? { name: 'settling', customer: s.customer, payment: s.payment } : s),
    escape: (s) => ({ ...s, leaving: !s.leaving }),
    askClose: (s) => (s.leaving ? closed : { ...s, leaving: true }),
    stay: (s) => ({ ...s, leaving: false }),
    close,
  },
  settling: {
    status: paid,
    failed,
    ...exits,
  },
  success: exits,
  expired: {
    requote: (s, _, env) => {
      const coin = env.coin(s.payment);
      return s.payment.amountPaid === 0 && coin ? { name: 'quoting', customer: s.customer, coin } : s;
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
