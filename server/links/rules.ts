// Payment links: what a link holds, how a create or update changes it, and what a payment
// through it costs. No I/O: prices come in as a lookup, storage saves what comes out.
import { randomBytes, randomUUID } from 'node:crypto';
import { CURRENCIES, FIAT_DECIMALS, MAX_AMOUNT, type Currency } from '../../contract/fields.ts';
import { formatUnits, toUnits } from '../../contract/money.ts';
import { Conflict, invalidField, invalidFields, Invalid } from '../domain/errors.ts';
import type { Account } from '../domain/account.ts';

export interface Product {
  id: string;
  name: string;
  description: string;
  coverPhoto: string;
}

export interface Price {
  id: string;
  currency: string;
  amount: string;
  product: Product;
}

export interface CartLine {
  id: number;
  quantity: number;
  quantityAdjustable: boolean;
  price: Price;
}

export interface Link {
  id: string;
  merchantId: string;
  mode: string;
  type: 'standard' | 'donation';
  slug: string;
  title: string;
  description: string;
  isActive: boolean;
  createdMs: number;
  updatedMs: number;
  options: { id: string; collectPhone: boolean; allowPromo: boolean; collectAddress: boolean; createdMs: number; updatedMs: number };
  action: { successMessage: string; redirectUrl: string; redirect: boolean; showConfirmationPage: boolean };
  charge?: { amount: string; currency: string };
  cart?: { id: string; createdMs: number; updatedMs: number; items: CartLine[] };
  socialLinks: { facebook: string; twitter: string; instagram: string };
  websiteUrl: string;
  image: string;
}

export interface CommonChanges {
  description?: string;
  options?: { collect_phone?: boolean; allow_promo?: boolean; collect_address?: boolean };
  action?: { redirect?: boolean; redirect_url?: string; show_confirmation_page?: boolean; success_message?: string };
  social_links?: { facebook?: string; twitter?: string; instagram?: string };
  website_url?: string;
}

export type CartEntry = { price_id: string; quantity: number; quantity_adjustable?: boolean; item_id?: number };

const slugOf = () =>
  randomBytes(6)
    .toString('base64url')
    .toLowerCase()
    .replace(/[^a-z0-9]/g, 'x');

export function newLink(account: Pick<Account, 'merchant' | 'mode'>, type: Link['type'], title: string, nowMs: number): Link {
  return {
    id: randomUUID(),
    merchantId: account.merchant.id,
    mode: account.mode,
    type,
    slug: slugOf(),
    title,
    description: '',
    isActive: true,
    createdMs: nowMs,
    updatedMs: nowMs,
    options: { id: randomUUID(), collectPhone: false, allowPromo: false, collectAddress: false, createdMs: nowMs, updatedMs: nowMs },
    action: { successMessage: 'Thank you for your payment.', redirectUrl: '', redirect: false, showConfirmationPage: true },
    socialLinks: { facebook: '', twitter: '', instagram: '' },
    websiteUrl: '',
    image: '',
  };
}

/** A cart from its entries: every price known, one currency for all. `lineId` numbers new lines. */
export function buildCart(entries: CartEntry[], prices: Map<string, Price>, lineId: () => number, nowMs: number): NonNullable<Link['cart']> {
  const items = entries.map((entry, i) => {
    const price = prices.get(entry.price_id);
    if (!price) throw invalidField(`cart.${i}.price_id`, `expected a known price id, received ${JSON.stringify(entry.price_id)}`);
    return { id: entry.item_id ?? lineId(), quantity: entry.quantity, quantityAdjustable: entry.quantity_adjustable ?? false, price };
  });
  const currencies = new Set(items.map((item) => item.price.currency));
  if (currencies.size > 1)
    throw new Invalid(`cart: every price must be in one currency, received ${[...currencies].join(', ')}`, [
      { field: 'cart', message: 'expected one currency' },
    ]);
  return { id: randomUUID(), createdMs: nowMs, updatedMs: nowMs, items };
}

/** A standard link has a cart of prices or a fixed charge: exactly one. */
export function assertCartOrCharge(hasCart: boolean, hasCharge: boolean): void {
  if (hasCart === hasCharge) {
    throw new Invalid('A standard link takes a cart of prices or a charge: one of the two', [
      { field: 'cart', message: 'expected a cart or a charge, not both or neither' },
    ]);
  }
}

export function assertType(link: Link, type: Link['type']): void {
  if (link.type !== type) throw new Invalid(`Link ${link.id} is a ${link.type} link`);
}

/** Applies the fields every link kind shares. */
export function applyCommon(link: Link, body: CommonChanges, nowMs: number): void {
  link.updatedMs = nowMs;
  if (body.description !== undefined) link.description = body.description;
  const o = body.options ?? {};
  link.options = {
    ...link.options,
    collectPhone: o.collect_phone ?? link.options.collectPhone,
    allowPromo: o.allow_promo ?? link.options.allowPromo,
    collectAddress: o.collect_address ?? link.options.collectAddress,
    updatedMs: nowMs,
  };
  const a = body.action ?? {};
  link.action = {
    redirect: a.redirect ?? link.action.redirect,
    redirectUrl: a.redirect_url ?? link.action.redirectUrl,
    showConfirmationPage: a.show_confirmation_page ?? link.action.showConfirmationPage,
    successMessage: a.success_message ?? link.action.successMessage,
  };
  if (link.action.redirect && !link.action.redirectUrl) throw invalidField('action.redirect_url', 'expected a URL when action.redirect is true');
  const s = body.social_links ?? {};
  link.socialLinks = {
    facebook: s.facebook ?? link.socialLinks.facebook,
    twitter: s.twitter ?? link.socialLinks.twitter,
    instagram: s.instagram ?? link.socialLinks.instagram,
  };
  if (body.website_url !== undefined) link.websiteUrl = body.website_url;
}

/** The parameters the payment page asks for. */
export function paramsOf(link: Link): Array<'email' | 'address' | 'phone' | 'promo'> {
  const { collectAddress, collectPhone, allowPromo } = link.options;
  const asked: Array<[boolean, 'email' | 'address' | 'phone' | 'promo']> = [
    [true, 'email'],
    [collectAddress, 'address'],
    [collectPhone, 'phone'],
    [allowPromo, 'promo'],
  ];
  return asked.filter(([on]) => on).map(([, name]) => name);
}

/** What a payment through the link costs: the server decides, from the link itself. */
export function amountFor(link: Link, body: Record<string, unknown>): { amount: string; currency: Currency } {
  if (link.charge) return { amount: link.charge.amount, currency: link.charge.currency as Currency };
  if (link.cart) {
    // A price may be in any currency the catalogue holds; the service quotes only its own.
    const priced = link.cart.items[0]?.price.currency ?? '';
    if (!(CURRENCIES as readonly string[]).includes(priced)) {
      throw new Conflict(`Payment link ${link.slug} is priced in ${priced}, which this service cannot take payments in (it takes ${CURRENCIES.join(', ')})`);
    }
    const quantities = (body.quantities ?? {}) as Record<string, unknown>;
    let cents = 0n;
    for (const item of link.cart.items) {
      const asked = quantities[item.id];
      let quantity = item.quantity;
      if (item.quantityAdjustable && asked !== undefined) {
        if (!Number.isInteger(asked) || (asked as number) < 1 || (asked as number) > 1000) {
          throw invalidField(`quantities.${item.id}`, `expected a whole number from 1 to 1000, received ${JSON.stringify(asked)}`);
        }
        quantity = asked as number;
      }
      cents += toUnits(item.price.amount, FIAT_DECIMALS)! * BigInt(quantity);
    }
    if (cents > BigInt(MAX_AMOUNT) * 100n) throw invalidField('quantities', `expected a total of at most ${MAX_AMOUNT}`);
    return { amount: formatUnits(cents, FIAT_DECIMALS, FIAT_DECIMALS), currency: link.cart.items[0].price.currency as Currency };
  }
  // A donation: the donor's amount, within the usual rules.
  const currency = body.currency as Currency;
  const units = toUnits(body.amount, FIAT_DECIMALS);
  const errors = [];
  if (units === undefined || units <= 0n || units > BigInt(MAX_AMOUNT) * 100n) {
    errors.push({ field: 'amount', message: `expected an amount from 0.01 to ${MAX_AMOUNT} with at most 2 decimals, received ${JSON.stringify(body.amount)}` });
  }
  if (!CURRENCIES.includes(currency))
    errors.push({ field: 'currency', message: `expected one of ${CURRENCIES.join(', ')}, received ${JSON.stringify(body.currency)}` });
  const invalid = invalidFields(errors);
  if (invalid) throw invalid;
  return { amount: formatUnits(units!, FIAT_DECIMALS, FIAT_DECIMALS), currency };
}

/** The image type a file's first bytes say it is (PNG, JPEG, GIF or WebP), or undefined. */
export function imageTypeOf(bytes: Uint8Array): string | undefined {
  const starts = (...sig: number[]) => sig.every((b, i) => bytes[i] === b);
  if (starts(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return 'image/png';
  if (starts(0xff, 0xd8, 0xff)) return 'image/jpeg';
  if (starts(0x47, 0x49, 0x46, 0x38)) return 'image/gif';
  if (starts(0x52, 0x49, 0x46, 0x46) && bytes[8] === 0x57 && bytes[9] === 0x45 && bytes[10] === 0x42 && bytes[11] === 0x50) return 'image/webp';
  return undefined;
}

/** The spec's page fields of a list page of `size` with `above` links before it, of `count`. */
export function linkPages(count: number, above: number, size: number) {
  const currentPage = Math.floor(above / size) + 1;
  const lastPage = Math.max(1, Math.ceil(count / size));
  return {
    count,
    currentPage,
    nextPage: currentPage < lastPage ? currentPage + 1 : null,
    prevPage: currentPage > 1 ? Math.min(currentPage - 1, lastPage) : null,
    lastPage,
  };
}
