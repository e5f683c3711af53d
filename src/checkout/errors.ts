import type { FieldError } from '../../contract/field-errors.ts';
import type { Verification } from '../../contract/schemas.ts';

/**
 * The codes `onError` can carry. Each ends the attempt; a passing network fault during
 * the payment is not one of them (the widget says it is reconnecting and keeps waiting).
 */
export type ErrorCode =
  /** An option is missing or wrong; `fields` names each one. Nothing was sent. */
  | 'invalid_options'
  /** A secret key (sk_…) was passed as `key`. Nothing was sent. */
  | 'secret_key'
  /** The API refused the request (bad key, unknown reference, conflict…). */
  | 'api_error'
  /** The API could not be reached after retries, and the customer gave up. */
  | 'network_error'
  /** The API answered with something that is not what the contract says. */
  | 'bad_response'
  /** The quote expired after part of the amount arrived; `transaction` says how much. */
  | 'payment_expired'
  /** The service rejected the payment. */
  | 'payment_failed';

export interface CheckoutError {
  code: ErrorCode;
  message: string;
  fields?: FieldError[];
  transaction?: Verification;
}
