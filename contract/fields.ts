// Field rules shared by the merchant options (camelCase) and the API bodies (snake_case),
// so a value the widget accepts is a value the API accepts.
//
// Every leaf is one `is(test, expected)` check: zod/mini's object, array and optional do
// the structure. Each other zod schema kind would add its own class to the browser bundle
// (string, number, enum, nullable… ~2.5 KB gzipped together), and `expected` gives every
// field the same kind of message: "expected <this>, received <that>".
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
export const EMAIL_PATTERN = /^[^\s@"<>()[\]\\,;:]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}$/;

/**
 * A schema made the first time it is used rather than as the script loads: every page view
 * loads checkout.js and most never open it, so nothing is built for them.
 * Marked free of side effects (as are is, oneOf and nullable) so the bundler drops schemas
 * that only the service reads: 135 bytes of the gzipped bundle.
 */
/*@__NO_SIDE_EFFECTS__*/
export function later<T extends object>(make: () => T): T {
  let made: T | undefined;
  const it = () => (made ??= make());
  return new Proxy({} as T, { get: (_, key) => Reflect.get(it(), key), has: (_, key) => key in it(), getPrototypeOf: () => Reflect.getPrototypeOf(it()) });
}

/** A value that passes `test`; otherwise "expected <expected>". */
/*@__NO_SIDE_EFFECTS__*/
export const is = <T>(test: (value: unknown) => boolean, expected: string) => later(() => z.custom<T>(test, { error: expected }));

const isText = (v: unknown): v is string => typeof v === 'string';
const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

export const text = is<string>(isText, 'text');
export const bool = is<boolean>((v) => typeof v === 'boolean', 'true or false');
export const int = is<number>(Number.isSafeInteger, 'a whole number');
/** An EVM chain id (EIP-155), as a coin list entry's chainId gives it. */
export const chainId = is<number>((v) => Number.isSafeInteger(v) && (v as number) > 0, 'a chain id such as 56');
export const amountNumber = is<number>((v) => isNumber(v) && v >= 0, 'a number of at least 0');
export const timestamp = is<string>(
  (v) => isText(v) && /^\d{4}-\d\d-\d\dT[\d:.]+(Z|[+-]\d\d:\d\d)$/.test(v) && !Number.isNaN(Date.parse(v)),
  'an ISO 8601 time',
);
/*@__NO_SIDE_EFFECTS__*/
export const oneOf = <const T extends readonly string[]>(values: T) => is<T[number]>((v) => values.includes(v as string), `one of ${values.join(', ')}`);
/*@__NO_SIDE_EFFECTS__*/
export const nullable = <T>(test: (value: unknown) => boolean, expected: string) => is<T | null>((v) => v === null || test(v), `${expected} or null`);

/**
 * A list whose every item passes `item`, each kept as the item's parsed output, and a bad item
 * reported at its index (data.2.symbol). For the shapes the browser reads, instead of
 * z.array: zod 4.6's array class brings a length-check fast path with it, 538 bytes of the
 * gzipped bundle, where this is one check on zod's own check API.
 */
/*@__NO_SIDE_EFFECTS__*/
export const listOf = <T extends z.ZodMiniType>(item: T) =>
  later(() =>
    is<z.output<T>[]>(Array.isArray, 'a list').check((ctx) => {
      ctx.value = ctx.value.map((value, index) => {
        // What was received is kept with each issue; the outer parse's reportInput decides if it shows.
        const parsed = item.safeParse(value, { reportInput: true });
        if (parsed.success) return parsed.data;
        for (const issue of parsed.error.issues) ctx.issues.push({ ...issue, path: [index, ...issue.path] } as z.core.$ZodRawIssue);
        return value;
      });
    }),
  );

export const coin = oneOf(COINS);
export const currency = oneOf(CURRENCIES);

const units = (v: string | number) => toUnits(v, FIAT_DECIMALS) ?? 0n;
export const amount = later(() =>
  is<string | number>((v) => isText(v) || typeof v === 'number', 'a number or a numeric string').check(
    // abort: only the first broken rule is reported, the one to fix first.
    z.refine((v) => decimalText(v) !== undefined, { error: 'a plain decimal number such as 25 or "25.50"', abort: true }),
    z.refine((v) => fractionDigits(decimalText(v)!) <= FIAT_DECIMALS, { error: `at most ${FIAT_DECIMALS} decimal places`, abort: true }),
    z.refine((v) => units(v) > 0n, { error: 'an amount greater than 0', abort: true }),
    z.refine((v) => units(v) <= BigInt(MAX_AMOUNT) * 100n, `an amount of at most ${MAX_AMOUNT}`),
  ),
);

export const reference = is<string | number>(
  (v) => (isText(v) ? REFERENCE_PATTERN.test(v) : Number.isSafeInteger(v) && (v as number) >= 0),
  '1 to 64 letters, digits or . _ : - (or a whole number)',
);

export const email = is<string>((v) => isText(v) && v.length <= 254 && EMAIL_PATTERN.test(v), 'an e-mail address such as ada@example.com');

/**
 * A business's name: what every e-mail and checkout shows as the sender, so no control
 * or invisible format character (no new line in a subject, no direction or zero-width mark; a
 * joiner only inside a word, as Persian writes) and no link (a name such as "your account is
 * locked, sign in at acme-billing.com" would carry one in the service's own invitations): no
 * scheme, host name (label, dot, letters) or IPv4 address, read after NFKC and with the
 * ideographic full stop as a dot, so full-width ｗｗｗ．evil．com and evil。com count.
 */
export const businessName = is<string>(
  (v) => isText(v) && v.trim().length > 0 && v.length <= 100 && linkFree(v),
  'a name of 1 to 100 characters, without control characters or links',
);

function linkFree(v: string): boolean {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this refuses
  if (/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(v) || /\p{Cf}/u.test(v.replace(/(?<=\p{L})[\u200c\u200d](?=\p{L})/gu, ''))) return false;
  const plain = v
    .normalize('NFKC')
    .replace(/[\u200c\u200d]/g, '')
    .replace(/[\u3002\uff61]/g, '.');
  return !/[a-z][a-z0-9+.-]*:\/\/|\b(?:mailto|javascript|data):|[\p{L}\p{N}]\.\p{L}{2,}(?![\p{L}\p{N}])|(?<![\d.])\d{1,3}(?:\.\d{1,3}){3}(?!\d)/iu.test(plain);
}

export const personName = is<string>((v) => isText(v) && v.trim().length > 0 && v.length <= 100, 'a name of 1 to 100 characters');

export const httpUrl = is<string>((v) => {
  if (!isText(v)) return false;
  try {
    return /^https?:$/.test(new URL(v).protocol);
  } catch {
    return false;
  }
}, 'an http(s) URL such as https://api.example.com');

/**
 * Plain JSON all the way down: no functions, undefined, NaN, class instances or cycles.
 * Visits at most `budget` values, at most 64 deep, so a hostile graph of shared references
 * stays cheap and a deep one cannot exhaust the stack.
 */
function isJson(root: unknown): boolean {
  let budget = 10_000;
  const ancestors = new Set<object>();
  const visit = (value: unknown): boolean => {
    if (--budget < 0 || ancestors.size > 64) return false;
    if (value === null || isText(value) || typeof value === 'boolean') return true;
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
  if (isText(value)) {
    try {
      parsed = JSON.parse(value);
    } catch {
      return undefined;
    }
  }
  return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) && isJson(parsed) ? (parsed as Record<string, unknown>) : undefined;
}

const jsonBytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(jsonObject(value))).length;

/** A JSON object or its text; callers normalise it with jsonObject() after parsing. */
export const metadata = later(() =>
  is<Record<string, unknown> | string>((v) => jsonObject(v) !== undefined, 'a JSON object (or its JSON text)').check(
    z.refine((v) => jsonBytes(v) <= METADATA_MAX_BYTES, `JSON of at most ${METADATA_MAX_BYTES} bytes`),
  ),
);

export const isPlainObject = (v: unknown): boolean => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * A field's schema with words for the API's document (its description): what the field is, in
 * what form; `deprecated` marks a field kept for older clients only.
 */
/*@__NO_SIDE_EFFECTS__*/
export const says = <T extends z.ZodMiniType>(schema: T, words: string, deprecated = false): T =>
  schema.check(z.meta({ description: words, ...(deprecated ? { deprecated } : {}) })) as T;

/**
 * Exactly one of the named fields of an object: the check (its issue names the first field),
 * and the same rule in JSON Schema (`oneOf` each required), which the API's document reads from
 * the check (server/api/api-doc.ts), so the document refuses what the service refuses.
 */
/*@__NO_SIDE_EFFECTS__*/
export function exactlyOne<T extends Record<string, unknown>>(names: readonly string[], expected: string) {
  const check = z.refine<T>((v) => names.filter((name) => v[name] !== undefined).length === 1, { error: expected, path: [names[0]] });
  return Object.assign(check, { jsonSchema: { oneOf: names.map((name) => ({ required: [name] })) } });
}
