// Money the service holds for a merchant (`balance` settlement): the settlement choice, the
// balances and their statement, swaps between coins and withdrawals to a wallet. The secret key
// or the dashboard's session; each sees and moves only its own merchant's balance in its own mode.
import * as z from 'zod/mini';
import { answer } from '../../contract/api.ts';
import {
  Balance,
  SettlementAnswer,
  StatementPage,
  StatementQuery,
  SettlementBody,
  Swap,
  SwapBody,
  SwapQuoteBody,
  SwapsPage,
  Withdrawal,
  WithdrawalBody,
  WithdrawalLimit,
  WithdrawalsPage,
  type BalanceLine,
} from '../../contract/balances.ts';
import { formatUnits } from '../../contract/money.ts';
import type { Coin } from '../../contract/schemas.ts';
import { text } from '../../contract/fields.ts';
import type { Account } from '../domain/account.ts';
import * as moves from './use-cases.ts';
import { requestWithdrawal } from './withdraw.ts';
import { quoteSwap as quoteSwapOf } from './swap-quote.ts';
import { chooseSettlement } from './settlement.ts';
import { invalidField } from '../domain/errors.ts';
import { configuredUnits, LIMIT_DECIMALS, limitView } from './ledger-rules.ts';
import { cursorParts, cursorText, keysetOf, pageOf, UUID } from '../http/cursor.ts';
import { HistoryQuery } from '../http/queries.ts';
import { ok } from '../http/respond.ts';
import { STATEMENT_CSV_COLUMNS, statementCsvLine, statementView, swapView, withdrawalView } from './views.ts';
import type { Handler as AnyHandler, Schemas, ServiceParts } from '../api/context.ts';
import { balanceOnly } from '../api/checks.ts';
import { route } from '../api/route.ts';

/** The parts of the service these routes use: their handlers are given these alone. */
type Uses = 'balanceTransactions' | 'catalog' | 'destinations' | 'ids' | 'journal' | 'now' | 'ownAddresses' | 'rates' | 'swaps' | 'treasury' | 'withdrawals';
type Service = Pick<ServiceParts, Uses>;
type Handler<S extends Schemas = {}> = AnyHandler<S, Uses>;

/** A coin of the mode by symbol and (where it is on several chains) chain_id; refused naming the field. */
const coinOf = (service: Service, account: Account, field: string, symbol: string, chainId?: number): Coin =>
  service.catalog.choose(account.mode, symbol, chainId, field);

/** The treasury a balance is kept in: the first of the mode's networks that has one (each network keeps its own coins there). */
const treasuryOf = (service: Service, account: Account) => service.catalog.networks(account.mode).find((n) => n.treasury)?.treasury ?? null;

export const getSettlement: Handler = async ({ account, service }) => {
  const settlement = await service.journal.settlement(account.merchant.id, account.mode);
  return ok(200, { settlement, ...(settlement === 'balance' ? { treasury: treasuryOf(service, account) } : {}) }, 'Settlement');
};

export const putSettlement: Handler<{ body: typeof SettlementBody }> = async ({ body: { settlement }, account, service }) => {
  await chooseSettlement(service, account, settlement);
  const treasury = settlement === 'balance' ? { treasury: treasuryOf(service, account) } : {};
  return ok(200, { settlement, ...treasury }, 'Settlement saved; it applies to payments made from now on');
};

export const balances: Handler = async ({ account, service }) => {
  const coins = service.catalog.coins(account.mode);
  const lines: BalanceLine[] = (await service.journal.balances(account, service.now())).map((b) => {
    const coin = coins.find((c) => c.chainId === b.chainId && c.contractAddress.toLowerCase() === b.token);
    const decimals = coin?.decimals ?? 18;
    return {
      coin: coin?.symbol ?? b.token,
      chain_id: b.chainId,
      network: coin?.network ?? service.catalog.network(account.mode, b.chainId)?.name ?? String(b.chainId),
      available: formatUnits(b.available, decimals),
      reserved: formatUnits(b.reserved, decimals),
      pending: formatUnits(b.pending, decimals),
    };
  });
  return ok(200, lines, 'Balances');
};

/** A coin of the mode by chain and token address, as a statement names it (an unknown token by its address, 18 decimals). */
const coinAt = (service: Service, account: Account) => {
  const coins = service.catalog.coins(account.mode);
  return (chainId: number, token: string) => {
    const coin = coins.find((c) => c.chainId === chainId && c.contractAddress.toLowerCase() === token);
    return {
      symbol: coin?.symbol ?? token,
      network: coin?.network ?? service.catalog.network(account.mode, chainId)?.name ?? String(chainId),
      decimals: coin?.decimals ?? 18,
    };
  };
};

/** The posting a statement's cursor names (the previous page's last line); another list's or made-up text is the 400 naming `cursor`. */
function statementAfter(ids: Service['ids'], cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  const after = ids.number('statement', cursorParts('statement', cursor, [/^[A-Za-z0-9_-]{22}$/])[0]!);
  if (after === undefined) throw invalidField('cursor', 'expected a cursor this list answered as next');
  return after;
}

export const statement: Handler<{ query: typeof StatementQuery }> = async ({ query: q, account, service }) => {
  const limit = q.limit === undefined ? 25 : Number(q.limit);
  const coin = coinAt(service, account);
  const only = q.coin === undefined ? undefined : coinOf(service, account, 'coin', q.coin, q.chain_id === undefined ? undefined : Number(q.chain_id));
  const token = only && { chainId: only.chainId, token: only.contractAddress.toLowerCase() };
  // The cursor holds the last line's posting id (opaque): the next page starts after it; one more than asked says whether there is one.
  const lines = await service.journal.statement(account, service.now(), statementAfter(service.ids, q.cursor), limit + 1, token);
  const idOf = (list: string, n: number) => service.ids.text(list, n);
  const { page, ...paging } = pageOf(lines, limit, (last) => cursorText('statement', idOf('statement', last.id)));
  return ok(
    200,
    page.map((l) => statementView(l, coin(l.chainId, l.token), idOf)),
    'Statement',
    paging,
  );
};

export const statementCsv: Handler = async ({ res, account, service }) => {
  const coin = coinAt(service, account);
  const lines = await service.journal.statement(account, service.now());
  const body =
    [
      STATEMENT_CSV_COLUMNS.join(','),
      ...lines.map((l) => statementCsvLine(statementView(l, coin(l.chainId, l.token), (list, n) => service.ids.text(list, n)))),
    ].join('\r\n') + '\r\n';
  res.writeHead(200, {
    'content-type': 'text/csv; charset=utf-8',
    'content-disposition': `attachment; filename="statement-${account.mode}.csv"`,
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  });
  res.end(body);
  return undefined;
};

export const quoteSwap: Handler<{ body: typeof SwapQuoteBody }> = async ({ body, account, service }) =>
  ok(201, swapView(await quoteSwapOf(service, account, { from: body.from, to: body.to, amount: body.amount, chainId: body.chain_id })), 'Swap quoted');

export const createSwap: Handler<{ body: typeof SwapBody }> = async ({ body: { quote_id }, account, service }) => {
  const swap = await moves.acceptQuote(service.balanceTransactions, account, quote_id, service.now(), swapView);
  return ok(201, swapView(swap), 'Swap pending');
};

export const getSwap: Handler = async ({ params, account, service }) => ok(200, swapView(await service.swaps.swap(account, params.id)), 'Swap');

export const withdraw: Handler<{ body: typeof WithdrawalBody }> = async ({ body, account, service }) => {
  const asked = { chainId: body.chain_id, coin: body.coin, amount: body.amount, address: body.address };
  return ok(201, withdrawalView(await requestWithdrawal(service, account, asked, withdrawalView)), 'Withdrawal pending');
};

/** The page size and the keyset after a history list's cursor (`list` names the list, so another's cursor is refused). */
export const historyPage = (list: string, q: { cursor?: string; limit?: string }) => ({
  limit: q.limit === undefined ? 25 : Number(q.limit),
  before: q.cursor === undefined ? undefined : keysetOf(list, q.cursor, UUID),
});

export const listSwaps: Handler<{ query: typeof HistoryQuery }> = async ({ query, account, service }) => {
  const { limit, before } = historyPage('swaps', query);
  const { page, ...paging } = pageOf(await service.swaps.history(account, before, limit + 1), limit, (s) => cursorText('swaps', s.createdMs, s.id));
  return ok(200, page.map(swapView), 'Swaps', paging);
};

export const listWithdrawals: Handler<{ query: typeof HistoryQuery }> = async ({ query, account, service }) => {
  const { limit, before } = historyPage('withdrawals', query);
  const { page, ...paging } = pageOf(await service.withdrawals.history(account, before, limit + 1), limit, (w) => cursorText('withdrawals', w.createdMs, w.id));
  return ok(200, page.map(withdrawalView), 'Withdrawals', paging);
};

export const withdrawalLimit: Handler = async ({ account, service }) => {
  const limit = configuredUnits((await service.withdrawals.withdrawalLimit(account)).daily, LIMIT_DECIMALS);
  return ok(200, limitView(limit, await service.withdrawals.spentToday(account, service.now())), 'Daily withdrawal limit');
};

export const getWithdrawal: Handler = async ({ params, account, service }) =>
  ok(200, withdrawalView(await service.withdrawals.withdrawal(account, params.id)), 'Withdrawal');

const tag = 'Balances' as const;

export const routes = [
  route({
    method: 'GET',
    path: '/api/v1/settlement',
    auth: 'merchant',
    permission: 'balances.read',
    handler: getSettlement,
    tag,
    summary: "where this mode's payments settle: wallet or balance",
    description: '`{ settlement: "wallet" | "balance", treasury? }` for the key\'s mode; `wallet` by default.',
    responses: { 200: answer(SettlementAnswer) },
  }),
  route({
    method: 'PUT',
    path: '/api/v1/settlement',
    auth: 'merchant',
    permission: 'balances.write',
    stepUp: 'live',
    memberFactor: true,
    handler: putSettlement,
    tag,
    summary: 'settle new payments to your wallet or to a balance the operator holds',
    description:
      "`wallet` (the default): deposits are swept to your payout address and the service never holds your money. `balance`: deposits are swept to the operator's treasury and kept as your balance (the operator is then custodial); 409 on a network whose operator configured no treasury. Applies to payments made after it; payments made before keep theirs. In live mode a dashboard session confirms a second factor within five minutes first (a member without one is refused until they add one: 403 `step_up_required`).",
    body: SettlementBody,
    responses: { 200: answer(SettlementAnswer) },
    errors: ['not_configured'],
  }),
  route({
    method: 'GET',
    path: '/api/v1/balances',
    auth: 'merchant',
    permission: 'balances.read',
    handler: balances,
    tag,
    summary: 'available, reserved and pending per coin and network',
    description:
      'Exact decimal text per coin and network: available (to spend), reserved (for a swap, payout or withdrawal under way), pending (paid, not yet swept to the treasury).',
    responses: { 200: answer(z.array(Balance)) },
  }),
  route({
    method: 'GET',
    path: '/api/v1/balances/entries',
    auth: 'merchant',
    permission: 'balances.read',
    handler: statement,
    tag,
    summary: 'the statement behind the balances: each movement, oldest first, with the balance after it',
    description:
      "Each posting to the mode's `available` or `reserved` money, oldest first: its journal `entry`, `date` (UTC), `kind`, what it `refers_to` (the payment by reference, or the payout, swap or withdrawal by id), `coin` and network, `amount` (signed) and the `balance` of that account and coin after it; the last `balance` of each is the figure `GET /api/v1/balances` shows. `coin` (and `chain_id` where the coin is on several) shows that coin's alone. `cursor` is `next` of the page before (opaque; `next` is null and `has_more` false on the last page); `limit` 1–100 (25).",
    query: StatementQuery,
    responses: { 200: StatementPage },
  }),
  route({
    method: 'GET',
    path: '/api/v1/balances/statement.csv',
    auth: 'merchant',
    permission: 'balances.read',
    handler: statementCsv,
    tag,
    summary: 'the whole statement as CSV, for an accountant',
    description:
      "RFC 4180 CSV with a header line (date_utc, entry, kind, refers_to, memo, coin, chain_id, network, account, amount, balance), oldest first; amounts as exact signed decimal text; `balance` runs per account and coin, so each coin's amounts add up to its balance. A text field a spreadsheet would run as a formula starts with an apostrophe.",
    mediaType: 'text/csv',
    responses: { 200: text },
  }),
  route({
    method: 'POST',
    path: '/api/v1/swaps/quote',
    auth: 'merchant',
    permission: 'balances.write',
    handler: quoteSwap,
    tag,
    summary: 'a price to swap one coin of the balance for another',
    description:
      "201 with the swap `quoted`: `rate` (units of `to` per `from`, the pool's price for this amount), `amount_received` (the fee taken), `fee`, `minimum_received` (the worst case: the pool's quote less the slippage limit of 0.5%, less the fee), `expires_at` (a minute); 409 on `wallet` settlement; 409 `swap_rate_deviates` when the pool's price is further from the rate provider's than the network's limit (1% unless the operator sets `swapRateLimitBps`): a thin or moved pool.",
    body: SwapQuoteBody,
    responses: { 201: answer(Swap) },
    errors: ['not_configured', 'insufficient_balance', 'swap_rate_deviates', 409],
    checks: [balanceOnly('Swaps')],
  }),
  route({
    method: 'POST',
    path: '/api/v1/swaps',
    auth: 'merchant',
    permission: 'balances.write',
    handler: createSwap,
    tag,
    summary: 'swap at a quote',
    description:
      'Reserves the amount (409 past the balance, or for a quote used or expired), 201 `pending`; then `completed` (with `tx_hash`, what the pool gave) or `failed` (price past the slippage limit: the amount returns), each change a `SWAP_UPDATED` event.',
    body: SwapBody,
    responses: { 201: answer(Swap) },
    errors: [404, 'quote_used', 'quote_expired', 'insufficient_balance', 'not_configured', 409],
    checks: [balanceOnly('Swaps')],
    movesMoney: true,
  }),
  route({
    method: 'GET',
    path: '/api/v1/swaps',
    auth: 'merchant',
    permission: 'balances.read',
    handler: listSwaps,
    tag,
    summary: 'the swaps, newest first',
    description:
      'Every swap of the mode but quotes never accepted, newest first, each as `GET /api/v1/swaps/{id}` answers it. Pages as every list does: `cursor` is `next` of the page before (opaque; `next` is null and `has_more` false on the last page), `limit` 1–100 (25).',
    query: HistoryQuery,
    responses: { 200: SwapsPage },
  }),
  route({
    method: 'GET',
    path: '/api/v1/swaps/:id',
    auth: 'merchant',
    permission: 'balances.read',
    handler: getSwap,
    tag,
    summary: 'one swap and its state',
    description:
      'The swap by the id its `POST /api/v1/swaps` answer gave: coins, amounts, rate and where it stands; each change is also a `SWAP_UPDATED` event.',
    responses: { 200: answer(Swap) },
  }),
  route({
    method: 'POST',
    path: '/api/v1/withdrawals',
    auth: 'merchant',
    permission: 'balances.write',
    stepUp: 'live',
    handler: withdraw,
    tag,
    summary: 'send coins of the balance to a wallet',
    description:
      "Sends from the treasury to a wallet; 201 `pending`, then `completed` with the `tx_hash` once its block has the network's confirmations (or `failed`, the amount returned), each change a `WITHDRAWAL_UPDATED` event. Past the merchant's one daily limit (US dollars across every coin and network, withdrawals and bank payouts together), 409 naming `amount`. Live keys: a wallet never withdrawn to (on that chain) is refused with 409 and registered; it receives from the time the answer names (the operator's delay, 24 hours by default), unless the owner cancels it; a WITHDRAWAL_ADDRESS_PENDING event is sent. Nothing is reserved meanwhile.",
    body: WithdrawalBody,
    responses: { 201: answer(Withdrawal) },
    errors: ['chain_not_offered', 'not_configured', 'destination_pending', 'insufficient_balance', 'withdrawal_limit_exceeded'],
    checks: [balanceOnly('Withdrawals')],
    movesMoney: true,
  }),
  route({
    method: 'GET',
    path: '/api/v1/withdrawals',
    auth: 'merchant',
    permission: 'balances.read',
    handler: listWithdrawals,
    tag,
    summary: 'the withdrawals, newest first',
    description:
      'Every withdrawal of the mode, newest first, each as `GET /api/v1/withdrawals/{id}` answers it. Pages as every list does: `cursor` is `next` of the page before (opaque; `next` is null and `has_more` false on the last page), `limit` 1–100 (25).',
    query: HistoryQuery,
    responses: { 200: WithdrawalsPage },
  }),
  route({
    method: 'GET',
    path: '/api/v1/withdrawals/limit',
    auth: 'merchant',
    permission: 'balances.read',
    handler: withdrawalLimit,
    tag,
    summary: 'the daily withdrawal limit and what is left of it',
    description:
      "One limit per merchant and mode in US dollars, across every coin and network, withdrawals to wallets and bank payouts together, over the last 24 hours (rolling): `daily` (the operator's for you, else the service's default), `spent` (what left in the window, as valued when it left; failed ones not counted) and `left`.",
    responses: { 200: answer(WithdrawalLimit) },
  }),
  route({
    method: 'GET',
    path: '/api/v1/withdrawals/:id',
    auth: 'merchant',
    permission: 'balances.read',
    handler: getWithdrawal,
    tag,
    summary: 'one withdrawal and its state',
    description:
      'The withdrawal by the id its `POST /api/v1/withdrawals` answer gave: coin, chain, address, amount, its transaction once sent, and where it stands; each change is also a `WITHDRAWAL_UPDATED` event.',
    responses: { 200: answer(Withdrawal) },
  }),
];
