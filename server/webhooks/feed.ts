// The merchant's events as GET /api/v1/events reads them: forward from a cursor, from the newest
// (`after: latest`), from a recent page (`after: recent`, where the dashboard starts), or a page
// further back (`before`, alone); with `wait`, a request that finds nothing new is held open (at
// most the instance's and the key's share of held requests) until an event is written or the wait
// ends. One more than asked is read to say whether more are there already.
import type { Account } from '../domain/account.ts';
import { invalidField, TooMany } from '../domain/errors.ts';
import { cursorParts } from '../http/cursor.ts';
import type { PaymentChanges } from '../realtime/changes.ts';
import { eventsKey } from '../realtime/keys.ts';
import type { DashboardStore } from '../dashboard/store.ts';
import type { EventStore, StoredEvent } from '../storage/events.ts';

/** What reading the events needs of the service. */
export interface FeedParts {
  events: Pick<EventStore, 'lastSeq' | 'list' | 'listBefore'>;
  dashboard: Pick<DashboardStore, 'recentStart'>;
  changes: Pick<PaymentChanges, 'pools' | 'full' | 'wait'>;
}

/** The query as its schema checked each value's form: what is left is what they mean. */
export interface FeedQuery {
  limit?: number | string;
  cursor?: string;
  after?: 'latest' | 'recent';
  before?: number | string;
  wait?: number | string;
}

/** One page: its events, the seq to go on from, and whether more are there already. Undefined: the client went away while it waited. */
export async function readEvents(
  service: FeedParts,
  account: Account,
  query: FeedQuery,
  gone: AbortSignal,
): Promise<{ events: StoredEvent[]; next: number; more: boolean } | undefined> {
  const limit = Number(query.limit ?? 50);
  if (query.cursor !== undefined && query.after !== undefined)
    throw invalidField('after', 'expected after or cursor, not both: after says where to start without a cursor');
  const after =
    query.cursor !== undefined
      ? Number(cursorParts('events', query.cursor, [/^\d{1,16}$/])[0])
      : query.after === 'latest'
        ? await service.events.lastSeq(account)
        : query.after === 'recent'
          ? await service.dashboard.recentStart(account.merchant.id, account.mode, limit)
          : 0;
  const wait = Number(query.wait ?? 0);
  if (query.before !== undefined) {
    // A page further back: the `limit` events before that seq, oldest first; `next` is still a cursor forward.
    const before = Number(query.before);
    if (query.cursor !== undefined || query.after !== undefined || wait > 0)
      throw invalidField('before', 'expected before alone, without cursor, after or wait: it pages back, they follow forward');
    const older = await service.events.listBefore(account, before, limit);
    const next = older.at(-1)?.number ?? before - 1;
    return { events: older, next, more: (await service.events.list(account, next, 1)).length > 0 };
  }
  let events = await service.events.list(account, after, limit + 1);
  if (events.length === 0 && wait > 0) {
    const pools = service.changes.pools(`${account.merchant.id}/${account.mode}`, 'secret');
    const full = service.changes.full(pools);
    if (full) throw new TooMany(`Too many requests held open ${full.whose} (at most ${full.max}); try again shortly`, 2);
    await service.changes.wait(eventsKey(account.merchant.id, account.mode), pools, wait * 1000, gone);
    if (gone.aborted) return undefined;
    events = await service.events.list(account, after, limit + 1);
  }
  const shown = events.slice(0, limit);
  return { events: shown, next: shown.at(-1)?.number ?? after, more: events.length > limit };
}
