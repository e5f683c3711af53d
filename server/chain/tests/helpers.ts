// What the chain tests share: calling the service as a merchant's page (public key) or server
// (secret key), and waiting for something the chain makes true.
import { DEMO_MERCHANT } from '../../seed.ts';

/** A caller of the service at `base()`: the demo merchant's public test key unless told another. */
export function caller(base: () => string) {
  return async (method: string, path: string, body?: unknown, key = DEMO_MERCHANT.keys.test.publicKey) => {
    const response = await fetch(base() + path, {
      method,
      headers: key.startsWith('sk_') ? { authorization: `Bearer ${key}`, 'content-type': 'application/json' } : { 'x-api-key': key, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    // Untyped on purpose: each test reads the fields it checks.
    return { status: response.status, body: (await response.json()) as any };
  };
}

/** Polls `probe` until it answers something truthy, and answers that; fails after `ms`. */
export async function until<T>(what: string, probe: () => Promise<T | undefined | false>, ms = 20_000, everyMs = 100): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
