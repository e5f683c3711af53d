// Loading the checkout builds no schema: every page view loads checkout.js and most never open
// it. Each schema is made on its first use, once, and then behaves as zod's own.
import { afterEach, describe, expect, it, vi } from 'vitest';

afterEach(() => {
  vi.doUnmock('zod/mini');
  vi.resetModules();
});

describe('schemas made on first use', () => {
  it('are not built as the modules load, and are built once when the options are first checked', async () => {
    vi.resetModules();
    const made = { object: 0, custom: 0 };
    vi.doMock('zod/mini', async (original) => {
      const z = await original<typeof import('zod/mini')>();
      return {
        ...z,
        object: (...args: Parameters<typeof z.object>) => (made.object++, z.object(...args)),
        custom: (...args: Parameters<typeof z.custom>) => (made.custom++, z.custom(...args)),
      };
    });
    const { parseOptions } = await import('./options/parse.ts');
    await import('../contract/schemas.ts');
    await import('./api/client.ts');
    await import('./checkout/machine.ts');
    expect(made).toEqual({ object: 0, custom: 0 });

    const good = { key: 'pk_test_harbour0demo0key', amount: 5, currency: 'USD', apiBase: 'http://127.0.0.1:1' };
    expect(parseOptions(good).ok).toBe(true);
    const once = { ...made };
    expect(once.object).toBe(1);
    expect(once.custom).toBeGreaterThan(5);
    expect(parseOptions({ ...good, amount: -1 })).toMatchObject({ ok: false, error: { fields: [{ field: 'amount' }] } });
    expect(made).toEqual(once); // built once, not per call
  });

  it('answer like the schema itself: parse, checks, and use inside other schemas', async () => {
    const { later } = await import('../contract/fields.ts');
    const z = await import('zod/mini');
    const inner = later(() => z.custom<string>((v) => typeof v === 'string', { error: 'text' }));
    const outer = later(() => z.object({ name: inner, note: z.optional(inner) }));
    expect(outer.safeParse({ name: 'Ada' }).success).toBe(true);
    expect(outer.safeParse({ name: 5 }).error?.issues[0]).toMatchObject({ path: ['name'], message: 'text' });
    expect('safeParse' in outer).toBe(true);
    expect(inner.check(z.refine((v) => v.length > 2, 'long')).safeParse('ab').success).toBe(false);
  });
});
