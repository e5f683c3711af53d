// @vitest-environment happy-dom
// Thousands of generated wrong option objects: never an uncaught exception, always an
// error naming a wrong field, never a request, never a modal.
import fc from 'fast-check';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { ServiceCheckout } from '../index.ts';

const MUTATED_RUNS = 3000;
const RANDOM_RUNS = 1000;

const valid = {
  key: 'pk_test_harbour0demo0key',
  amount: '24.50',
  currency: 'USD',
  name: 'Ada Lovelace',
  email: 'ada@example.com',
  reference: 'order-1',
  acceptPartialPayment: false,
  metadata: { cart: [1, 2] },
  apiBase: 'http://127.0.0.1:4010',
};

const notA = (type: string) => fc.anything().filter((v) => typeof v !== type && v !== undefined);
const wrongString = (ok: (s: string) => boolean) =>
  fc.oneof(
    fc.string().filter((s) => !ok(s)),
    notA('string'),
  );

/** For each option, values that must be refused. */
const wrong: Record<string, fc.Arbitrary<unknown>> = {
  key: wrongString((s) => /^pk_(test|live)_[A-Za-z0-9]{8,128}$/.test(s)),
  amount: fc.oneof(
    fc
      .double()
      .filter(
        (n) => !(n > 0 && n <= 1e8 && Number.isInteger(Math.round(n * 100)) && Math.abs(n * 100 - Math.round(n * 100)) < 1e-9 && !String(n).includes('e')),
      ),
    fc.string().filter((s) => !/^\s*\d{1,18}(\.\d{1,2})?\s*$/.test(s) || Number(s) <= 0 || Number(s) > 1e8),
    fc.constantFrom(null, true, [], {}, 0, -1, '0', '1.001', '1e3', NaN),
  ),
  currency: fc.oneof(
    fc.string().filter((s) => !['USD', 'GBP', 'EUR', 'AED', 'NGN'].includes(s)),
    notA('string'),
  ),
  email: fc.oneof(
    fc.string().filter((s) => s !== '' && !s.includes('@')),
    fc.constantFrom('a@', '@b.co', 'a b@c.io', 'a@b', 'a@b.c'),
    notA('string').filter((v) => v !== null),
  ),
  name: fc.oneof(
    fc.constantFrom(' ', '\t', 'x'.repeat(101)),
    notA('string').filter((v) => v !== null),
  ),
  reference: fc.oneof(
    fc.string().filter((s) => !/^[A-Za-z0-9._:-]{1,64}$/.test(s)),
    fc.double().filter((n) => !(Number.isSafeInteger(n) && n >= 0)),
    fc.constantFrom(null, true, [], {}),
  ),
  acceptPartialPayment: notA('boolean'),
  metadata: fc.oneof(
    fc.array(fc.anything()),
    fc.constantFrom('{oops', '[]', '42', 'null', () => 1, NaN, 7, { big: 'x'.repeat(5000) }, { f: () => 1 }),
  ),
  onSuccess: notA('function'),
  onClose: notA('function'),
  apiBase: wrongString((s) => {
    try {
      return /^https?:$/.test(new URL(s).protocol);
    } catch {
      return false;
    }
  }),
};

let fetchSpy: ReturnType<typeof vi.spyOn>;
beforeEach(() => {
  fetchSpy = vi.spyOn(globalThis, 'fetch');
  vi.spyOn(console, 'error').mockImplementation(() => {});
  vi.spyOn(console, 'warn').mockImplementation(() => {});
});
afterEach(() => vi.restoreAllMocks());

function refused(input: unknown, withOnError: boolean): { code: string; message: string; fields: string[] } {
  const onError = vi.fn();
  // (A flag, not options !== input: NaN is not itself, as a random seed once showed.)
  const attached = withOnError && !!input && typeof input === 'object';
  const options = attached ? { ...(input as object), onError } : input;
  let thrown: unknown;
  try {
    ServiceCheckout(options as never);
  } catch (error) {
    thrown = error;
  }
  expect(fetchSpy).not.toHaveBeenCalled();
  expect(document.querySelector('[data-service-checkout]')).toBeNull();
  if (attached) {
    expect(thrown).toBeUndefined();
    expect(onError).toHaveBeenCalledTimes(1);
    const error = onError.mock.calls[0][0];
    return { code: error.code, message: error.message, fields: error.fields.map((f: { field: string }) => f.field) };
  }
  expect(thrown).toBeInstanceOf(TypeError);
  return { code: 'thrown', message: (thrown as Error).message, fields: [] };
}

it(`refuses ${MUTATED_RUNS} options with one to three fields broken, naming one of them`, () => {
  const names = Object.keys(wrong);
  const broken = fc
    .uniqueArray(fc.constantFrom(...names), { minLength: 1, maxLength: 3 })
    .chain((fields) => fc.tuple(fc.constant(fields), fc.tuple(...fields.map((f) => wrong[f]))));
  fc.assert(
    fc.property(broken, fc.boolean(), ([fields, values], withOnError) => {
      const input: Record<string, unknown> = { ...valid };
      fields.forEach((field, i) => (input[field] = values[i]));
      const { message, fields: named } = refused(input, withOnError);
      const mentioned = fields.filter((f) => message.includes(`${f}: `) || named.includes(f));
      expect(mentioned.length, `one of ${fields.join(', ')} named in: ${message}`).toBeGreaterThan(0);
    }),
    { numRuns: MUTATED_RUNS },
  );
});

it(`refuses ${RANDOM_RUNS} random values and objects without crashing`, () => {
  fc.assert(
    fc.property(fc.oneof(fc.anything(), fc.object()), fc.boolean(), (input, withOnError) => {
      const { message } = refused(input, withOnError);
      expect(message).toMatch(/^ServiceCheckout: /);
    }),
    { numRuns: RANDOM_RUNS },
  );
});

it('refuses an options object whose properties cannot be read, with a TypeError', () => {
  const hostile = [
    new Proxy(
      {},
      {
        get: () => {
          throw new Error('boom');
        },
      },
    ),
    Object.defineProperty({ ...valid }, 'amount', {
      get: () => {
        throw new Error('boom');
      },
      enumerable: true,
    }),
  ];
  for (const input of hostile) {
    const { message } = refused(input, false);
    expect(message).toMatch(/^ServiceCheckout: invalid options: could not be read \(Error: boom\)/);
  }
});
