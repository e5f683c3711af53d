// Every answer's `Request-Id`: made here for each request (req_ and 16 random base64url
// characters), sent as a header and written in the request's log line, so a developer who
// quotes it finds that line. An id the client sends (X-Request-Id or Request-Id) is never the
// answer's id, which the service alone makes (a client cannot make two requests share one, or
// name another's); a short one of safe characters is logged beside it as `clientRequestId`,
// for the client's own tracing. Nothing else reads it.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export const REQUEST_ID_HEADER = 'request-id';
const CLIENT_ID = /^[A-Za-z0-9._:-]{1,64}$/;

export const newRequestId = (): string => 'req_' + randomBytes(12).toString('base64url');

/** The id the client sent, if it is 1 to 64 letters, digits or . _ : -; anything else is dropped. */
export function clientRequestId(req: IncomingMessage): string | undefined {
  const sent = req.headers['x-request-id'] ?? req.headers['request-id'];
  return typeof sent === 'string' && CLIENT_ID.test(sent) ? sent : undefined;
}
