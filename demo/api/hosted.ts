// The page behind each payment link's url: server-rendered, every value escaped. The pay
// button asks the server for a payment (the server, not the page, decides the amount and
// checks the link is active), then opens the checkout widget on that reference.
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { CURRENCIES, FIAT_DECIMALS, MAX_AMOUNT, email as emailField, type Currency } from '../../src/wire/fields.ts';
import { formatUnits, toUnits } from '../../src/wire/money.ts';
import { COINS } from './catalog.ts';
import { HttpError, readJson, sendJson } from './http.ts';
import type { LinkStore } from './links.ts';
import type { PaymentStore } from './store.ts';
import { fromRoot } from '../paths.ts';

const ASSETS = fromRoot('demo/api/hosted/');

const esc = (value: unknown) =>
  String(value).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** Data for the page's script, safe inside <script type="application/json">. */
const json = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

export interface HostedContext {
  links: LinkStore;
  payments: PaymentStore;
}

type Link = NonNullable<ReturnType<LinkStore['find']>>;

function page(ctx: HostedContext, link: Link): string {
  const data = ctx.links.bySlug(link);
  const social = Object.entries(link.socialLinks).filter(([, url]) => /^https:\/\//.test(url));
  const cart = 'items' in data.cart ? data.cart.items : [];
  const body = !link.isActive
    ? `<p class="off" role="alert">This payment link is not active: it cannot take payments.</p>`
    : `
    ${link.type === 'donation' ? donationFields() : ''}
    ${cart.length ? `<table><thead><tr><th>Item</th><th>Price</th><th>Quantity</th></tr></thead><tbody>${cart
      .map(
        (item) => `<tr><td><b>${esc(item.product.name)}</b><br><small>${esc(item.product.description)}</small></td>
        <td>${esc(item.price.amount)} ${esc(item.price.currency)}</td>
        <td>${item.quantityAdjustable
          ? `<input type="number" min="1" max="1000" value="${item.quantity}" data-item="${item.id}" aria-label="Quantity of ${esc(item.product.name)}">`
          : `${item.quantity}`}</td></tr>`,
      )
      .join('')}</tbody></table>` : ''}
    ${'amount' in data.charge ? `<p class="total">${esc(data.charge.amount)} ${esc(data.charge.currency)}</p>` : ''}
    ${cart.length ? `<p class="total">Total: <output id="total"></output></p>` : ''}
    <form id="pay" novalidate>
      <label>E-mail <input name="email" type="email" autocomplete="email" required></label>
      ${data.params.includes('phone') ? '<label>Phone <input name="phone" type="tel" autocomplete="tel" required></label>' : ''}
      ${data.params.includes('address') ? '<label>Address <input name="address" autocomplete="street-address" required></label>' : ''}
      ${data.params.includes('promo') ? '<label>Promo code <input name="promo"></label>' : ''}
      <p id="problem" class="problem" role="alert"></p>
      <button type="submit">Pay</button>
    </form>`;
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
  <title>${esc(link.title)} · ${esc(link.merchant.businessName)}</title>
  <link rel="stylesheet" href="/hosted/link.css">
</head>
<body>
  <main>
    <p class="by">${esc(link.merchant.businessName)}</p>
    ${link.image ? `<img class="cover" src="${esc(link.image)}" alt="">` : ''}
    <h1>${esc(link.title)}</h1>
    <p>${esc(link.description)}</p>
    ${link.websiteUrl && /^https?:\/\//.test(link.websiteUrl) ? `<p><a href="${esc(link.websiteUrl)}" rel="noopener">${esc(link.websiteUrl)}</a></p>` : ''}
    ${social.length ? `<ul class="social">${social.map(([name, url]) => `<li><a href="${esc(url)}" rel="noopener">${esc(name)}</a></li>`).join('')}</ul>` : ''}
    ${body}
    <section id="done" hidden><h2>${esc(link.action.successMessage)}</h2><p>Your payment was received.</p></section>
  </main>
  <script type="application/json" id="link-data">${json({ slug: link.slug, action: link.action, cart })}</script>
  <script src="/checkout.js"></script>
  <script src="/hosted/link.js"></script>
</body>
</html>`;
}

function donationFields(): string {
  return `<label class="amount">Amount
    <input name="amount" form="pay" inputmode="decimal" required aria-describedby="amount-hint">
    <select name="currency" form="pay" aria-label="Currency">${CURRENCIES.map((c) => `<option>${c}</option>`).join('')}</select>
  </label><small id="amount-hint">Give what you like.</small>`;
}

/** What the page asks for; the server works out the amount from the link itself. */
function amountFor(link: Link, body: Record<string, unknown>): { amount: string; currency: Currency } {
  if (link.charge) return { amount: link.charge.amount, currency: link.charge.currency as Currency };
  if (link.cart) {
    const quantities = (body.quantities ?? {}) as Record<string, unknown>;
    let cents = 0n;
    for (const item of link.cart.items) {
      const asked = quantities[item.id];
      let quantity = item.quantity;
      if (item.quantityAdjustable && asked !== undefined) {
        if (!Number.isInteger(asked) || (asked as number) < 1 || (asked as number) > 1000) {
          throw new HttpError(400, `quantities.${item.id}: expected a whole number from 1 to 1000, received ${JSON.stringify(asked)}`, [{ field: `quantities.${item.id}`, message: 'expected 1 to 1000' }]);
        }
        quantity = asked as number;
      }
      cents += toUnits(item.price.amount, FIAT_DECIMALS)! * BigInt(quantity);
    }
    return { amount: formatUnits(cents, FIAT_DECIMALS, FIAT_DECIMALS), currency: link.cart.items[0].price.currency as Currency };
  }
  // A donation: the donor's amount, within the usual rules.
  const currency = body.currency as Currency;
  const units = toUnits(body.amount, FIAT_DECIMALS);
  const errors = [];
  if (units === undefined || units <= 0n || units > BigInt(MAX_AMOUNT) * 100n) errors.push({ field: 'amount', message: `expected an amount from 0.01 to ${MAX_AMOUNT} with at most 2 decimals, received ${JSON.stringify(body.amount)}` });
  if (!CURRENCIES.includes(currency)) errors.push({ field: 'currency', message: `expected one of ${CURRENCIES.join(', ')}, received ${JSON.stringify(body.currency)}` });
  if (errors.length) throw new HttpError(400, errors.map((e) => `${e.field}: ${e.message}`).join('; '), errors);
  return { amount: formatUnits(units!, FIAT_DECIMALS, FIAT_DECIMALS), currency };
}

const TYPES: Record<string, string> = { 'link.js': 'text/javascript; charset=utf-8', 'link.css': 'text/css; charset=utf-8' };

export async function hostedRoutes(ctx: HostedContext, req: IncomingMessage, res: ServerResponse, path: string): Promise<boolean> {
  const method = req.method ?? 'GET';
  const asset = /^\/hosted\/(link\.js|link\.css)$/.exec(path);
  if (method === 'GET' && asset) {
    res.writeHead(200, { 'content-type': TYPES[asset[1]], 'cache-control': 'no-cache' }).end(await readFile(ASSETS + asset[1]));
    return true;
  }
  const match = /^\/pay\/([^/]+)(\/checkout)?$/.exec(path);
  if (!match) return false;
  const link = ctx.links.find(decodeURIComponent(match[1]));
  if (!link || link.id === decodeURIComponent(match[1])) {
    if (method === 'GET') {
      res.writeHead(404, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>Not found</title><p>No such payment link.</p>');
      return true;
    }
    throw new HttpError(404, `No payment link ${match[1]}`);
  }
  if (method === 'GET' && !match[2]) {
    res.writeHead(link.isActive ? 200 : 410, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(page(ctx, link));
    return true;
  }
  if (method === 'POST' && match[2]) {
    if (!link.isActive) throw new HttpError(409, `Payment link ${link.slug} is deactivated: it cannot receive payments`);
    const body = ((await readJson(req)) ?? {}) as Record<string, unknown>;
    const customerEmail = typeof body.email === 'string' ? body.email.trim() : '';
    if (!emailField.safeParse(customerEmail).success) {
      throw new HttpError(400, `email: expected an e-mail address such as ada@example.com, received ${JSON.stringify(body.email ?? '')}`, [{ field: 'email', message: 'expected an e-mail address' }]);
    }
    const { amount, currency } = amountFor(link, body);
    const reference = `link_${link.slug}_${randomBytes(6).toString('hex')}`;
    const coin = COINS[link.mode].find((c) => c.symbol === 'USDT')!;
    const metadata: Record<string, unknown> = { payment_link: link.slug };
    for (const field of ['phone', 'address', 'promo'] as const) if (typeof body[field] === 'string' && body[field]) metadata[field] = (body[field] as string).slice(0, 200);
    ctx.payments.initialize(link.merchant, link.mode, {
      reference,
      coin,
      currency,
      amount,
      acceptPartialPayment: false,
      customerName: '',
      customerEmail,
      metadata,
    });
    sendJson(res, 201, { reference, amount, currency, key: link.merchant.keys[link.mode].publicKey });
    return true;
  }
  throw new HttpError(404, `No endpoint ${method} ${path}`);
}
