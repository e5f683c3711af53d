// Rates from the operator's file (RATES_FILE), checked once at start, every wrong field named:
// {
//   "maxAgeSeconds": 900, "refreshSeconds": 60, "maxDeviationPercent": 1,
//   "providers": [
//     { "url": "https://open.er-api.com/v6/latest/USD", "fiat": { "EUR": "rates.EUR", "NGN": "rates.NGN" } },
//     { "url": "https://api.coingecko.com/api/v3/simple/price?ids=tether&vs_currencies=usd", "coins": { "USDT": "tether.usd" } },
//     { "fixed": { "fiat": { "AED": "3.6725" } } }
//   ]
// }
// Without the file, the built-in fixed table (domain/defaults.ts), marked fixed in every quote.
import { readFileSync } from 'node:fs';
import * as z from 'zod/mini';
import { COINS, CURRENCIES, type CoinSymbol, type Currency } from '../../contract/fields.ts';
import { fieldErrors } from '../../contract/field-errors.ts';
import { FIAT_PER_USD } from '../domain/defaults.ts';
import type { RateProvider } from '../domain/rates.ts';
import { fixedTable, httpJsonProvider } from './providers.ts';

/** The file's providers and policy; what it leaves out takes the defaults of server/service/settings.ts. */
export interface RatesConfig {
  providers: RateProvider[];
  maxAgeMs?: number;
  refreshMs?: number;
  maxDeviationBps?: number;
}

/** The built-in table: explicit, and marked fixed in every quote (no currency moves with it). */
export const builtInRates = (): RateProvider[] => [fixedTable({ fiat: FIAT_PER_USD }, 'built-in fixed table')];

const path = z.custom<string>((v) => typeof v === 'string' && /^[^.\s]+(\.[^.\s]+)*$/.test(v) && v.length <= 200, {
  error: 'a dotted path into the answer, such as "rates.EUR"',
});
const decimal = z.custom<string>((v) => typeof v === 'string' && /^\d{1,12}(\.\d{1,8})?$/.test(v) && Number(v) > 0, {
  error: 'a positive decimal as text, such as "0.92"',
});
const partialFiat = <T extends z.ZodMiniType>(value: T) => z.partialRecord(z.enum(CURRENCIES.filter((c) => c !== 'USD') as [string, ...string[]]), value);
const partialCoins = <T extends z.ZodMiniType>(value: T) => z.partialRecord(z.enum(COINS as unknown as [string, ...string[]]), value);

const Provider = z.union([
  z.object({
    url: z.custom<string>((v) => typeof v === 'string' && /^https?:\/\/\S+$/.test(v), { error: 'an http(s) URL' }),
    fiat: z.optional(partialFiat(path)),
    coins: z.optional(partialCoins(path)),
    invertFiat: z.optional(z.boolean()),
    headers: z.optional(z.record(z.string(), z.string())),
  }),
  z.object({ fixed: z.object({ fiat: z.optional(partialFiat(decimal)), coins: z.optional(partialCoins(decimal)) }) }),
]);

const RatesFile = z.object({
  maxAgeSeconds: z.optional(
    z.custom<number>((v) => Number.isInteger(v) && (v as number) >= 10 && (v as number) <= 604_800, { error: 'whole seconds from 10 to 604800' }),
  ),
  refreshSeconds: z.optional(
    z.custom<number>((v) => Number.isInteger(v) && (v as number) >= 5 && (v as number) <= 86_400, { error: 'whole seconds from 5 to 86400' }),
  ),
  maxDeviationPercent: z.optional(
    z.custom<number>((v) => typeof v === 'number' && v > 0 && v <= 50 && /^\d+(\.\d{1,2})?$/.test(String(v)), {
      error: 'a percentage above 0 and at most 50, to 2 decimals',
    }),
  ),
  providers: z.array(Provider).check(z.minLength(1, 'at least one provider')),
});

/** RATES_FILE's providers and policy, or an error naming each wrong field. */
export function ratesFromJson(json: unknown, where = 'RATES_FILE'): RatesConfig {
  const parsed = RatesFile.safeParse(json, { reportInput: true });
  if (!parsed.success)
    throw new Error(
      `${where}: ` +
        fieldErrors(parsed.error)
          .map((e) => `${e.field}: ${e.message}`)
          .join('; '),
    );
  const file = parsed.data;
  const providers = file.providers.map((p, i): RateProvider => {
    if ('fixed' in p)
      return fixedTable(
        p.fixed as { fiat?: Partial<Record<Currency, string>>; coins?: Partial<Record<CoinSymbol, string>> },
        `fixed table (${where} providers.${i})`,
      );
    if (!p.fiat && !p.coins) throw new Error(`${where}: providers.${i}: expected "fiat" or "coins" (where each rate is in the answer)`);
    return httpJsonProvider(
      p.url,
      { fiat: p.fiat as Partial<Record<Currency, string>>, coins: p.coins as Partial<Record<CoinSymbol, string>>, invertFiat: p.invertFiat },
      p.headers,
    );
  });
  return {
    providers,
    maxAgeMs: file.maxAgeSeconds === undefined ? undefined : file.maxAgeSeconds * 1000,
    refreshMs: file.refreshSeconds === undefined ? undefined : file.refreshSeconds * 1000,
    maxDeviationBps: file.maxDeviationPercent === undefined ? undefined : Math.round(file.maxDeviationPercent * 100),
  };
}

export function ratesFromFile(file: string): RatesConfig {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`RATES_FILE: cannot read ${file} as JSON (${(error as Error).message})`);
  }
  return ratesFromJson(json, 'RATES_FILE');
}
