// The CLI driven as a merchant would: listen forwards each new event to a local receiver
// that verifies it with the merchant's webhook secret; trigger makes deposits; events lists
// them with their attempts and re-sends one. Against the real service over HTTP.
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type Service } from '../../server/service/app.ts';
import { DEMO_MERCHANT } from '../../server/service/seed.ts';
import { startReceiver, type Receiver } from '../../server/testing/receiver.ts';
import { runCli, USAGE } from './cli.ts';
import { holdAnswersToOpenApi } from '../../server/testing/conformance.ts';

// Every answer of the API seen here must be one the OpenAPI document allows.
const { standIns } = holdAnswersToOpenApi();

const { publicKey, secretKey } = DEMO_MERCHANT.keys.test;
let api: Service;
let registered: Receiver;

beforeAll(async () => {
  api = await startService({ demo: true, webhookRetryMs: 50, jobIntervalMs: 50 });
  registered = await startReceiver(DEMO_MERCHANT.webhookSecrets!.test!);
  await fetch(api.url + '/api/v1/webhook', {
    method: 'PUT',
    headers: { authorization: `Bearer ${secretKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url: registered.url }),
  });
});
afterAll(async () => {
  await registered.close();
  await api.close();
});

function cli(args: string[], signal?: AbortSignal) {
  const out: string[] = [];
  const err: string[] = [];
  const done = runCli(args, { env: { SERVICE_API_URL: api.url, SERVICE_SECRET_KEY: secretKey }, out: (l) => out.push(l), err: (l) => err.push(l), signal });
  return { out, err, done };
}

const initialize = (reference: string) =>
  fetch(api.url + '/api/v1/transaction/initialize', {
    method: 'POST',
    headers: { 'x-api-key': publicKey, 'content-type': 'application/json' },
    body: JSON.stringify({ reference, coin: 'USDT', currency: 'USD', amount: 8 }),
  });

async function until<T>(probe: () => T | undefined | false, ms = 5000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('service-checkout CLI', () => {
  it('listen forwards each new event, freshly signed, to the local URL, and leaves the registered URL alone', async () => {
    await initialize('cli-old');
    expect(await cli(['trigger', 'deposit', 'cli-old', 'partial']).done).toBe(0); // before listening: not forwarded
    const local = await startReceiver(DEMO_MERCHANT.webhookSecrets!.test!);
    const stop = new AbortController();
    const listening = cli(['listen', '--forward-to', local.url, '--json'], stop.signal);
    await until(() => listening.out.length > 0);
    await new Promise((resolve) => setTimeout(resolve, 200)); // its first long poll is held
    await initialize('cli-1');
    expect(await cli(['trigger', 'deposit', 'cli-1', 'partial']).done).toBe(0);
    expect(await cli(['trigger', 'deposit', 'cli-1', 'full']).done).toBe(0);
    await until(() => local.events.length === 2);
    expect(local.refused).toBe(0);
    expect(local.events.map((e) => [e.event, e.data.reference, e.data.status])).toEqual([
      ['DEPOSIT_TRANSACTION', 'cli-1', 'incomplete'],
      ['DEPOSIT_TRANSACTION', 'cli-1', 'confirmed'],
    ]);
    // The receiver keeps a delivery before it answers, and listen prints once the answer is
    // in: wait for listen's own lines, the later of the two.
    await until(() => listening.out.length === 3);
    const lines = listening.out.slice(1).map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.reference, l.status, l.answer])).toEqual([
      ['cli-1', 'incomplete', 200],
      ['cli-1', 'confirmed', 200],
    ]);
    // The registered endpoint got them too, as always: listening changes nothing there.
    await until(() => registered.events.filter((e) => e.data.reference === 'cli-1').length === 2);
    stop.abort();
    expect(await listening.done).toBe(0);
    await local.close();
  });

  it('trigger makes its own test payment when given no reference, as stripe trigger does, and drives it to the event asked for', async () => {
    const full = cli(['trigger', 'deposit', 'full', '--json']);
    expect(await full.done, full.err.join('\n')).toBe(0);
    const [made, sent] = full.out.map((l) => JSON.parse(l));
    expect(made).toMatchObject({ created: true, reference: expect.stringMatching(/^trigger_/), amount: '10', currency: 'USD', coin: 'USDT' });
    expect(sent).toMatchObject({ reference: made.reference, status: 'confirmed' });
    // The payment is the service's own, and the merchant's endpoint got its event.
    const verified = await fetch(`${api.url}/api/v1/transaction/verify/${made.reference}`, { headers: { authorization: `Bearer ${secretKey}` } }).then((r) =>
      r.json(),
    );
    expect(verified.data).toMatchObject({ reference: made.reference, status: 'confirmed' });
    await until(() => registered.events.some((e) => e.event === 'DEPOSIT_TRANSACTION' && e.data.reference === made.reference && e.data.status === 'confirmed'));

    // By the event's name, and partly paid at a price and coin of one's own; each run a new payment.
    const partial = cli(['trigger', 'DEPOSIT_TRANSACTION', 'partial', '--amount', '25', '--currency', 'EUR', '--coin', 'USDC']);
    expect(await partial.done, partial.err.join('\n')).toBe(0);
    expect(partial.out[0]).toMatch(/^Test payment made: trigger_\S+, 25 EUR as [\d.]+ USDC$/);
    const reference = /trigger_\S+(?=,)/.exec(partial.out[0])![0];
    expect(reference).not.toBe(made.reference);
    expect(partial.out[1]).toMatch(new RegExp(`^Deposit sent: ${reference} is incomplete, `));
    await until(() => registered.events.some((e) => e.data.reference === reference && e.data.status === 'incomplete'));

    // Only what the sandbox can make, and never with a live key.
    for (const words of [
      ['trigger', 'PAYOUT_UPDATED'],
      ['trigger', 'DEPOSIT_TRANSACTION', 'some-ref', 'full'],
      ['trigger', 'deposit'],
    ]) {
      const wrong = cli(words);
      expect(await wrong.done, words.join(' ')).toBe(2);
      expect(wrong.err[0]).toContain('trigger deposit [<reference>] <full|partial|over>');
    }
    const live = runCli(['trigger', 'deposit', 'full', '--key', DEMO_MERCHANT.keys.live.secretKey, '--api', api.url], {
      env: {},
      out: () => {},
      err: () => {},
    });
    expect(await live).toBe(2);
    const refused = cli(['trigger', 'deposit', 'full', '--coin', 'XYZ']);
    expect(await refused.done).toBe(1);
    expect(refused.err[0]).toMatch(/coin/);
  });

  it('trigger says what the deposit did, and refuses live keys and bad words', async () => {
    await initialize('cli-2');
    const run = cli(['trigger', 'deposit', 'cli-2', 'over']);
    expect(await run.done).toBe(0);
    expect(run.out[0]).toMatch(/^Deposit sent: cli-2 is confirmed, 8.8 of 8 USDT paid$/);
    const live = runCli(['trigger', 'deposit', 'cli-2', 'full', '--key', DEMO_MERCHANT.keys.live.secretKey, '--api', api.url], {
      env: {},
      out: () => {},
      err: () => {},
    });
    expect(await live).toBe(2);
    const wrong = cli(['trigger', 'deposit', 'cli-2', 'lots']);
    expect(await wrong.done).toBe(2);
    expect(wrong.err[0]).toContain('trigger deposit [<reference>] <full|partial|over>');
    const refused = cli(['trigger', 'deposit', 'cli-2', 'full']);
    expect(await refused.done).toBe(1);
    expect(refused.err[0]).toMatch(/confirmed; it takes no more deposits/);
  });

  it('events lists the latest with their attempts, and events resend delivers one again', async () => {
    await initialize('cli-3');
    await cli(['trigger', 'deposit', 'cli-3', 'full']).done;
    await until(() => registered.events.some((e) => e.data.reference === 'cli-3'));
    let events: Array<{ id: string; payload: { data: { reference: string } }; attempts: unknown[] }> = [];
    for (let i = 0; i < 50 && !events.some((e) => e.payload.data.reference === 'cli-3' && e.attempts.length); i++) {
      const run = cli(['events', '--json', '--limit', '5']);
      expect(await run.done).toBe(0);
      events = run.out.map((l) => JSON.parse(l));
      await new Promise((resolve) => setTimeout(resolve, 30));
    }
    expect(events.length).toBeLessThanOrEqual(5);
    const mine = events.find((e) => e.payload.data.reference === 'cli-3')!;
    expect(mine.attempts).toEqual([expect.objectContaining({ attempt: 1, status: 200 })]);
    const plain = cli(['events', '--limit', '2']);
    await plain.done;
    expect(plain.out.at(-1)).toMatch(/^evt_\w+ .* DEPOSIT_TRANSACTION +cli-3 +confirmed +delivered +200 after 1 attempt$/);

    const before = registered.events.filter((e) => e.id === mine.id).length;
    const resend = cli(['events', 'resend', mine.id]);
    expect(await resend.done).toBe(0);
    expect(resend.out[0]).toBe(`Queued ${mine.id} (DEPOSIT_TRANSACTION) for delivery again`);
    await until(() => registered.events.filter((e) => e.id === mine.id).length === before + 1);
    expect(await cli(['events', 'resend', 'evt_nothing']).done).toBe(1);
  });

  it("merchant create runs the service's own command, on the service's database", async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const dataDir = mkdtempSync(join(tmpdir(), 'cli-merchant-'));
    try {
      const out: string[] = [];
      const code = await runCli(['merchant', 'create', '--name', 'Corner Bakery', '--email', 'hello@bakery.example', '--json'], {
        env: { DATA_DIR: dataDir },
        out: (l) => out.push(l),
        err: () => {},
      });
      expect(code).toBe(0);
      const created = JSON.parse(out.join(''));
      expect(created).toMatchObject({ businessName: 'Corner Bakery', keys: { test: { secretKey: expect.stringMatching(/^sk_test_/) } } });
      expect(await runCli(['merchant', 'create', '--name', 'No mail'], { env: { DATA_DIR: dataDir }, out: () => {}, err: () => {} })).toBe(2);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
    // Two processes of the service, each making or opening an embedded database: 6 s on a quiet
    // machine, past 30 s on a loaded one (a fresh-clone CI beside other work). It tests what the
    // command does, not how fast, so it gets the room a spawned service needs.
  }, 120_000);

  it('says what it needs: no key, no command, --help', async () => {
    const noKey = runCli(['events'], { env: {}, out: () => {}, err: () => {} });
    expect(await noKey).toBe(2);
    const help: string[] = [];
    expect(await runCli(['--help'], { env: {}, out: (l) => help.push(l), err: () => {} })).toBe(0);
    expect(help[0]).toBe(USAGE);
    expect(await cli(['dance']).done).toBe(2);
  });

  it('says what went wrong in three words a merchant trips on: a public key as the secret key, an unknown command (even with no key), --api at something that is not the service', async () => {
    const run = async (args: string[], env: Record<string, string> = {}) => {
      const err: string[] = [];
      const code = await runCli(args, { env, out: () => {}, err: (l) => err.push(l) });
      return [code, err[0]?.split('\n')[0]];
    };
    expect(await run(['events', '--key', publicKey, '--api', api.url])).toEqual([
      2,
      `service-checkout: --key is a public key (pk_test_…: it goes in the checkout, in browsers); this command needs your secret key, sk_test_… (the dashboard's Developers page)`,
    ]);
    expect(await run(['events'], { SERVICE_API_URL: api.url, SERVICE_SECRET_KEY: DEMO_MERCHANT.keys.live.publicKey })).toEqual([
      2,
      `service-checkout: SERVICE_SECRET_KEY is a public key (pk_live_…: it goes in the checkout, in browsers); this command needs your secret key, sk_live_… (the dashboard's Developers page)`,
    ]);
    expect(await run(['dance'])).toEqual([2, 'service-checkout: unknown command: dance']);
    expect(await run(['dance', '--key', secretKey])).toEqual([2, 'service-checkout: unknown command: dance']);
    // A web server that is not the service: an HTML page where the service answers JSON.
    const page = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>My shop</title>'));
    await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
    const other = `http://127.0.0.1:${(page.address() as AddressInfo).port}`;
    standIns.add(other); // not the service: the document does not hold it
    try {
      expect(await run(['events', '--api', other, '--key', secretKey])).toEqual([
        1,
        `service-checkout: this is not the service: ${other}/api/v1/events?after=recent&limit=20 answered 200 with something other than the service's JSON (a web page?); --api or SERVICE_API_URL names where the service listens (http://127.0.0.1:4010 by default)`,
      ]);
    } finally {
      await new Promise((resolve) => page.close(resolve));
    }
    // A port nobody listens on: taken, then given back.
    const spare = createServer();
    await new Promise<void>((resolve) => spare.listen(0, '127.0.0.1', resolve));
    const nobody = `http://127.0.0.1:${(spare.address() as AddressInfo).port}`;
    await new Promise((resolve) => spare.close(resolve));
    const downErr: string[] = [];
    const down = runCli(['events', '--api', nobody, '--key', secretKey], { env: {}, out: () => {}, err: (l) => downErr.push(l) });
    expect(await down).toBe(1);
    // The failure names the URL it tried, why, and the two ways to point it elsewhere.
    expect(downErr[0]).toBe(
      `service-checkout: could not reach the service at ${nobody}/api/v1/events?after=recent&limit=20 (ECONNREFUSED): is it running there? --api or SERVICE_API_URL says where it listens`,
    );
    const viaEnv: string[] = [];
    expect(
      await runCli(['trigger', 'deposit', 'x', 'full'], {
        env: { SERVICE_API_URL: nobody, SERVICE_SECRET_KEY: secretKey },
        out: () => {},
        err: (l) => viaEnv.push(l),
      }),
    ).toBe(1);
    expect(viaEnv[0]).toContain(`at ${nobody}/api/v1/sandbox/deposit (ECONNREFUSED)`);
    const refusedErr = cli(['events', 'resend', 'evt_nope']);
    expect(await refusedErr.done).toBe(1);
    expect(refusedErr.err[0]).toContain(`POST ${api.url}/api/v1/events/evt_nope/resend answered 404`);
    const badApi: string[] = [];
    expect(await runCli(['events', '--api', 'localhost:4010', '--key', secretKey], { env: {}, out: () => {}, err: (l) => badApi.push(l) })).toBe(2);
    expect(badApi[0]).toMatch(/--api: expected the service's http\(s\) URL/);
    expect(USAGE).toMatch(/--api <url>, else \$SERVICE_API_URL, else http:\/\/127\.0\.0\.1:4010/);
  });

  it('listen skips nothing when a poll fails: it asks again from where it was', async () => {
    // A proxy in front of the service that holds listen's first long poll while two events
    // happen, then fails it with a 503.
    let held: (() => void) | undefined;
    const firstPoll = new Promise<void>((arrived) => (held = arrived));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let polls = 0;
    const proxy = createServer(async (req: IncomingMessage, res: ServerResponse) => {
      if (req.url?.startsWith('/api/v1/events') && req.url.includes('wait=') && polls++ === 0) {
        held!();
        await released;
        return void res.writeHead(503, { 'content-type': 'application/json' }).end('{"status":"error","statusCode":503,"message":"Busy"}');
      }
      const upstream = request(api.url + req.url!, { method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode!, answer.headers);
        answer.pipe(res);
      });
      upstream.on('error', () => res.destroy());
      req.pipe(upstream);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    standIns.add(`http://127.0.0.1:${(proxy.address() as AddressInfo).port}`);
    const local = await startReceiver(DEMO_MERCHANT.webhookSecrets!.test!);
    const stop = new AbortController();
    const out: string[] = [];
    const err: string[] = [];
    const listening = runCli(['listen', '--forward-to', local.url, '--api', `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`], {
      env: { SERVICE_SECRET_KEY: secretKey },
      out: (l) => out.push(l),
      err: (l) => err.push(l),
      signal: stop.signal,
      pollMs: 50,
    });
    await firstPoll;
    await initialize('cli-gap');
    expect(await cli(['trigger', 'deposit', 'cli-gap', 'partial']).done).toBe(0);
    expect(await cli(['trigger', 'deposit', 'cli-gap', 'full']).done).toBe(0);
    release();
    await until(() => local.events.length === 2);
    expect(local.events.map((e) => [e.data.reference, e.data.status])).toEqual([
      ['cli-gap', 'incomplete'],
      ['cli-gap', 'confirmed'],
    ]);
    expect(err[0]).toMatch(
      /^The service did not answer at http:\/\/127\.0\.0\.1:\d+\/api\/v1\/events\?cursor=[A-Za-z0-9_-]+&wait=25 \(GET .* answered 503: Busy\); trying again in 2 s from the same cursor$/,
    );
    stop.abort();
    expect(await listening).toBe(0);
    await local.close();
    await new Promise((resolve) => proxy.close(resolve));
  });

  it('trigger --wait waits until the deposit is confirmed and says so; without it, says it is not counted yet', async () => {
    // A stand-in for a service on a chain: the deposit answers pending with money confirming,
    // and verify answers confirmed on its third call.
    let verifies = 0;
    const payment = (status: string, paid: number, confirming?: object) => ({
      reference: 'cli-chain',
      address: '0x' + '1'.repeat(40),
      coin: 'USDT',
      network: 'testnet',
      status,
      actualAmount: 24.745,
      amountPaid: paid,
      amountRemaining: 24.745 - paid,
      fiatAmount: 24.5,
      currency: 'USD',
      feeInCrypto: 0.245,
      acceptPartialPayment: false,
      hash: null,
      expiresAt: new Date(Date.now() + 600_000).toISOString(),
      ...(confirming ? { confirming } : {}),
    });
    const chain = createServer((req, res) => {
      const answer =
        req.url === '/api/v1/sandbox/deposit'
          ? payment('pending', 0, { amount: 24.745, confirmations: 0, required: 2 })
          : ++verifies < 3
            ? payment('pending', 0, { amount: 24.745, confirmations: verifies, required: 2 })
            : payment('confirmed', 24.745);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 'success', statusCode: 200, data: answer }));
    });
    await new Promise<void>((resolve) => chain.listen(0, '127.0.0.1', resolve));
    const apiUrl = `http://127.0.0.1:${(chain.address() as AddressInfo).port}`;
    standIns.add(apiUrl);
    const run = async (args: string[], extra: object = {}) => {
      const out: string[] = [];
      const code = await runCli(['trigger', 'deposit', 'cli-chain', 'full', '--api', apiUrl, ...args], {
        env: { SERVICE_SECRET_KEY: secretKey },
        out: (l) => out.push(l),
        err: (l) => out.push(l),
        pollMs: 20,
        ...extra,
      });
      return { code, out };
    };
    const waited = await run(['--wait']);
    expect(waited).toEqual({
      code: 0,
      out: [
        'Deposit sent: cli-chain is pending, 0 of 24.745 USDT paid, 24.745 USDT confirming (0 of 2 confirmations); waiting until it is confirmed…',
        'Confirmed: cli-chain is confirmed, 24.745 of 24.745 USDT paid',
      ],
    });
    expect(verifies).toBe(3);
    // In a terminal it waits by default; --no-wait, or no terminal, does not, and says why the status is pending.
    verifies = 0;
    expect((await run([], { interactive: true })).out.at(-1)).toBe('Confirmed: cli-chain is confirmed, 24.745 of 24.745 USDT paid');
    verifies = 0;
    const quick = await run(['--no-wait'], { interactive: true });
    expect(quick.out).toEqual([
      'Deposit sent: cli-chain is pending, 0 of 24.745 USDT paid, 24.745 USDT confirming (0 of 2 confirmations); it counts once confirmed (--wait waits for that)',
    ]);
    expect(verifies).toBe(0);
    // A chain that never confirms: it gives up, naming the URL, with exit code 1.
    verifies = -1_000_000;
    const stuck = await run(['--wait'], { waitMs: 100 });
    expect(stuck.code).toBe(1);
    expect(stuck.out.at(-1)).toMatch(
      new RegExp(`^service-checkout: cli-chain is pending, .* after 0 s of waiting \\(${apiUrl}/api/v1/transaction/verify/cli-chain\\)`),
    );
    await new Promise((resolve) => chain.close(resolve));
  });

  it('refund sends part of a payment back, refund get and refunds show it; a bad amount is a wrong command', async () => {
    // Balance settlement from here: payments made now are refunded from the balance (the last test of the file).
    await fetch(api.url + '/api/v1/settlement', {
      method: 'PUT',
      headers: { authorization: `Bearer ${secretKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ settlement: 'balance' }),
    });
    await initialize('cli-refund');
    expect(await cli(['trigger', 'deposit', 'cli-refund', 'over', '--no-wait']).done).toBe(0);
    // The amount as the API writes every amount: 0.8 is 0.8 USDT (8×10^17 base units at its 18 decimals).
    const asked = cli(['refund', 'cli-refund', '0.8', '--to', '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', '--reason', 'paid too much', '--json']);
    expect(await asked.done).toBe(0);
    const refund = JSON.parse(asked.out[0]!);
    expect(refund).toMatchObject({ reference: 'cli-refund', amount: '0.8', amount_base_units: '800000000000000000', status: 'ready' });
    const got = cli(['refund', 'get', refund.id]);
    expect(await got.done).toBe(0);
    expect(got.out[0]).toBe(`${refund.id}  cli-refund  0.8 USDT to 0x70997970C51812dc3A010C7d01b50e0d17dc79C8  ready`);
    const listed = cli(['refunds', '--reference', 'cli-refund']);
    expect(await listed.done).toBe(0);
    expect(listed.out).toEqual([got.out[0]]);
    const wrong = cli(['refund', 'cli-refund', '-0.5', '--to', '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', '--reason', 'r']);
    expect(await wrong.done).toBe(2);
    // More decimals than the coin has: the service's 400 naming amount.
    const fine = cli(['refund', 'cli-refund', '0.' + '0'.repeat(18) + '1', '--to', '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', '--reason', 'r']);
    expect(await fine.done).toBe(1);
    expect(fine.err[0]).toMatch(/answered 400: .*amount: expected at most 18 decimals/);
    const over = cli(['refund', 'cli-refund', 'rest', '--to', '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', '--reason', 'all', '--key', secretKey]);
    expect(await over.done).toBe(0);
    const more = cli(['refund', 'cli-refund', '1', '--to', '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', '--reason', 'more']);
    expect(await more.done).toBe(1);
    expect(more.err[0]).toMatch(/answered 409: amount: payment cli-refund is refunded in full already \(8.8 USDT of 8.8 USDT received\)/);

    // trigger refund: a test payment of its own, paid in full and counted, then all of it sent back; the events follow.
    const triggered = cli(['trigger', 'refund', '--to', '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', '--json']);
    expect(await triggered.done, triggered.err.join('\n')).toBe(0);
    const said = triggered.out.map((line) => JSON.parse(line));
    const made = said[0];
    expect(made).toMatchObject({ created: true, reference: expect.stringMatching(/^trigger_/), amount: '10', currency: 'USD', coin: 'USDT' });
    expect(said.at(-1)).toMatchObject({
      reference: made.reference,
      amount_exact: String(made.cryptoAmount),
      address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
      status: 'ready',
    });
    const listedRefunds = (await (
      await fetch(`${api.url}/api/v1/refunds?reference=${made.reference}`, { headers: { authorization: `Bearer ${secretKey}` } })
    ).json()) as { data: Array<{ id: string }> };
    expect(listedRefunds.data.map((r) => r.id)).toEqual([said.at(-1).id]);
    const liveTrigger = runCli(['trigger', 'refund', '--key', DEMO_MERCHANT.keys.live.secretKey, '--api', api.url], { env: {}, out: () => {}, err: () => {} });
    expect(await liveTrigger).toBe(2);
    const wrongTrigger = cli(['trigger', 'REFUND_UPDATED', 'some-ref']);
    expect(await wrongTrigger.done).toBe(2);
    expect(wrongTrigger.err[0]).toContain('trigger refund [<reference>] [--to <address>]');
  });
});
