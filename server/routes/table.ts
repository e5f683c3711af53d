// Every endpoint of the service, in one table: method, path, who may call, what it does.
// The README's endpoint lists are held equal to this table by a test.
import type { RouteSpec } from '../http/router.ts';
import type { Handler } from './context.ts';
import * as account from './account.ts';
import * as balances from './balances.ts';
import * as dashboard from './dashboard.ts';
import * as docs from './docs.ts';
import * as health from './health.ts';
import * as hosted from './hosted.ts';
import * as links from './links.ts';
import * as operator from './operator.ts';
import * as payments from './payments.ts';
import * as payouts from './payouts.ts';
import * as products from './products.ts';
import * as tx from './transactions.ts';
import * as webhooks from './webhooks.ts';

export const ROUTES: RouteSpec<Handler>[] = [
  // The checkout (public key), and merchant servers (secret key)
  { method: 'GET', path: '/api/v1/coins', auth: 'public', handler: tx.coins, summary: 'the coins of the key\'s network' },
  { method: 'POST', path: '/api/v1/transaction/initialize', auth: 'either', handler: tx.initialize, summary: 'create, answer again, or re-quote a payment' },
  { method: 'GET', path: '/api/v1/transaction/verify/:reference', auth: 'either', handler: tx.verify, summary: 'a payment\'s state; ?wait&since long-polls' },
  { method: 'GET', path: '/api/v1/transaction/qr/:reference', auth: 'either', handler: tx.qr, summary: 'a payment\'s EIP-681 QR code, as an SVG path' },
  { method: 'POST', path: '/api/v1/transaction/settle/:reference', auth: 'either', handler: tx.settle, summary: 'finish an accepted partial payment with what arrived' },
  { method: 'POST', path: '/api/v1/sandbox/deposit', auth: 'either', handler: tx.sandboxDeposit, summary: 'test keys: simulate a deposit' },
  // The merchant's payments and keys (secret key, or the dashboard's session)
  { method: 'GET', path: '/api/v1/payments', auth: 'merchant', handler: payments.listPayments, summary: 'the payments, newest first: cursor, limit, status, coin, from, to, q' },
  { method: 'GET', path: '/api/v1/payments/export.csv', auth: 'merchant', handler: payments.exportCsv, summary: 'the payments as CSV, with the list\'s filters' },
  { method: 'GET', path: '/api/v1/payments/:reference', auth: 'merchant', handler: payments.getPayment, summary: 'one payment and its timeline' },
  { method: 'GET', path: '/api/v1/products', auth: 'merchant', handler: products.listProducts, summary: 'the products and their prices, newest first' },
  { method: 'POST', path: '/api/v1/products', auth: 'merchant', handler: products.createProduct, summary: 'make a product, with prices' },
  { method: 'GET', path: '/api/v1/products/:id', auth: 'merchant', handler: products.getProduct, summary: 'one product and its prices' },
  { method: 'PATCH', path: '/api/v1/products/:id', auth: 'merchant', handler: products.updateProduct, summary: 'rename, describe or archive a product' },
  { method: 'POST', path: '/api/v1/products/:id/prices', auth: 'merchant', handler: products.addPrice, summary: 'a new price for a product, for links\' carts' },
  { method: 'GET', path: '/api/v1/prices/:id', auth: 'merchant', handler: products.getPrice, summary: 'one price' },
  { method: 'POST', path: '/api/v1/keys/roll', auth: 'merchant', handler: payments.rollKey, summary: 'a new secret key for the mode, shown once; the old one stops working now or after a delay' },
  { method: 'GET', path: '/api/v1/account', auth: 'merchant', handler: account.getAccount, summary: 'the business: name, e-mail, logo' },
  { method: 'PATCH', path: '/api/v1/account', auth: 'merchant', handler: account.updateAccount, summary: 'a new business name or e-mail' },
  { method: 'GET', path: '/api/v1/account/warnings', auth: 'merchant', handler: account.getWarnings, summary: 'what blocks money: no webhook URL, no payout address, a failing webhook endpoint, the service not ready' },
  { method: 'PUT', path: '/api/v1/account/logo', auth: 'merchant', handler: account.putLogo, summary: 'upload the business\'s logo (multipart; an image, sniffed)' },
  // Webhooks and events (secret key; the webhook and the events feed also the dashboard's session)
  { method: 'PUT', path: '/api/v1/webhook', auth: 'merchant', handler: webhooks.putWebhook, summary: 'where events go' },
  { method: 'PUT', path: '/api/v1/payout_address', auth: 'merchant', handler: webhooks.putPayoutAddress, summary: 'where a chain\'s deposits are swept to' },
  { method: 'GET', path: '/api/v1/payout_address', auth: 'merchant', handler: webhooks.getPayoutAddresses, summary: 'the payout address of each chain' },
  { method: 'GET', path: '/api/v1/webhook', auth: 'merchant', handler: webhooks.getWebhook, summary: 'the webhook URL and signing secret' },
  { method: 'POST', path: '/api/v1/webhook/rotate', auth: 'merchant', handler: webhooks.rotateSecret, summary: 'a new signing secret; the old one overlaps' },
  { method: 'GET', path: '/api/v1/events', auth: 'merchant', handler: webhooks.listEvents, summary: 'the events feed, with delivery attempts' },
  { method: 'POST', path: '/api/v1/events/:id/resend', auth: 'merchant', handler: webhooks.resendEvent, summary: 'deliver an event again' },
  // Payment links (secret key or the dashboard's session; reading by slug also the public key)
  { method: 'GET', path: '/api/v1/payment_links', auth: 'merchant', handler: links.listLinks, summary: 'the merchant\'s links, a page at a time' },
  { method: 'GET', path: '/api/v1/payment_links/pay/:key', auth: 'either', handler: links.getLink, summary: 'a link by slug, or by id' },
  { method: 'POST', path: '/api/v1/payment_links/standard', auth: 'merchant', handler: links.createStandard, summary: 'create a standard link' },
  { method: 'PUT', path: '/api/v1/payment_links/standard', auth: 'merchant', handler: links.updateStandard, summary: 'update a standard link' },
  { method: 'POST', path: '/api/v1/payment_links', auth: 'merchant', handler: links.createStandard, summary: 'create a standard link (the spec\'s other path)' },
  { method: 'PUT', path: '/api/v1/payment_links', auth: 'merchant', handler: links.updateStandard, summary: 'update a standard link (the spec\'s other path)' },
  { method: 'POST', path: '/api/v1/payment_links/donation', auth: 'merchant', handler: links.createDonation, summary: 'create a donation link (multipart)' },
  { method: 'PUT', path: '/api/v1/payment_links/donation', auth: 'merchant', handler: links.updateDonation, summary: 'update a donation link' },
  { method: 'PUT', path: '/api/v1/payment_links/:id/status', auth: 'merchant', handler: links.setLinkStatus, summary: 'activate or deactivate a link' },
  { method: 'GET', path: '/api/v1/payment_links/:id/qr', auth: 'merchant', handler: links.linkQr, summary: 'a link\'s address as a QR code (an SVG path)' },
  // Bank payouts (secret key)
  { method: 'GET', path: '/api/v1/bank', auth: 'secret', handler: payouts.banks, summary: 'the banks of a country' },
  { method: 'GET', path: '/api/v1/bank/payouts/countries', auth: 'secret', handler: payouts.countries, summary: 'supported countries' },
  { method: 'GET', path: '/api/v1/bank/payouts/currencies', auth: 'secret', handler: payouts.currencies, summary: 'supported currencies' },
  { method: 'GET', path: '/api/v1/bank/payouts/rate', auth: 'secret', handler: payouts.rate, summary: 'a coin\'s rate in a currency' },
  { method: 'POST', path: '/api/v1/bank/payouts/initiate', auth: 'secret', handler: payouts.initiate, summary: 'pay collected USDT out to a bank account' },
  { method: 'GET', path: '/api/v1/bank/payouts/withdrawals/:id', auth: 'secret', handler: payouts.getPayout, summary: 'one payout and its state' },
  { method: 'POST', path: '/api/v1/bank/payouts', auth: 'secret', handler: payouts.addBank, summary: 'register a bank account' },
  { method: 'GET', path: '/api/v1/bank/payouts', auth: 'secret', handler: payouts.listBanks, summary: 'the bank accounts\' ids' },
  { method: 'DELETE', path: '/api/v1/bank/payouts', auth: 'secret', handler: payouts.deleteBanks, summary: 'delete bank accounts, all or nothing' },
  { method: 'GET', path: '/api/v1/bank/payouts/:id', auth: 'secret', handler: payouts.getBank, summary: 'one bank account' },
  { method: 'PATCH', path: '/api/v1/bank/payouts/:id', auth: 'secret', handler: payouts.updateBank, summary: 'update a bank account' },
  // Balances (secret key): settlement, swaps, withdrawals
  { method: 'GET', path: '/api/v1/settlement', auth: 'secret', handler: balances.getSettlement, summary: 'where this mode\'s payments settle: wallet or balance' },
  { method: 'PUT', path: '/api/v1/settlement', auth: 'secret', handler: balances.putSettlement, summary: 'settle new payments to your wallet or to a balance the operator holds' },
  { method: 'GET', path: '/api/v1/balances', auth: 'secret', handler: balances.balances, summary: 'available, reserved and pending per coin and network' },
  { method: 'POST', path: '/api/v1/swaps/quote', auth: 'secret', handler: balances.quoteSwap, summary: 'a price to swap one coin of the balance for another' },
  { method: 'POST', path: '/api/v1/swaps', auth: 'secret', handler: balances.createSwap, summary: 'swap at a quote' },
  { method: 'GET', path: '/api/v1/swaps/:id', auth: 'secret', handler: balances.getSwap, summary: 'one swap and its state' },
  { method: 'POST', path: '/api/v1/withdrawals', auth: 'secret', handler: balances.withdraw, summary: 'send coins of the balance to a wallet' },
  { method: 'GET', path: '/api/v1/withdrawals/:id', auth: 'secret', handler: balances.getWithdrawal, summary: 'one withdrawal and its state' },
  // For the operator
  { method: 'GET', path: '/healthz', auth: 'none', handler: health.healthz, summary: 'the process answers' },
  { method: 'GET', path: '/readyz', auth: 'none', handler: health.readyz, summary: 'the database answers and each chain is followed; 503 naming what is not' },
  { method: 'GET', path: '/api/v1/openapi.json', auth: 'none', handler: docs.openapi, summary: 'the API as an OpenAPI 3.1 document' },
  { method: 'GET', path: '/api/v1/reference', auth: 'none', handler: docs.reference, summary: 'the API reference, a page made from that document' },
  { method: 'POST', path: '/operator/v1/merchants', auth: 'operator', handler: operator.createMerchant, summary: 'operator token: make a merchant, its keys shown this once' },
  { method: 'GET', path: '/operator/v1/merchants', auth: 'operator', handler: operator.listMerchants, summary: 'operator token: every merchant' },
  { method: 'POST', path: '/operator/v1/merchants/:id/secret-keys', auth: 'operator', handler: operator.rollSecretKeys, summary: 'operator token: new secret keys for a merchant; the old ones stop working' },
  { method: 'PUT', path: '/operator/v1/merchants/:id/withdrawal-limits', auth: 'operator', handler: operator.setWithdrawalLimit, summary: 'operator token: a merchant\'s one daily limit, in US dollars per mode, on withdrawals and bank payouts' },
  { method: 'POST', path: '/operator/v1/merchants/:id/sign-in-link', auth: 'operator', handler: operator.signInLink, summary: 'operator token: a new one-time dashboard sign-in link (24 h) for a merchant\'s owner' },
  { method: 'GET', path: '/metrics', auth: 'operator', handler: operator.metrics, summary: 'operator token: Prometheus metrics' },
  // Served to browsers
  { method: 'GET', path: '/checkout.js', auth: 'none', handler: hosted.built('checkout.js'), summary: 'the checkout script' },
  { method: 'GET', path: '/checkout.js.map', auth: 'none', handler: hosted.built('checkout.js.map'), summary: 'its source map' },
  { method: 'GET', path: '/checkout/locales/:lang', auth: 'none', handler: hosted.locale, summary: 'the checkout\'s words in French or Arabic (fr.json, ar.json)' },
  { method: 'GET', path: '/hosted/:name', auth: 'none', handler: hosted.asset, summary: 'the hosted pages\' script and style' },
  { method: 'GET', path: '/files/:id', auth: 'none', handler: hosted.file, summary: 'an uploaded cover photo or logo' },
  { method: 'GET', path: '/pay/:slug', auth: 'none', handler: hosted.linkPage, summary: 'a payment link\'s page' },
  { method: 'POST', path: '/pay/:slug/checkout', auth: 'none', handler: hosted.linkCheckout, summary: 'the page\'s pay button: a server-priced payment' },
  // The merchant's dashboard: its pages, and its sign-in (a session cookie)
  { method: 'GET', path: '/dashboard', auth: 'none', handler: dashboard.page, summary: 'the dashboard (its home screen)' },
  { method: 'GET', path: '/dashboard/:screen', auth: 'none', handler: dashboard.page, summary: 'a dashboard screen (the same page; its router draws the screen)' },
  { method: 'GET', path: '/dashboard/payments/:reference', auth: 'none', handler: dashboard.page, summary: 'a payment\'s screen' },
  { method: 'GET', path: '/dashboard/assets/:name', auth: 'none', handler: dashboard.asset, summary: 'the dashboard\'s script and style' },
  { method: 'POST', path: '/dashboard/api/password', auth: 'none', handler: dashboard.setPassword, summary: 'a sign-in link\'s token and a new password: signs in' },
  { method: 'POST', path: '/dashboard/api/session', auth: 'none', handler: dashboard.signIn, summary: 'e-mail and password: a session cookie' },
  { method: 'GET', path: '/dashboard/api/session', auth: 'none', handler: dashboard.getSession, summary: 'who is signed in, the CSRF token, the public keys' },
  { method: 'DELETE', path: '/dashboard/api/session', auth: 'none', handler: dashboard.signOut, summary: 'sign this browser out' },
  { method: 'DELETE', path: '/dashboard/api/sessions', auth: 'none', handler: dashboard.signOutEverywhere, summary: 'sign out everywhere' },
];
