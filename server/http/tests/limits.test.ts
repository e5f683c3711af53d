// What anyone holding the public key may start, and who "anyone" is behind the operator's
// proxies. Review of issue 21: initialize with the public key was unlimited (any page's key
// could fill the database with payments), and the link limit counted the proxy, not the
// client, and every IPv6 address on its own.
import type { IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { startService, type Service } from '../../service/app.ts';
import { createLogger } from '../../service/log.ts';
import { clientOf, networkOf } from '../client.ts';
import { DEMO_MERCHANT } from '../../service/seed.ts';
import { holdAnswersToOpenApi } from '../../testing/conformance.ts';

holdAnswersToOpenApi();

const { publicKey, secretKey } = DEMO_MERCHANT.keys.test;
const request = (remoteAddress: string, forwarded?: string) =>
  ({ socket: { remoteAddress }, headers: forwarded ? { 'x-forwarded-for': forwarded } : {} }) as unknown as IncomingMessage;

describe('who a request is from', () => {
  it('counts an IPv6 client by its /64, an IPv4 one (mapped or not) by its address', () => {
    expect(networkOf('2001:db8:1:2:aaaa:bbbb:cccc:1')).toBe('2001:db8:1:2::/64');
    expect(networkOf('2001:db8:1:2::99')).toBe('2001:db8:1:2::/64');
    expect(networkOf('2001:0db8:0001:0002::')).toBe('2001:db8:1:2::/64');
    expect(networkOf('2001:db8:1:3::1')).not.toBe(networkOf('2001:db8:1:2::1'));
    expect(networkOf('::ffff:203.0.113.9')).toBe('203.0.113.9');
    expect(networkOf('203.0.113.9')).toBe('203.0.113.9');
  });

  it("reads X-Forwarded-For only as far as the operator's own proxies go: what the client wrote there itself is never trusted", () => {
    // No proxies declared: the header is the client's own words.
    expect(clientOf(request('198.51.100.7', '203.0.113.1'))).toBe('198.51.100.7');
    // One proxy: the address it saw, the last entry; entries before it are the client's claims.
    expect(clientOf(request('10.0.0.2', '6.6.6.6, 203.0.113.1'), 1)).toBe('203.0.113.1');
    // Two proxies in a row: the address the first of them saw.
    expect(clientOf(request('10.0.0.3', '6.6.6.6, 203.0.113.1, 10.0.0.2'), 2)).toBe('203.0.113.1');
    expect(clientOf(request('10.0.0.2', '2001:db8:5:6::1'), 1)).toBe('2001:db8:5:6::/64');
    // A header missing or not an address: the proxy's own address, counted as one client.
    expect(clientOf(request('10.0.0.2'), 1)).toBe('10.0.0.2');
    expect(clientOf(request('10.0.0.2', 'garbage'), 1)).toBe('10.0.0.2');
  });
});

describe('initialize with the public key', () => {
  let api: Service;
  const logged: string[] = [];
  const sink = new Writable({ write: (chunk, _enc, done) => (logged.push(String(chunk)), done()) });
  beforeAll(async () => {
    api = await startService({
      demo: true,
      jobs: false,
      publicInitializesPerMinute: { perClient: 5, perKey: 8 },
      trustProxies: 1,
      logger: createLogger('warn', sink),
    });
  });
  afterAll(() => api?.close());

  const initialize = async (reference: string, key: Record<string, string>, client?: string) => {
    const response = await fetch(api.url + '/api/v1/transaction/initialize', {
      method: 'POST',
      headers: { ...key, 'content-type': 'application/json', ...(client ? { 'x-forwarded-for': client } : {}) },
      body: JSON.stringify({ reference, coin: 'USDT', currency: 'USD', amount: 5 }),
    });
    return { status: response.status, retryAfter: response.headers.get('retry-after'), body: await response.json() };
  };

  it("starts a few payments a minute per client, then 429 with Retry-After; past the key's ceiling, an alert and no refusal; the merchant's secret key is not limited", {
    timeout: 60_000,
  }, async () => {
    const pub = { 'x-api-key': publicKey };
    const first: number[] = [];
    for (let i = 0; i < 6; i++) first.push((await initialize(`lim-a-${i}`, pub, '203.0.113.1')).status);
    expect(first).toEqual([201, 201, 201, 201, 201, 429]);
    const refused = await initialize('lim-a-9', pub, '203.0.113.1');
    expect(refused.status).toBe(429);
    expect(Number(refused.retryAfter)).toBeGreaterThan(0);
    expect(refused.body.message).toMatch(/Too many payments started with this public key from this address/);
    // Another client behind the same proxy has its own count.
    expect((await initialize('lim-b-0', pub, '203.0.113.2')).status).toBe(201);
    expect((await initialize('lim-b-1', pub, '203.0.113.2')).status).toBe(201);
    expect((await initialize('lim-b-2', pub, '203.0.113.2')).status).toBe(201);
    expect(logged.join('')).not.toMatch(/ceiling/); // 8 made: at the key's ceiling, not past it
    // The key's ceiling (8 a minute) is watched, not enforced: the 9th and 10th are made, and the operator is told once.
    expect((await initialize('lim-c-0', pub, '203.0.113.3')).status).toBe(201);
    expect((await initialize('lim-c-1', pub, '203.0.113.3')).status).toBe(201);
    const alerts = logged.filter((line) => /passed the minute's ceiling/.test(line));
    expect(alerts).toHaveLength(1);
    expect(JSON.parse(alerts[0]!)).toMatchObject({ level: 40, mode: 'test', ceiling: 8 });
    expect(alerts[0]).not.toContain(publicKey);
    expect((await api.parts.metrics.scrape()).text).toMatch(/service_public_payments_ceiling_passed_total\{kind="public_initialize",mode="test"\} 1/);
    // Nothing was made for a refused request.
    const made = await api.db.query(`SELECT count(*)::text AS n FROM payments WHERE reference LIKE 'lim-%'`);
    expect(made[0]!.n).toBe('10');
    // The merchant's server, with the secret key, starts what it needs.
    for (let i = 0; i < 10; i++) expect((await initialize(`lim-s-${i}`, { authorization: `Bearer ${secretKey}` }, '203.0.113.1')).status).toBe(201);
  });
});
