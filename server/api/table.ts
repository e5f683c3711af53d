// Every endpoint of the service: each resource file declares its routes (api/route.ts: one
// object per endpoint, with its schemas, answers and checks), and this puts them together. The
// OpenAPI document and its reference page (docs.ts) are made from the same list.
import * as account from '../merchants/routes.ts';
import * as balances from '../balances/routes.ts';
import * as dashboard from '../dashboard/routes.ts';
import * as audit from '../audit/routes.ts';
import * as team from '../team/routes.ts';
import * as factors from '../factors/routes.ts';
import * as email from '../email/routes.ts';
import * as destinations from '../merchants/destination-routes.ts';
import * as keys from '../merchants/key-routes.ts';
import * as payoutAddresses from '../merchants/payout-address-routes.ts';
import { docsRoutes } from './docs.ts';
import * as health from './health.ts';
import * as hosted from '../links/page-routes.ts';
import * as links from '../links/routes.ts';
import * as operator from '../merchants/operator-routes.ts';
import * as treasury from '../chain/treasury-routes.ts';
import * as payments from '../payments/routes.ts';
import * as payouts from '../payouts/routes.ts';
import * as products from '../products/routes.ts';
import * as refunds from '../refunds/routes.ts';
import * as subscriptions from '../subscriptions/routes.ts';
import * as refundClaims from '../refunds/claim-routes.ts';
import * as exceptions from '../refunds/exception-routes.ts';
import * as accepts from '../payments/accept-routes.ts';
import * as walletRefunds from '../refunds/wallet-routes.ts';
import type { Route } from './route.ts';
import * as transactions from '../payments/transaction-routes.ts';
import * as relays from '../payments/relay-routes.ts';
import * as webhooks from '../webhooks/routes.ts';

export const ROUTES: readonly Route[] = [
  // The checkout (public key), and merchant servers (secret key)
  ...transactions.routes,
  ...relays.routes,
  // The merchant's payments, keys, products and business (secret key, or the dashboard's session)
  ...payments.routes,
  ...keys.routes,
  ...products.routes,
  ...subscriptions.routes,
  ...account.routes,
  // The team and who did what (a session; the audit log also a key with audit.read)
  ...team.routes,
  ...email.routes,
  ...audit.routes,
  // Webhooks, payout addresses and events (secret key or the dashboard's session)
  ...webhooks.routes,
  ...payoutAddresses.routes,
  ...destinations.routes,
  // Payment links (secret key or the dashboard's session; reading by slug also the public key)
  ...links.routes,
  // Bank payouts, and balances: settlement, swaps, withdrawals (secret key)
  ...payouts.routes,
  ...balances.routes,
  // Refunds of payments (secret key)
  ...refunds.routes,
  // A payment's exceptions resolved in one step: accepted, or sent back
  ...accepts.routes,
  ...exceptions.routes,
  ...walletRefunds.routes,
  // For the operator: health, the API's description, the operator's API and metrics
  ...health.routes,
  ...docsRoutes(() => ROUTES),
  ...operator.routes,
  ...treasury.routes,
  // Served to browsers: the checkout, hosted pages, and the merchant's dashboard
  ...hosted.routes,
  ...refundClaims.routes,
  ...dashboard.routes,
  ...factors.routes,
];
