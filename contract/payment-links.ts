// Payment links on the wire, exactly as the spec's tables name them, inconsistencies kept
// (allowPromo / allowPromotion, showConfirmationPage / confirmationPage, coverPhoto / image,
// webSiteUrl / websiteUrl): merchants code against these names. For the stub API and merchant
// servers; the browser bundle never imports this file.
import * as z from 'zod/mini';
import { pageAnswer } from './paging.ts';
import { amount, bool, currency, exactlyOne, httpUrl, int, is, oneOf, text, timestamp } from './fields.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (v: unknown): boolean => typeof v === 'string' && UUID.test(v);
export const uuid = is<string>(isUuid, 'a UUID');
const url = is<string>((v) => httpUrl.safeParse(v).success, 'a URL');
const urlOrEmpty = is<string>((v) => v === '' || httpUrl.safeParse(v).success, 'a URL or ""');
const decimalText = is<string>((v) => typeof v === 'string' && /^\d+(\.\d+)?$/.test(v), 'a decimal amount as text');
const empty = is<Record<string, never>>((v) => !!v && typeof v === 'object' && Object.keys(v).length === 0, 'an empty object');

export const LINK_TYPES = ['standard', 'donation'] as const;

// --- responses ---------------------------------------------------------------------------

export const Action = z.object({ successMessage: text, redirectUrl: urlOrEmpty, redirect: bool, showConfirmationPage: bool });
/** The detail-by-id response names the confirmation flag confirmationPage. */
export const ActionById = z.object({ successMessage: text, redirectUrl: urlOrEmpty, redirect: bool, confirmationPage: bool });

export const Charge = z.object({ amount: decimalText, currency: text });
const chargeOrEmpty = z.union([Charge, empty]);

const Price = z.object({ currency: text, amount: decimalText, id: uuid });
const CartItem = z.object({
  id: int,
  quantity: int,
  quantityAdjustable: bool,
  price: Price,
  product: z.object({ id: uuid, name: text, description: text, coverPhoto: urlOrEmpty }),
});
/** In the create response the product's photo is named image. */
const CartItemCreated = z.object({
  id: int,
  quantity: int,
  quantityAdjustable: bool,
  price: Price,
  product: z.object({ id: uuid, name: text, description: text, image: urlOrEmpty }),
});
const cartOf = <T extends z.core.$ZodType>(item: T) =>
  z.union([z.object({ id: uuid, createdAt: timestamp, updatedAt: timestamp, items: z.array(item) }), empty]);
export const Cart = cartOf(CartItem);

export const LinkListItem = z.object({
  id: uuid,
  createdAt: timestamp,
  updatedAt: timestamp,
  type: oneOf(LINK_TYPES),
  title: text,
  description: text,
  network: text,
  slug: text,
  isActive: bool,
  webSiteUrl: z.optional(urlOrEmpty),
});

export const LinkList = z.object({
  status: oneOf(['success']),
  statusCode: int,
  data: z.array(LinkListItem),
  count: int,
  currentPage: int,
  nextPage: z.nullable(int),
  prevPage: z.nullable(int),
  lastPage: int,
  /** Every list's paging (contract/paging.ts) beside the spec's page fields: the cursor of the next page, or null, and whether there is one. */
  ...pageAnswer(),
});

export const LinkBySlug = z.object({
  charge: chargeOrEmpty,
  cart: Cart,
  params: z.array(oneOf(['email', 'address', 'phone', 'promo'])),
  businessName: text,
  title: text,
  description: text,
  id: uuid,
  type: oneOf(LINK_TYPES),
  isActive: bool,
  slug: text,
  url,
  network: text,
  action: Action,
  createdAt: timestamp,
});

export const LinkById = z.object({
  linkType: oneOf(LINK_TYPES),
  isActive: bool,
  network: text,
  slug: text,
  id: uuid,
  title: text,
  description: text,
  businessId: uuid,
  options: z.object({ id: uuid, collectPhone: bool, allowPromo: bool, collectAddress: bool, createdAt: timestamp, updatedAt: timestamp }),
  action: ActionById,
  charge: chargeOrEmpty,
  cart: Cart,
  createdAt: timestamp,
  updatedAt: timestamp,
});

export const StandardLinkCreated = z.object({
  charge: chargeOrEmpty,
  cart: cartOf(CartItemCreated),
  type: oneOf(['standard']),
  isActive: bool,
  network: text,
  slug: text,
  id: uuid,
  title: text,
  description: text,
  businessId: uuid,
  options: z.object({ collectAddress: bool, collectPhone: bool, allowPromotion: bool }),
  action: Action,
  url,
  createdAt: timestamp,
  updatedAt: timestamp,
});

export const DonationLink = z.object({
  isActive: bool,
  id: uuid,
  title: text,
  description: text,
  createdAt: timestamp,
  updatedAt: timestamp,
  type: oneOf(['donation']),
  network: text,
  action: Action,
  slug: text,
  socialLinks: z.object({ facebook: text, twitter: text, instagram: text }),
  businessId: uuid,
  options: z.object({ collectPhone: bool }),
  url,
  websiteUrl: urlOrEmpty,
  image: urlOrEmpty,
  sessions: z.array(is<unknown>(() => true, 'anything')),
});

// --- requests ----------------------------------------------------------------------------

const LinkOptionsBody = z.object({
  collect_phone: z.optional(bool),
  allow_promo: z.optional(bool),
  collect_address: z.optional(bool),
});
const message = is<string>((v) => typeof v === 'string' && v.length <= 500, 'text of at most 500 characters');
const ActionBody = z.object({
  redirect: z.optional(bool),
  redirect_url: z.optional(urlOrEmpty),
  show_confirmation_page: z.optional(bool),
  success_message: z.optional(message),
});
/** Social links are shown as links on the hosted page: http(s) URLs only. */
const SocialLinksBody = z.object({ facebook: z.optional(urlOrEmpty), instagram: z.optional(urlOrEmpty), twitter: z.optional(urlOrEmpty) });
const quantity = is<number>((v) => Number.isSafeInteger(v) && (v as number) >= 1 && (v as number) <= 1000, 'a whole number from 1 to 1000');
const CartEntry = z.object({ price_id: uuid, quantity, quantity_adjustable: z.optional(bool) });
const title = is<string>((v) => typeof v === 'string' && v.trim().length > 0 && v.length <= 120, 'a title of 1 to 120 characters');
const description = is<string>((v) => typeof v === 'string' && v.length <= 2000, 'text of at most 2000 characters');

/** POST /payment_links/standard. `charge` is ours: a link with a fixed amount instead of a cart. */
export const StandardLinkBody = z
  .object({
    title,
    description: z.optional(description),
    options: z.optional(LinkOptionsBody),
    action: z.optional(ActionBody),
    cart: z.optional(z.array(CartEntry).check(z.minLength(1, 'a cart of at least one price'))),
    /** The widget's own money rules: an amount a customer can pay, in a currency the checkout takes. */
    charge: z.optional(z.object({ amount, currency })),
  })
  .check(exactlyOne(['cart', 'charge'], 'a cart of prices or a charge, not both or neither'));

/** PUT /payment_links/standard: the same, plus the link's id; the action names confirmation_page. */
export const StandardLinkUpdateBody = z.object({
  id: uuid,
  business_id: z.optional(uuid),
  network: z.optional(text),
  title: z.optional(title),
  description: z.optional(description),
  options: z.optional(LinkOptionsBody),
  action: z.optional(
    z.object({
      redirect: z.optional(bool),
      redirect_url: z.optional(urlOrEmpty),
      confirmation_page: z.optional(bool),
      success_message: z.optional(message),
    }),
  ),
  cart: z.optional(z.array(z.object({ item_id: z.optional(int), price_id: uuid, quantity, quantity_adjustable: z.optional(bool) }))),
});

export const DonationLinkUpdateBody = z.object({
  id: uuid,
  is_active: z.optional(bool),
  description: z.optional(description),
  options: z.optional(LinkOptionsBody),
  action: z.optional(ActionBody),
  social_links: z.optional(SocialLinksBody),
  website_url: z.optional(urlOrEmpty),
});

/**
 * POST /payment_links/donation, a multipart form: its text fields, as sent (booleans as
 * the text true/false), checked by the same rules as the JSON routes. The cover photo is
 * checked apart (size, and its bytes sniffed as an image).
 */
const formBool = oneOf(['true', 'false']);
export const DonationLinkForm = z.object({
  title,
  description: z.optional(description),
  'action[redirect]': z.optional(formBool),
  'action[redirect_url]': z.optional(urlOrEmpty),
  'action[success_message]': z.optional(message),
  'action[show_confirmation_page]': z.optional(formBool),
  'options[collect_phone]': z.optional(formBool),
  'social_links[facebook]': z.optional(urlOrEmpty),
  'social_links[twitter]': z.optional(urlOrEmpty),
  'social_links[instagram]': z.optional(urlOrEmpty),
  business_id: z.optional(uuid),
  website_url: z.optional(urlOrEmpty),
});

/** PUT /payment_links/:link/status. The spec does not show the body; this is ours. */
export const LinkStatusBody = z.object({ is_active: bool });
