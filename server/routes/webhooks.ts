// The merchant's webhook endpoint and its events: register a URL, read it and its signing
// secret, rotate the secret, follow the events feed with each delivery attempt, re-send one.
import { MAX_WAIT_SECONDS, PayoutAddressBody, WebhookBody } from '../../contract/schemas.ts';
import { Conflict, invalidField, NotFound, TooMany } from '../domain/errors.ts';
import { eventsKey } from '../realtime/keys.ts';
import { webhookUrlProblem } from '../domain/webhooks.ts';
import { readJson } from '../http/body.ts';
import { ok } from '../http/respond.ts';
import { parse } from '../http/validate.ts';
import type { Attempt, StoredEvent } from '../storage/events.ts';
import { changeView } from '../storage/destinations.ts';
import type { Handler } from './context.ts';
import { isIP } from 'node:net';
import { addressProblem, loopbackPolicy } from '../http/outbound-addresses.ts';
import { getAddress, isAddress } from 'viem';

const endpointView = (endpoint: { url: string | null; secret: string; previousSecret: string | null; previousUntilMs: number | null }) => ({
  url: endpoint.url,
  secret: endpoint.secret,
  ...(endpoint.previousSecret && endpoint.previousUntilMs ? { previousSecretValidUntil: new Date(endpoint.previousUntilMs).toISOString() } : {}),
});

export const putWebhook: Handler = async ({ req, account, service }) => {
  const { url } = parse(WebhookBody, await readJson(req));
  const problem = webhookUrlProblem(url, account.mode, service.config.loopbackWebhooks);
  if (problem) throw invalidField('url', problem);
  // An address written in the URL is checked now, as delivery would: refused at once, not retried for days.
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  const refused = isIP(host) ? addressProblem(host, loopbackPolicy(account.mode, service.config.loopbackWebhooks)) : undefined;
  if (refused) throw invalidField('url', `expected a public host: ${refused}`);
  await service.merchants.setWebhookUrl(account, url, service.now());
  return ok(200, endpointView(await service.merchants.endpoint(account)), 'Webhook URL saved');
};

/**
 * Where the merchant's deposits on a chain are swept to. A deposit address is bound to it
 * (CREATE2) when the payment is made, so a change applies to payments made after it takes
 * effect: at once for test keys and a chain's first address; after the operator's delay for a
 * live key replacing one. A payment made before keeps the address it was bound to.
 */
export const putPayoutAddress: Handler = async ({ req, account, service }) => {
  const body = parse(PayoutAddressBody, await readJson(req));
  // A mixed-case address carries an EIP-55 checksum: one wrong letter is a typo, and money sent there is lost.
  // (All lower case carries no checksum, and viem's strict check takes it; all upper case neither.)
  if (!isAddress(body.address, { strict: true }) && body.address.slice(2) !== body.address.slice(2).toUpperCase()) {
    throw invalidField('address', `expected a valid EIP-55 checksum (mixed case), or all lower case; did you mean ${getAddress(body.address.toLowerCase())}? Check the address before money goes there`);
  }
  // A key names only its own mode's chains: a test key must never say where live money goes.
  const network = service.catalog.network(account.mode, body.chain_id);
  if (!network) {
    const networks = service.catalog.networks(account.mode);
    const offered = networks.length ? networks.map((n) => `${n.chainId} (${n.name})`).join(', ') : 'none: no network is configured for them';
    throw new Conflict(`chain_id ${body.chain_id} is not a network of your ${account.mode} keys; ${account.mode} keys take payments on chain ${offered}`, [
      { field: 'chain_id', message: `expected a chain of your ${account.mode} keys' networks` },
    ]);
  }
  // The operator's treasury holds balance-settled merchants' money: a deposit swept there on wallet settlement would count as no one's.
  if (network.treasury && body.address.toLowerCase() === network.treasury.toLowerCase()) throw invalidField('address', 'expected a wallet of yours, not the service\'s treasury');
  // A live key replacing an address: the new one waits the operator's delay (the owner told, free to cancel it).
  const { effectiveMs, change } = await service.destinations.setPayoutAddress(account, body.chain_id, body.address, service.now());
  const effectiveAt = new Date(effectiveMs).toISOString();
  if (change) service.log.info({ merchant: account.merchant.id, change: change.id }, 'payout address change pending');
  return ok(
    200,
    { chain_id: body.chain_id, address: body.address, pending: change !== undefined, effective_at: effectiveAt, ...(change ? { change: changeView(change) } : {}) },
    change
      ? `Payout address pending: payments made from ${effectiveAt} are bound to it; until then they are bound to the current one. The owner can cancel it in the dashboard's Settings`
      : 'Payout address saved',
  );
};

/** Each chain's address in effect, and the one waiting to replace it, if any. */
export const getPayoutAddresses: Handler = async ({ account, service }) => {
  const addresses = await service.merchants.payoutAddresses(account.merchant.id, account.mode);
  const waiting = (await service.destinations.pending(account, service.now())).filter((c) => c.kind === 'payout_address');
  return ok(
    200,
    addresses.map(({ chainId, address }) => {
      const pending = waiting.find((c) => c.chainId === chainId);
      return { chain_id: chainId, address, ...(pending ? { pending: changeView(pending) } : {}) };
    }),
    'Payout addresses',
  );
};

export const getWebhook: Handler = async ({ account, service }) => ok(200, endpointView(await service.merchants.endpoint(account)), 'Webhook endpoint');

export const rotateSecret: Handler = async ({ account, service }) =>
  ok(200, endpointView(await service.merchants.rotateWebhookSecret(account, service.now(), service.config.rotationOverlapMs)), 'Webhook secret rotated; the old one signs too until previousSecretValidUntil');

const eventView = (event: StoredEvent, attempts: Attempt[]) => ({
  id: event.id,
  seq: event.seq,
  type: event.type,
  state: event.state,
  created: new Date(event.createdMs).toISOString(),
  nextAttemptAt: event.nextAttemptMs === null ? null : new Date(event.nextAttemptMs).toISOString(),
  payload: JSON.parse(event.body),
  attempts: attempts
    .filter((a) => a.eventId === event.id)
    .map((a) => ({ attempt: a.attempt, url: a.url, status: a.status, error: a.error, durationMs: a.durationMs, at: new Date(a.atMs).toISOString() })),
});

/**
 * The feed: events after a cursor, oldest first. `after=latest` starts at the newest (for
 * a listener that wants only what comes next); `after=recent` so that the page holds the
 * `limit` newest events (the dashboard's events screen); `wait=1..30` holds the request until an
 * event arrives, as the verify long poll does.
 */
export const listEvents: Handler = async ({ query, res, account, service }) => {
  const afterText = query.get('after') ?? '0';
  const limit = Number(query.get('limit') ?? 50);
  const after =
    afterText === 'latest' ? await service.events.lastSeq(account)
    : afterText === 'recent' && Number.isInteger(limit) ? await service.dashboard.recentStart(account.merchant.id, account.mode, limit)
    : Number(afterText);
  const wait = query.has('wait') ? Number(query.get('wait')) : 0;
  if (!Number.isSafeInteger(after) || after < 0) throw invalidField('after', `expected a whole number of at least 0, latest or recent, received ${JSON.stringify(afterText.slice(0, 20))}`);
  if (!Number.isInteger(limit) || limit < 1 || limit > 200) throw invalidField('limit', `expected a whole number from 1 to 200, received ${JSON.stringify(query.get('limit'))}`);
  if (!Number.isInteger(wait) || wait < 0 || wait > MAX_WAIT_SECONDS) throw invalidField('wait', `expected whole seconds from 0 to ${MAX_WAIT_SECONDS}, received ${JSON.stringify(query.get('wait'))}`);
  const page = async (events: StoredEvent[], next: number) => {
    const attempts = await service.events.attempts(events.map((e) => e.id));
    return ok(200, events.map((e) => eventView(e, attempts)), 'Events', { next });
  };
  if (query.has('before')) {
    // A page further back: the `limit` events before that seq, oldest first; `next` is still a cursor forward.
    const before = Number(query.get('before'));
    if (!Number.isSafeInteger(before) || before < 1) throw invalidField('before', `expected a whole number of at least 1 (an event's seq), received ${JSON.stringify(query.get('before')!.slice(0, 20))}`);
    if (query.has('after') || wait > 0) throw invalidField('before', 'expected before alone, without after or wait: it pages back, they follow forward');
    const older = await service.events.listBefore(account, before, limit);
    return page(older, older.at(-1)?.seq ?? before - 1);
  }
  let events = await service.events.list(account, after, limit);
  if (events.length === 0 && wait > 0) {
    const pools = service.changes.pools(`${account.merchant.id}/${account.mode}`, 'secret');
    const full = service.changes.full(pools);
    if (full) throw new TooMany(`Too many requests held open ${full.whose} (at most ${full.max}); try again shortly`, 2);
    const gone = new AbortController();
    res.on('close', () => gone.abort());
    await service.changes.wait(eventsKey(account.merchant.id, account.mode), pools, wait * 1000, gone.signal);
    if (gone.signal.aborted) return undefined;
    events = await service.events.list(account, after, limit);
  }
  return page(events, events.at(-1)?.seq ?? after);
};

export const resendEvent: Handler = async ({ params, account, service }) => {
  if (!(await service.events.resend(account, params.id, service.now()))) throw new NotFound(`No event ${params.id}`);
  const event = (await service.events.get(account, params.id))!;
  return ok(202, eventView(event, await service.events.attempts([event.id])), 'Event queued for delivery');
};
