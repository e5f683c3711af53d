import type * as z from 'zod/mini';
import { readAnswer, ServiceError } from '../../contract/answer.ts';
import { Relayed } from '../../contract/relay.ts';
import type { Signed } from '../payment/sign.ts';
import {
  success,
  CoinsResponse,
  VerificationResponse,
  QrResponse,
  type Qr,
  type Business,
  type Coin,
  type DepositKind,
  type InitializeBody,
  type Verification,
} from '../../contract/schemas.ts';

export type { Business };

export interface Api {
  /** The coins (each with what the customer would send for `amount`), and who is being paid. */
  coins(signal: AbortSignal, amount?: { amount: string | number; currency: string }): Promise<{ coins: Coin[]; business?: Business; sandbox?: boolean }>;
  /** The quote, read as a payment: the service answers initialize with its state as verify gives it. */
  initialize(body: InitializeBody, signal: AbortSignal): Promise<Verification>;
  /**
   * The payment's status. With `wait`, a long poll: the API answers as soon as the status
   * differs from `wait.since` (a paymentVersion), or after `wait.seconds` with it unchanged.
   */
  verify(reference: string, signal: AbortSignal, wait?: { seconds: number; since: string }): Promise<Verification>;
  /** Sandbox only: pretend the customer sent the amount due, part of it, or more. */
  deposit(reference: string, kind: DepositKind, signal: AbortSignal): Promise<Verification>;
  /** Finishes an accepted partial payment with what arrived: the service settles it. */
  settle(reference: string, signal: AbortSignal): Promise<Verification>;
  /** The payment's QR code, made by the service (the bundle carries no QR encoder). */
  qr(reference: string, signal: AbortSignal): Promise<Qr>;
  /** Pays with one signature: the service brings the customer's signed transfer on chain (answers once it is mined). */
  relay(reference: string, body: Signed, signal: AbortSignal): Promise<unknown>;
  /** The time by the API's clock, as well as its answers' Date headers tell it. */
  now(): number;
}

const data = <T>(reply: { data: T }) => reply.data;

/** The public-key API client: it talks, validates what comes back, and decides nothing else. */
export function createApi(base: string, key: string, fetcher: typeof fetch = fetch): Api {
  const root = base.replace(/\/+$/, '') + '/api/v1/';
  // How far the API's clock is ahead of ours: each answer's Date (whole seconds) bounds it
  // between `low` and `high`; the bounds of every answer so far are intersected, so the
  // estimate narrows as answers come in. Bounds that disagree (a clock was set) start over.
  let low = -Infinity;
  let high = Infinity;
  let skew = 0;

  async function call<S extends z.ZodMiniType>(method: string, path: string, schema: S, signal: AbortSignal, body?: object): Promise<z.output<S>> {
    const where = `${method} ${root}${path}`;
    let response: Response;
    let text: string;
    const sent = Date.now();
    try {
      response = await fetcher(root + path, {
        method,
        signal,
        headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body && JSON.stringify(body),
      });
      const date = Date.parse(response.headers.get('date')!);
      if (date) {
        const [a, b] = [date - Date.now(), date + 1000 - sent];
        [low, high] = a > high || b < low ? [a, b] : [Math.max(low, a), Math.min(high, b)];
        skew = (low + high) / 2;
      }
      text = await response.text();
    } catch (error) {
      if (signal.aborted) throw error;
      throw new ServiceError('network', `${where}: the network failed`);
    }
    return readAnswer(where, response.status, text, schema, response.headers.get('retry-after'));
  }

  const ref = (reference: string) => encodeURIComponent(reference);
  return {
    coins: (signal, price) =>
      call('GET', 'coins' + (price ? `?amount=${price.amount}&currency=${price.currency}` : ''), CoinsResponse, signal).then((r) => ({ ...r, coins: r.data })),
    initialize: (body, signal) => call('POST', 'transaction/initialize', VerificationResponse, signal, body).then(data),
    verify: (reference, signal, wait) =>
      call(
        'GET',
        `transaction/verify/${ref(reference)}` + (wait ? `?wait=${wait.seconds}&since=${encodeURIComponent(wait.since)}` : ''),
        VerificationResponse,
        signal,
      ).then(data),
    deposit: (reference, kind, signal) => call('POST', 'sandbox/deposit', VerificationResponse, signal, { reference, kind }).then(data),
    settle: (reference, signal) => call('POST', `transaction/settle/${ref(reference)}`, VerificationResponse, signal).then(data),
    qr: (reference, signal) => call('GET', `transaction/qr/${ref(reference)}`, QrResponse, signal).then(data),
    relay: (reference, body, signal) => call('POST', `transaction/relay/${ref(reference)}`, success(Relayed), signal, body),
    now: () => Date.now() + skew,
  };
}
