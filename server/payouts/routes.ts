// The bank payout endpoints of the spec: the secret key (merchant servers) or the dashboard's session.
import * as z from 'zod/mini';
import { answer, Bank, BankAccountsPage, BankPayout, Country, Deleted, Payout as PayoutAnswer, PayoutsPage, Rate } from '../../contract/api.ts';
import { oneOf } from '../../contract/fields.ts';
import { DeletePayoutsBody, InitiatePayoutBody, PAYOUT_CURRENCIES, PayoutBody, PayoutFields } from '../../contract/payouts.ts';
import { BANKS, checkBankFields, COUNTRIES, mergeBankUpdate, PAYOUT_RATES, payoutUnits, type BankAccount, type Payout } from './rules.ts';
import { BankAccountsQuery, BankQuery, HistoryQuery, RateQuery } from '../http/queries.ts';
import { cursorText, keysetOf, pageOf, UUID } from '../http/cursor.ts';
import { ok } from '../http/respond.ts';
import type { Ctx, Handler as AnyHandler, Schemas, ServiceParts } from '../api/context.ts';
import { changeView } from '../merchants/destination-views.ts';
import { CURRENCIES, type CoinSymbol, type Currency } from '../../contract/fields.ts';
import type { PayoutCurrency } from '../../contract/payouts.ts';
import { balanceOnly, testOnly } from '../api/checks.ts';
import { route } from '../api/route.ts';

/** The parts of the service these routes use: their handlers are given these alone. */
type Uses = 'bankAccounts' | 'destinations' | 'now' | 'payouts' | 'payoutMoves' | 'rates';
type Service = Pick<ServiceParts, Uses>;
type Handler<S extends Schemas = {}> = AnyHandler<S, Uses>;

export const banks: Handler<{ query: typeof BankQuery }> = async ({ query }) => {
  return ok(200, BANKS[query.country], 'Banks retrieved');
};

export const countries: Handler = async () => ok(200, COUNTRIES, 'Countries retrieved');
export const currencies: Handler = async () => ok(200, PAYOUT_CURRENCIES, 'Currencies retrieved');

/**
 * Units of a payout currency one coin buys: from the rate provider (RATES_FILE, or the built-in
 * table) where it prices the currency, else the payout table (GHS); a stale rate answers 503.
 */
async function payoutRate(service: Service, coin: string, currency: PayoutCurrency): Promise<string> {
  if (!(CURRENCIES as readonly string[]).includes(currency)) return PAYOUT_RATES[currency];
  return (await service.rates.forQuote(currency as Currency, coin as CoinSymbol)).fiatPerCoin;
}

export const rate: Handler<{ query: typeof RateQuery }> = async ({ query: { coin, currency }, service }) => {
  // Every coin here is a dollar stablecoin: one coin is worth one dollar's rate.
  return ok(200, { coin, currency, rate: Number(await payoutRate(service, coin, currency)) }, 'Rate retrieved');
};

export const addBank: Handler<{ body: typeof PayoutBody }> = async ({ body, account, service }) => {
  const { currency, default: isDefault, ...fields } = body;
  checkBankFields(currency, fields);
  const bank = await service.bankAccounts.add(account, currency, fields, isDefault, service.now());
  return ok(201, bank, bank.effectiveAt ? `Bank payout added: it can be paid to from ${bank.effectiveAt}` : 'Bank payout added');
};

export const listBanks: Handler<{ query: typeof BankAccountsQuery }> = async ({ query: q, account, service }) => {
  const limit = q.limit === undefined ? 25 : Number(q.limit);
  const after = q.cursor === undefined ? undefined : keysetOf('bank_accounts', q.cursor, UUID);
  const rows = await service.payouts.banks(account, after, limit + 1);
  const { page, ...paging } = pageOf(rows, limit, (b) => cursorText('bank_accounts', Date.parse(b.createdAt), b.id));
  return ok(
    200,
    page.map((b) => b.id),
    'Bank payouts retrieved',
    paging,
  );
};

/** The account with its new details still waiting (a live key's), if any. */
const withPending = async (service: Service, account: Ctx['account'], bank: BankAccount) => {
  const pending = await service.destinations.pendingBankDetails(account, bank.id);
  return pending ? { ...bank, pending: changeView(pending) } : bank;
};

export const getBank: Handler = async ({ params, account, service }) =>
  ok(200, await withPending(service, account, await service.payouts.bank(account, params.id)), 'Bank payout retrieved');

export const updateBank: Handler<{ body: typeof PayoutFields }> = async ({ body, params, account, service }) => {
  // Merged with the details in effect (not with new details still waiting).
  const { fields, makeDefault } = mergeBankUpdate(await service.payouts.bank(account, params.id), body);
  const bank = await withPending(service, account, await service.bankAccounts.update(account, params.id, fields, makeDefault, service.now()));
  return ok(
    200,
    bank,
    'pending' in bank
      ? `Bank details pending: payouts go to them from ${bank.pending.effective_at}, to the details in effect until then`
      : 'Bank payout updated',
  );
};

export const deleteBanks: Handler<{ body: typeof DeletePayoutsBody }> = async ({ body: { ids }, account, service }) => {
  return ok(200, { deleted: await service.bankAccounts.delete(account, ids) }, 'Bank payouts deleted');
};

export const initiate: Handler<{ body: typeof InitiatePayoutBody }> = async ({ body, account, service }) => {
  const units = payoutUnits(body.coin, body.amount);
  // The rate is asked before the balance is locked (a provider may be fetched from); the bank's currency names it.
  const rate = await payoutRate(service, body.coin, (await service.payouts.bank(account, body.payout_bank_id)).currency);
  const payout = await service.payoutMoves.initiate(
    account,
    {
      bankId: body.payout_bank_id,
      units,
      reference: body.reference,
      metadata: body.metadata ?? null,
      rate,
      usdPerCoin: await service.rates.usdPerCoin(body.coin as CoinSymbol),
    },
    service.now(),
    (p: Payout) => p,
  );
  return ok(201, payout, 'Payout initiated');
};

export const listPayouts: Handler<{ query: typeof HistoryQuery }> = async ({ query: q, account, service }) => {
  const limit = q.limit === undefined ? 25 : Number(q.limit);
  const before = q.cursor === undefined ? undefined : keysetOf('payouts', q.cursor, UUID);
  const { page, ...paging } = pageOf(await service.payouts.history(account, before, limit + 1), limit, (p) =>
    cursorText('payouts', Date.parse(p.createdAt), p.id),
  );
  return ok(200, page, 'Payouts retrieved', paging);
};

export const getPayout: Handler = async ({ params, account, service }) => ok(200, await service.payouts.get(account, params.id), 'Payout retrieved');

const tag = 'Bank payouts' as const;

export const routes = [
  route({
    method: 'GET',
    path: '/api/v1/bank',
    auth: 'merchant',
    permission: 'payouts.read',
    handler: banks,
    tag,
    summary: 'the banks of a country',
    description: "`?country=nigeria`: each bank's `{ name, code }`.",
    query: BankQuery,
    responses: { 200: answer(z.array(Bank)) },
  }),
  route({
    method: 'GET',
    path: '/api/v1/bank/payouts/countries',
    auth: 'merchant',
    permission: 'payouts.read',
    handler: countries,
    tag,
    summary: 'supported countries',
    description: '`united states`/USD, `nigeria`/NGN, `ghana`/GHS.',
    responses: { 200: answer(z.array(Country)) },
  }),
  route({
    method: 'GET',
    path: '/api/v1/bank/payouts/currencies',
    auth: 'merchant',
    permission: 'payouts.read',
    handler: currencies,
    tag,
    summary: 'supported currencies',
    description: 'The currencies a bank account may have: `USD`, `NGN`, `GHS` (each with its own required fields).',
    responses: { 200: answer(z.array(oneOf(PAYOUT_CURRENCIES))) },
  }),
  route({
    method: 'GET',
    path: '/api/v1/bank/payouts/rate',
    auth: 'merchant',
    permission: 'payouts.read',
    handler: rate,
    tag,
    summary: "a coin's rate in a currency",
    description:
      '`{ coin, currency, rate }`, from the rate provider (RATES_FILE) where it prices the currency, else the payout table; 503 when its rate is stale.',
    query: RateQuery,
    responses: { 200: answer(Rate) },
    errors: [503],
  }),
  route({
    method: 'POST',
    path: '/api/v1/bank/payouts/initiate',
    auth: 'merchant',
    permission: 'payouts.write',
    stepUp: 'live',
    handler: initiate,
    tag,
    summary: 'pay collected USDT out to a bank account',
    description:
      "Needs balance settlement (409 on `wallet`, saying so); another coin is told to swap to USDT first (`POST /api/v1/swaps/quote`); more than the available USDT balance gets 409; live payouts are refused (409: the service ships only the sandbox's payout provider). The amount is reserved from the balance at once; the payout starts `pending`, then `processing`, then `paid` or `failed` (a failed payout's amount returns to the balance), each change a `PAYOUT_UPDATED` event.",
    body: InitiatePayoutBody,
    responses: { 201: answer(PayoutAnswer) },
    errors: [404, 'destination_pending', 'reference_in_use', 'insufficient_balance', 'withdrawal_limit_exceeded', 'not_configured', 503],
    checks: [
      // The service ships only the sandbox's payout provider, which pays nobody: a live payout
      // through it would be reported paid while no bank moved any money.
      testOnly(
        'Live bank payouts are not available: this service has no payout provider configured (it ships only the sandbox\'s). See the README, "Bank payouts"',
      ),
      // Only money the service holds can be paid out: a merchant on wallet settlement holds it themselves.
      balanceOnly('Bank payouts'),
    ],
    movesMoney: true,
  }),
  route({
    method: 'GET',
    path: '/api/v1/bank/payouts/withdrawals',
    auth: 'merchant',
    permission: 'payouts.read',
    handler: listPayouts,
    tag,
    summary: 'the payouts, newest first',
    description:
      'Every bank payout of the mode, newest first, each as `GET /api/v1/bank/payouts/withdrawals/{id}` answers it. Pages as every list does: `cursor` is `next` of the page before (opaque; `next` is null and `has_more` false on the last page), `limit` 1–100 (25).',
    query: HistoryQuery,
    responses: { 200: PayoutsPage },
  }),
  route({
    method: 'GET',
    path: '/api/v1/bank/payouts/withdrawals/:id',
    auth: 'merchant',
    permission: 'payouts.read',
    handler: getPayout,
    tag,
    summary: 'one payout and its state',
    description: 'The payout by the id its `POST /api/v1/bank/payouts/initiate` answer gave: `pending`, `processing`, then `paid` or `failed`.',
    responses: { 200: answer(PayoutAnswer) },
  }),
  route({
    method: 'POST',
    path: '/api/v1/bank/payouts',
    auth: 'merchant',
    permission: 'payouts.write',
    stepUp: 'live',
    handler: addBank,
    tag,
    summary: 'register a bank account',
    description: 'The fields the spec requires for `USD`, `NGN` or `GHS`, each missing one named; `default: true` makes it the default.',
    body: PayoutBody,
    responses: { 201: answer(BankPayout) },
    errors: [409],
  }),
  route({
    method: 'GET',
    path: '/api/v1/bank/payouts',
    auth: 'merchant',
    permission: 'payouts.read',
    handler: listBanks,
    tag,
    summary: "the bank accounts' ids, a page at a time",
    description:
      "The ids of the account's bank accounts, oldest first (read each with `GET /api/v1/bank/payouts/{id}`). Pages as every list does: `cursor` is `next` of the page before (opaque; `next` is null and `has_more` false on the last page), `limit` 1–100 (25).",
    query: BankAccountsQuery,
    responses: { 200: BankAccountsPage },
  }),
  route({
    method: 'DELETE',
    path: '/api/v1/bank/payouts',
    auth: 'merchant',
    permission: 'payouts.write',
    handler: deleteBanks,
    tag,
    summary: 'delete bank accounts, all or nothing',
    description: '`{ "ids": [...] }` (ours); all or nothing: an unknown id deletes none (404).',
    body: DeletePayoutsBody,
    responses: { 200: answer(Deleted) },
    errors: [404],
  }),
  route({
    method: 'GET',
    path: '/api/v1/bank/payouts/:id',
    auth: 'merchant',
    permission: 'payouts.read',
    handler: getBank,
    tag,
    summary: 'one bank account',
    description: "Its fields as registered; a live key's account whose new details still wait their delay also shows them under `pending`.",
    responses: { 200: answer(BankPayout) },
  }),
  route({
    method: 'PATCH',
    path: '/api/v1/bank/payouts/:id',
    auth: 'merchant',
    permission: 'payouts.write',
    stepUp: 'live',
    handler: updateBank,
    tag,
    summary: 'update a bank account',
    description: 'Any write field but `currency`; `default: true` makes it the default.',
    body: PayoutFields,
    responses: { 200: answer(BankPayout) },
  }),
];
