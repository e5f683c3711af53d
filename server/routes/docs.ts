// The API's description, served: the OpenAPI 3.1 document and its human-readable page, both
// made once per origin from the route table and the contract's schemas.
import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { referencePage, STYLE } from '../views/reference.ts';
import { openApiDocument } from './api-doc.ts';
import type { Handler } from './context.ts';
import { ROUTES } from './table.ts';

const STYLE_HASH = `sha256-${createHash('sha256').update(STYLE).digest('base64')}`;
const made = new Map<string, { json: string; html: string }>();
function documents(origin: string) {
  let found = made.get(origin);
  if (!found) {
    const doc = openApiDocument(ROUTES, origin);
    found = { json: JSON.stringify(doc), html: referencePage(doc) };
    made.set(origin, found);
  }
  return found;
}

const send = (res: ServerResponse, type: string, body: string, headers: Record<string, string> = {}) =>
  void res.writeHead(200, { 'content-type': type, 'cache-control': 'no-cache', 'x-content-type-options': 'nosniff', ...headers }).end(body);

/** GET /api/v1/openapi.json: any client may read it, with or without a key. */
export const openapi: Handler = async ({ res, service }) => {
  send(res, 'application/json; charset=utf-8', documents(service.origin()).json, { 'access-control-allow-origin': '*' });
  return undefined;
};

/** GET /api/v1/reference: the same as a page, with no script. */
export const reference: Handler = async ({ res, service }) => {
  send(res, 'text/html; charset=utf-8', documents(service.origin()).html, {
    'content-security-policy': `default-src 'none'; style-src '${STYLE_HASH}'; frame-ancestors 'none'; base-uri 'none'`,
    'referrer-policy': 'strict-origin-when-cross-origin',
  });
  return undefined;
};
