// The bank payout endpoints of the spec: secret key only, from merchant servers.
import { COINS as COIN_SYMBOLS } from '../../contract/fields.ts';
import { DeletePayoutsBody, InitiatePayoutBody, PAYOUT_CURRENCIES, PayoutBody, PayoutFields } from '../../contract/payouts.ts';
import { invalidField, invalidFields, Conflict } from '../domain/errors.ts';
import { BANKS, checkBankFields, COUNTRIES, isPayoutCurrency, mergeBankUpdate, PAYOUT_RATES, payoutUnits, type Payout } from '../domain/payouts.ts';
import { readJson } from '../http/body.ts';
import { ok } from '../http/respond.ts';
import { parse } from '../http/validate.ts';
import type { Handler, ServiceParts } from './context.ts';
import { CURRENCIES, type CoinSymbol, type Currency } from '../../contract/fields.ts';
import type { PayoutCurrency } from '../../contract/payouts.ts';
import { requireBalance } from './balances.ts';

export const banks: Handler = async ({ query }) => {
  const country = query.get('country') ?? '';
  const found = BANKS[country];
  if (!found) throw invalidField('country', `expected one of ${Object.keys(BANKS).join(', ')}, received ${JSON.stringify(country.slice(0, 40))}`);
  return ok(200, found, 'Banks retrieved');
};

export const countries: Handler = async () => ok(200, COUNTRIES, 'Countries retrieved');
export const currencies: Handler = async () => ok(200, PAYOUT_CURRENCIES, 'Currencies retrieved');

/**
 * Units of a payout currency one coin buys: from the rate provider (RATES_FILE, or the built-in
 * table) where it prices the currency, else the payout table (GHS); a stale rate answers 503.
 */
async function payoutRate(service: ServiceParts, coin: string, currency: PayoutCurrency): Promise<string> {
  if (!(CURRENCIES as readonly string[]).includes(currency)) return PAYOUT_RATES[currency];
  return (await service.rates.forQuote(currency as Currency, coin as CoinSymbol)).fiatPerCoin;
}

export const rate: Handler = async ({ query, service }) => {
  const coin = query.get('coin') ?? '';
  const currency = query.get('currency') ?? '';
  const errors = [];
  if (!(COIN_SYMBOLS as readonly string[]).includes(coin)) errors.push({ field: 'coin', message: `expected one of ${COIN_SYMBOLS.join(', ')}, received ${JSON.stringify(coin.slice(0, 20))}` });
  if (!isPayoutCurrency(currency)) errors.push({ field: 'currency', message: `expected one of ${PAYOUT_CURRENCIES.join(', ')}, received ${JSON.stringify(currency.slice(0, 20))}` });
  const invalid = invalidFields(errors);
  if (invalid) throw invalid;
  // Every coin here is a dollar stablecoin: one coin is worth one dollar's rate.
  return ok(200, { coin, currency, rate: Number(await payoutRate(service, coin, currency as PayoutCurrency)) }, 'Rate retrieved');
};

export const addBank: Handler = async ({ req, account, service }) => {
  const { currency, default: isDefault, ...fields } = parse(PayoutBody, await readJson(req));
  checkBankFields(currency, fields);
  return ok(201, await service.payouts.addBank(account, currency, fields, isDefault, service.now()), 'Bank payout added');
};

export const listBanks: Handler = async ({ account, service }) => ok(200, (await service.payouts.banks(account)).map((b) => b.id), 'Bank payouts retrieved');
export const getBank: Handler = async ({ params, account, service }) => ok(200, await service.payouts.bank(account, params.id), 'Bank payout retrieved');

export const updateBank: Handler = async ({ req, params, account, service }) => {
  const body = parse(PayoutFields, await readJson(req));
  const { fields, makeDefault } = mergeBankUpdate(await service.payouts.bank(account, params.id), body);
  return ok(200, await service.payouts.updateBank(account, params.id, fields, makeDefault, service.now()), 'Bank payout updated');
};

export const deleteBanks: Handler = async ({ req, account, service }) => {
  const { ids } = parse(DeletePayoutsBody, await readJson(req));
  return ok(200, { deleted: await service.payouts.deleteBanks(account, ids) }, 'Bank payouts deleted');
};

export const initiate: Handler = async ({ req, account, service }) => {
  // The service ships only the sandbox's payout provider, which pays nobody: a live payout
  // through it would be reported paid while no bank moved any money.
  if (account.mode === 'live') {
    throw new Conflict('Live bank payouts are not available: this service has no payout provider configured (it ships only the sandbox\'s). See the README, "Bank payouts"');
  }
  // Only money the service holds can be paid out: a merchant on wallet settlement holds it themselves.
  await requireBalance(account, service, 'Bank payouts');
  const body = parse(InitiatePayoutBody, await readJson(req));
  const units = payoutUnits(body.coin, body.amount);
  // The rate is asked before the balance is locked (a provider may be fetched from); the bank's currency names it.
  const rate = await payoutRate(service, body.coin, (await service.payouts.bank(account, body.payout_bank_id)).currency);
  const payout = await service.payouts.initiate(
    account,
    { bankId: body.payout_bank_id, units, reference: body.reference, metadata: body.metadata ?? null, rate, usdPerCoin: await service.rates.usdPerCoin(body.coin as CoinSymbol) },
    service.now(),
    (p: Payout) => p,
  );
  return ok(201, payout, 'Payout initiated');
};

export const getPayout: Handler = async ({ params, account, service }) => ok(200, await service.payouts.get(account, params.id), 'Payout retrieved');
