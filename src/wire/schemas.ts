// The shapes that cross the wire between the widget and the API. The stub API validates
// requests with these and the widget validates responses with them: one source of truth.
import * as z from 'zod/mini';
import * as field from './fields.ts';

export const STATUSES = ['pending', 'incomplete', 'confirmed', 'expired', 'failed'] as const;
export type PaymentStatus = (typeof STATUSES)[number];

const text = z.string();
const amountNumber = z.number().check(z.refine((n) => n >= 0));
const { timestamp } = field;

export const Coin = z.object({
  symbol: field.coin,
  name: text,
  network: text,
  chainId: field.int,
  contractAddress: z.string().check(z.refine((s) => /^0x[0-9a-fA-F]{40}$/.test(s))),
  decimals: field.int.check(z.refine((n) => n >= 0 && n <= 36)),
  status: z.enum(['active', 'inactive']),
});
export type Coin = z.infer<typeof Coin>;

/** POST /api/v1/transaction/initialize: the spec's body. */
export const InitializeBody = z.object({
  reference: field.reference,
  customer_name: z.optional(field.personName),
  customer_email: z.optional(field.email),
  coin: field.coin,
  currency: field.currency,
  amount: field.amount,
  accept_partial_payment: z.optional(z.boolean({ error: 'true or false' })),
  metadata: z.optional(field.metadata),
});
export type InitializeBody = z.input<typeof InitializeBody>;

/** The spec's payment transaction, plus when its quote expires. */
export const Transaction = z.object({
  reference: text,
  businessName: text,
  businessEmail: text,
  businessLogo: text,
  customerName: text,
  customerEmail: text,
  address: text,
  coin: field.coin,
  cryptoAmount: amountNumber,
  currency: field.currency,
  fiatAmount: amountNumber,
  feeInCrypto: amountNumber,
  fiatRate: amountNumber,
  cryptoRate: amountNumber,
  network: text,
  acceptPartialPayment: z.boolean(),
  expiresAt: timestamp,
});
export type Transaction = z.infer<typeof Transaction>;

/** GET /api/v1/transaction/verify/:reference */
export const Verification = z.object({
  reference: text,
  address: text,
  coin: field.coin,
  network: text,
  status: z.enum(STATUSES),
  actualAmount: amountNumber,
  amountPaid: amountNumber,
  amountRemaining: amountNumber,
  fiatAmount: amountNumber,
  currency: field.currency,
  feeInCrypto: amountNumber,
  acceptPartialPayment: z.boolean(),
  hash: z.nullable(text),
  expiresAt: timestamp,
  customer: z.object({ name: text, email: text }),
  metadata: z.nullable(field.plainObject),
});
export type Verification = z.infer<typeof Verification>;

export const DEPOSIT_KINDS = ['exact', 'partial', 'over'] as const;
export type DepositKind = (typeof DEPOSIT_KINDS)[number];

/** POST /api/v1/sandbox/deposit: test keys only. */
export const DepositBody = z.object({
  reference: field.reference,
  kind: z.enum(DEPOSIT_KINDS, { error: `one of ${DEPOSIT_KINDS.join(', ')}` }),
});

export const success = <T extends z.core.$ZodType>(data: T) =>
  z.object({ status: z.enum(['success']), statusCode: field.int, message: z.optional(text), data });

export const ErrorBody = z.object({
  status: z.enum(['error']),
  statusCode: field.int,
  message: text,
  errors: z.optional(z.array(z.object({ field: text, message: text }))),
});
export type ErrorBody = z.infer<typeof ErrorBody>;

export const CoinsResponse = success(z.array(Coin));
export const TransactionResponse = success(Transaction);
export const VerificationResponse = success(Verification);
