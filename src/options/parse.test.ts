// @vitest-environment happy-dom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ServiceCheckout } from '../index.ts';
import { newReference, parseOptions, warmUpPieces } from './parse.ts';

const valid: Record<string, unknown> & { key: string; amount: string; currency: 'USD'; apiBase: string } = {
  key: 'pk_test_harbour0demo0key',
  amount: '24.50',
  currency: 'USD' as const,
  apiBase: 'http://127.0.0.1:4010',
};

const circular: Record<string, unknown> = {};
circular.self = circular;

describe('options that are wrong are named, with what was expected and what came', () => {
  it.each([
    ['key missing', { key: undefined }, 'key', /public key starting with pk_test_ or pk_live_.*received nothing/],
    ['key malformed', { key: 'pk_prod_123456789' }, 'key', /pk_test_ or pk_live_.*received "pk_prod_123456789"/],
    ['key not a string', { key: 42 }, 'key', /received 42/],
    ['amount missing', { amount: undefined }, 'amount', /received nothing/],
    ['amount zero', { amount: 0 }, 'amount', /greater than 0, received 0/],
    ['amount negative', { amount: -5 }, 'amount', /plain decimal number.*received -5/],
    ['amount not numeric', { amount: 'ten' }, 'amount', /plain decimal number.*received "ten"/],
    ['amount with too many decimals', { amount: '10.005' }, 'amount', /at most 2 decimal places, received "10.005"/],
    ['amount in exponent form', { amount: 1e-7 }, 'amount', /at most 2 decimal places/],
    ['amount not finite', { amount: Infinity }, 'amount', /plain decimal number/],
    ['amount too large', { amount: '100000000.01' }, 'amount', /at most 100000000/],
    ['currency outside the list', { currency: 'JPY' }, 'currency', /one of USD, GBP, EUR, AED, NGN, received "JPY"/],
    ['currency in lower case', { currency: 'usd' }, 'currency', /received "usd"/],
    ['email invalid', { email: 'ada@' }, 'email', /e-mail address.*received "ada@"/],
    ['email with spaces', { email: 'ada lovelace@example.com' }, 'email', /e-mail address/],
    ['name not a string', { name: 7 }, 'name', /name of 1 to 100 characters, received 7/],
    ['name blank', { name: '   ' }, 'name', /name of 1 to 100/],
    ['reference with spaces', { reference: 'order 1' }, 'reference', /letters, digits/],
    ['reference negative', { reference: -3 }, 'reference', /whole number/],
    ['metadata not JSON text', { metadata: '{oops' }, 'metadata', /JSON object/],
    ['metadata an array', { metadata: [1, 2] }, 'metadata', /JSON object.*received an array/],
    ['metadata circular', { metadata: circular }, 'metadata', /JSON object/],
    ['metadata with a function', { metadata: { f: () => 1 } }, 'metadata', /JSON object/],
    ['metadata too large', { metadata: { note: 'x'.repeat(5000) } }, 'metadata', /at most 4096 bytes/],
    ['acceptPartialPayment not boolean', { acceptPartialPayment: 'yes' }, 'acceptPartialPayment', /true or false/],
    ['onSuccess not a function', { onSuccess: 'done()' }, 'onSuccess', /a function, received "done\(\)"/],
    ['onClose not a function', { onClose: {} }, 'onClose', /a function, received an object/],
    ['apiBase not http', { apiBase: 'ftp://example.com' }, 'apiBase', /http\(s\) URL/],
    ['locale not a language tag', { locale: 'french!' }, 'locale', /language tag such as en, fr or ar-AE, received "french!"/],
    ['locale not a string', { locale: ['fr'] }, 'locale', /language tag.*received an array/],
    ['theme outside the list', { theme: 'sepia' }, 'theme', /one of light, dark, auto, received "sepia"/],
    ['accent not a hex colour', { accent: 'blue' }, 'accent', /colour such as #2547d0, received "blue"/],
    ['accent short form', { accent: '#fff' }, 'accent', /colour such as #2547d0/],
  ])('%s', (_title, change, field, message) => {
    const result = parseOptions({ ...valid, ...change });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe('invalid_options');
    const named = result.error.fields!.find((f) => f.field === field);
    expect(named, `an error naming ${field}`).toBeDefined();
    expect(named!.message).toMatch(message);
    expect(result.error.message).toContain(`${field}: `);
  });

  it('refuses options that are not an object at all', () => {
    for (const input of [undefined, null, 'pk_test_x', 42]) {
      const result = parseOptions(input);
      expect(result.ok).toBe(false);
    }
  });

  it('reports every wrong field at once, not only the first', () => {
    const result = parseOptions({ key: 'nope', amount: 0, currency: 'XXX', apiBase: valid.apiBase });
    expect(result.ok ? [] : result.error.fields!.map((f) => f.field)).toEqual(['key', 'amount', 'currency']);
  });

  it('refuses a secret key with its own code, without echoing the key', () => {
    const result = parseOptions({ ...valid, key: 'sk_live_abcdefghijklmnop' });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe('secret_key');
    expect(result.error.message).toMatch(/secret key must never be put in a web page/);
    expect(result.error.message).not.toContain('abcdefghijklmnop');
  });
});

describe('options that are right', () => {
  it('keeps the reference as given, case and all, and turns a number into its text', () => {
    expect(parseOptions({ ...valid, reference: 'Order-ABC' })).toMatchObject({ ok: true, options: { reference: 'Order-ABC' } });
    expect(parseOptions({ ...valid, reference: 123 })).toMatchObject({ ok: true, options: { reference: '123' } });
  });

  it('generates an unguessable, unique reference when none is given', () => {
    const references = new Set(Array.from({ length: 1000 }, newReference));
    expect(references.size).toBe(1000);
    for (const reference of references) expect(reference).toMatch(/^sc_[0-9a-f]{24}$/);
  });

  it('treats an empty name or e-mail as not given, so the modal asks for it', () => {
    const result = parseOptions({ ...valid, name: '', email: '' });
    expect(result).toMatchObject({ ok: true, options: { name: undefined, email: undefined } });
  });

  it('takes metadata as an object or as its JSON text', () => {
    expect(parseOptions({ ...valid, metadata: '{"cart":[1]}' })).toMatchObject({ ok: true, options: { metadata: { cart: [1] } } });
    expect(parseOptions({ ...valid, metadata: { cart: [1] } })).toMatchObject({ ok: true, options: { metadata: { cart: [1] } } });
  });

  it('knows test from live by the prefix alone', () => {
    expect(parseOptions(valid)).toMatchObject({ ok: true, options: { mode: 'test' } });
    expect(parseOptions({ ...valid, key: 'pk_live_contains0test0' })).toMatchObject({ ok: true, options: { mode: 'live' } });
  });

  it('takes a locale, a theme and an accent as given', () => {
    expect(parseOptions({ ...valid, locale: 'ar-AE', theme: 'dark', accent: '#FFAA00' })).toMatchObject({
      ok: true,
      options: { locale: 'ar-AE', theme: 'dark', accent: '#FFAA00' },
    });
    // A well-formed language the checkout does not speak is no error: it falls back.
    expect(parseOptions({ ...valid, locale: 'de-CH' })).toMatchObject({ ok: true, options: { locale: 'de-CH' } });
  });

  it('ignores option names it does not know (the published types catch typos)', () => {
    expect(parseOptions({ ...valid, channels: ['card'] })).toMatchObject({ ok: true });
  });
});

describe('ServiceCheckout with bad options', () => {
  afterEach(() => vi.restoreAllMocks());

  it('throws a TypeError naming the field when there is no onError, and sends nothing', () => {
    const fetch = vi.spyOn(globalThis, 'fetch');
    vi.spyOn(console, 'error').mockImplementation(() => {});
    expect(() => ServiceCheckout({ ...valid, amount: -1 } as never)).toThrow(TypeError);
    expect(() => ServiceCheckout({ ...valid, amount: -1 } as never)).toThrow(/amount: expected/);
    expect(fetch).not.toHaveBeenCalled();
    expect(document.querySelector('[data-service-checkout]')).toBeNull();
  });

  it('tells onError and the console instead of throwing when onError is given', () => {
    const fetch = vi.spyOn(globalThis, 'fetch');
    const consoleError = vi.spyOn(console, 'error').mockImplementation(() => {});
    const onError = vi.fn();
    const handle = ServiceCheckout({ ...valid, currency: 'JPY', onError } as never);
    expect(onError).toHaveBeenCalledTimes(1);
    expect(onError.mock.calls[0][0]).toMatchObject({ code: 'invalid_options', fields: [{ field: 'currency' }] });
    expect(consoleError).toHaveBeenCalledWith(expect.stringContaining('currency: expected one of'));
    expect(fetch).not.toHaveBeenCalled();
    expect(() => handle.close()).not.toThrow();
  });

  it('refuses a secret key: onError secret_key, nothing mounted, nothing sent', () => {
    const fetch = vi.spyOn(globalThis, 'fetch');
    vi.spyOn(console, 'error').mockImplementation(() => {});
    const onError = vi.fn();
    ServiceCheckout({ ...valid, key: 'sk_test_abcdefgh12345678', onError });
    expect(onError.mock.calls[0][0].code).toBe('secret_key');
    expect(fetch).not.toHaveBeenCalled();
    expect(document.querySelector('[data-service-checkout]')).toBeNull();
  });
});

describe('the warm-up parse that checkout.js runs in idle time (issue 26)', () => {
  it('takes the path a real open takes: every field passes its own check, then the whole options do', () => {
    const results = warmUpPieces().map((piece) => piece());
    const fields = results.slice(0, -1) as Array<{ success: boolean }>;
    expect(fields.length).toBeGreaterThanOrEqual(10);
    expect(fields.filter((field) => !field.success)).toEqual([]);
    expect(results.at(-1)).toMatchObject({ ok: true, options: { mode: 'test', currency: 'USD', email: 'ada@example.com' } });
  });
});
