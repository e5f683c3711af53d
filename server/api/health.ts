// For the operator and their load balancer: is the process up, and is it ready to take payments.
import { Alive, answer, Readiness } from '../../contract/api.ts';
import { ok } from '../http/respond.ts';
import type { Handler as AnyHandler, Schemas } from './context.ts';
import { route } from './route.ts';

/** The parts of the service these routes use: their handlers are given these alone. */
type Uses = 'readiness';
type Handler<S extends Schemas = {}> = AnyHandler<S, Uses>;

/** The process answers. */
export const healthz: Handler = async () => ok(200, { status: 'ok' }, 'Alive');

/** The database answers and every watched chain is followed closely; 503 naming what is not. */
export const readyz: Handler = async ({ service }) => {
  // What each check found, in words; the figures behind some (a gas wallet's balance) are /metrics'.
  const all = await service.readiness();
  const checks = all.map(({ name, ok, detail }) => ({ name, ok, detail }));
  const ready = checks.every((c) => c.ok);
  // Degraded, not down: a warning (a treasury's surplus) keeps 200 and is named.
  const warnings = all.filter((c) => c.ok && c.warning).map((c) => `${c.name}: ${c.detail}`);
  const message = ready
    ? warnings.length
      ? `Ready, with a warning: ${warnings.join('; ')}`
      : 'Ready'
    : `Not ready: ${checks
        .filter((c) => !c.ok)
        .map((c) => `${c.name}: ${c.detail}`)
        .join('; ')}`;
  return { status: ready ? 200 : 503, body: { status: ready ? 'success' : 'error', statusCode: ready ? 200 : 503, message, data: checks } };
};

export const routes = [
  route({
    method: 'GET',
    path: '/healthz',
    auth: 'none',
    handler: healthz,
    tag: 'Operations',
    summary: 'the process answers',
    description: 'Liveness: 200 while the process serves requests, checking nothing else (`/readyz` checks the database and the chains). No key.',
    responses: { 200: answer(Alive) },
  }),
  route({
    method: 'GET',
    path: '/readyz',
    auth: 'none',
    handler: readyz,
    tag: 'Operations',
    summary: 'the database answers and each chain is followed; 503 naming what is not',
    description: "Each watched chain's watcher is within `READY_MAX_LAG_BLOCKS` (50) of its head; 503 naming what is not, with each check in `data`.",
    responses: { 200: Readiness, 503: Readiness },
  }),
];
