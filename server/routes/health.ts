// For the operator and their load balancer: is the process up, and is it ready to take payments.
import { ok } from '../http/respond.ts';
import type { Handler } from './context.ts';

/** The process answers. */
export const healthz: Handler = async () => ok(200, { status: 'ok' }, 'Alive');

/** The database answers and every watched chain is followed closely; 503 naming what is not. */
export const readyz: Handler = async ({ service }) => {
  // What each check found, in words; the figures behind some (a gas wallet's balance) are /metrics'.
  const checks = (await service.readiness()).map(({ name, ok, detail }) => ({ name, ok, detail }));
  const ready = checks.every((c) => c.ok);
  return { status: ready ? 200 : 503, body: { status: ready ? 'success' : 'error', statusCode: ready ? 200 : 503, message: ready ? 'Ready' : `Not ready: ${checks.filter((c) => !c.ok).map((c) => `${c.name}: ${c.detail}`).join('; ')}`, data: checks } };
};
