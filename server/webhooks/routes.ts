// The merchant's webhook endpoint and its events: register a URL, read it and its signing
// secret, rotate the secret, follow the events feed with each delivery attempt, re-send one.
import { answer, EventRecord, EventsAnswer, WebhookEndpoint } from '../../contract/api.ts';
import { WebhookBody } from '../../contract/schemas.ts';
import { NotFound, invalidField } from '../domain/errors.ts';
import { webhookUrlProblem } from './rules.ts';
import { readEvents } from './feed.ts';
import { cursorText } from '../http/cursor.ts';
import { EventsQuery } from '../http/queries.ts';
import { ok } from '../http/respond.ts';
import type { Attempt, StoredEvent } from '../storage/events.ts';
import type { Handler as AnyHandler, Schemas } from '../api/context.ts';
import { route } from '../api/route.ts';
import { isIP } from 'node:net';
import { addressProblem, loopbackPolicy } from '../http/outbound-addresses.ts';

/** The parts of the service these routes use: their handlers are given these alone. */
type Uses = 'changes' | 'config' | 'dashboard' | 'events' | 'merchants' | 'now';
type Handler<S extends Schemas = {}> = AnyHandler<S, Uses>;

const endpointView = (endpoint: { url: string | null; secret: string; previousSecret: string | null; previousUntilMs: number | null }) => ({
  url: endpoint.url,
  secret: endpoint.secret,
  ...(endpoint.previousSecret && endpoint.previousUntilMs ? { previousSecretValidUntil: new Date(endpoint.previousUntilMs).toISOString() } : {}),
});

export const putWebhook: Handler<{ body: typeof WebhookBody }> = async ({ body: { url }, account, service }) => {
  const problem = webhookUrlProblem(url, account.mode, service.config.loopbackWebhooks);
  if (problem) throw invalidField('url', problem);
  // An address written in the URL is checked now, as delivery would: refused at once, not retried for days.
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  const refused = isIP(host) ? addressProblem(host, loopbackPolicy(account.mode, service.config.loopbackWebhooks)) : undefined;
  if (refused) throw invalidField('url', `expected a public host: ${refused}`);
  await service.merchants.setWebhookUrl(account, url, service.now());
  return ok(200, endpointView(await service.merchants.endpoint(account)), 'Webhook URL saved');
};

export const getWebhook: Handler = async ({ account, service }) => ok(200, endpointView(await service.merchants.endpoint(account)), 'Webhook endpoint');

export const rotateSecret: Handler = async ({ account, service }) =>
  ok(
    200,
    endpointView(await service.merchants.rotateWebhookSecret(account, service.now(), service.config.rotationOverlapMs)),
    'Webhook secret rotated; the old one signs too until previousSecretValidUntil',
  );

const eventView = (event: StoredEvent, attempts: Attempt[]) => ({
  id: event.id,
  seq: event.number,
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
 * The feed: events after a cursor, oldest first. Without one, `after=latest` starts at the
 * newest (for a listener that wants only what comes next), `after=recent` so that the page holds
 * the `limit` newest events (the dashboard's events screen), and neither at the first; `wait=1..30`
 * holds the request until an event arrives, as the verify long poll does. `next` is never null:
 * the feed goes on, and `next` is where to follow it from.
 */
export const listEvents: Handler<{ query: typeof EventsQuery }> = async ({ query, res, account, service }) => {
  const gone = new AbortController();
  res.on('close', () => gone.abort());
  const page = await readEvents(service, account, query, gone.signal);
  if (!page) return undefined;
  const attempts = await service.events.attempts(page.events.map((e) => e.id));
  return ok(
    200,
    page.events.map((e) => eventView(e, attempts)),
    'Events',
    { next: cursorText('events', page.next), has_more: page.more },
  );
};

export const resendEvent: Handler = async ({ params, account, service }) => {
  if (!(await service.events.resend(account, params.id, service.now()))) throw new NotFound(`No event ${params.id}`);
  const event = (await service.events.get(account, params.id))!;
  return ok(202, eventView(event, await service.events.attempts([event.id])), 'Event queued for delivery');
};

export const routes = [
  route({
    method: 'PUT',
    path: '/api/v1/webhook',
    auth: 'merchant',
    permission: 'developers.write',
    handler: putWebhook,
    tag: 'Webhooks',
    summary: 'where events go',
    description:
      'Answers the URL and the signing secret. An address written in the URL is checked now, as delivery would: a private one is refused at once (400 naming `url`).',
    body: WebhookBody,
    responses: { 200: answer(WebhookEndpoint) },
  }),
  route({
    method: 'GET',
    path: '/api/v1/webhook',
    auth: 'merchant',
    permission: 'developers.read',
    handler: getWebhook,
    tag: 'Webhooks',
    summary: 'the webhook URL and signing secret',
    description: 'The URL (or null) and the signing secret.',
    responses: { 200: answer(WebhookEndpoint) },
  }),
  route({
    method: 'POST',
    path: '/api/v1/webhook/rotate',
    auth: 'merchant',
    permission: 'developers.write',
    handler: rotateSecret,
    tag: 'Webhooks',
    summary: 'a new signing secret; the old one overlaps',
    description: 'The old secret keeps signing beside the new one for 24 hours (`previousSecretValidUntil`).',
    responses: { 200: answer(WebhookEndpoint) },
  }),
  route({
    method: 'GET',
    path: '/api/v1/events',
    auth: 'merchant',
    permission: 'developers.read',
    handler: listEvents,
    tag: 'Webhooks',
    summary: 'the events feed, with delivery attempts',
    description:
      "Events oldest first, each with its payload, state and delivery attempts; `seq` numbers the account's own events (1, 2, 3… per merchant and mode: no gap counts another merchant's). Pages as every list does: `cursor` is `next` of the answer before (opaque), `limit` 1–200 (50), `has_more` says whether more events are already there; `next` is never null, as the feed goes on. Without a cursor the feed starts at the first event, or where `after` says: `latest` (from now on) or `recent` (the page holds the `limit` newest events). `wait` (0–30 s) holds the request until an event comes. `before` (an event's `seq`, alone) pages back: the `limit` events before it, oldest first.",
    query: EventsQuery,
    responses: { 200: EventsAnswer },
    errors: [429],
  }),
  route({
    method: 'POST',
    path: '/api/v1/events/:id/resend',
    auth: 'merchant',
    permission: 'developers.write',
    handler: resendEvent,
    tag: 'Webhooks',
    summary: 'deliver an event again',
    description:
      'Queues the event (by its `id` from the feed) for another delivery to the webhook URL, signed anew, whatever became of the earlier attempts; 202 with the event and its attempts so far.',
    responses: { 202: answer(EventRecord) },
  }),
];
