// What the speed-up of initialize and verify must not change: a new reference is
// one INSERT, yet a reference initialized at once on two instances is one payment; the key,
// settlement and payout-address lookups are kept in each process, yet a rolled or revoked key
// is refused by every instance within a second, and the instance that rolled it never serves
// it again.
import { afterEach, describe, expect, it } from 'vitest';
import { startService, type Service, type ServiceOptions } from '../../service/app.ts';
import { DEMO_MERCHANT } from '../../service/seed.ts';
import { AccountCache } from '../account-cache.ts';
import { EventStore } from '../events.ts';
import { JournalStore } from '../../balances/journal-store.ts';
import { transferViews } from '../../chain/transfer-views-store.ts';
import { depositViews } from '../../payments/deposit-views-store.ts';
import { MerchantStore } from '../../merchants/store.ts';
import { memberRole } from '../../team/store.ts';
import { DestinationStore } from '../../merchants/destination-store.ts';
import { Destinations } from '../../merchants/destinations.ts';
import { FeeStore } from '../../merchants/fee-store.ts';
import { databaseOptions, freshPostgres, KINDS } from '../../testing/databases.ts';

const { secretKey } = DEMO_MERCHANT.keys.test;
const merchantId = DEMO_MERCHANT.id;
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const clean of cleanups.splice(0).reverse()) await clean();
});

async function service(options: ServiceOptions): Promise<Service> {
  const api = await startService({ demo: true, ...options });
  cleanups.push(() => api.close());
  return api;
}

async function call(base: string, method: string, path: string, key: string, body?: unknown) {
  const response = await fetch(base + path, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

/** 404 for an unknown reference: the key was taken; 401: it was refused. */
const keyAnswer = async (base: string, key: string) => (await call(base, 'GET', '/api/v1/transaction/verify/no-such-ref', key)).status;

/** Asks until `base` refuses `key`, for at most `ms`; the time it took, or a failure. */
async function refusedWithin(base: string, key: string, ms: number): Promise<number> {
  const started = Date.now();
  while ((await keyAnswer(base, key)) !== 401) {
    if (Date.now() - started > ms) throw new Error(`${base} still took the rolled key after ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return Date.now() - started;
}

describe('two instances on one PostgreSQL', { timeout: 60_000 }, () => {
  it('a reference initialized at once on both is one payment, answered to every request', async () => {
    const databaseUrl = await freshPostgres();
    const [a, b] = [await service({ databaseUrl }), await service({ databaseUrl })];
    const body = (reference: string) => ({ reference, coin: 'USDT', currency: 'NGN', amount: '15000.50' });
    for (let round = 0; round < 10; round++) {
      const reference = `race-${round}`;
      const answers = await Promise.all([a, b, a, b].map((s) => call(s.url, 'POST', '/api/v1/transaction/initialize', secretKey, body(reference))));
      expect(answers.map((r) => r.status).sort()).toEqual([200, 200, 200, 201]);
      expect(new Set(answers.map((r) => r.body.data.address)).size).toBe(1);
      const rows = await a.db.query<{ n: string }>('SELECT count(*) AS n FROM payments WHERE reference = $1', [reference]);
      expect(Number(rows[0].n)).toBe(1);
    }
  });

  it('a key rolled or revoked through one instance is refused by the other within a second, and by the first at once', async () => {
    const databaseUrl = await freshPostgres();
    const [a, b] = [await service({ databaseUrl }), await service({ databaseUrl })];
    // A restricted key, revoked: both had it in their caches.
    const made = await call(a.url, 'POST', '/api/v1/keys/restricted', secretKey, { name: 'reports', permissions: ['payments.read'] });
    expect(made.status).toBe(201);
    const restricted = made.body.data.secretKey as string;
    expect(await keyAnswer(a.url, restricted)).toBe(404);
    expect(await keyAnswer(b.url, restricted)).toBe(404);
    expect((await call(a.url, 'DELETE', `/api/v1/keys/restricted/${made.body.data.id}`, secretKey)).status).toBe(200);
    expect(await keyAnswer(a.url, restricted)).toBe(401);
    await refusedWithin(b.url, restricted, 1000);
    // Both have the key in their caches.
    expect(await keyAnswer(a.url, secretKey)).toBe(404);
    expect(await keyAnswer(b.url, secretKey)).toBe(404);
    const rolled = await call(a.url, 'POST', '/api/v1/keys/roll', secretKey);
    expect(rolled.status).toBe(201);
    expect(await keyAnswer(a.url, secretKey)).toBe(401);
    await refusedWithin(b.url, secretKey, 1000);
    expect(await keyAnswer(a.url, rolled.body.data.secretKey)).toBe(404);
    expect(await keyAnswer(b.url, rolled.body.data.secretKey)).toBe(404);
  });

  it('a key rolled with a delay works on both until the delay runs out, then neither takes it', async () => {
    const databaseUrl = await freshPostgres();
    let clock = Date.now();
    const now = () => clock;
    const [a, b] = [await service({ databaseUrl, now }), await service({ databaseUrl, now })];
    expect(await keyAnswer(b.url, secretKey)).toBe(404);
    const rolled = await call(a.url, 'POST', '/api/v1/keys/roll', secretKey, { revoke_old_after: 60 });
    expect(rolled.status).toBe(201);
    clock += 59_000;
    expect(await keyAnswer(a.url, secretKey)).toBe(404);
    expect(await keyAnswer(b.url, secretKey)).toBe(404);
    clock += 2_000;
    expect(await keyAnswer(a.url, secretKey)).toBe(401);
    expect(await keyAnswer(b.url, secretKey)).toBe(401);
  });
});

describe('the account cache, alone', () => {
  it('asks once for what requests ask at the same moment, and never shares a read begun before a change', async () => {
    let reads = 0;
    const waiting: Array<() => void> = [];
    const finish = () => waiting.splice(0).forEach((resolve) => resolve()); // in the order asked
    const account = { merchant: { id: merchantId }, mode: 'test', via: 'secret' } as never;
    const cache = new AccountCache({
      keyOwner: () => {
        reads++;
        return new Promise((resolve) => waiting.push(() => resolve({ account, revokedAfterMs: null })));
      },
      settlement: async () => 'wallet',
      payoutAddress: async () => ({ address: undefined, untilMs: null }),
      feeTerms: async () => ({ bps: 0, bearer: 'customer' }),
    });
    const asked = Array.from({ length: 16 }, () => cache.authenticate(secretKey, 'secret'));
    finish();
    expect(await Promise.all(asked)).toEqual(Array(16).fill(account));
    expect(reads).toBe(1);
    cache.forget(merchantId);
    const before = cache.authenticate(secretKey, 'secret');
    cache.forget(merchantId); // a change while that read is under way: later requests read again
    const after = cache.authenticate(secretKey, 'secret');
    expect(reads).toBe(3);
    finish();
    await Promise.all([before, after]);
    await cache.authenticate(secretKey, 'secret');
    expect(reads).toBe(3); // the read begun after the change was kept
  });
});

describe.each(KINDS)('the account cache on %s', (kind) => {
  it('never serves what a store changed: a rolled key, a payout address, a settlement, a fee, a business name', { timeout: 30_000 }, async () => {
    const api = await service(await databaseOptions(kind));
    // Stores and a cache of their own, not following the NOTIFY channel: only the stores' own
    // word that they changed something keeps the cache true.
    let cache: AccountCache | undefined;
    const forget = (id: string) => cache!.forget(id);
    const merchants = new MerchantStore(api.db, memberRole, Date.now, forget);
    const ledger = new JournalStore(api.db, forget, { chain: transferViews, payments: depositViews });
    const fees = new FeeStore(api.db, { bps: 0, bearer: 'customer' }, forget);
    cache = new AccountCache({
      keyOwner: (k, kind) => merchants.keyOwner(k, kind),
      settlement: (id, mode) => ledger.settlement(id, mode),
      payoutAddress: (id, mode, chainId) => merchants.payoutAddressUntil(id, mode, chainId),
      feeTerms: (id, mode) => fees.terms(id, mode),
    });
    const owner = { merchant: { id: merchantId } as never, mode: 'test' as const };

    expect((await cache.authenticate(secretKey, 'secret'))?.merchant.id).toBe(merchantId);
    const keys = (await merchants.rollSecretKeys(merchantId, Date.now(), ['test']))!;
    expect(await cache.authenticate(secretKey, 'secret')).toBeUndefined();
    expect((await cache.authenticate(keys.test, 'secret'))?.merchant.id).toBe(merchantId);

    const [first, second] = ['0x' + '1'.repeat(40), '0x' + '2'.repeat(40)];
    await merchants.setPayoutAddress(merchantId, 'test', 31337, first);
    expect(await cache.payoutAddress(merchantId, 'test', 31337)).toBe(first);
    await merchants.setPayoutAddress(merchantId, 'test', 31337, second);
    expect(await cache.payoutAddress(merchantId, 'test', 31337)).toBe(second);

    expect(await cache.settlement(merchantId, 'test')).toBe('wallet');
    await ledger.setSettlement(owner, 'balance', Date.now());
    expect(await cache.settlement(merchantId, 'test')).toBe('balance');

    expect(await cache.feeTerms(merchantId, 'test')).toMatchObject({ bps: 0 });
    await fees.set(merchantId, 'test', { bps: 150, bearer: 'merchant' }, Date.now());
    expect(await cache.feeTerms(merchantId, 'test')).toMatchObject({ bps: 150, bearer: 'merchant' });

    await merchants.updateProfile(merchantId, { businessName: 'Renamed' });
    expect((await cache.authenticate(keys.test, 'secret'))?.merchant.businessName).toBe('Renamed');
  });

  it('keeps a live payout address until its waiting change takes effect, then answers the new one', { timeout: 30_000 }, async () => {
    const api = await service(await databaseOptions(kind));
    let clock = Date.now();
    const now = () => clock;
    let cache: AccountCache | undefined;
    const forget = (id: string) => cache!.forget(id);
    const merchants = new MerchantStore(api.db, memberRole, now, forget);
    const destinations = new Destinations(api.db, new DestinationStore(api.db), new EventStore(api.db), 60_000, forget, api.parts.withdrawals);
    cache = new AccountCache(
      {
        keyOwner: (k, kind) => merchants.keyOwner(k, kind),
        settlement: async () => 'wallet',
        payoutAddress: (id, mode, chainId) => merchants.payoutAddressUntil(id, mode, chainId),
        feeTerms: async () => ({ bps: 0, bearer: 'customer' }),
      },
      now,
    );
    const payout = () => cache!.payoutAddress(merchantId, 'live', 31337);
    const owner = (mode: 'test' | 'live') => ({ merchant: { id: merchantId } as never, mode });
    const [first, second, third] = ['0x' + '3'.repeat(40), '0x' + '4'.repeat(40), '0x' + '5'.repeat(40)];

    // A chain's first live address waits the delay too, the cache answering none until then; a test key's change counts at once.
    await destinations.setPayoutAddress(owner('live'), 31337, first, clock);
    expect(await payout()).toBeUndefined();
    clock += 60_000;
    expect(await payout()).toBe(first);
    expect(await cache.payoutAddress(merchantId, 'test', 31337)).toBeUndefined();
    await destinations.setPayoutAddress(owner('test'), 31337, third, clock);
    expect(await cache.payoutAddress(merchantId, 'test', 31337)).toBe(third);

    // A live key's new address waits the delay: the old one is answered until then, not after.
    const { effectiveMs } = await destinations.setPayoutAddress(owner('live'), 31337, second, clock);
    expect(effectiveMs).toBe(clock + 60_000);
    expect(await payout()).toBe(first);
    clock += 59_000;
    expect(await payout()).toBe(first);
    clock += 1_000;
    expect(await payout()).toBe(second);
  });
});
