// The few HTTP chores the stub needs, on Node's own http module.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FieldError } from '../../src/wire/field-errors.ts';

export const MAX_BODY_BYTES = 16 * 1024;

export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly errors?: FieldError[],
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/**
 * Public endpoints answer any merchant origin; nothing rides on cookies. A page on another
 * origin reads only the CORS-safelisted headers unless told: the checkout reads Date (to set
 * its countdown by the server's clock) and Retry-After (to wait as long as asked).
 */
export function cors(res: ServerResponse): void {
  res.setHeader('access-control-allow-origin', '*');
  res.setHeader('access-control-expose-headers', 'date, retry-after');
  res.setHeader('access-control-allow-methods', 'GET, POST, PUT, PATCH, DELETE, OPTIONS');
  res.setHeader('access-control-allow-headers', 'content-type, x-api-key, authorization');
  res.setHeader('access-control-max-age', '600');
}

export function sendJson(res: ServerResponse, statusCode: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(statusCode, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers });
  res.end(text);
}

export function sendError(res: ServerResponse, error: HttpError): void {
  sendJson(
    res,
    error.statusCode,
    { status: 'error', statusCode: error.statusCode, message: error.message, ...(error.errors ? { errors: error.errors } : {}) },
    error.headers,
  );
}

/** Reads a body of at most `limit` bytes (413 past it). */
export async function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limit) throw new HttpError(413, `Request body is larger than ${limit} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new HttpError(413, `Request body is larger than ${limit} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** Reads a JSON body, refusing more than MAX_BODY_BYTES (413) and anything but JSON (400). */
export async function readJson(req: IncomingMessage): Promise<unknown> {
  const text = (await readBody(req)).toString('utf8');
  if (!/^application\/json\b/i.test(req.headers['content-type'] ?? '')) {
    throw new HttpError(400, 'Request body must be JSON (content-type: application/json)');
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new HttpError(400, 'Request body is not valid JSON');
  }
}
