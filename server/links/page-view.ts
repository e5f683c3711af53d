// The page behind each payment link's url: server-rendered, every value escaped.
import { CURRENCIES, EMAIL_PATTERN } from '../../contract/fields.ts';
import type { Merchant } from '../domain/account.ts';
import type { Link } from './rules.ts';
import { bySlugView } from './views.ts';
import { headTags } from '../hosted/page-head.ts';

const esc = (value: unknown) => String(value).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** Data for the page's script, safe inside <script type="application/json">. */
const json = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

function donationFields(): string {
  return `<label class="amount">Amount
    <input name="amount" form="pay" inputmode="decimal" required aria-describedby="amount-hint">
    <select name="currency" form="pay" aria-label="Currency">${CURRENCIES.map((c) => `<option>${c}</option>`).join('')}</select>
  </label><small id="amount-hint">Give what you like.</small>`;
}

export function hostedPage(link: Link, merchant: Merchant, origin: string): string {
  const data = bySlugView(link, merchant, origin);
  const social = Object.entries(link.socialLinks).filter(([, url]) => /^https:\/\//.test(url));
  const cart = 'items' in data.cart ? data.cart.items : [];
  const body = !link.isActive
    ? `<p class="off" role="alert">This payment link is not active: it cannot take payments.</p>`
    : `
    ${link.type === 'donation' ? donationFields() : ''}
    ${
      cart.length
        ? `<table><thead><tr><th>Item</th><th>Price</th><th>Quantity</th></tr></thead><tbody>${cart
            .map(
              (item) => `<tr><td><b>${esc(item.product.name)}</b><br><small>${esc(item.product.description)}</small></td>
        <td>${esc(item.price.amount)} ${esc(item.price.currency)}</td>
        <td>${
          item.quantityAdjustable
            ? `<input type="number" min="1" max="1000" value="${item.quantity}" data-item="${item.id}" aria-label="Quantity of ${esc(item.product.name)}">`
            : `${item.quantity}`
        }</td></tr>`,
            )
            .join('')}</tbody></table>`
        : ''
    }
    ${'amount' in data.charge ? `<p class="total">${esc(data.charge.amount)} ${esc(data.charge.currency)}</p>` : ''}
    ${cart.length ? `<p class="total">Total: <output id="total"></output></p>` : ''}
    <form id="pay" novalidate>
      <label>E-mail <input name="email" type="email" autocomplete="email" required aria-describedby="problem"></label>
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
  <title>${esc(link.title)} · ${esc(merchant.businessName)}</title>
  ${headTags(link.description || `Pay ${link.title} to ${merchant.businessName}`)}
  <link rel="stylesheet" href="/hosted/link.css">
</head>
<body>
  <main>
    <p class="by">${esc(merchant.businessName)}</p>
    ${link.image ? `<img class="cover" src="${esc(link.image)}" alt="">` : ''}
    <h1>${esc(link.title)}</h1>
    <p>${esc(link.description)}</p>
    ${link.websiteUrl && /^https?:\/\//.test(link.websiteUrl) ? `<p><a href="${esc(link.websiteUrl)}" rel="noopener">${esc(link.websiteUrl)}</a></p>` : ''}
    ${social.length ? `<ul class="social">${social.map(([name, url]) => `<li><a href="${esc(url)}" rel="noopener">${esc(name)}</a></li>`).join('')}</ul>` : ''}
    ${body}
    <section id="done" hidden><h2>${esc(link.action.successMessage)}</h2><p>Your payment was received.</p><p>Reference: <code id="reference"></code></p></section>
  </main>
  <script type="application/json" id="link-data">${json({ slug: link.slug, action: link.action, cart, business: merchant.businessName, emailPattern: EMAIL_PATTERN.source })}</script>
  <script src="/checkout.js"></script>
  <script src="/hosted/link.js"></script>
</body>
</html>`;
}

export const NOT_FOUND_PAGE = '<!doctype html><title>Not found</title><p>No such payment link.</p>';
