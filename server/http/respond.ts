// Answers: JSON in the contract's envelope, and every error mapped to its status in one
// place. Handlers throw domain errors; only this file knows their HTTP codes.
import type { ServerResponse } from 'node:http';
import type { FieldError } from '../../contract/field-errors.ts';
import { ERROR_CODES } from '../../contract/error-codes.ts';
import { type DomainError, MethodNotAllowed, TooMany } from '../domain/errors.ts';

export interface Reply {
  status: number;
  body: unknown;
  /** A list for a header sent more than once (two Set-Cookie). */
  headers?: Record<string, string | string[]>;
}

export const ok = (status: number, data: unknown, message?: string, extra: object = {}): Reply => ({
  status,
  body: { status: 'success', statusCode: status, ...(message ? { message } : {}), ...extra, ...(data === undefined ? {} : { data }) },
});

/**
 * Public endpoints answer any merchant origin; nothing rides on cookies. A page on another
 * origin reads only the CORS-safelisted headers unless told: the checkout reads Date (to set
 * its countdown by the server's clock) and Retry-After (to wait as long as asked); Request-Id
 * is exposed for a merchant's page to quote, RateLimit and RateLimit-Policy for it to pace itself.
 */
export function cors(res: ServerResponse): void {
  res.setHeader('access-control-allow-origin', '*');
  res.setHeader('access-control-expose-headers', 'date, retry-after, request-id, ratelimit, ratelimit-policy');
  res.setHeader('access-control-allow-methods', 'GET, POST, PUT, PATCH, DELETE, OPTIONS');
  res.setHeader('access-control-allow-headers', 'content-type, x-api-key, authorization, x-request-id');
  res.setHeader('access-control-max-age', '600');
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string | string[]> = {}): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers });
  res.end(JSON.stringify(body));
}

/** An error's answer: the status its code names (contract/error-codes.ts), the code, the message and the fields. */
export function errorReply(error: DomainError): Reply {
  const status: number = ERROR_CODES[error.code];
  const headers: Record<string, string> =
    error instanceof TooMany
      ? { 'retry-after': String(error.retryAfterSeconds) }
      : error instanceof MethodNotAllowed
        ? { allow: error.allowed.join(', ') }
        : {};
  const errors: FieldError[] | undefined = error.fields;
  return { status, body: { status: 'error', statusCode: status, code: error.code, message: error.message, ...(errors ? { errors } : {}) }, headers };
}

export const internalError = (): Reply => ({
  status: 500,
  body: { status: 'error', statusCode: 500, code: 'internal_error', message: 'Internal error: it was logged, and the service keeps running' },
});

/**
 * A writer of `res` the client paces: each chunk's promise settles once it has left (write()
 * false: on 'drain'), or the client went away, so a client that stops reading holds one chunk.
 */
export const pacedWriter =
  (res: ServerResponse) =>
  (chunk: string): Promise<void> =>
    res.write(chunk)
      ? Promise.resolve()
      : new Promise<void>((resolve) => {
          const go = () => {
            res.off('drain', go);
            res.off('close', go);
            resolve();
          };
          res.once('drain', go);
          res.once('close', go);
        });
