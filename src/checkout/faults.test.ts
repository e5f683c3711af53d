// Faults × calls: the real API client and state machine against the stub over HTTP, the
// stub misbehaving on purpose. Each cell asserts what the customer sees and which
// callbacks fired. A passing fault hits one request; a persistent one hits every request.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_MERCHANT } from '../../server/service/seed.ts';
import { CALLS, FAULTS, type Call, type Fault } from '../../server/http/faults.ts';
import { startService, type Service } from '../../server/service/app.ts';
import { createApi } from '../api/client.ts';
import { options, chooseCoin } from '../testing/fake-api.ts';
import { createCheckout, type Checkout } from './machine.ts';

const KEY = DEMO_MERCHANT.keys.test.publicKey;

// Generous: beside the other suites on a loaded 2-core machine, a 429 cell has taken 16 s.
async function waitFor(what: string, ok: () => boolean, ms = 25_000) {
  const until = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const screenOf = (checkout: Checkout) => checkout.view.value.screen;
const hasCoins = (checkout: Checkout) => {
  const view = checkout.view.value;
  return view.screen === 'coins' && !!view.coins;
};
/** What the failing kinds are called once the retries are spent. */
const codeFor = (fault: Fault) => (fault === 'not_json' || fault === 'wrong_shape' ? 'bad_response' : 'network_error');

const cells = CALLS.flatMap((call) =>
  FAULTS.flatMap((fault) => (fault === 'latency' ? ['persistent'] : ['passing', 'persistent']).map((kind) => ({ call, fault, kind }))),
) as Array<{ call: Call; fault: Fault; kind: 'passing' | 'persistent' }>;

// The cells run a few at once (vitest's concurrency, 5), each on a service of its own while it
// runs: a fault is the whole service's. Five services, started before the cells, are lent to
// one cell at a time and given back with their faults cleared: five database openings for the
// 33 cells, not 33.
const POOL = 5;
const started: Service[] = [];
const idle: Service[] = [];
beforeAll(async () => {
  started.push(...(await Promise.all(Array.from({ length: POOL }, () => startService({ demo: true, faults: true })))));
  idle.push(...started);
}, 120_000);
afterAll(async () => {
  await Promise.all(started.map((s) => s.close()));
});
async function lend(): Promise<Service> {
  for (;;) {
    const free = idle.pop();
    if (free) return free;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe.concurrent('API faults × calls', () => {
  it.each(cells)('$call × $fault ($kind)', { timeout: 40_000 }, async ({ call, fault, kind }) => {
    const stub = await lend();
    const events: string[] = [];
    const errors: unknown[] = [];
    const reference = `cell-${call}-${fault}-${kind}`;
    const checkout = createCheckout(
      options({
        apiBase: stub.url,
        reference,
        onSuccess: () => events.push('success'),
        onError: (error: unknown) => {
          events.push('error');
          errors.push(error);
        },
        onClose: () => events.push('close'),
      }),
      createApi(stub.url, KEY),
    );
    const plan = { call, fault, times: kind === 'passing' ? 1 : Infinity, ms: 300 };
    const pay = () => createApi(stub.url, KEY).deposit(reference, 'exact', new AbortController().signal);
    try {
      if (call === 'coins') stub.faults!.inject(plan);
      checkout.start();
      if (call !== 'coins') {
        await waitFor('the coin list', () => hasCoins(checkout));
        stub.faults!.inject(plan);
        chooseCoin(checkout, 'USDT');
      }

      const fails = fault !== 'latency';
      if (fails && kind === 'persistent' && call !== 'verify') {
        // The retries are spent: an error screen that names the problem and offers a retry.
        await waitFor('the error screen', () => screenOf(checkout) === 'error');
        const view = checkout.view.value;
        expect(view).toMatchObject({ screen: 'error', error: { code: codeFor(fault) }, retry: expect.any(Function) });
        expect(events).toEqual(['error']);
      } else if (fails && kind === 'persistent') {
        // A status check that keeps failing: still the address, "reconnecting", no callback.
        await waitFor('reconnecting', () => checkout.reconnecting.value);
        const view = checkout.view.value;
        expect(view.screen).toBe('payment');
        expect(view.screen === 'payment' && view.payment.address).toMatch(/^0x[0-9a-f]{40}$/);
        expect(events).toEqual([]);
      } else if (call === 'coins') {
        await waitFor('the coin list', () => hasCoins(checkout));
        expect(events).toEqual([]);
      } else {
        // Latency, or one failure: the payment goes through, and is told once.
        await waitFor('the payment screen', () => screenOf(checkout) === 'payment');
        await pay();
        await waitFor('success', () => screenOf(checkout) === 'success');
        expect(events).toEqual(['success']);
      }
    } finally {
      checkout.close();
      stub.faults!.clear();
      idle.push(stub);
    }
    expect(events.at(-1)).toBe('close');
    expect(events.filter((e) => e === 'close')).toHaveLength(1);
    expect(errors.length).toBeLessThanOrEqual(1);
  });
});

describe('fault injection is for tests only', () => {
  // Two services started one after the other: 60 s, as a hook that starts one gets.
  it('is off unless asked for, and never touches a live key', { timeout: 60_000 }, async () => {
    const plain = await startService({ demo: true });
    expect(plain.faults).toBeUndefined();
    await plain.close();
    const stub = await startService({ demo: true, faults: true });
    try {
      stub.faults!.inject({ call: 'coins', fault: '5xx', times: Infinity });
      const live = await fetch(stub.url + '/api/v1/coins', { headers: { 'x-api-key': DEMO_MERCHANT.keys.live.publicKey } });
      expect(live.status).toBe(409); // the service's own answer (no live network here), not the injected 503
      const test = await fetch(stub.url + '/api/v1/coins', { headers: { 'x-api-key': KEY } });
      expect(test.status).toBe(503);
    } finally {
      await stub.close();
    }
  });
});
