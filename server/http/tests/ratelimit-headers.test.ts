// Every answer a rate limit counted says where the client stands, in the IETF draft's
// headers (draft-ietf-httpapi-ratelimit-headers): `RateLimit-Policy: "<name>";q=<requests>;w=<window
// seconds>` and `RateLimit: "<name>";r=<left>;t=<seconds until the window ends>`, the 429 too (with
// Retry-After); a page on another origin may read them (CORS). An answer no limit counted has none.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { holdAnswersToOpenApi } from '../../testing/conformance.ts';
import { startService, type Service } from '../../service/app.ts';
import { DEMO_MERCHANT } from '../../service/seed.ts';

holdAnswersToOpenApi();

const { publicKey, secretKey } = DEMO_MERCHANT.keys.test;
let api: Service;
beforeAll(async () => {
  api = await startService({ demo: true, jobs: false, publicInitializesPerMinute: { perClient: 2 }, moneyMovesPerMinute: 1 });
}, 60_000);
afterAll(() => api?.close());

const send = (path: string, body: unknown, auth: Record<string, string>) =>
  fetch(api.url + path, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(body) });
const stand = (response: Response) => [
  response.status,
  response.headers.get('ratelimit-policy'),
  response.headers.get('ratelimit')?.replace(/;t=\d+$/, ';t=…'),
];

describe('RateLimit and RateLimit-Policy', () => {
  it('on each answer a limit counted, the 429 included; none where no limit counts', async () => {
    const initialize = (n: number) =>
      send('/api/v1/transaction/initialize', { reference: `rl-${n}`, coin: 'USDT', currency: 'USD', amount: 5 }, { 'x-api-key': publicKey });
    const policy = '"public_initialize_per_client";q=2;w=60';
    const first = await initialize(1);
    expect(stand(first)).toEqual([201, policy, '"public_initialize_per_client";r=1;t=…']);
    expect(first.headers.get('access-control-expose-headers')).toMatch(/ratelimit, ratelimit-policy/);
    expect(Number(/;t=(\d+)$/.exec(first.headers.get('ratelimit')!)![1])).toBeGreaterThan(0);
    expect(stand(await initialize(2))).toEqual([201, policy, '"public_initialize_per_client";r=0;t=…']);
    const refused = await initialize(3);
    expect(stand(refused)).toEqual([429, policy, '"public_initialize_per_client";r=0;t=…']);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);

    // A merchant's money moves, counted after the body: the answer (404 here) says so, the next is refused.
    const refund = () => send('/api/v1/refunds', { reference: 'no-such-payment', amount: 'rest', reason: 'r' }, { authorization: `Bearer ${secretKey}` });
    expect(stand(await refund())).toEqual([404, '"money_moves";q=1;w=60', '"money_moves";r=0;t=…']);
    expect(stand(await refund())).toEqual([429, '"money_moves";q=1;w=60', '"money_moves";r=0;t=…']);

    // No limit counts a list: no headers.
    const list = await fetch(api.url + '/api/v1/payments', { headers: { authorization: `Bearer ${secretKey}` } });
    expect(stand(list)).toEqual([200, null, undefined]);
  });
});
