// The audit log's API: who did what, newest first, in pages, with filters.
import { AuditQuery, AuditAnswer } from '../../contract/team.ts';
import { cursorParts, cursorText, pageOf } from '../http/cursor.ts';
import { ok } from '../http/respond.ts';
import type { OpaqueIds } from '../http/opaque-ids.ts';
import type { AuditRow } from './store.ts';
import { invalidField } from '../domain/errors.ts';
import type { Handler as AnyHandler, Schemas } from '../api/context.ts';
import { route } from '../api/route.ts';

/** The parts of the service these routes use: their handlers are given these alone. */
type Uses = 'audit' | 'ids';
type Handler<S extends Schemas = {}> = AnyHandler<S, Uses>;

/** The row a cursor names: the previous page's last; another list's or made-up text is the 400 naming `cursor`. */
function before(ids: OpaqueIds, cursor: string): number {
  const n = ids.number('audit', cursorParts('audit', cursor, [/^[A-Za-z0-9_-]{22}$/])[0]!);
  if (n === undefined) throw invalidField('cursor', 'expected a cursor this list answered as next');
  return n;
}

/** An entry as the log answers it: ids opaque (a row's number counts every merchant's writes). */
const entryView = (ids: Pick<OpaqueIds, 'text'>) => (r: AuditRow) => ({
  id: ids.text('audit', r.id),
  at: new Date(r.atMs).toISOString(),
  mode: r.mode,
  actor: r.actor,
  client: r.client,
  action: r.action,
  target: r.target ?? null,
  details: r.details,
});

export const auditLog: Handler<{ query: typeof AuditQuery }> = async ({ account, query, service }) => {
  const limit = Number(query.limit ?? 50);
  const rows = await service.audit.list(account.merchant.id, {
    mode: account.mode,
    actorKind: query.actor_kind,
    actorId: query.actor,
    action: query.action,
    sinceMs: query.from === undefined ? undefined : Date.parse(query.from),
    untilMs: query.to === undefined ? undefined : Date.parse(query.to),
    // The cursor holds the id of the page's last entry: the next page starts below it.
    before: query.cursor === undefined ? undefined : before(service.ids, query.cursor),
    limit: limit + 1,
  });
  const { page, ...paging } = pageOf(rows, limit, (last) => cursorText('audit', service.ids.text('audit', last.id)));
  return ok(200, page.map(entryView(service.ids)), `${page.length} entries`, paging);
};

export const routes = [
  route({
    method: 'GET',
    path: '/api/v1/audit_log',
    auth: 'merchant',
    permission: 'audit.read',
    handler: auditLog,
    tag: 'Account',
    query: AuditQuery,
    summary: 'the audit log: who changed what and moved which money, newest first',
    description:
      "Every write of a session or a secret key that succeeded, in the caller's mode: `actor` (the owner, a member by id and e-mail, or a key by id or hint), `client` (its address), `action` (method and route), `target`, and `details` (path ids, the names of the fields sent, and the values of those never secret: amount, coin, role, permissions…). Filters: `actor` (an actor id), `actor_kind`, `action` (such as `POST /api/v1/withdrawals`), `from`, `to`; `limit` (50 by default, at most 100), and `cursor` (the `next` of the page before; opaque, `next` null and `has_more` false on the last page). Stored append-only.",
    responses: { 200: AuditAnswer },
  }),
];
