// Payment links in the spec's response shapes, its inconsistencies kept (allowPromo /
// allowPromotion, showConfirmationPage / confirmationPage, coverPhoto / image).
import type * as z from 'zod/mini';
import type { DonationLink, LinkById, LinkBySlug, LinkListItem, StandardLinkCreated } from '../../contract/payment-links.ts';
import type { Merchant } from '../domain/account.ts';
import { NETWORK } from '../domain/defaults.ts';
import { paramsOf, type Link } from './rules.ts';

type Out<S extends z.core.$ZodType> = z.output<S>;
const iso = (ms: number) => new Date(ms).toISOString();

export const linkUrl = (origin: string, link: Link) => `${origin}/pay/${link.slug}`;

function cartOut(link: Link, photo: 'coverPhoto' | 'image') {
  if (!link.cart) return {};
  const { id, createdMs, updatedMs, items } = link.cart;
  return {
    id,
    createdAt: iso(createdMs),
    updatedAt: iso(updatedMs),
    items: items.map((item) => ({
      id: item.id,
      quantity: item.quantity,
      quantityAdjustable: item.quantityAdjustable,
      price: { currency: item.price.currency, amount: item.price.amount, id: item.price.id },
      product: {
        id: item.price.product.id,
        name: item.price.product.name,
        description: item.price.product.description,
        [photo]: item.price.product.coverPhoto,
      },
    })),
  };
}

/** The fields every link shape of the spec shares; each shape adds its own. */
const core = (link: Link) => ({
  id: link.id,
  title: link.title,
  description: link.description,
  isActive: link.isActive,
  slug: link.slug,
  network: NETWORK[link.mode as 'test' | 'live'],
  createdAt: iso(link.createdMs),
});

export const listItemView = (link: Link): Out<typeof LinkListItem> => ({
  ...core(link),
  updatedAt: iso(link.updatedMs),
  type: link.type,
  ...(link.type === 'donation' ? { webSiteUrl: link.websiteUrl } : {}),
});

export const bySlugView = (link: Link, merchant: Merchant, origin: string): Out<typeof LinkBySlug> => ({
  charge: link.charge ?? {},
  cart: cartOut(link, 'coverPhoto') as Out<typeof LinkBySlug>['cart'],
  params: paramsOf(link),
  businessName: merchant.businessName,
  ...core(link),
  type: link.type,
  url: linkUrl(origin, link),
  action: link.action,
});

export function byIdView(link: Link): Out<typeof LinkById> {
  const { showConfirmationPage, ...action } = link.action;
  return {
    ...core(link),
    linkType: link.type,
    businessId: link.merchantId,
    options: { ...optionsOut(link) },
    action: { ...action, confirmationPage: showConfirmationPage },
    charge: link.charge ?? {},
    cart: cartOut(link, 'coverPhoto') as Out<typeof LinkById>['cart'],
    updatedAt: iso(link.updatedMs),
  };
}

const optionsOut = (link: Link) => ({
  id: link.options.id,
  collectPhone: link.options.collectPhone,
  allowPromo: link.options.allowPromo,
  collectAddress: link.options.collectAddress,
  createdAt: iso(link.options.createdMs),
  updatedAt: iso(link.options.updatedMs),
});

export const standardCreatedView = (link: Link, origin: string): Out<typeof StandardLinkCreated> => ({
  charge: link.charge ?? {},
  cart: cartOut(link, 'image') as Out<typeof StandardLinkCreated>['cart'],
  ...core(link),
  type: 'standard',
  businessId: link.merchantId,
  options: { collectAddress: link.options.collectAddress, collectPhone: link.options.collectPhone, allowPromotion: link.options.allowPromo },
  action: link.action,
  url: linkUrl(origin, link),
  updatedAt: iso(link.updatedMs),
});

export const donationView = (link: Link, origin: string): Out<typeof DonationLink> => ({
  ...core(link),
  updatedAt: iso(link.updatedMs),
  type: 'donation',
  action: link.action,
  socialLinks: link.socialLinks,
  businessId: link.merchantId,
  options: { collectPhone: link.options.collectPhone },
  url: linkUrl(origin, link),
  websiteUrl: link.websiteUrl,
  image: link.image,
  sessions: [],
});
