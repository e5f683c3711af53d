// The package's public surface. Importing it has no side effects; src/global.ts is the
// script-tag entry that registers window.ServiceCheckout.
export { ServiceCheckout } from './service-checkout.ts';
export type { CheckoutHandle, ServiceCheckoutOptions } from './service-checkout.ts';
export type { CheckoutError, ErrorCode } from './checkout/errors.ts';
export type { CloseInfo } from './options/parse.ts';
export type { Verification, PaymentStatus } from '../contract/schemas.ts';
