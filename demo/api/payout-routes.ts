// The bank payout endpoints of the spec: secret key only, from merchant servers.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type * as z from 'zod/mini';
import type { KeyMode } from '../../src/options/keys.ts';
import { COINS as COIN_SYMBOLS } from '../../src/wire/fields.ts';
import { DeletePayoutsBody, InitiatePayoutBody, PAYOUT_CURRENCIES, PayoutBody, PayoutFields } from '../../src/wire/payouts.ts';
import type { Merchant } from './catalog.ts';
import { HttpError, readJson, sendJson } from './http.ts';
import { BANKS, COUNTRIES, isPayoutCurrency, PAYOUT_RATES, type PayoutStore } from './payouts.ts';

export interface PayoutRouteContext {
  payouts: PayoutStore;
  secretKey(req: IncomingMessage): { merchant: Merchant; mode: KeyMode };
  parse<S extends z.ZodMiniType>(schema: S, body: unknown): z.output<S>;
}

const ok = (res: ServerResponse, statusCode: number, data: unknown, message: string) =>
  sendJson(res, statusCode, { status: 'success', statusCode, message, data });

/** Answers the request when it is a bank call; returns false otherwise. */
export async function payoutRoutes(ctx: PayoutRouteContext, req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams): Promise<boolean> {
  if (path !== '/api/v1/bank' && !path.startsWith('/api/v1/bank/')) return false;
  const method = req.method ?? 'GET';
  const { merchant, mode } = ctx.secretKey(req);
  const { payouts } = ctx;

  if (method === 'GET' && path === '/api/v1/bank') {
    const country = query.get('country') ?? '';
    const banks = BANKS[country];
    if (!banks) {
      throw new HttpError(400, `country: expected one of ${Object.keys(BANKS).join(', ')}, received ${JSON.stringify(country)}`, [{ field: 'country', message: 'expected a supported country' }]);
    }
    return void ok(res, 200, banks, 'Banks retrieved'), true;
  }
  if (method === 'GET' && path === '/api/v1/bank/payouts/countries') return void ok(res, 200, COUNTRIES, 'Countries retrieved'), true;
  if (method === 'GET' && path === '/api/v1/bank/payouts/currencies') return void ok(res, 200, PAYOUT_CURRENCIES, 'Currencies retrieved'), true;
  if (method === 'GET' && path === '/api/v1/bank/payouts/rate') {
    const coin = query.get('coin') ?? '';
    const currency = query.get('currency') ?? '';
    const errors = [];
    if (!(COIN_SYMBOLS as readonly string[]).includes(coin)) errors.push({ field: 'coin', message: `expected one of ${COIN_SYMBOLS.join(', ')}, received ${JSON.stringify(coin)}` });
    if (!isPayoutCurrency(currency)) errors.push({ field: 'currency', message: `expected one of ${PAYOUT_CURRENCIES.join(', ')}, received ${JSON.stringify(currency)}` });
    if (errors.length) throw new HttpError(400, errors.map((e) => `${e.field}: ${e.message}`).join('; '), errors);
    // Every coin here is a dollar stablecoin: one coin is worth one dollar's rate.
    return void ok(res, 200, { coin, currency, rate: Number(PAYOUT_RATES[currency as keyof typeof PAYOUT_RATES]) }, 'Rate retrieved'), true;
  }
  if (method === 'POST' && path === '/api/v1/bank/payouts/initiate') {
    const withdrawal = payouts.initiate(merchant, mode, ctx.parse(InitiatePayoutBody, await readJson(req)));
    return void ok(res, 201, withdrawal, 'Payout initiated'), true;
  }
  if (path === '/api/v1/bank/payouts') {
    if (method === 'POST') return void ok(res, 201, payouts.add(merchant, mode, ctx.parse(PayoutBody, await readJson(req))), 'Bank payout added'), true;
    if (method === 'GET') return void ok(res, 200, payouts.list(merchant, mode).map((p) => p.id), 'Bank payouts retrieved'), true;
    if (method === 'DELETE') {
      const { ids } = ctx.parse(DeletePayoutsBody, await readJson(req));
      return void ok(res, 200, { deleted: payouts.delete(merchant, mode, ids) }, 'Bank payouts deleted'), true;
    }
  }
  const one = /^\/api\/v1\/bank\/payouts\/([^/]+)$/.exec(path);
  if (one && method === 'GET') return void ok(res, 200, payouts.get(merchant, mode, decodeURIComponent(one[1])), 'Bank payout retrieved'), true;
  if (one && method === 'PATCH') {
    const updated = payouts.update(merchant, mode, decodeURIComponent(one[1]), ctx.parse(PayoutFields, await readJson(req)));
    return void ok(res, 200, updated, 'Bank payout updated'), true;
  }
  throw new HttpError(404, `No endpoint ${method} ${path}`);
}
