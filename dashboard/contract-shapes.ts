// The dashboard's answers are the contract's. Each screen parses an answer with a
// small schema of the fields it shows (the contract's whole schemas, payload unions and all,
// would not fit the dashboard's byte budget); here, each of those schemas is held to the
// contract's shape of the same answer: whatever the contract says the service answers must
// pass the screen's schema (every field the screen reads exists there, with a type it takes).
// A field renamed or retyped in the contract fails `npm run typecheck` here. Type-only: this
// file is checked, never bundled (nothing imports it), and costs the dashboard no byte.
// server/dashboard/tests/dashboard-shapes.test.ts holds every schema of the dashboard to a line here.
import type * as z from 'zod/mini';
import type {
  answer,
  BankPayout,
  DestinationChange,
  EventsAnswer,
  Payout as ContractPayout,
  PayoutAddress,
  PayoutAddressSet,
  WebhookEndpoint,
} from '../contract/api.ts';
import type {
  Balance,
  SettlementAnswer,
  StatementPage,
  Swap as ContractSwap,
  Withdrawal as ContractWithdrawal,
  WithdrawalLimit,
} from '../contract/balances.ts';
import type { PaymentDetail, RolledKey } from '../contract/dashboard.ts';
import type { LinkList as ContractLinkList, LinkListItem } from '../contract/payment-links.ts';
import type { Product } from '../contract/products.ts';
import type { Qr as ContractQr } from '../contract/schemas.ts';
import type { Refund as ContractRefund } from '../contract/refunds.ts';
import type { NewRestrictedKeyAnswer, RestrictedKey, RestrictedKeysAnswer } from '../contract/team.ts';
import type * as live from './live.ts';
import type * as balances from './screens/Balances.tsx';
import type * as lines from './screens/lines.ts';
import type * as payouts from './screens/Payouts.tsx';
import type * as swaps from './screens/Swaps.tsx';
import type * as withdrawals from './screens/Withdrawals.tsx';
import type * as developers from './screens/Developers.tsx';
import type * as events from './screens/Events.tsx';
import type * as links from './screens/Links.tsx';
import type * as payment from './screens/Payment.tsx';
import type * as products from './screens/Products.tsx';
import type * as settings from './screens/Settings.tsx';
import type * as settlement from './screens/Settlement.tsx';
import type * as refunds from './screens/Refunds.tsx';
import type * as walletRefund from './screens/WalletRefund.tsx';
import type * as attention from './screens/Attention.tsx';
import type * as keys from './screens/Keys.tsx';

type Out<S> = S extends z.ZodMiniType ? z.output<S> : never;
type Answer<T> = Out<ReturnType<typeof answer<T extends z.ZodMiniType ? T : never>>>;
/** True when every answer the contract allows passes the screen's schema. */
type Covers<Screen, Contract> = Contract extends Out<Screen> ? true : false;
type EventRecord = Out<typeof EventsAnswer>['data'][number];

export const held: {
  refund: Covers<typeof refunds.Refund, Out<typeof ContractRefund>>;
  refundMade: Covers<typeof refunds.Made, Answer<typeof ContractRefund>>;
  sentBack: Covers<typeof attention.Sent, Answer<typeof ContractRefund>>;
  refundTransfer: Covers<typeof refunds.Transfer, NonNullable<Out<typeof ContractRefund>['transfer']>>;
  walletQr: Covers<typeof walletRefund.Qr, Answer<typeof ContractQr>>;
  refundStatus: Covers<typeof walletRefund.Status, Answer<typeof ContractRefund>>;
  liveFeed: Covers<typeof live.Feed, Out<typeof EventsAnswer>>;
  endpoint: Covers<typeof developers.Endpoint, Answer<typeof WebhookEndpoint>>;
  rolled: Covers<typeof developers.Rolled, Answer<typeof RolledKey>>;
  attempt: Covers<typeof events.Attempt, EventRecord['attempts'][number]>;
  event: Covers<typeof events.Event, EventRecord>;
  eventsFeed: Covers<typeof events.Feed, Out<typeof EventsAnswer>>;
  detail: Covers<typeof payment.DetailAnswer, Answer<typeof PaymentDetail>>;
  link: Covers<typeof links.Link, Out<typeof LinkListItem>>;
  linkList: Covers<typeof links.LinkList, Out<typeof ContractLinkList>>;
  qr: Covers<typeof links.Qr, Answer<typeof ContractQr>>;
  payouts: Covers<typeof settings.Payouts, { data: Array<Out<typeof PayoutAddress>> }>;
  change: Covers<typeof settings.Change, Out<typeof DestinationChange>>;
  changes: Covers<typeof settings.Changes, { data: Array<Out<typeof DestinationChange>> }>;
  payoutSet: Covers<typeof settings.PayoutSet, Answer<typeof PayoutAddressSet>>;
  made: Covers<typeof products.Made, Answer<typeof Product>>;
  balanceLine: Covers<typeof lines.Line, Out<typeof Balance>>;
  balanceLines: Covers<typeof lines.Lines, Answer<ReturnType<typeof z.array<typeof Balance>>>>;
  swap: Covers<typeof swaps.Swap, Out<typeof ContractSwap>>;
  swapAnswer: Covers<typeof swaps.Answer, Answer<typeof ContractSwap>>;
  withdrawal: Covers<typeof withdrawals.Withdrawal, Out<typeof ContractWithdrawal>>;
  limit: Covers<typeof withdrawals.Limit, Answer<typeof WithdrawalLimit>>;
  bank: Covers<typeof payouts.Bank, Out<typeof BankPayout>>;
  payout: Covers<typeof payouts.Payout, Out<typeof ContractPayout>>;
  entry: Covers<typeof balances.Entry, Out<typeof StatementPage>['data'][number]>;
  entries: Covers<typeof balances.Entries, Out<typeof StatementPage>>;
  settlement: Covers<typeof settlement.SettlementAnswer, Answer<typeof SettlementAnswer>>;
  restrictedKey: Covers<typeof keys.Key, Out<typeof RestrictedKey>>;
  restrictedKeys: Covers<typeof keys.List, Out<typeof RestrictedKeysAnswer>>;
  newRestrictedKey: Covers<typeof keys.Made, Out<typeof NewRestrictedKeyAnswer>>;
} = {
  liveFeed: true,
  endpoint: true,
  rolled: true,
  attempt: true,
  event: true,
  eventsFeed: true,
  detail: true,
  link: true,
  linkList: true,
  qr: true,
  payouts: true,
  change: true,
  changes: true,
  payoutSet: true,
  made: true,
  balanceLine: true,
  balanceLines: true,
  swap: true,
  swapAnswer: true,
  withdrawal: true,
  limit: true,
  bank: true,
  payout: true,
  entry: true,
  entries: true,
  settlement: true,
  refund: true,
  refundMade: true,
  sentBack: true,
  refundTransfer: true,
  walletQr: true,
  refundStatus: true,
  restrictedKey: true,
  restrictedKeys: true,
  newRestrictedKey: true,
};
