import * as z from 'zod/mini';
import { amount, bool, currency, email, httpUrl, is, later, metadata, oneOf, personName, reference } from '../../contract/fields.ts';
import { publicKeyMode } from '../../contract/keys.ts';

const callback = () => z.optional(is<(data: never) => unknown>((v) => typeof v === 'function', 'a function'));

/** The object merchants pass to ServiceCheckout(). The spec's properties, plus apiBase. Built on first use. */
export const CheckoutOptionsSchema = later(() =>
  z.object(
    {
      key: is<string>((k) => publicKeyMode(k) !== undefined, 'a public key starting with pk_test_ or pk_live_'),
      amount: amount,
      currency: currency,
      name: z.optional(personName),
      email: z.optional(email),
      reference: z.optional(reference),
      acceptPartialPayment: z.optional(bool),
      metadata: z.optional(metadata),
      onClose: callback(),
      onSuccess: callback(),
      onError: callback(),
      /** A language tag; the modal speaks it when it can, else the page's language, else English. */
      locale: z.optional(is<string>((v) => typeof v === 'string' && /^[a-z]{2,3}(-[a-z\d]{2,8})*$/i.test(v), 'a language tag such as en, fr or ar-AE')),
      /** Light or dark; by default the customer's system setting. */
      theme: z.optional(oneOf(['light', 'dark', 'auto'])),
      /** The merchant's colour for the main buttons; their text colour is chosen to contrast. */
      accent: z.optional(is<string>((v) => typeof v === 'string' && /^#[\da-f]{6}$/i.test(v), 'a colour such as #2547d0')),
      /** Where the API lives; by default the origin of the script that loaded the checkout. */
      apiBase: httpUrl,
    },
    { error: 'an options object' },
  ),
);
