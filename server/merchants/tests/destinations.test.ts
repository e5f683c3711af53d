// Item 7: a stolen live key cannot redirect income at once. A live key's new payout
// address (replacing one) binds new payments only after the operator's delay, the owner is told
// at once (PAYOUT_ADDRESS_PENDING) and can cancel it from the dashboard's session; a test key's
// takes effect at once. The same for bank accounts (new ones, new details) and for wallets a
// live balance never withdrew to. On PGlite, on the service's own clock.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RATE_ONE } from '../../domain/rates.ts';
import { holdAnswersToOpenApi } from '../../testing/conformance.ts';
import type { Address } from 'viem';
import { startService, type Service } from '../../service/app.ts';
import { cheapPasswords } from '../../testing/passwords.ts';
import { create2Addresses, type Network } from '../../chain/networks.ts';
import { databaseOptions, ONLY_PGLITE } from '../../testing/databases.ts';
import type { Account } from '../../domain/account.ts';
import { Secret, TOTP } from 'otpauth';
import { emailReads } from '../../service/parts.ts';
import { EmailStore } from '../../email/store.ts';
import { emailsFor } from '../../email/rules.ts';

holdAnswersToOpenApi();

const ADMIN = 'op_destinations_token_0123456789abcdef0123456789';
const PUBLIC_URL = 'https://pay.example.test';
const HOUR = 3_600_000;
const DELAY = 24 * HOUR;

// Networks whose chains are never called (jobs are off): deposit addresses are CREATE2, worked out offline.
const USDT = { symbol: 'USDT', name: 'Tether USD', address: '0x00000000000000000000000000000000000000a1', decimals: 18 } as const;
const LIVE: Network = {
  chainId: 56,
  name: 'BNB Smart Chain',
  rpcUrls: ['http://127.0.0.1:9'],
  confirmations: 3,
  factory: '0x00000000000000000000000000000000000000f1',
  tokens: [USDT],
  dev: true,
};
const TEST: Network = { ...LIVE, chainId: 97, name: 'BNB Smart Chain Testnet', factory: '0x00000000000000000000000000000000000000f2' };

const OLD = '0x52908400098527886E0F7030069857D2E4169EE7';
const THIEF = '0x8617E340B3D01FA5F11F306F4090FD50E238070D';
const OTHER = '0x27b1fdb04752bbc536007a920d24acb045561c26';

describe.each(ONLY_PGLITE)('new destinations of money on %s', { timeout: 60_000 }, (kind) => {
  let clock = Date.parse('2026-03-02T10:00:00Z');
  let api: Service;
  type Made = { id: string; keys: { test: { secretKey: string }; live: { secretKey: string } }; signInUrl: string };

  beforeAll(async () => {
    api = await startService({
      ...(await databaseOptions(kind)),
      adminToken: ADMIN,
      publicUrl: PUBLIC_URL,
      now: () => clock,
      jobs: false,
      ...cheapPasswords,
      networks: { live: LIVE, test: TEST },
    });
  }, 60_000);
  afterAll(() => api?.close());

  async function call(method: string, path: string, o: { bearer?: string; body?: unknown; cookie?: string; csrf?: string; mode?: string } = {}) {
    const headers: Record<string, string> = { origin: PUBLIC_URL };
    if (o.body !== undefined) headers['content-type'] = 'application/json';
    if (o.bearer) headers.authorization = `Bearer ${o.bearer}`;
    if (o.cookie) headers.cookie = o.cookie;
    if (o.csrf) headers['x-csrf-token'] = o.csrf;
    if (o.mode) headers['x-mode'] = o.mode;
    const response = await fetch(api.url + path, { method, headers, body: o.body === undefined ? undefined : JSON.stringify(o.body) });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
  }

  let n = 0;
  async function merchant(): Promise<Made> {
    const made = await call('POST', '/operator/v1/merchants', { bearer: ADMIN, body: { name: `Shop ${++n}`, email: `owner${n}-${kind}@shop.example` } });
    expect(made.status).toBe(201);
    return made.body.data;
  }

  async function session(m: Made) {
    const token = new URL(m.signInUrl).hash.replace(/^#token=/, '');
    const answer = await call('POST', '/dashboard/api/password', { body: { token, password: 'correct horse battery' } });
    expect(answer.status).toBe(200);
    return { cookie: answer.headers.get('set-cookie')!.split(';')[0], csrf: answer.body.data.csrfToken as string };
  }

  /** The payout address a new payment of `reference` is bound to, read back from its CREATE2 deposit address. */
  async function boundTo(m: Made, mode: 'test' | 'live', reference: string): Promise<string> {
    const made = await call('POST', '/api/v1/transaction/initialize', {
      bearer: m.keys[mode].secretKey,
      body: { reference, coin: 'USDT', currency: 'USD', amount: 10 },
    });
    expect(made.status, JSON.stringify(made.body)).toBeLessThan(300);
    const factory = create2Addresses((mode === 'live' ? LIVE : TEST).factory);
    const found = [OLD, THIEF, OTHER].find(
      (payout) => factory.addressFor({ merchantId: m.id, mode, reference, payout: payout as Address }).toLowerCase() === made.body.data.address.toLowerCase(),
    );
    expect(found, `${reference} is bound to none of the addresses`).toBeDefined();
    return found!;
  }

  const eventsOf = async (m: Made, mode: 'test' | 'live') =>
    (await call('GET', '/api/v1/events?limit=50', { bearer: m.keys[mode].secretKey })).body.data as Array<{
      type: string;
      payload: { data: Record<string, unknown> };
    }>;

  it("a live key's new payout address binds no payment before the delay, the owner is told at once, and it binds new payments after", async () => {
    const m = await merchant();
    const live = m.keys.live.secretKey;
    // The chain's first address waits the delay too (its own test below).
    expect((await call('PUT', '/api/v1/payout_address', { bearer: live, body: { chain_id: 56, address: OLD } })).body.data).toMatchObject({ pending: true });
    clock += DELAY;
    expect(await boundTo(m, 'live', 'before-1')).toBe(OLD);

    const asked = clock;
    const put = await call('PUT', '/api/v1/payout_address', { bearer: live, body: { chain_id: 56, address: THIEF } });
    expect(put.status).toBe(200);
    expect(put.body.data).toMatchObject({ chain_id: 56, address: THIEF, pending: true, effective_at: new Date(asked + DELAY).toISOString() });
    expect(put.body.message).toMatch(/pending/i);
    // Told at once: the event is in the feed (and queued for the webhook URL), naming the address and when.
    const told = (await eventsOf(m, 'live')).filter((e) => e.type === 'PAYOUT_ADDRESS_PENDING' && e.payload.data.address === THIEF);
    expect(told.map((e) => e.payload.data)).toEqual([
      expect.objectContaining({ kind: 'payout_address', chain_id: 56, address: THIEF, state: 'pending', effective_at: new Date(asked + DELAY).toISOString() }),
    ]);
    // Asked again (a retry): the same change, no second event, its clock not restarted.
    clock += HOUR;
    expect((await call('PUT', '/api/v1/payout_address', { bearer: live, body: { chain_id: 56, address: THIEF } })).body.data.effective_at).toBe(
      new Date(asked + DELAY).toISOString(),
    );
    expect((await eventsOf(m, 'live')).filter((e) => e.type === 'PAYOUT_ADDRESS_PENDING' && e.payload.data.address === THIEF)).toHaveLength(1);

    // Until then the old address is the one in effect, and new payments are bound to it.
    const listed = await call('GET', '/api/v1/payout_address', { bearer: live });
    expect(listed.body.data).toEqual([
      { chain_id: 56, address: OLD, pending: expect.objectContaining({ address: THIEF, effective_at: new Date(asked + DELAY).toISOString() }) },
    ]);
    expect(await boundTo(m, 'live', 'during-1')).toBe(OLD);
    clock = asked + DELAY - 1;
    expect(await boundTo(m, 'live', 'during-2')).toBe(OLD);

    // From its time, new payments are bound to the new address; a payment made before keeps its own.
    clock = asked + DELAY;
    expect(await boundTo(m, 'live', 'after-1')).toBe(THIEF);
    expect(await boundTo(m, 'live', 'before-1')).toBe(OLD);
    expect((await call('GET', '/api/v1/payout_address', { bearer: live })).body.data).toEqual([{ chain_id: 56, address: THIEF }]);
    expect((await call('GET', '/api/v1/destination_changes', { bearer: live })).body.data).toEqual([]);
  });

  it("a chain's first live payout address waits the delay too, is told by its event and e-mail, and from a session needs a step-up", async () => {
    const m = await merchant();
    const live = m.keys.live.secretKey;
    const asked = clock;
    const first = await call('PUT', '/api/v1/payout_address', { bearer: live, body: { chain_id: 56, address: OLD } });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.data).toMatchObject({ chain_id: 56, address: OLD, pending: true, effective_at: new Date(asked + DELAY).toISOString() });
    // Nothing is in effect until then: no live payment is bound to it.
    expect((await call('GET', '/api/v1/payout_address', { bearer: live })).body.data).toEqual([]);
    expect((await call('GET', '/api/v1/destination_changes', { bearer: live })).body.data).toEqual([
      expect.objectContaining({ kind: 'payout_address', address: OLD, state: 'pending' }),
    ]);
    expect(
      (await call('POST', '/api/v1/transaction/initialize', { bearer: live, body: { reference: 'first-1', coin: 'USDT', currency: 'USD', amount: 10 } }))
        .status,
    ).toBeGreaterThanOrEqual(400);
    // Told at once: the event, and (by the e-mail job) the owner's e-mail, which names no address.
    const told = (await eventsOf(m, 'live')).filter((e) => e.type === 'PAYOUT_ADDRESS_PENDING');
    expect(told.map((e) => e.payload.data)).toEqual([expect.objectContaining({ kind: 'payout_address', chain_id: 56, address: OLD, state: 'pending' })]);
    await new EmailStore(api.db, emailReads).fanOut(100, clock, (event, business, people) => emailsFor(event, business, people, `${PUBLIC_URL}/dashboard`));
    const mails = await api.db.query(`SELECT recipient, subject FROM emails WHERE kind = 'destination_pending' AND merchant_id = $1`, [m.id]);
    expect(mails.map((r) => r.recipient)).toEqual([`owner${n}-${kind}@shop.example`]);
    // After the delay, it binds new payments.
    clock = asked + DELAY;
    expect(await boundTo(m, 'live', 'first-2')).toBe(OLD);

    // From the owner's session with a second factor: only stepped up (and it waits as a key's does).
    const other = await merchant();
    const s = await session(other);
    const secret = (await call('POST', '/dashboard/api/factors/totp/options', { ...s, mode: 'live' })).body.data.secret as string;
    const code = () => new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({ timestamp: clock });
    expect((await call('POST', '/dashboard/api/factors/totp', { ...s, body: { code: code() } })).status).toBe(201);
    clock += 6 * 60_000;
    const refused = await call('PUT', '/api/v1/payout_address', { ...s, mode: 'live', body: { chain_id: 56, address: OLD } });
    expect(refused.body.code).toBe('step_up_required');
    clock += 30_000;
    const put = { method: 'PUT', path: '/api/v1/payout_address', body: { chain_id: 56, address: OLD } };
    expect((await call('POST', '/dashboard/api/step-up', { ...s, mode: 'live', body: { code: code(), for: put } })).status).toBe(200);
    const stepped = await call('PUT', '/api/v1/payout_address', { ...s, mode: 'live', body: { chain_id: 56, address: OLD } });
    expect(stepped.body.data).toMatchObject({ pending: true, effective_at: new Date(clock + DELAY).toISOString() });
    // A member (an admin) with no second factor sets no live payout address: they add one first.
    const invitation = { email: `adm${n}@shop.example`, role: 'admin' };
    clock += 30_000; // the next code: one is taken once
    expect(
      (
        await call('POST', '/dashboard/api/step-up', {
          ...s,
          body: { code: code(), for: { method: 'POST', path: '/api/v1/members/invitations', body: invitation } },
        })
      ).status,
    ).toBe(200);
    const invited = await call('POST', '/api/v1/members/invitations', { ...s, body: invitation });
    expect(invited.status, JSON.stringify(invited.body)).toBe(201);
    const token = /#invitation=([\w-]+)/.exec(invited.body.data.link as string)![1];
    const joined = await call('POST', '/dashboard/api/invitation', { body: { token, email: `adm${n}@shop.example`, password: 'correct horse battery' } });
    const admin = { cookie: joined.headers.get('set-cookie')!.split(';')[0], csrf: joined.body.data.csrfToken as string };
    const unfactored = await call('PUT', '/api/v1/payout_address', { ...admin, mode: 'live', body: { chain_id: 56, address: THIEF } });
    expect(unfactored.status, JSON.stringify(unfactored.body)).toBe(403);
    expect(unfactored.body.code).toBe('step_up_required');
  });

  it("the owner cancels it from the dashboard's session: it never takes effect", async () => {
    const m = await merchant();
    const live = m.keys.live.secretKey;
    // The chain's address in effect already (set as the demo sets it: a key's first one waits the delay).
    await api.parts.merchants.setPayoutAddress(m.id, 'live', 56, OLD);
    const put = await call('PUT', '/api/v1/payout_address', { bearer: live, body: { chain_id: 56, address: THIEF } });
    const id = put.body.data.change.id as string;
    const s = await session(m);
    const waiting = await call('GET', '/api/v1/destination_changes', { cookie: s.cookie, mode: 'live' });
    expect(waiting.body.data).toEqual([expect.objectContaining({ id, kind: 'payout_address', address: THIEF })]);
    // Test mode's list is its own; another merchant cannot cancel it; the session's write needs its CSRF token.
    expect((await call('GET', '/api/v1/destination_changes', { cookie: s.cookie })).body.data).toEqual([]);
    const stranger = await call('DELETE', `/api/v1/destination_changes/${id}`, { bearer: (await merchant()).keys.live.secretKey });
    expect(stranger.status, JSON.stringify(stranger.body)).toBe(404);
    expect((await call('DELETE', `/api/v1/destination_changes/${id}`, { cookie: s.cookie, mode: 'live' })).status).toBe(403);
    const cancelled = await call('DELETE', `/api/v1/destination_changes/${id}`, { cookie: s.cookie, csrf: s.csrf, mode: 'live' });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.data).toMatchObject({ id, state: 'cancelled' });
    clock += DELAY + HOUR;
    expect((await call('GET', '/api/v1/payout_address', { bearer: live })).body.data).toEqual([{ chain_id: 56, address: OLD }]);
    expect(await boundTo(m, 'live', 'cancelled-1')).toBe(OLD);
    expect((await call('DELETE', `/api/v1/destination_changes/${id}`, { bearer: live })).status).toBe(404);
  });

  it("a test key's new payout address takes effect at once, and tells no one", async () => {
    const m = await merchant();
    const test = m.keys.test.secretKey;
    await call('PUT', '/api/v1/payout_address', { bearer: test, body: { chain_id: 97, address: OLD } });
    const put = await call('PUT', '/api/v1/payout_address', { bearer: test, body: { chain_id: 97, address: OTHER } });
    expect(put.body.data).toEqual({ chain_id: 97, address: OTHER, pending: false, effective_at: new Date(clock).toISOString() });
    expect(await boundTo(m, 'test', 'test-1')).toBe(OTHER);
    expect((await eventsOf(m, 'test')).filter((e) => e.type === 'PAYOUT_ADDRESS_PENDING')).toEqual([]);
  });

  it("a live key's new bank account is paid to only after the delay, and its new details wait too (the old ones in effect)", async () => {
    const m = await merchant();
    const live = m.keys.live.secretKey;
    const body = {
      bank_name: 'Access Bank',
      bank_code: '044',
      account_name: 'Harbour Coffee Ltd',
      account_number: '0690000031',
      currency: 'NGN',
      country: 'nigeria',
      state: 'Lagos',
    };
    const asked = clock;
    const added = await call('POST', '/api/v1/bank/payouts', { bearer: live, body });
    expect(added.status).toBe(201);
    expect(added.body.data.effectiveAt).toBe(new Date(asked + DELAY).toISOString());
    const bankId = added.body.data.id as string;
    const told = (await eventsOf(m, 'live')).filter((e) => e.type === 'BANK_ACCOUNT_PENDING');
    expect(told.map((e) => e.payload.data)).toEqual([
      expect.objectContaining({ kind: 'bank_account', bank_account_id: bankId, effective_at: new Date(asked + DELAY).toISOString() }),
    ]);
    // The store refuses a payout to it before its time (the route refuses live payouts earlier: no provider).
    const account: Account = { merchant: { id: m.id } as Account['merchant'], mode: 'live', via: 'secret' };
    await expect(
      api.parts.payoutMoves.initiate(account, { bankId, units: 1n, reference: undefined, metadata: null, usdPerCoin: RATE_ONE }, clock, (p) => p),
    ).rejects.toThrow(/paid to only from/);
    clock = asked + DELAY;
    await expect(
      api.parts.payoutMoves.initiate(account, { bankId, units: 1n, reference: undefined, metadata: null, usdPerCoin: RATE_ONE }, clock, (p) => p),
    ).rejects.not.toThrow(/paid to only from/);

    // New details: pending; the account answers the details in effect, and the change.
    const patched = await call('PATCH', `/api/v1/bank/payouts/${bankId}`, { bearer: live, body: { account_number: '0690000099' } });
    expect(patched.body.data).toMatchObject({ account_number: '0690000031', pending: { kind: 'bank_account', bank_account_id: bankId } });
    expect((await call('GET', `/api/v1/bank/payouts/${bankId}`, { bearer: live })).body.data.account_number).toBe('0690000031');
    clock += DELAY;
    const after = await call('GET', `/api/v1/bank/payouts/${bankId}`, { bearer: live });
    expect(after.body.data.account_number).toBe('0690000099');
    expect(after.body.data.pending).toBeUndefined();

    // Cancelled, a new account is gone; a test key's is paid to at once.
    const second = await call('POST', '/api/v1/bank/payouts', { bearer: live, body });
    const change = (await call('GET', '/api/v1/destination_changes', { bearer: live })).body.data.find(
      (c: { bank_account_id: string }) => c.bank_account_id === second.body.data.id,
    );
    expect((await call('DELETE', `/api/v1/destination_changes/${change.id}`, { bearer: live })).status).toBe(200);
    expect((await call('GET', `/api/v1/bank/payouts/${second.body.data.id}`, { bearer: live })).status).toBe(404);
    const testBank = await call('POST', '/api/v1/bank/payouts', { bearer: m.keys.test.secretKey, body });
    expect(testBank.body.data.effectiveAt).toBeUndefined();
  });

  it("a live wallet never withdrawn to is registered and refused until the delay has passed; a test key's is not", async () => {
    const m = await merchant();
    const account: Account = { merchant: { id: m.id } as Account['merchant'], mode: 'live', via: 'secret' };
    const asked = clock;
    const first = await api.parts.destinations.withdrawalAddress(account, 56, OTHER, clock);
    expect(first).toMatchObject({ ready: false, change: { kind: 'withdrawal_address', address: OTHER, effectiveMs: asked + DELAY } });
    clock += HOUR;
    // Asked again while it waits: the same change, told once.
    expect(await api.parts.destinations.withdrawalAddress(account, 56, OTHER.toUpperCase().replace('0X', '0x'), clock)).toMatchObject({
      ready: false,
      change: { effectiveMs: asked + DELAY },
    });
    expect((await eventsOf(m, 'live')).filter((e) => e.type === 'WITHDRAWAL_ADDRESS_PENDING')).toHaveLength(1);
    // Another chain is another registration.
    expect((await api.parts.destinations.withdrawalAddress(account, 1, OTHER, clock)).ready).toBe(false);
    clock = asked + DELAY;
    expect(await api.parts.destinations.withdrawalAddress(account, 56, OTHER, clock)).toEqual({ ready: true });
    // Cancelled: never registered; asking again starts a new wait.
    const thief = await api.parts.destinations.withdrawalAddress(account, 56, THIEF, clock);
    await api.parts.destinations.cancel(account, (thief as { change: { id: string } }).change.id, clock);
    clock += DELAY;
    expect((await api.parts.destinations.withdrawalAddress(account, 56, THIEF, clock)).ready).toBe(false);
    expect(await api.parts.destinations.withdrawalAddress({ ...account, mode: 'test' }, 97, THIEF, clock)).toEqual({ ready: true });
  });
});
