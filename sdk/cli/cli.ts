// The merchant's command line (npx service-checkout …): follow the events feed and forward
// each event to a local URL, freshly signed; simulate deposits; list and re-send events.
// Plain words by default, one JSON object per line with --json. Exit codes: 0 done,
// 1 the service refused or could not be reached (always naming the URL tried), 2 the
// command was wrong.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ServiceClient, ServiceError, type EventRecord } from '../client.ts';
import { SIGNATURE_HEADER, signStandardWebhook, signWebhook } from '../webhook.ts';
import type { CoinSymbol, Currency } from '../../contract/fields.ts';
import { COIN_AMOUNT } from '../../contract/refunds.ts';
import { NOT_JSON } from '../../contract/answer.ts';

/** The commands there are (each checked further where it runs): any other word is an unknown command, key or none. */
const COMMANDS = ['listen', 'trigger', 'refund', 'refunds', 'events'];
/** Options that take a value: their value is not a command's word. */
const VALUED = ['--api', '--key', '--forward-to', '--limit', '--to', '--reason', '--reference', '--idempotency-key', '--amount', '--currency', '--coin'];

export const USAGE = `usage: service-checkout <command> [options]

The service is at --api <url>, else $SERVICE_API_URL, else http://127.0.0.1:4010;
your secret key is --key <sk_…>, else $SERVICE_SECRET_KEY.

commands:
  listen --forward-to <url>              forward each new event to a local URL, signed with your
                                         webhook secret; your registered URL is left alone
  trigger deposit [<reference>] <full|partial|over> [--wait | --no-wait]
                                         simulate a deposit (test keys only); --wait (the
                                         default in a terminal) waits until it is confirmed.
                                         Without a reference it makes a test payment first
                                         (--amount 10, --currency USD, --coin USDT)
  trigger DEPOSIT_TRANSACTION [full|partial|over]
                                         the event, from a new test payment paid (in full)
  trigger refund [<reference>] [--to <address>]
  trigger REFUND_UPDATED                 a refund of all that is left of a test payment (a new
                                         one paid in full without a reference), to --to, else
                                         with a claim link; its REFUND_UPDATED events follow
  refund <reference> <amount|rest> --to <address> --reason <text> [--idempotency-key <k>]
                                         send money of a payment back (balance settlement);
                                         <amount> in the payment's coin, as the API writes it
                                         (5 is five USDT, 0.5 half of one)
  refund get <refund id>                 one refund and where it stands
  refunds [--reference <r>] [--limit N]  the latest refunds, newest first
  events [--limit N]                     the latest events with their delivery attempts
  events resend <event id>               deliver an event again to your registered URL
  merchant create --name <n> --email <e>  for self-hosters, where the service runs (this
                                         repository): a business with its keys, shown once

options:
  --api <url>      the service (default $SERVICE_API_URL, else http://127.0.0.1:4010)
  --key <sk_…>     your secret key (default $SERVICE_SECRET_KEY)
  --json           one JSON object per line, for scripts

exit codes: 0 done, 1 the service refused or could not be reached, 2 a wrong command`;

export interface CliIo {
  env: Record<string, string | undefined>;
  out(line: string): void;
  err(line: string): void;
  /** Stops `listen` (Ctrl+C in the real command). */
  signal?: AbortSignal;
  /** A person is watching (stdout is a terminal): `trigger` waits for the confirmation unless --no-wait. */
  interactive?: boolean;
  /** How often `trigger --wait` asks again, and for how long at most (tests shorten these). */
  pollMs?: number;
  waitMs?: number;
}

class UsageError extends Error {}

function option(args: string[], name: string): string | undefined {
  const at = args.indexOf(`--${name}`);
  if (at < 0) return undefined;
  const value = args[at + 1];
  if (value === undefined || value.startsWith('--')) throw new UsageError(`--${name} needs a value`);
  return value;
}

const KINDS = { full: 'exact', partial: 'partial', over: 'over' } as const;

/** Why a request got no answer, in a word when Node has one (ECONNREFUSED). */
function unreachable(error: unknown): string {
  // The SDK's network failure wraps fetch's error, whose own cause has the code.
  const inner = error instanceof ServiceError && error.kind === 'network' ? error.cause : error;
  const cause = (inner as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (inner as Error).message;
}

/** What answered is not this service: its answer is not JSON at all (an HTML page, another server). */
const notTheService = (error: unknown): error is ServiceError => error instanceof ServiceError && error.kind === 'shape' && error.message.endsWith(NOT_JSON);

/** The service answered (a refusal, or not the contract): its message says so, naming the URL. */
const refused = (error: unknown): error is ServiceError => error instanceof ServiceError && error.kind !== 'network';

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });

type Payment = Awaited<ReturnType<ServiceClient['verifyPayment']>>;
/** Money counted: nothing still confirming, and no longer waiting for its first transfer. */
const counted = (p: Payment) => !p.confirming && p.status !== 'pending';
const paymentWords = (p: Payment) =>
  `${p.reference} is ${p.status}, ${p.amountPaid} of ${p.actualAmount} ${p.coin} paid` +
  (p.confirming ? `, ${p.confirming.amount} ${p.coin} confirming (${p.confirming.confirmations} of ${p.confirming.required} confirmations)` : '');
const paymentData = (p: Payment) => ({
  reference: p.reference,
  status: p.status,
  amountPaid: p.amountPaid,
  actualAmount: p.actualAmount,
  coin: p.coin,
  ...(p.confirming ? { confirming: p.confirming } : {}),
});

export async function runCli(args: string[], io: CliIo): Promise<number> {
  const json = args.includes('--json');
  const say = (words: string, data: Record<string, unknown>) => io.out(json ? JSON.stringify(data) : words);
  let base = 'http://127.0.0.1:4010';
  let tried: string | undefined;
  try {
    if (args.length === 0 || args.includes('--help') || args.includes('-h')) {
      io.out(USAGE);
      return args.length === 0 ? 2 : 0;
    }
    if (args[0] === 'merchant') return await merchant(args, io);
    base = option(args, 'api') ?? io.env.SERVICE_API_URL ?? base;
    if (!/^https?:\/\/[^/\s]+/.test(base))
      throw new UsageError(`--api: expected the service's http(s) URL such as http://127.0.0.1:4010, received ${JSON.stringify(base)}`);
    const positional = args.filter((a, i) => !a.startsWith('--') && !VALUED.includes(args[i - 1]!));
    const [command, ...rest] = positional;
    // The command first: a word that is none is said so, whatever the key.
    if (!command) throw new UsageError('a command is needed');
    if (!COMMANDS.includes(command)) throw new UsageError(`unknown command: ${command}`);
    const key = option(args, 'key') ?? io.env.SERVICE_SECRET_KEY;
    const from = option(args, 'key') !== undefined ? '--key' : 'SERVICE_SECRET_KEY';
    if (key && /^pk_(test|live)_/.test(key)) {
      throw new UsageError(
        `${from} is a public key (${key.slice(0, 8)}…: it goes in the checkout, in browsers); this command needs your secret key, sk_${key.slice(3, 7)}_… (the dashboard's Developers page)`,
      );
    }
    if (!key || !/^sk_(test|live)_/.test(key)) throw new UsageError('a secret key is needed: --key sk_test_… or SERVICE_SECRET_KEY');
    // The stop signal reaches every request, so Ctrl+C ends a long poll at once; the URL of
    // each is kept, so a failure can say where it tried.
    const client = new ServiceClient({
      secretKey: key,
      baseUrl: base,
      fetch: (url, init) => {
        tried = String(url);
        return fetch(url, { ...init, signal: io.signal });
      },
    });

    if (command === 'trigger' && (rest[0] === 'refund' || rest[0] === 'REFUND_UPDATED')) {
      // As `stripe trigger charge.refunded` does: a payment of its own paid in full and counted, then refunded.
      if (!key.startsWith('sk_test_')) throw new UsageError('trigger works with test keys only: a live payment needs a real transfer');
      if (rest.length > 2 || (rest[0] === 'REFUND_UPDATED' && rest.length > 1))
        throw new UsageError('trigger refund [<reference>] [--to <address>], or trigger REFUND_UPDATED [--to <address>]');
      let reference = rest[1];
      if (reference === undefined) {
        reference = await newTestPayment(client, args, say);
        const paid = await depositAndWait(client, reference, 'full', true, io, say, () => tried);
        if (paid !== 0) return paid;
      }
      const to = option(args, 'to');
      const r = await client.refunds.create({ reference, amount: 'rest', reason: 'trigger refund', ...(to ? { address: to } : {}) });
      say(
        `Refund ${r.status}: ${r.id}  ${r.reference}  ${r.amount_exact} ${r.coin}${r.address ? ` to ${r.address}` : ''}${r.claim_url ? `; the customer claims it at ${r.claim_url}` : ''}`,
        r,
      );
      return 0;
    }

    if (command === 'trigger') {
      // As `stripe trigger` does: with no reference, a payment of its own (test mode), then the deposit asked for.
      const [what, ...words] = rest;
      const own = (what === 'deposit' && words.length === 1) || what === 'DEPOSIT_TRANSACTION';
      const kind = what === 'DEPOSIT_TRANSACTION' ? (words[0] ?? 'full') : words.at(-1)!;
      if (!['deposit', 'DEPOSIT_TRANSACTION'].includes(what) || words.length > 2 || !(kind in KINDS) || (what === 'DEPOSIT_TRANSACTION' && words.length > 1)) {
        throw new UsageError('trigger deposit [<reference>] <full|partial|over>, or trigger DEPOSIT_TRANSACTION [full|partial|over]');
      }
      if (!key.startsWith('sk_test_')) throw new UsageError('trigger works with test keys only: a live payment needs a real transfer');
      const reference = (own ? undefined : words[0]) ?? (await newTestPayment(client, args, say));
      const wait = args.includes('--wait') || (io.interactive === true && !args.includes('--no-wait'));
      return await depositAndWait(client, reference, kind as keyof typeof KINDS, wait, io, say, () => tried);
    }

    if (command === 'refund' || command === 'refunds') {
      type Refund = Awaited<ReturnType<ServiceClient['refunds']['get']>>;
      const words = (r: Refund) => `${r.id}  ${r.reference}  ${r.amount_exact} ${r.coin} to ${r.address}  ${r.status}${r.tx_hash ? `  ${r.tx_hash}` : ''}`;
      if (command === 'refunds') {
        const limit = Number(option(args, 'limit') ?? 20);
        if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw new UsageError('--limit: expected a whole number from 1 to 100');
        const { data: refunds } = await client.refunds.list({ limit, reference: option(args, 'reference') });
        for (const r of refunds) say(words(r), r);
        if (!json && refunds.length === 0) io.out('No refunds yet.');
        return 0;
      }
      if (rest[0] === 'get') {
        if (!rest[1]) throw new UsageError('refund get <refund id>');
        const r = await client.refunds.get(rest[1]);
        say(words(r), r);
        return 0;
      }
      const [reference, amount] = rest;
      const to = option(args, 'to');
      const reason = option(args, 'reason');
      if (!reference || !amount || !(amount === 'rest' || COIN_AMOUNT.test(amount)) || !to || !reason)
        throw new UsageError("refund <reference> <amount|rest> --to <address> --reason <text> (the amount in the payment's coin, such as 5 or 0.5)");
      const r = await client.refunds.create({ reference, amount, reason, address: to }, { idempotencyKey: option(args, 'idempotency-key') });
      say(`Refund ${r.status}: ${words(r)}`, r);
      return 0;
    }

    if (command === 'events' && rest[0] === 'resend') {
      if (!rest[1]) throw new UsageError('events resend <event id>');
      const event = await client.events.resend(rest[1]);
      say(`Queued ${event.id} (${event.type}) for delivery again`, { id: event.id, type: event.type, state: event.state });
      return 0;
    }

    if (command === 'events') {
      const limit = Number(option(args, 'limit') ?? 20);
      if (!Number.isInteger(limit) || limit < 1 || limit > 200) throw new UsageError('--limit: expected a whole number from 1 to 200');
      // The newest `limit` events, oldest first: the feed's `recent` page.
      const kept = (await client.events.list({ after: 'recent', limit })).data;
      for (const event of kept) {
        const last = event.attempts.at(-1);
        const answer = last ? `${last.status || last.error} after ${event.attempts.length} attempt${event.attempts.length === 1 ? '' : 's'}` : 'not tried yet';
        const data = event.payload.data as { reference?: string; status?: string };
        say(
          `${event.id}  ${event.created}  ${event.type.padEnd(19)} ${String(data.reference ?? '').padEnd(24)} ${String(data.status ?? '').padEnd(10)} ${event.state.padEnd(11)} ${answer}`,
          event as unknown as Record<string, unknown>,
        );
      }
      if (!json && kept.length === 0) io.out('No events yet.');
      return 0;
    }

    if (command === 'listen') {
      const target = option(args, 'forward-to');
      if (!target || !/^https?:\/\//.test(target)) throw new UsageError('listen --forward-to <http(s) URL>');
      const { secret } = await client.webhook();
      // The cursor is fixed now, before the first long poll: a poll that fails is asked again
      // from it, so nothing that happened meanwhile is skipped.
      let cursor = (await client.events.list({ after: 'latest', limit: 1 })).next;
      say(`Forwarding new events to ${target}, signed with your webhook secret. Ctrl+C to stop.`, { listening: true, forwardTo: target });
      while (!io.signal?.aborted) {
        let page: { data: EventRecord[]; next: string };
        try {
          page = await client.events.list({ cursor, wait: 25 });
        } catch (error) {
          if (io.signal?.aborted) break;
          if (refused(error) && error.status >= 400 && error.status < 500 && error.status !== 429) throw error;
          io.err(`The service did not answer at ${tried} (${refused(error) ? error.message : unreachable(error)}); trying again in 2 s from the same cursor`);
          await sleep(io.pollMs ?? 2000, io.signal);
          continue;
        }
        cursor = page.next;
        for (const event of page.data) await forward(event, target, secret, say);
      }
      return 0;
    }
    throw new UsageError(command ? `unknown command: ${command}` : 'a command is needed');
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`service-checkout: ${error.message}\n\n${USAGE}`);
      return 2;
    }
    io.err(
      `service-checkout: ${
        notTheService(error)
          ? `this is not the service: ${tried ?? base} answered ${error.status} with something other than the service's JSON (a web page?); --api or SERVICE_API_URL names where the service listens (http://127.0.0.1:4010 by default)`
          : refused(error)
            ? error.message
            : `could not reach the service at ${tried ?? base} (${unreachable(error)}): is it running there? --api or SERVICE_API_URL says where it listens`
      }`,
    );
    return 1;
  }
}

type Say = (words: string, data: Record<string, unknown>) => void;

/** A test payment of the trigger's own (--amount 10, --currency USD, --coin USDT): its reference. */
async function newTestPayment(client: ServiceClient, args: string[], say: Say): Promise<string> {
  const coin = option(args, 'coin') ?? 'USDT';
  const currency = option(args, 'currency') ?? 'USD';
  const amount = option(args, 'amount') ?? '10';
  const made = await client.initializePayment({
    reference: `trigger_${randomUUID().slice(0, 18)}`,
    coin: coin as CoinSymbol,
    currency: currency as Currency,
    amount,
  });
  say(`Test payment made: ${made.reference}, ${amount} ${currency} as ${made.cryptoAmount} ${made.coin}`, {
    reference: made.reference,
    created: true,
    amount,
    currency,
    cryptoAmount: made.cryptoAmount,
    coin: made.coin,
  });
  return made.reference;
}

/** The sandbox's deposit for a payment, then (with `wait`) until it is counted: 0, or 1 past the wait. */
async function depositAndWait(
  client: ServiceClient,
  reference: string,
  kind: keyof typeof KINDS,
  wait: boolean,
  io: CliIo,
  say: Say,
  tried: () => string | undefined,
): Promise<number> {
  let payment = await client.sandboxDeposit(reference, KINDS[kind]);
  if (counted(payment)) {
    say(`Deposit sent: ${paymentWords(payment)}`, paymentData(payment));
    return 0;
  }
  if (!wait) {
    say(`Deposit sent: ${paymentWords(payment)}; it counts once confirmed (--wait waits for that)`, paymentData(payment));
    return 0;
  }
  say(`Deposit sent: ${paymentWords(payment)}; waiting until it is confirmed…`, { ...paymentData(payment), waiting: true });
  const waitMs = io.waitMs ?? 120_000;
  const end = Date.now() + waitMs;
  while (!counted(payment)) {
    if (io.signal?.aborted) return 1;
    if (Date.now() > end) {
      io.err(`service-checkout: ${paymentWords(payment)} after ${Math.round(waitMs / 1000)} s of waiting (${tried()}); is the service's chain making blocks?`);
      return 1;
    }
    await sleep(io.pollMs ?? 1000, io.signal);
    payment = await client.verifyPayment(reference);
  }
  say(`Confirmed: ${paymentWords(payment)}`, { ...paymentData(payment), confirmed: true });
  return 0;
}

/**
 * `merchant …` is the service's own command (npm run service -- merchant …): it writes to
 * the service's database, so it runs where the service runs, from this repository's build.
 * The published package has no service in it, and says so.
 */
async function merchant(args: string[], io: CliIo): Promise<number> {
  const main = ['../../server/main.js', '../../build/server/main.js'].map((p) => fileURLToPath(new URL(p, import.meta.url))).find(existsSync);
  if (!main) {
    io.err('service-checkout: merchant commands run where the service runs: in its repository, `npm run service -- merchant create --name … --email …`');
    return 2;
  }
  const child = spawn(process.execPath, [main, ...args], { env: { PATH: process.env.PATH, ...io.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines = (stream: NodeJS.ReadableStream, to: (line: string) => void) => {
    let rest = '';
    stream.on('data', (chunk) => {
      const parts = (rest + chunk).split('\n');
      rest = parts.pop()!;
      parts.forEach(to);
    });
    stream.on('end', () => rest && to(rest));
  };
  lines(child.stdout!, io.out);
  lines(child.stderr!, io.err);
  return new Promise((resolve) => child.on('close', (code) => resolve(code ?? 1)));
}

/** Delivers one event to the local URL, exactly as the service would, and says how it went. */
async function forward(event: EventRecord, target: string, secret: string, say: (words: string, data: Record<string, unknown>) => void) {
  const body = JSON.stringify(event.payload);
  const started = Date.now();
  let status = 0;
  let problem = '';
  try {
    const response = await fetch(target, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [SIGNATURE_HEADER]: signWebhook(secret, body), ...signStandardWebhook(secret, event.id, body) },
      body,
      signal: AbortSignal.timeout(10_000),
    });
    status = response.status;
    await response.arrayBuffer();
  } catch (error) {
    problem = String((error as Error).cause ?? (error as Error).message);
  }
  const data = event.payload.data as { reference?: string; status?: string };
  const ms = Date.now() - started;
  say(`${event.id}  ${event.type}  ${data.reference ?? ''} ${data.status ?? ''}  → ${status ? `[${status}]` : `failed: ${problem}`} ${ms} ms`, {
    id: event.id,
    type: event.type,
    reference: data.reference,
    status: data.status,
    answer: status,
    error: problem || null,
    ms,
  });
}
