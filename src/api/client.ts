import type * as z from 'zod/mini';
import { fieldErrors } from '../../contract/field-errors.ts';
import {
  CoinsResponse,
  ErrorBody,
  VerificationResponse,
  QrResponse,
  type Qr,
  type Business,
  type Coin,
  type DepositKind,
  type InitializeBody,
  type Verification,
} from '../../contract/schemas.ts';
import { ApiError } from './errors.ts';

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
  /** The time by the API's clock, as well as its answers' Date headers tell it. */
  now(): number;
}

/** Retry-After in seconds; the HTTP-date form is ignored (the backoff applies instead). */
function retryAfter(header: string | null): number | undefined {
  const seconds = header ? Number(header) : NaN;
  return seconds >= 0 ? seconds * 1000 : undefined;
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

  async function call<S extends z.ZodMiniType>(
    method: string,
    path: string,
    schema: S,
    signal: AbortSignal,
    body?: object,
  ): Promise<z.output<S>> {
    const where = `${method} ${root}${path}`;
    let response: Response;
    let payload: unknown;
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
      const text = await response.text();
      payload = text ? JSON.parse(text) : undefined;
    } catch (error) {
      if (signal.aborted) throw error;
      const reason = error instanceof SyntaxError ? 'the response is not JSON' : 'the network failed';
      throw new ApiError(error instanceof SyntaxError ? 'shape' : 'network', `${where}: ${reason}`);
    }
    if (!response.ok) {
      const failure = ErrorBody.safeParse(payload);
      throw new ApiError(
        'http',
        `${where} answered ${response.status}: ${failure.success ? failure.data.message : 'no error message'}`,
        response.status,
        failure.success ? failure.data.errors : [],
        retryAfter(response.headers.get('retry-after')),
      );
    }
    const parsed = schema.safeParse(payload);
    if (!parsed.success) {
      const detail = fieldErrors(parsed.error).slice(0, 3).map((f) => `${f.field}: ${f.message}`).join('; ');
      throw new ApiError('shape', `${where}: unexpected response (${detail})`, response.status);
    }
    return parsed.data;
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
    deposit: (reference, kind, signal) =>
      call('POST', 'sandbox/deposit', VerificationResponse, signal, { reference, kind }).then(data),
    settle: (reference, signal) => call('POST', `transaction/settle/${ref(reference)}`, VerificationResponse, signal).then(data),
    qr: (reference, signal) => call('GET', `transaction/qr/${ref(reference)}`, QrResponse, signal).then(data),
    now: () => Date.now() + skew,
  };
}
