// The package's server-side surface (import from 'service-checkout/server'): never bundled
// into checkout.js, since it needs Node's crypto and handles secret keys.
export { ServiceClient, ServiceError } from './client.ts';
export type { EventRecord, InitializePaymentInput, Page, PageOptions, ServiceClientOptions } from './client.ts';
export type { PaymentSummary } from '../contract/dashboard.ts';
export type { Product } from '../contract/products.ts';
export {
  DEFAULT_TOLERANCE_SECONDS,
  EVENT_TYPES,
  SIGNATURE_HEADER,
  signStandardWebhook,
  signWebhook,
  STANDARD_HEADERS,
  verifyWebhook,
  WebhookError,
} from './webhook.ts';
export type {
  DepositEvent,
  DiscrepancyEvent,
  EventType,
  PayoutEvent,
  ReversedEvent,
  ServiceEvent,
  UnmatchedEvent,
  VerifyOptions,
  WebhookHeaders,
  WebhookRefusal,
} from './webhook.ts';
export type { MerchantVerification } from '../contract/schemas.ts';
