import * as z from 'zod/mini';
import * as field from '../wire/fields.ts';
import { publicKeyMode } from './keys.ts';

const callback = z.optional(field.is<(data: never) => unknown>((v) => typeof v === 'function', 'a function'));

/** The object merchants pass to ServiceCheckout(). The spec's properties, plus apiBase. */
export const CheckoutOptionsSchema = z.object(
  {
    key: field.is<string>((k) => publicKeyMode(k) !== undefined, 'a public key starting with pk_test_ or pk_live_'),
    amount: field.amount,
    currency: field.currency,
    name: z.optional(field.personName),
    email: z.optional(field.email),
    reference: z.optional(field.reference),
    acceptPartialPayment: z.optional(field.bool),
    metadata: z.optional(field.metadata),
    onClose: callback,
    onSuccess: callback,
    onError: callback,
    /** Where the API lives; by default the origin of the script that loaded the checkout. */
    apiBase: field.httpUrl,
  },
  { error: 'an options object' },
);
