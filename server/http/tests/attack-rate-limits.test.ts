// Rate limits on what the public key (in every checkout page) may start.
// 1. The per-key count (1,200 a minute) is spent by requests that start nothing: the count is
//    taken before the body is even read, so an attacker with 40 /64s (one home /56 holds 256)
//    sending empty bodies locks every real customer of the merchant out of checkout.
// 2. Behind a proxy that writes "address:port" into X-Forwarded-For (Azure Application Gateway
//    does), no entry is an address: every customer counts as the proxy, 30 a minute for all.
import type { IncomingMessage } from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startService, type Service } from '../../service/app.ts';
import { clientOf } from '../client.ts';
import { DEMO_MERCHANT } from '../../service/seed.ts';

const { publicKey } = DEMO_MERCHANT.keys.test;
let api: Service;
beforeAll(async () => {
  api = await startService({ demo: true, jobs: false, trustProxies: 1 });
});
afterAll(() => api?.close());

const initialize = async (body: string, client: string) =>
  (
    await fetch(api.url + '/api/v1/transaction/initialize', {
      method: 'POST',
      headers: { 'x-api-key': publicKey, 'content-type': 'application/json', 'x-forwarded-for': client },
      body,
    })
  ).status;

it("requests that start no payment do not spend the merchant's per-key allowance", { timeout: 120_000 }, async () => {
  const statuses = new Map<number, number>();
  for (let net = 0; net < 41; net++) {
    const client = `2001:db8:77:${net.toString(16)}::1`; // 41 /64s of one /56
    const batch = await Promise.all(Array.from({ length: 30 }, () => initialize('{', client))); // not even JSON
    for (const s of batch) statuses.set(s, (statuses.get(s) ?? 0) + 1);
  }
  console.log(Object.fromEntries(statuses));
  // A real customer, on its own address, with a good request:
  const real = await initialize(JSON.stringify({ reference: 'real-customer', coin: 'USDT', currency: 'USD', amount: 5 }), '198.51.100.20');
  expect(real).toBe(201);
});

// Item 3: junk that reads as JSON but is refused later (a chain the coin is not on,
// a payment link that is not the merchant's) still spent the key's allowance: 41 addresses x
// 30 such requests, and the next real customers got 429. Only payments made count, and the
// key's count never refuses.
it('junk the service refuses (400, 404: nothing made) from many addresses never spends what real customers share', { timeout: 180_000 }, async () => {
  const junk = [
    JSON.stringify({ reference: 'junk', coin: 'USDT', currency: 'USD', amount: 5, chain_id: 999_999 }),
    JSON.stringify({ reference: 'junk', coin: 'USDT', currency: 'USD', amount: 5, payment_link: 'not-a-link' }),
  ];
  const statuses = new Map<number, number>();
  for (let net = 0; net < 41; net++) {
    const client = `2001:db8:78:${net.toString(16)}::1`;
    const batch = await Promise.all(Array.from({ length: 30 }, (_, i) => initialize(junk[i % 2]!, client)));
    for (const s of batch) statuses.set(s, (statuses.get(s) ?? 0) + 1);
  }
  expect([...statuses.keys()].every((s) => s === 400 || s === 404)).toBe(true);
  expect(await api.db.query(`SELECT 1 FROM payments WHERE reference = 'junk'`)).toEqual([]);
  for (let i = 0; i < 5; i++) {
    const real = await initialize(JSON.stringify({ reference: `real-after-junk-${i}`, coin: 'USDT', currency: 'USD', amount: 5 }), `198.51.100.${30 + i}`);
    expect(real).toBe(201);
  }
});

// The hosted link page's per-link count had the same shape: only presses that make a payment count.
it("a link page's presses that make nothing never spend the link's allowance", { timeout: 180_000 }, async () => {
  const made = await fetch(api.url + '/api/v1/payment_links', {
    method: 'POST',
    headers: { authorization: `Bearer ${DEMO_MERCHANT.keys.test.secretKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ title: 'Tea box', charge: { amount: '5.00', currency: 'USD' } }),
  });
  const link = ((await made.json()) as { data: { slug: string } }).data;
  const press = async (body: string, client: string) =>
    (await fetch(`${api.url}/pay/${link.slug}/checkout`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': client }, body }))
      .status;
  const statuses = new Set<number>();
  for (let net = 0; net < 35; net++) {
    const client = `2001:db8:79:${net.toString(16)}::1`;
    for (const s of await Promise.all(Array.from({ length: 20 }, () => press(JSON.stringify({ email: 'not an e-mail' }), client)))) statuses.add(s);
  }
  expect([...statuses]).toEqual([400]);
  for (let i = 0; i < 3; i++) expect(await press(JSON.stringify({ email: `buyer${i}@example.com` }), `198.51.100.${60 + i}`)).toBe(201);
});

it('reads the client behind a proxy that writes the port into X-Forwarded-For', () => {
  const req = (forwarded: string) => ({ socket: { remoteAddress: '10.0.0.2' }, headers: { 'x-forwarded-for': forwarded } }) as unknown as IncomingMessage;
  expect(clientOf(req('203.0.113.1:50123'), 1)).not.toBe(clientOf(req('203.0.113.2:50999'), 1));
});
