// The published types, held by the type-checker (npm test type-checks tests too): what a
// merchant's editor shows must stay what the README says.
import { describe, expectTypeOf, it } from 'vitest';
import { ServiceCheckout, type CheckoutHandle, type CheckoutError, type ServiceCheckoutOptions, type Verification } from './index.ts';
import { ServiceCheckoutButton, useServiceCheckout, type ServiceCheckoutButtonProps, type UseServiceCheckout } from './react/index.ts';
import { useServiceCheckout as useVueCheckout } from './vue/index.ts';
import {
  type ServiceClient,
  verifyWebhook,
  type EventRecord,
  type MerchantVerification,
  type Page,
  type PaymentSummary,
  type ServiceEvent,
} from '../sdk/index.ts';

describe('public types', () => {
  it('ServiceCheckout takes its options and returns a handle', () => {
    expectTypeOf(ServiceCheckout).parameter(0).toEqualTypeOf<ServiceCheckoutOptions>();
    expectTypeOf(ServiceCheckout).returns.toEqualTypeOf<CheckoutHandle>();
    expectTypeOf<ServiceCheckoutOptions['currency']>().toEqualTypeOf<'USD' | 'GBP' | 'EUR' | 'AED' | 'NGN'>();
    expectTypeOf<ServiceCheckoutOptions['amount']>().toEqualTypeOf<string | number>();
    expectTypeOf<ServiceCheckoutOptions>().toHaveProperty('key').toEqualTypeOf<string>();
    // A typo is caught by the types (the runtime ignores unknown names).
    const typo: ServiceCheckoutOptions = {
      key: 'pk_test_example0key',
      amount: 1,
      currency: 'USD',
      // @ts-expect-error onSucess is not an option
      onSucess: () => {},
    };
    expectTypeOf(typo).toEqualTypeOf<ServiceCheckoutOptions>();
  });

  it('callbacks receive the verify data, an error with a code, and close info', () => {
    expectTypeOf<Parameters<NonNullable<ServiceCheckoutOptions['onSuccess']>>[0]>().toEqualTypeOf<Verification>();
    expectTypeOf<Parameters<NonNullable<ServiceCheckoutOptions['onError']>>[0]>().toEqualTypeOf<CheckoutError>();
    expectTypeOf<Verification['amountPaid']>().toEqualTypeOf<number>();
    expectTypeOf<Verification['fiatAmount']>().toEqualTypeOf<number>();
    // A page holds the public key: who paid and the metadata are never in what it receives.
    expectTypeOf<Verification>().not.toHaveProperty('customer');
    expectTypeOf<Verification>().not.toHaveProperty('metadata');
  });

  it('the React and Vue wrappers open and close the same checkout', () => {
    expectTypeOf(useServiceCheckout).returns.toEqualTypeOf<UseServiceCheckout>();
    expectTypeOf<ServiceCheckoutButtonProps['options']>().toEqualTypeOf<ServiceCheckoutOptions>();
    expectTypeOf(ServiceCheckoutButton).parameter(0).toEqualTypeOf<ServiceCheckoutButtonProps>();
    expectTypeOf(useVueCheckout).returns.toHaveProperty('open').returns.toEqualTypeOf<CheckoutHandle>();
  });

  it('the server SDK returns data, not envelopes', () => {
    type Client = InstanceType<typeof ServiceClient>;
    expectTypeOf<Awaited<ReturnType<Client['verifyPayment']>>>().toEqualTypeOf<MerchantVerification>();
    expectTypeOf<MerchantVerification['customer']>().toEqualTypeOf<{ name: string; email: string } | undefined>();
    expectTypeOf<Awaited<ReturnType<Client['paymentLinks']['list']>>>().toHaveProperty('currentPage');
    expectTypeOf<Awaited<ReturnType<Client['payments']['list']>>>().toEqualTypeOf<Page<PaymentSummary>>();
    expectTypeOf<Awaited<ReturnType<Client['events']['list']>>>().toEqualTypeOf<Page<EventRecord> & { next: string }>();
    expectTypeOf(verifyWebhook).returns.toEqualTypeOf<ServiceEvent>();
  });
});
