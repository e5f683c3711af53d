// Payment links: a small catalogue of products and prices, standard links (a cart, or a
// fixed charge) and donation links, and every response in the spec's own field names.
import { randomBytes, randomUUID } from 'node:crypto';
import type * as z from 'zod/mini';
import type { KeyMode } from '../../src/options/keys.ts';
import type {
  DonationLink,
  DonationLinkUpdateBody,
  LinkById,
  LinkBySlug,
  LinkListItem,
  StandardLinkBody,
  StandardLinkCreated,
  StandardLinkUpdateBody,
} from '../../src/wire/links.ts';
import { NETWORK, type Merchant } from './catalog.ts';
import { HttpError } from './http.ts';

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

interface CartLine {
  id: number;
  quantity: number;
  quantityAdjustable: boolean;
  price: Price;
}

interface Link {
  id: string;
  merchant: Merchant;
  mode: KeyMode;
  type: 'standard' | 'donation';
  slug: string;
  title: string;
  description: string;
  isActive: boolean;
  createdAt: string;
  updatedAt: string;
  options: { id: string; collectPhone: boolean; allowPromo: boolean; collectAddress: boolean; createdAt: string; updatedAt: string };
  action: { successMessage: string; redirectUrl: string; redirect: boolean; showConfirmationPage: boolean };
  charge?: { amount: string; currency: string };
  cart?: { id: string; createdAt: string; updatedAt: string; items: CartLine[] };
  socialLinks: { facebook: string; twitter: string; instagram: string };
  websiteUrl: string;
  image: string;
}

type Out<S extends z.core.$ZodType> = z.output<S>;

const now = () => new Date().toISOString();
const slugOf = () => randomBytes(6).toString('base64url').toLowerCase().replace(/[^a-z0-9]/g, 'x');

export class LinkStore {
  readonly prices = new Map<string, Price>();
  private readonly links = new Map<string, Link>();
  private nextLine = 1;

  /** `origin` gives the service's public origin, for link pages and uploaded images. */
  constructor(private readonly origin: () => string) {
    const beans = this.addProduct('Single-origin beans, 1 kg', 'Washed Ethiopian Yirgacheffe, roasted this week.');
    const mug = this.addProduct('Enamel mug', 'Speckled blue, 350 ml.');
    this.addPrice(beans, 'USD', '24.50');
    this.addPrice(beans, 'NGN', '38000.00');
    this.addPrice(mug, 'USD', '12.00');
  }

  addProduct(name: string, description: string, coverPhoto = ''): Product {
    return { id: randomUUID(), name, description, coverPhoto };
  }

  /** The spec does not show how prices are made: the sandbox starts with a few, tests add more. */
  addPrice(product: Product, currency: string, amount: string): Price {
    const price = { id: randomUUID(), currency, amount, product };
    this.prices.set(price.id, price);
    return price;
  }

  private own(merchant: Merchant, mode: KeyMode, id: string): Link {
    const link = this.links.get(id);
    if (!link || link.merchant !== merchant || link.mode !== mode) throw new HttpError(404, `No payment link with id ${id}`);
    return link;
  }

  /** The merchant's own link of that type, for an update. */
  private editable(merchant: Merchant, mode: KeyMode, id: string, type: Link['type']): Link {
    const link = this.own(merchant, mode, id);
    if (link.type !== type) throw new HttpError(400, `Link ${id} is a ${link.type} link`);
    link.updatedAt = now();
    return link;
  }

  find(idOrSlug: string): Link | undefined {
    return this.links.get(idOrSlug) ?? [...this.links.values()].find((l) => l.slug === idOrSlug);
  }

  private cart(entries: Array<{ price_id: string; quantity: number; quantity_adjustable?: boolean; item_id?: number }>): Link['cart'] {
    const stamp = now();
    const items = entries.map((entry, i) => {
      const price = this.prices.get(entry.price_id);
      if (!price) throw new HttpError(400, `cart.${i}.price_id: no price ${entry.price_id}`, [{ field: `cart.${i}.price_id`, message: `expected a known price id, received ${JSON.stringify(entry.price_id)}` }]);
      return { id: entry.item_id ?? this.nextLine++, quantity: entry.quantity, quantityAdjustable: entry.quantity_adjustable ?? false, price };
    });
    const currencies = new Set(items.map((item) => item.price.currency));
    if (currencies.size > 1) throw new HttpError(400, `cart: every price must be in one currency, received ${[...currencies].join(', ')}`, [{ field: 'cart', message: 'expected one currency' }]);
    return { id: randomUUID(), createdAt: stamp, updatedAt: stamp, items };
  }

  private base(merchant: Merchant, mode: KeyMode, type: Link['type'], title: string): Link {
    const stamp = now();
    return {
      id: randomUUID(),
      merchant,
      mode,
      type,
      slug: slugOf(),
      title,
      description: '',
      isActive: true,
      createdAt: stamp,
      updatedAt: stamp,
      options: { id: randomUUID(), collectPhone: false, allowPromo: false, collectAddress: false, createdAt: stamp, updatedAt: stamp },
      action: { successMessage: 'Thank you for your payment.', redirectUrl: '', redirect: false, showConfirmationPage: true },
      socialLinks: { facebook: '', twitter: '', instagram: '' },
      websiteUrl: '',
      image: '',
    };
  }

  createStandard(merchant: Merchant, mode: KeyMode, body: Out<typeof StandardLinkBody>): Link {
    const hasCart = !!body.cart?.length;
    if (hasCart === !!body.charge) {
      throw new HttpError(400, 'A standard link takes a cart of prices or a charge: one of the two', [{ field: 'cart', message: 'expected a cart or a charge, not both or neither' }]);
    }
    const link = this.base(merchant, mode, 'standard', body.title);
    this.applyCommon(link, body);
    if (hasCart) link.cart = this.cart(body.cart!);
    else link.charge = { amount: String(body.charge!.amount), currency: body.charge!.currency };
    this.links.set(link.id, link);
    return link;
  }

  updateStandard(merchant: Merchant, mode: KeyMode, body: Out<typeof StandardLinkUpdateBody>): Link {
    const link = this.editable(merchant, mode, body.id, 'standard');
    if (body.title !== undefined) link.title = body.title;
    this.applyCommon(link, { ...body, action: body.action && { ...body.action, show_confirmation_page: body.action.confirmation_page } });
    if (body.cart?.length) {
      link.cart = this.cart(body.cart);
      link.charge = undefined;
    }
    return link;
  }

  createDonation(merchant: Merchant, mode: KeyMode, fields: Map<string, string>, image: string): Link {
    const title = fields.get('title')?.trim();
    if (!title) throw new HttpError(400, 'title: expected a title of 1 to 120 characters, received nothing', [{ field: 'title', message: 'expected a title' }]);
    const bool = (name: string) => {
      const value = fields.get(name);
      if (value === undefined) return undefined;
      if (value !== 'true' && value !== 'false') {
        throw new HttpError(400, `${name}: expected the text true or false, received ${JSON.stringify(value)}`, [{ field: name, message: 'expected true or false' }]);
      }
      return value === 'true';
    };
    const link = this.base(merchant, mode, 'donation', title);
    this.applyCommon(link, {
      description: fields.get('description'),
      options: { collect_phone: bool('options[collect_phone]') },
      action: {
        redirect: bool('action[redirect]'),
        redirect_url: fields.get('action[redirect_url]'),
        success_message: fields.get('action[success_message]'),
        show_confirmation_page: bool('action[show_confirmation_page]'),
      },
      social_links: {
        facebook: fields.get('social_links[facebook]'),
        twitter: fields.get('social_links[twitter]'),
        instagram: fields.get('social_links[instagram]'),
      },
      website_url: fields.get('website_url'),
    });
    link.image = image;
    this.links.set(link.id, link);
    return link;
  }

  updateDonation(merchant: Merchant, mode: KeyMode, body: Out<typeof DonationLinkUpdateBody>): Link {
    const link = this.editable(merchant, mode, body.id, 'donation');
    if (body.is_active !== undefined) link.isActive = body.is_active;
    this.applyCommon(link, body);
    return link;
  }

  setActive(merchant: Merchant, mode: KeyMode, id: string, active: boolean): Link {
    const link = this.own(merchant, mode, id);
    link.isActive = active;
    link.updatedAt = now();
    return link;
  }

  list(merchant: Merchant, mode: KeyMode, page: number, size: number) {
    const all = [...this.links.values()].filter((l) => l.merchant === merchant && l.mode === mode).reverse();
    const lastPage = Math.max(1, Math.ceil(all.length / size));
    return {
      items: all.slice((page - 1) * size, page * size),
      count: all.length,
      currentPage: page,
      nextPage: page < lastPage ? page + 1 : null,
      prevPage: page > 1 ? Math.min(page - 1, lastPage) : null,
      lastPage,
    };
  }

  private applyCommon(
    link: Link,
    body: {
      description?: string;
      options?: { collect_phone?: boolean; allow_promo?: boolean; collect_address?: boolean };
      action?: { redirect?: boolean; redirect_url?: string; show_confirmation_page?: boolean; success_message?: string };
      social_links?: { facebook?: string; twitter?: string; instagram?: string };
      website_url?: string;
    },
  ) {
    if (body.description !== undefined) link.description = body.description;
    const o = body.options ?? {};
    link.options = {
      ...link.options,
      collectPhone: o.collect_phone ?? link.options.collectPhone,
      allowPromo: o.allow_promo ?? link.options.allowPromo,
      collectAddress: o.collect_address ?? link.options.collectAddress,
      updatedAt: now(),
    };
    const a = body.action ?? {};
    link.action = {
      redirect: a.redirect ?? link.action.redirect,
      redirectUrl: a.redirect_url ?? link.action.redirectUrl,
      showConfirmationPage: a.show_confirmation_page ?? link.action.showConfirmationPage,
      successMessage: a.success_message ?? link.action.successMessage,
    };
    if (link.action.redirect && !link.action.redirectUrl) {
      throw new HttpError(400, 'action.redirect_url: expected a URL when action.redirect is true', [{ field: 'action.redirect_url', message: 'expected a URL' }]);
    }
    const s = body.social_links ?? {};
    link.socialLinks = {
      facebook: s.facebook ?? link.socialLinks.facebook,
      twitter: s.twitter ?? link.socialLinks.twitter,
      instagram: s.instagram ?? link.socialLinks.instagram,
    };
    if (body.website_url !== undefined) link.websiteUrl = body.website_url;
  }

  // --- the spec's response shapes --------------------------------------------------------

  url = (link: Link) => `${this.origin()}/pay/${link.slug}`;

  /** The parameters the payment page asks for. */
  params(link: Link): Array<'email' | 'address' | 'phone' | 'promo'> {
    const { collectAddress, collectPhone, allowPromo } = link.options;
    const asked: Array<[boolean, 'email' | 'address' | 'phone' | 'promo']> = [
      [true, 'email'],
      [collectAddress, 'address'],
      [collectPhone, 'phone'],
      [allowPromo, 'promo'],
    ];
    return asked.filter(([on]) => on).map(([, name]) => name);
  }

  private cartOut(link: Link, photo: 'coverPhoto' | 'image') {
    if (!link.cart) return {};
    const { id, createdAt, updatedAt, items } = link.cart;
    return {
      id,
      createdAt,
      updatedAt,
      items: items.map((item) => ({
        id: item.id,
        quantity: item.quantity,
        quantityAdjustable: item.quantityAdjustable,
        price: { currency: item.price.currency, amount: item.price.amount, id: item.price.id },
        product: { id: item.price.product.id, name: item.price.product.name, description: item.price.product.description, [photo]: item.price.product.coverPhoto },
      })),
    };
  }

  /** The fields every link shape of the spec shares; each shape adds its own below. */
  private core(link: Link) {
    return {
      id: link.id,
      title: link.title,
      description: link.description,
      isActive: link.isActive,
      slug: link.slug,
      network: NETWORK[link.mode],
      createdAt: link.createdAt,
    };
  }

  listItem(link: Link): Out<typeof LinkListItem> {
    return {
      ...this.core(link),
      updatedAt: link.updatedAt,
      type: link.type,
      ...(link.type === 'donation' ? { webSiteUrl: link.websiteUrl } : {}),
    };
  }

  bySlug(link: Link): Out<typeof LinkBySlug> {
    return {
      charge: link.charge ?? {},
      cart: this.cartOut(link, 'coverPhoto') as Out<typeof LinkBySlug>['cart'],
      params: this.params(link),
      businessName: link.merchant.businessName,
      ...this.core(link),
      type: link.type,
      url: this.url(link),
      action: link.action,
    };
  }

  byId(link: Link): Out<typeof LinkById> {
    const { showConfirmationPage, ...action } = link.action;
    return {
      ...this.core(link),
      linkType: link.type,
      businessId: link.merchant.id,
      options: link.options,
      action: { ...action, confirmationPage: showConfirmationPage },
      charge: link.charge ?? {},
      cart: this.cartOut(link, 'coverPhoto') as Out<typeof LinkById>['cart'],
      updatedAt: link.updatedAt,
    };
  }

  standardCreated(link: Link): Out<typeof StandardLinkCreated> {
    return {
      charge: link.charge ?? {},
      cart: this.cartOut(link, 'image') as Out<typeof StandardLinkCreated>['cart'],
      ...this.core(link),
      type: 'standard',
      businessId: link.merchant.id,
      options: { collectAddress: link.options.collectAddress, collectPhone: link.options.collectPhone, allowPromotion: link.options.allowPromo },
      action: link.action,
      url: this.url(link),
      updatedAt: link.updatedAt,
    };
  }

  donation(link: Link): Out<typeof DonationLink> {
    return {
      ...this.core(link),
      updatedAt: link.updatedAt,
      type: 'donation',
      action: link.action,
      socialLinks: link.socialLinks,
      businessId: link.merchant.id,
      options: { collectPhone: link.options.collectPhone },
      url: this.url(link),
      websiteUrl: link.websiteUrl,
      image: link.image,
      sessions: [],
    };
  }
}
