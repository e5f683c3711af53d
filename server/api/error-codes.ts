// The error codes each operation may answer, from what its route object declares: its key,
// input and checks imply theirs (a body: validation_failed and payload_too_large; a rate limit:
// rate_limited; …), and `errors` adds a status's general code (409: conflict) or a finer one by
// name (insufficient_balance, which is a 409). The OpenAPI document lists them per operation
// and status; the conformance test checks every error answer it sees against that list.
import { ERROR_CODES, type ErrorCode } from '../../contract/error-codes.ts';
import { checksOf } from './checks.ts';
import type { Route } from './route.ts';

/** The code of each status when a route names the status, not a finer code. */
export const GENERAL_CODE: Record<number, ErrorCode> = {
  400: 'validation_failed',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  409: 'conflict',
  413: 'payload_too_large',
  429: 'rate_limited',
  500: 'internal_error',
  503: 'service_unavailable',
};

/** The codes the route may answer, by status (ascending), each list sorted. */
export function operationCodes(
  route: Pick<Route, 'method' | 'path' | 'auth' | 'body' | 'query' | 'errors' | 'checks' | 'movesMoney' | 'idempotency' | 'permission' | 'stepUp'>,
): Map<number, ErrorCode[]> {
  const codes = new Set<ErrorCode>(['internal_error']);
  const pathParams = /:[a-zA-Z]/.test(route.path);
  if (route.auth !== 'none') codes.add('unauthorized');
  // A session's writes are refused without their CSRF token, or from another origin.
  if (route.auth === 'merchant' && route.method !== 'GET') codes.add('csrf_rejected');
  // A member's role or a restricted key without the route's permission.
  if (route.permission && route.auth !== 'none' && route.auth !== 'operator' && route.auth !== 'public') codes.add('permission_denied');
  // A session that must enrol a second factor first, and a step-up the route declares.
  if (route.auth === 'merchant') codes.add('second_factor_required');
  if (route.stepUp && route.auth === 'merchant') codes.add('step_up_required');
  if (route.body || route.query || pathParams) codes.add('validation_failed');
  if (route.body) codes.add('payload_too_large');
  if (pathParams) codes.add('not_found');
  // What its checks may refuse with (a money-moving route's allowance among them).
  for (const when of ['before body', 'after body'] as const) for (const check of checksOf(route, when)) for (const code of check.refuses) codes.add(code);
  // An Idempotency-Key written wrong (400), or reused for another request or still running (409).
  if (route.method !== 'GET' && route.auth !== 'none' && route.idempotency !== false) {
    codes.add('validation_failed');
    codes.add('conflict');
  }
  for (const error of route.errors ?? []) {
    const code = typeof error === 'string' ? error : GENERAL_CODE[error];
    if (!code) throw new Error(`${route.method} ${route.path}: no error code for status ${error}`);
    codes.add(code);
  }
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of [...codes].sort()) {
    const status = ERROR_CODES[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return new Map([...byStatus].sort(([a], [b]) => a - b));
}
