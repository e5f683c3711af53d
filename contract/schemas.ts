// The shapes that cross the wire between the widget and the API. The stub API validates
// requests with these and the widget validates responses with them: one source of truth.
import * as z from 'zod/mini';
import {
  amount,
  amountNumber,
  bool,
  chainId,
  coin,
  currency,
  email,
  httpUrl,
  int,
  is,
  isPlainObject,
  later,
  listOf,
  metadata,
  nullable,
  oneOf,
  personName,
  reference,
  text,
  timestamp,
} from './fields.ts';

/** `settled`: an accepted partial payment, finished with what arrived (amountPaid < actualAmount). */
export const STATUSES = ['pending', 'incomplete', 'confirmed', 'settled', 'expired', 'failed'] as const;
export type PaymentStatus = (typeof STATUSES)[number];

export const Coin = later(() =>
  z.object({
    symbol: coin,
    name: text,
    network: text,
    chainId: int,
    contractAddress: is<string>((v) => /^0x[0-9a-fA-F]{40}$/.test(v as string), 'a 0x contract address'),
    decimals: is<number>((v) => Number.isSafeInteger(v) && (v as number) >= 0 && (v as number) <= 36, 'a whole number from 0 to 36'),
    status: oneOf(['active', 'inactive']),
    /** Asked with ?amount&currency: what the customer sends in this coin (an operator's fee the customer bears included), and that fee within it. */
    due: z.optional(amountNumber),
    fee: z.optional(amountNumber),
    /** Where a transaction of this network can be looked at: `${explorer}/tx/${hash}` (https only). */
    explorer: z.optional(is<string>((v) => typeof v === 'string' && /^https:\/\/[^\s"<>]+$/.test(v), 'an https URL')),
    /**
     * Where the service relays a signed transfer of this coin (EIP-3009, POST
     * /api/v1/transaction/relay/{reference}): the token's own EIP-712 domain name and version, to
     * sign `TransferWithAuthorization` in. Absent: the coin is paid with a transfer only.
     */
    signs: z.optional(z.object({ name: text, version: text })),
  }),
);
export type Coin = z.infer<typeof Coin>;

/** Who the key belongs to: the name (and logo) a customer sees from the first screen. */
export const Business = later(() => z.object({ name: text, email: text, logo: text }));
export type Business = z.infer<typeof Business>;

/** POST /api/v1/transaction/initialize: the spec's body. */
export const InitializeBody = later(() =>
  z.object({
    reference: reference,
    customer_name: z.optional(personName),
    customer_email: z.optional(email),
    coin: coin,
    currency: currency,
    amount: amount,
    accept_partial_payment: z.optional(bool),
    metadata: z.optional(metadata),
    /** Ours: the payment link (id or slug) being paid; an inactive link refuses payments. */
    payment_link: z.optional(is<string>((v) => typeof v === 'string' && /^[A-Za-z0-9-]{1,64}$/.test(v), 'a payment link id or slug')),
    /**
     * Ours: the chain to pay on (a coin list entry's chainId), where the key's mode takes the coin
     * on several chains; without it, the one chain that takes the coin.
     */
    chain_id: z.optional(chainId),
  }),
);
export type InitializeBody = z.input<typeof InitializeBody>;

/** The spec's payment transaction, plus when its quote expires. */
export const Transaction = later(() =>
  z.object({
    reference: text,
    businessName: text,
    businessEmail: text,
    businessLogo: text,
    customerName: text,
    customerEmail: text,
    address: text,
    coin: coin,
    cryptoAmount: amountNumber,
    currency: currency,
    fiatAmount: amountNumber,
    feeInCrypto: amountNumber,
    fiatRate: amountNumber,
    cryptoRate: amountNumber,
    network: text,
    /** Ours: the chain the payment is on (its coin list entry's chainId). */
    chainId: z.optional(int),
    acceptPartialPayment: bool,
    expiresAt: timestamp,
  }),
);
export type Transaction = z.infer<typeof Transaction>;

/**
 * A payment as verify answers a page (public key); the quote, settle and sandbox answers have
 * this shape too. Who paid and the merchant's metadata are not in it: see MerchantVerification.
 */
const paymentShape = () => ({
  /** The payment's reference: the merchant's, or the one the checkout generated. */
  reference: text,
  /** The deposit address the customer sends to. */
  address: text,
  /** The stablecoin asked for: BUSD, DAI, USDT or USDC. */
  coin: coin,
  /** The spec's network name: testnet for test keys, mainnet for live keys. */
  network: text,
  /** Ours: the chain the payment is on (its coin list entry's chainId): send only on that chain. */
  chainId: z.optional(int),
  status: oneOf(STATUSES),
  /** Token amount due (an operator's fee the customer bears included), in whole coins (not base units), rounded up at 6 decimals. */
  actualAmount: amountNumber,
  /** Token amount received so far, in whole coins; may exceed actualAmount (an overpayment). */
  amountPaid: amountNumber,
  /** Token amount still due, in whole coins; 0 once paid in full or over. */
  amountRemaining: amountNumber,
  /** The price in the fiat `currency`, in major units with at most 2 decimals (24.5 is 24.50). */
  fiatAmount: amountNumber,
  /** The fiat currency the price is in: compare it, with fiatAmount, to your order. */
  currency: currency,
  /**
   * What the customer pays on top of the price for the operator's fee, within actualAmount, in
   * whole coins (bps of the price, rounded up at 6 decimals): 0 when the operator charges none
   * or the merchant bears it. The checkout shows it as the operator fee, and hides it at 0.
   */
  feeInCrypto: amountNumber,
  acceptPartialPayment: bool,
  /** The last transfer's transaction hash, or null before any arrived. */
  hash: nullable<string>((v) => typeof v === 'string', 'text'),
  /** When the quote ends (ISO 8601, the service's clock). */
  expiresAt: timestamp,
  /**
   * Money on the chain not counted yet: the amount (whole coins) of transfers seen in blocks
   * that lack the network's confirmations, how many the least deep has, and how many it needs.
   */
  confirming: z.optional(z.object({ amount: amountNumber, confirmations: int, required: int })),
});

/**
 * The operator's fee on a payment: its rate in basis points (100 is 1%; 0: none) and who bears
 * it (`customer`: added to the price; `merchant`: deducted from what the merchant receives), as
 * the payment was made; `amount`, of actualAmount paid in full, what the operator receives (the
 * deposit contract's split on `wallet` settlement, the journal's on `balance`), and
 * `merchantAmount` what the merchant receives: exact decimal text, together exactly
 * actualAmount. Whatever arrives is split at the same rate, the operator's share rounded down.
 */
export const PaymentFee = later(() => z.object({ bps: int, bearer: oneOf(['customer', 'merchant']), amount: text, merchantAmount: text }));
export type PaymentFee = z.infer<typeof PaymentFee>;

/** GET /api/v1/transaction/verify/:reference, as a page (public key) reads it: what the checkout parses. */
export const Verification = later(() => z.object(paymentShape()));
export type Verification = z.infer<typeof Verification>;

/** The same, as the merchant's server (secret key) and webhooks read it: with who paid and the metadata. */
export const MerchantVerification = later(() =>
  z.object({
    ...paymentShape(),
    /** Personal and private data: answered to the secret key (and in webhooks) only. */
    customer: z.optional(z.object({ name: text, email: text })),
    /** Your metadata from initialize, as a JSON object: secret key and webhooks only. */
    metadata: z.optional(nullable<Record<string, unknown>>(isPlainObject, 'an object')),
    /**
     * The amounts above as exact decimal text (a JSON number cannot carry 18 decimals): compare
     * these, or base units, never the numbers. fiatAmountExact keeps two decimals ("24.50").
     */
    actualAmountExact: z.optional(text),
    amountPaidExact: z.optional(text),
    amountRemainingExact: z.optional(text),
    feeInCryptoExact: z.optional(text),
    fiatAmountExact: z.optional(text),
    /** The operator's fee on this payment and what paying it in full gives each party (secret key and webhooks). */
    fee: z.optional(PaymentFee),
  }),
);
export type MerchantVerification = z.infer<typeof MerchantVerification>;

/**
 * What a long poll waits to see change: the status, the amount paid, the quote itself (a
 * re-quote elsewhere changes the coin and the expiry), so an open checkout follows it, and
 * money still confirming (each new confirmation).
 */
export const paymentVersion = ({
  status,
  amountPaid,
  coin,
  expiresAt,
  confirming: c,
}: Pick<Verification, 'status' | 'amountPaid' | 'coin' | 'expiresAt' | 'confirming'>): string =>
  `${status}:${amountPaid}:${coin}:${expiresAt}` + (c ? `:${c.amount}:${c.confirmations}` : '');

/** The longest a verify long poll may ask the API to wait, in seconds. */
export const MAX_WAIT_SECONDS = 30;

export const DEPOSIT_KINDS = ['exact', 'partial', 'over'] as const;
export type DepositKind = (typeof DEPOSIT_KINDS)[number];

/** POST /api/v1/sandbox/deposit: test keys only. */
export const DepositBody = later(() =>
  z.object({
    reference: reference,
    kind: oneOf(DEPOSIT_KINDS),
  }),
);

/** PUT /api/v1/payout_address (secret key): where a chain's deposits are swept to. */
export const PayoutAddressBody = later(() =>
  z.object({
    chain_id: is<number>((v) => Number.isSafeInteger(v) && (v as number) > 0, 'a chain id such as 56'),
    address: is<string>(
      (v) => typeof v === 'string' && /^0x[0-9a-fA-F]{40}$/.test(v) && !/^0x0{40}$/.test(v),
      'a 0x address of 40 hex digits, not the zero address',
    ),
  }),
);

/** PUT /api/v1/webhook (secret key): where DEPOSIT_TRANSACTION events go. */
export const WebhookBody = later(() => z.object({ url: httpUrl }));

const envelope = () => ({ status: oneOf(['success']), statusCode: int, message: z.optional(text) });
/*@__NO_SIDE_EFFECTS__*/
export const success = <T extends z.core.$ZodType>(data: T) => later(() => z.object({ ...envelope(), data }));

export const ErrorBody = later(() =>
  z.object({
    status: oneOf(['error']),
    statusCode: int,
    message: text,
    errors: z.optional(listOf(z.object({ field: text, message: text }))),
  }),
);
export type ErrorBody = z.infer<typeof ErrorBody>;

/**
 * The coins, and (ours, beside the data) the business the key belongs to, and whether the
 * sandbox can pay (test keys on a dev chain or the static catalogue; never on a public testnet).
 */
export const CoinsResponse = later(() => z.object({ ...envelope(), data: listOf(Coin), business: z.optional(Business), sandbox: z.optional(bool) }));
export const TransactionResponse = success(Transaction);
export const VerificationResponse = success(Verification);
export const MerchantVerificationResponse = success(MerchantVerification);

/** GET /api/v1/transaction/qr/:reference (ours): the payment's QR code as one SVG path. */
export const Qr = later(() =>
  z.object({
    /** The text encoded: the EIP-681 URI of what is still due. */
    uri: text,
    /** Modules per side, without the quiet zone. */
    size: int,
    /** The dark modules: moves, lines and closes only, so it can draw nothing but squares. */
    path: is<string>((v) => typeof v === 'string' && /^[Mhvz\d -]*$/.test(v), 'an SVG path of M, h, v and z'),
  }),
);
export type Qr = z.infer<typeof Qr>;
export const QrResponse = success(Qr);
