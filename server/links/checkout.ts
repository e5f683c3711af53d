// A payment started from a link's hosted page: the customer's e-mail checked, the amount the link
// takes (amountFor), a fresh reference, what else the form asked for kept as metadata, and
// initialize's startPayment in USDT on the first of the mode's networks that takes it (else the
// first coin: the checkout that opens next lets the customer choose another coin, or chain). The
// link's own count takes only payments made and refuses nobody (junk never spends what real
// customers share): past it, an alert.
import { randomBytes } from 'node:crypto';
import { email as emailField, FIAT_DECIMALS } from '../../contract/fields.ts';
import { toUnits } from '../../contract/money.ts';
import { CoinUnavailable, invalidField } from '../domain/errors.ts';
import { startPayment, type StartParts } from '../payments/initialize.ts';
import type { Catalog } from '../chain/catalog.ts';
import type { Logger } from '../service/log.ts';
import type { Metrics } from '../service/metrics.ts';
import type { MerchantStore } from '../merchants/store.ts';
import type { RateLimiter } from '../http/rate-limit.ts';
import { amountFor, type Link } from './rules.ts';

/** What a link's payment needs of the service beyond initialize's. */
export interface LinkCheckoutParts extends StartParts {
  catalog: StartParts['catalog'] & Pick<Catalog, 'coins'>;
  merchants: Pick<MerchantStore, 'byId' | 'publicKey'>;
  linkCheckouts: { perLink: Pick<RateLimiter, 'crossed' | 'max'> };
  metrics: Pick<Metrics, 'ceilingPassed'>;
  log: Pick<Logger, 'warn'>;
}

export async function startLinkPayment(service: LinkCheckoutParts, link: Link, form: Record<string, unknown>) {
  const customerEmail = typeof form.email === 'string' ? form.email.trim() : '';
  if (!emailField.safeParse(customerEmail).success) {
    throw invalidField('email', `expected an e-mail address such as ada@example.com, received ${JSON.stringify(String(form.email ?? '').slice(0, 40))}`);
  }
  const { amount, currency } = amountFor(link, form);
  const account = { merchant: (await service.merchants.byId(link.merchantId))!, mode: link.mode as 'test' | 'live', via: 'secret' as const };
  const reference = `link_${link.slug}_${randomBytes(6).toString('hex')}`;
  const metadata: Record<string, unknown> = { payment_link: link.slug };
  for (const field of ['phone', 'address', 'promo'] as const) if (typeof form[field] === 'string' && form[field]) metadata[field] = form[field].slice(0, 200);
  const coins = service.catalog.coins(account.mode);
  const coin = coins.find((c) => c.symbol === 'USDT') ?? coins[0]!;
  if (coin.status !== 'active') throw new CoinUnavailable(`${coin.symbol} is not offered now: payments from this page cannot start. Try again later`);
  const fiatMinor = toUnits(amount, FIAT_DECIMALS)!;
  await startPayment(service, account, {
    reference,
    coin,
    currency,
    fiatMinor,
    acceptPartial: false,
    customerName: '',
    customerEmail,
    metadata,
    paymentLinkId: link.id,
  });
  const { perLink } = service.linkCheckouts;
  if (await perLink.crossed(link.id)) {
    service.metrics.ceilingPassed('link_checkout', account.mode);
    service.log.warn(
      { merchant: account.merchant.id, link: link.slug, ceiling: perLink.max },
      "payments started from a link page passed the minute's ceiling (alerted, not refused)",
    );
  }
  return { reference, amount, currency, key: await service.merchants.publicKey(account) };
}
