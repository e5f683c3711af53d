// Field rules shared by the merchant options (camelCase) and the API bodies (snake_case),
// so a value the widget accepts is a value the API accepts.
//
// Only zod/mini's cheapest schema kinds are used (object, string, number, boolean, enum,
// optional, nullable, array, custom, each with refine checks): every other kind pulls its
// own core class into the browser bundle, about 4 KB gzipped for the lot.
import * as z from 'zod/mini';
import { decimalText, fractionDigits, toUnits } from './money.ts';

export const COINS = ['BUSD', 'DAI', 'USDT', 'USDC'] as const;
export const CURRENCIES = ['USD', 'GBP', 'EUR', 'AED', 'NGN'] as const;
export type CoinSymbol = (typeof COINS)[number];
export type Currency = (typeof CURRENCIES)[number];

/** Every supported fiat currency has two minor digits. */
export const FIAT_DECIMALS = 2;
/** Largest amount, in major units: keeps every derived crypto amount exact as a JSON number. */
export const MAX_AMOUNT = 100_000_000;
export const METADATA_MAX_BYTES = 4096;
export const REFERENCE_PATTERN = /^[A-Za-z0-9._:-]{1,64}$/;
const EMAIL_PATTERN = /^[^\s@"<>()[\]\\,;:]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*\.[A-Za-z]{2,}$/;
const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)$/;

export const coin = z.enum(COINS, { error: `one of ${COINS.join(', ')}` });
export const currency = z.enum(CURRENCIES, { error: `one of ${CURRENCIES.join(', ')}` });

const units = (v: string | number) => toUnits(v, FIAT_DECIMALS) ?? 0n;
export const amount = z
  .custom<string | number>((v) => typeof v === 'string' || typeof v === 'number', {
    error: 'a number or a numeric string',
  })
  .check(
    // abort: only the first broken rule is reported, the one to fix first.
    z.refine((v) => decimalText(v) !== undefined, { error: 'a plain decimal number such as 25 or "25.50"', abort: true }),
    z.refine((v) => fractionDigits(decimalText(v)!) <= FIAT_DECIMALS, { error: `at most ${FIAT_DECIMALS} decimal places`, abort: true }),
    z.refine((v) => units(v) > 0n, { error: 'an amount greater than 0', abort: true }),
    z.refine((v) => units(v) <= BigInt(MAX_AMOUNT) * 100n, `an amount of at most ${MAX_AMOUNT}`),
  );

export const reference = z.custom<string | number>(
  (v) =>
    typeof v === 'string' ? REFERENCE_PATTERN.test(v) : typeof v === 'number' && Number.isSafeInteger(v) && v >= 0,
  { error: '1 to 64 letters, digits or . _ : - (or a whole number)' },
);

export const email = z
  .string({ error: 'an e-mail address such as ada@example.com' })
  .check(z.refine((s) => s.length <= 254 && EMAIL_PATTERN.test(s), 'an e-mail address such as ada@example.com'));

export const personName = z
  .string({ error: 'a name of 1 to 100 characters' })
  .check(z.refine((s) => s.trim().length > 0 && s.length <= 100, 'a name of 1 to 100 characters'));

export const int = z.number().check(z.refine(Number.isSafeInteger, 'a whole number'));

export const timestamp = z.string().check(z.refine((s) => ISO_TIME.test(s) && !Number.isNaN(Date.parse(s)), 'an ISO 8601 time'));

export const httpUrl = z.string({ error: 'an http(s) URL such as https://api.example.com' }).check(
  z.refine((s) => {
    try {
      return /^https?:$/.test(new URL(s).protocol);
    } catch {
      return false;
    }
  }, 'an http(s) URL such as https://api.example.com'),
);

/**
 * Plain JSON all the way down: no functions, undefined, NaN, class instances or cycles.
 * Visits at most `budget` values, so a hostile graph of shared references stays cheap.
 */
function isJson(root: unknown): boolean {
  let budget = 10_000;
  const ancestors = new Set<object>();
  const visit = (value: unknown): boolean => {
    if (--budget < 0) return false;
    if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
    if (typeof value === 'number') return Number.isFinite(value);
    if (typeof value !== 'object' || ancestors.has(value)) return false;
    const proto = Object.getPrototypeOf(value);
    if (!Array.isArray(value) && proto !== Object.prototype && proto !== null) return false;
    ancestors.add(value);
    const ok = Object.values(value).every(visit);
    ancestors.delete(value);
    return ok;
  };
  return visit(root);
}

/** A JSON object from the object itself or its text; undefined when it is anything else. */
export function jsonObject(value: unknown): Record<string, unknown> | undefined {
  let parsed = value;
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value);
    } catch {
      return undefined;
    }
  }
  return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) && isJson(parsed)
    ? (parsed as Record<string, unknown>)
    : undefined;
}

const jsonBytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(jsonObject(value))).length;

/** A JSON object or its text; callers normalise it with jsonObject() after parsing. */
export const metadata = z
  .custom<Record<string, unknown> | string>((v) => jsonObject(v) !== undefined, {
    error: 'a JSON object (or its JSON text)',
  })
  .check(z.refine((v) => jsonBytes(v) <= METADATA_MAX_BYTES, `JSON of at most ${METADATA_MAX_BYTES} bytes`));

export const plainObject = z.custom<Record<string, unknown>>(
  (v) => v !== null && typeof v === 'object' && !Array.isArray(v),
  { error: 'an object' },
);
