// The server SDK: every call of the spec from a merchant server, typed, with each response
// checked against the same schemas the sandbox and the widget use. Constructed with the
// public and the secret key, as the spec's SDK is; the secret key never leaves the server.
import type * as z from 'zod/mini';
import { readAnswer, ServiceError } from '../contract/answer.ts';
import { DonationLink, LinkById, LinkBySlug, LinkList, StandardLinkCreated, isUuid } from '../contract/payment-links.ts';
import type { DonationLinkUpdateBody, StandardLinkBody, StandardLinkUpdateBody } from '../contract/payment-links.ts';
import type { InitiatePayoutBody, PayoutBody, PayoutFields } from '../contract/payouts.ts';
import type { PaymentSummary } from '../contract/dashboard.ts';
import { PaymentsList } from '../contract/dashboard-requests.ts';
import { type Product, ProductsPage } from '../contract/products.ts';
import { MerchantVerificationResponse, success as successOf, TransactionResponse } from '../contract/schemas.ts';
import type { EventType } from '../contract/events.ts';
import { Refund, RefundsPage, type RefundState } from '../contract/refunds.ts';
import type { CoinSymbol, Currency } from '../contract/fields.ts';

/** One event of the feed, with every attempt to deliver it. */
export interface EventRecord {
  id: string;
  seq: number;
  type: EventType;
  state: 'pending' | 'delivered' | 'failed' | 'no_endpoint';
  created: string;
  nextAttemptAt: string | null;
  /** The event exactly as delivered: { id, event, created, data }. */
  payload: { id: string; event: string; created: number; data: Record<string, unknown> };
  attempts: Array<{ attempt: number; url: string; status: number; error: string | null; durationMs: number; at: string }>;
}

/** A page of a list (every list pages one way): its items, the cursor of the next page (null on the last) and whether there is one. */
export interface Page<T> {
  data: T[];
  next: string | null;
  hasMore: boolean;
}

/** Which page of a list: `cursor` is `next` of the page before (none: the first); `limit` how many. */
export interface PageOptions {
  cursor?: string;
  limit?: number;
}

/** `?name=value&…` of the options given (undefined ones left out). */
const query = (options: { [name: string]: string | number | undefined }) => {
  const q = new URLSearchParams();
  for (const [name, value] of Object.entries(options)) if (value !== undefined) q.set(name, String(value));
  return q.size ? `?${q}` : '';
};

/** Every failure of a call: the service's refusal, no answer, or an answer that is not the contract; its message names the URL tried. */
export { ServiceError };

/** The spec's initialization inputs, in the SDK's camelCase. */
export interface InitializePaymentInput {
  reference?: string | number;
  customerName?: string;
  customerEmail?: string;
  coin: CoinSymbol;
  currency: Currency;
  amount: string | number;
  acceptPartialPayment?: boolean;
  metadata?: Record<string, unknown>;
  /** Ours: the payment link being paid. */
  paymentLink?: string;
  /** Ours: the chain to pay on (a coin list entry's chainId); needed where the coin is on several chains of the mode. */
  chainId?: number;
}

type In<S extends z.core.$ZodType> = z.input<S>;
type AnySchema = z.ZodMiniType;

export interface ServiceClientOptions {
  /** The page's public key, as the spec's SDK takes it; optional for tools that use only the secret key. */
  publicKey?: string;
  secretKey: string;
  /** The service's base URL, e.g. the sandbox's http://127.0.0.1:4010. */
  baseUrl: string;
  fetch?: typeof fetch;
}

export class ServiceClient {
  readonly publicKey: string | undefined;
  private readonly secretKey: string;
  private readonly root: string;
  private readonly fetcher: typeof fetch;

  constructor({ publicKey, secretKey, baseUrl, fetch: fetcher = fetch }: ServiceClientOptions) {
    if (!/^sk_(test|live)_/.test(secretKey)) throw new TypeError('ServiceClient: secretKey must be a secret key (sk_test_… or sk_live_…)');
    if (publicKey !== undefined && !/^pk_(test|live)_/.test(publicKey))
      throw new TypeError('ServiceClient: publicKey must be a public key (pk_test_… or pk_live_…)');
    if (publicKey !== undefined && publicKey.split('_')[1] !== secretKey.split('_')[1])
      throw new TypeError('ServiceClient: the public and secret keys must both be test keys or both live keys');
    // Every error names the URL it tried: a URL carries no secret (fetch refuses one with credentials anyway).
    if (/^[a-z][a-z\d+.-]*:\/\/[^/?#]*@/i.test(baseUrl)) throw new TypeError('ServiceClient: baseUrl must not carry a user name or password');
    this.publicKey = publicKey;
    this.secretKey = secretKey;
    this.root = baseUrl.replace(/\/+$/, '') + '/api/v1/';
    this.fetcher = fetcher;
  }

  /** Sends with the secret key; validates the answer with `schema` (undefined: the envelope only). */
  private async call<S extends AnySchema | undefined>(
    method: string,
    path: string,
    schema: S,
    body?: unknown,
    idempotencyKey?: string,
  ): Promise<S extends AnySchema ? z.output<S> : Record<string, unknown>> {
    const where = `${method} ${this.root}${path}`;
    const headers: Record<string, string> = { authorization: `Bearer ${this.secretKey}`, ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}) };
    let payload: BodyInit | undefined;
    if (body instanceof FormData) payload = body;
    else if (body !== undefined) {
      headers['content-type'] = 'application/json';
      payload = JSON.stringify(body);
    }
    let response: Response;
    let text: string;
    try {
      response = await this.fetcher(this.root + path, { method, headers, body: payload });
      text = await response.text();
    } catch (error) {
      // fetch's own words are "fetch failed"; the reason (ECONNREFUSED, ENOTFOUND…) is its cause.
      // A header fetch refuses is quoted whole in its message: the key never is.
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      const reason = String(cause?.code ?? cause?.message ?? (error as Error).message)
        .split(this.secretKey)
        .join('sk_…');
      throw Object.assign(new ServiceError('network', `${where}: the network failed (${reason})`), { cause: error });
    }
    return readAnswer(where, response.status, text, schema, response.headers.get('retry-after')) as never;
  }

  private data = async <T>(answer: Promise<{ data: T }>) => (await answer).data;

  /** A list's page, read from its answer. */
  private page = async <T>(path: string, schema: AnySchema | undefined) => {
    const r = (await this.call('GET', path, schema)) as { data: T[]; next: string | null; has_more: boolean };
    return { data: r.data, next: r.next, hasMore: r.has_more } satisfies Page<T>;
  };

  /**
   * Every item of a list, page after page, asking for the next page only when the loop gets
   * there: `for await (const payment of client.all((page) => client.payments.list(page))) …`.
   */
  async *all<T>(list: (page: PageOptions) => Promise<Page<T>>, limit?: number): AsyncGenerator<T> {
    for (let cursor: string | undefined; ; ) {
      const page = await list({ cursor, limit });
      yield* page.data;
      if (!page.hasMore || page.next === null) return;
      cursor = page.next;
    }
  }

  readonly payments = {
    /** The payments, newest first, a page at a time; `status`, `coin`, `from`, `to` (ISO 8601) and `q` filter as the dashboard's list does. */
    list: (options: PageOptions & { status?: string; coin?: CoinSymbol; from?: string; to?: string; q?: string } = {}) =>
      this.page<PaymentSummary>(`payments${query({ ...options })}`, PaymentsList),
  };

  readonly products = {
    /** The products and their prices, newest first, a page at a time. */
    list: (options: PageOptions = {}) => this.page<Product>(`products${query({ ...options })}`, ProductsPage),
  };

  /** POST /transaction/initialize, from the server (secret key); camelCase in, the payment transaction out. */
  initializePayment(input: InitializePaymentInput) {
    return this.data(
      this.call('POST', 'transaction/initialize', TransactionResponse, {
        reference: input.reference,
        customer_name: input.customerName,
        customer_email: input.customerEmail,
        coin: input.coin,
        currency: input.currency,
        amount: input.amount,
        accept_partial_payment: input.acceptPartialPayment ?? false,
        metadata: input.metadata,
        payment_link: input.paymentLink,
        chain_id: input.chainId,
      }),
    );
  }

  verifyPayment(reference: string | number) {
    return this.data(this.call('GET', `transaction/verify/${encodeURIComponent(String(reference))}`, MerchantVerificationResponse));
  }

  /** Where DEPOSIT_TRANSACTION events go. */
  registerWebhook(url: string) {
    return this.call('PUT', 'webhook', undefined, { url });
  }

  /** The webhook endpoint: its URL (or null) and the signing secret deliveries are signed with. */
  webhook() {
    return this.call('GET', 'webhook', undefined).then((r) => r.data as { url: string | null; secret: string; previousSecretValidUntil?: string });
  }

  readonly events = {
    /**
     * The events feed, oldest first, each with its delivery attempts: from `cursor` (`next` of
     * the page before; never null, as the feed goes on), or without one from the first event,
     * 'latest' (only what comes next) or 'recent' (the `limit` newest). `wait` (1–30 s) holds
     * the request until one arrives; `hasMore` says more are there already.
     */
    list: ({ cursor, after, limit, wait }: PageOptions & { after?: 'latest' | 'recent'; wait?: number } = {}) =>
      this.page<EventRecord>(`events${query({ cursor, after, limit, wait: wait || undefined })}`, undefined) as Promise<Page<EventRecord> & { next: string }>,
    /** Delivers an event again to the registered URL. */
    resend: (id: string) => this.call('POST', `events/${encodeURIComponent(id)}/resend`, undefined).then((r) => r.data as EventRecord),
  };

  /** Test keys only: the sandbox sends what is due (`exact`), about half, or a tenth more. */
  sandboxDeposit(reference: string, kind: 'exact' | 'partial' | 'over') {
    return this.data(this.call('POST', 'sandbox/deposit', MerchantVerificationResponse, { reference, kind }));
  }

  readonly paymentLinks = {
    /** One page of the merchant's links, newest first, by cursor as every list (or by the spec's `page` number), with the spec's page fields. */
    list: async (options: PageOptions & { page?: number } = {}) => {
      const { data, next, has_more, count, currentPage, nextPage, prevPage, lastPage } = await this.call(
        'GET',
        `payment_links${query({ ...options })}`,
        LinkList,
      );
      return { data, next, hasMore: has_more, count, currentPage, nextPage, prevPage, lastPage };
    },
    /** GET /payment_links/pay/:slug, in the spec's by-slug shape. */
    getBySlug: (slug: string) => this.data(this.call('GET', `payment_links/pay/${encodeURIComponent(slug)}`, successOf(LinkBySlug))),
    /** GET /payment_links/pay/:linkId, in the spec's by-id shape. */
    getById: (id: string) => {
      if (!isUuid(id)) throw new TypeError(`paymentLinks.getById: expected a link UUID, received ${JSON.stringify(id)}`);
      return this.data(this.call('GET', `payment_links/pay/${id}`, successOf(LinkById)));
    },
    createStandard: (body: In<typeof StandardLinkBody>) => this.data(this.call('POST', 'payment_links/standard', successOf(StandardLinkCreated), body)),
    updateStandard: (body: In<typeof StandardLinkUpdateBody>) => this.data(this.call('PUT', 'payment_links/standard', successOf(StandardLinkCreated), body)),
    /** A multipart form as the spec shows it: text fields (booleans as true/false) and a cover photo. */
    createDonation: (fields: Record<string, string | boolean>, coverPhoto?: Blob) => {
      const form = new FormData();
      for (const [name, value] of Object.entries(fields)) form.append(name, String(value));
      if (coverPhoto) form.append('cover_photo', coverPhoto, 'cover');
      return this.data(this.call('POST', 'payment_links/donation', successOf(DonationLink), form));
    },
    updateDonation: (body: In<typeof DonationLinkUpdateBody>) => this.data(this.call('PUT', 'payment_links/donation', successOf(DonationLink), body)),
    setActive: (id: string, active: boolean) => this.call('PUT', `payment_links/${encodeURIComponent(id)}/status`, undefined, { is_active: active }),
  };

  /**
   * Refunds of a payment (balance settlement: the treasury sends them from the balance). `amount`
   * is exact decimal text of the payment's coin, as every amount the API answers ("5" is five
   * USDT, "0.5" half of one; at most the coin's decimals), or 'rest' (all that arrived and is not
   * refunded yet); never more than arrived. The answer's `amount` is in the same form.
   * Deprecated: `amountBaseUnits` (base units of the coin) instead of `amount`. Pass the same
   * `idempotencyKey` when retrying, and the refund is made once.
   */
  readonly refunds = {
    create: (
      input: { reference: string; reason: string; address?: string } & (
        | { amount: string; amountBaseUnits?: undefined }
        | { amount?: undefined /** @deprecated write `amount` as decimal text of the coin */; amountBaseUnits: bigint | string }
      ),
      options: { idempotencyKey?: string } = {},
    ) =>
      this.data(
        this.call(
          'POST',
          'refunds',
          successOf(Refund),
          {
            reference: input.reference,
            ...(input.amountBaseUnits === undefined ? { amount: input.amount } : { amount_base_units: String(input.amountBaseUnits) }),
            reason: input.reason,
            ...(input.address === undefined ? {} : { address: input.address }),
          },
          options.idempotencyKey,
        ),
      ),
    get: (id: string) => this.data(this.call('GET', `refunds/${encodeURIComponent(id)}`, successOf(Refund))),
    /** One page, newest first, as every list answers: `next` is the cursor of the following page (null on the last). */
    list: (filter: PageOptions & { status?: RefundState; reference?: string; from?: string; to?: string } = {}) => {
      const query = new URLSearchParams(Object.entries(filter).flatMap(([k, v]) => (v === undefined ? [] : [[k, String(v)]])));
      return this.page<z.infer<typeof Refund>>(`refunds${query.size ? `?${query}` : ''}`, RefundsPage);
    },
  };

  readonly bankPayouts = {
    add: (body: In<typeof PayoutBody>) => this.call('POST', 'bank/payouts', undefined, body).then((r) => r.data as Record<string, unknown>),
    /** A page of the bank accounts' ids, oldest first. */
    list: (options: PageOptions = {}) => this.page<string>(`bank/payouts${query({ ...options })}`, undefined),
    get: (id: string) => this.call('GET', `bank/payouts/${encodeURIComponent(id)}`, undefined).then((r) => r.data as Record<string, unknown>),
    update: (id: string, body: In<typeof PayoutFields>) =>
      this.call('PATCH', `bank/payouts/${encodeURIComponent(id)}`, undefined, body).then((r) => r.data as Record<string, unknown>),
    delete: (ids: string[]) => this.call('DELETE', 'bank/payouts', undefined, { ids }).then((r) => r.data as { deleted: string[] }),
    countries: () => this.call('GET', 'bank/payouts/countries', undefined).then((r) => r.data as Array<{ country: string; currency: string }>),
    currencies: () => this.call('GET', 'bank/payouts/currencies', undefined).then((r) => r.data as string[]),
    banks: (country: string) =>
      this.call('GET', `bank?country=${encodeURIComponent(country)}`, undefined).then((r) => r.data as Array<{ name: string; code: string }>),
    rate: (coin: string, currency: string) =>
      this.call('GET', `bank/payouts/rate?coin=${encodeURIComponent(coin)}&currency=${encodeURIComponent(currency)}`, undefined).then(
        (r) => r.data as { coin: string; currency: string; rate: number },
      ),
    initiate: (body: In<typeof InitiatePayoutBody>) =>
      this.call('POST', 'bank/payouts/initiate', undefined, body).then((r) => r.data as Record<string, unknown>),
  };
}
